"""Mute what an entry comes from or says: its source, its feed, or words."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option
from topiclens.store.bounds import BoundError
from topiclens.store.mute import checked

from ..display import cut_line, literal, terminal_line
from .choices import ChoiceList
from .styles import DIALOG_CSS
from .topic_name import sentence

# (kind, value): what the dialog answers, the kinds of store/mute.py
MuteChoice = tuple[str, str]
SHOWN_CELLS = 300  # of a title or a source: however long the stored text, one frame


class MuteScreen(ModalScreen[MuteChoice | None]):
    """Mute the entry's source or feed (chosen from a list that moves as the reader's
    lists do, Enter), or the words typed below it (the words selected on the screen, if
    any, to start with). Escape cancels."""

    CSS_PATH = DIALOG_CSS
    DEFAULT_CSS = """
    MuteScreen { align: center middle; background: $background 60%; }
    MuteScreen #mute-choices { height: auto; max-height: 6; margin-bottom: 1; }
    MuteScreen #mute-error { width: 1fr; color: $error; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="mute-cancel")
    ]

    def __init__(
        self,
        title: str,
        source: str,
        feed: tuple[int, str] | None = None,
        words: str = "",
    ) -> None:
        """``title``: the entry's; ``feed``: its feed's id and name, when it has one."""
        super().__init__()
        self.entry_title = cut_line(title, SHOWN_CELLS)
        self.choices: list[MuteChoice] = []
        self.labels: list[str] = []
        if source.strip():
            self.choices.append(("source", source))
            self.labels.append(f"Its source: {cut_line(source, SHOWN_CELLS)}")
        if feed is not None:
            self.choices.append(("feed", str(feed[0])))
            self.labels.append(f"Its feed: {cut_line(feed[1], SHOWN_CELLS)}")
        self.words = words

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "Mute"
            yield Label(literal(self.entry_title), classes="dialog-subject")
            if self.choices:
                yield ChoiceList(
                    *(Option(Content(terminal_line(label))) for label in self.labels),
                    id="mute-choices",
                )
            yield Input(
                terminal_line(self.words),
                placeholder="or words: every one in a title or summary mutes it",
                id="mute-words",
            )
            yield Label("", id="mute-error")
            yield Label(
                "Muted entries leave the lists and counts; / still finds them · "
                "Enter mutes · Escape cancels",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        # the first choice a user makes: the source when there is one, else the words
        if self.choices and not self.words:
            choices = self.query_one("#mute-choices", OptionList)
            choices.highlighted = 0
            choices.focus()
        else:
            self.query_one("#mute-words", Input).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[event.option_index])

    @on(Input.Submitted)
    def _words(self, event: Input.Submitted) -> None:
        try:
            checked("words", event.value)
        except BoundError as exc:  # the store's own rule for a rule's words
            self.query_one("#mute-error", Label).update(literal(sentence(str(exc))))
            return
        self.dismiss(("words", event.value))

    def action_cancel(self) -> None:
        self.dismiss(None)
