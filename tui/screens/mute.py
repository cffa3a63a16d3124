"""Mute what an entry comes from or says: its source, its feed, or words."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option
from topiclens.store.mute import checked

from ..display import cut_line, terminal_line
from .choices import ChoiceList
from .line_dialog import LineDialog

# (kind, value): what the dialog answers, the kinds of store/mute.py
MuteChoice = tuple[str, str]
SHOWN_CELLS = 300  # of a title or a source: however long the stored text, one frame


class MuteScreen(LineDialog[MuteChoice]):
    """Mute the entry's source or feed (chosen from a list that moves as the reader's
    lists do, Enter), or the words typed below it (the words selected on the screen, if
    any, to start with). Escape cancels."""

    DEFAULT_CSS = """
    MuteScreen #mute-choices { height: auto; max-height: 6; margin-bottom: 1; }
    """
    INPUT_ID = "mute-words"
    ERROR_ID = "mute-error"
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
        super().__init__(
            "Mute",
            cut_line(title, SHOWN_CELLS),
            words,
            placeholder="or words: every one in a title or summary mutes it",
            hint="Muted entries leave the lists and counts; / still finds them · "
            "Enter mutes · Escape cancels",
        )
        self.choices: list[MuteChoice] = []
        self.labels: list[str] = []
        if source.strip():
            self.choices.append(("source", source))
            self.labels.append(f"Its source: {cut_line(source, SHOWN_CELLS)}")
        if feed is not None:
            self.choices.append(("feed", str(feed[0])))
            self.labels.append(f"Its feed: {cut_line(feed[1], SHOWN_CELLS)}")

    def compose_above(self) -> ComposeResult:
        if self.choices:
            yield ChoiceList(
                *(Option(Content(terminal_line(label))) for label in self.labels),
                id="mute-choices",
            )

    def on_mount(self) -> None:
        # the first choice a user makes: the source when there is one, else the words
        if self.choices and not self.value:
            choices = self.query_one("#mute-choices", OptionList)
            choices.highlighted = 0
            choices.focus()
        else:
            self.query_one("#mute-words", Input).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[event.option_index])

    def accept(self, value: str) -> MuteChoice:
        checked("words", value)  # the store's own rule for a rule's words
        return ("words", value)
