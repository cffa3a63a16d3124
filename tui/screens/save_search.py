"""Ask the name a search is saved under."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label
from topiclens.store.bounds import BoundError
from topiclens.store.saved import checked

from ..display import cut_line, literal, terminal_line
from .styles import DIALOG_CSS
from .topic_name import sentence


class SaveSearchScreen(ModalScreen[str | None]):
    """A name for the search ``query`` (the query itself by default): Enter saves it
    (a saved search of that name is replaced), Escape cancels. Dismisses with the name."""

    CSS_PATH = DIALOG_CSS
    DEFAULT_CSS = """
    SaveSearchScreen { align: center middle; background: $background 60%; }
    SaveSearchScreen #save-search-error { width: 1fr; color: $error; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="save-search-cancel")
    ]

    def __init__(self, query: str, taken: frozenset[str] = frozenset()) -> None:
        """``taken``: the names saved already (saving under one replaces its query)."""
        super().__init__()
        self.query_text = query
        self.taken = taken

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "Save search"
            shown = cut_line(self.query_text, 300)  # a query is bounded, still
            yield Label(literal(f"/{shown}"), classes="dialog-subject")
            yield Input(
                terminal_line(self.query_text), placeholder="its name", id="save-search-name"
            )
            yield Label("", id="save-search-error")
            yield Label(
                "Listed above the topics with its unread entries · Enter saves · Escape cancels",
                classes="dialog-hint",
            )

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        taken = event.value.strip() in self.taken
        self._say("A saved search of that name is replaced." if taken else "")

    @on(Input.Submitted)
    def _save(self, event: Input.Submitted) -> None:
        try:
            name, _ = checked(event.value, self.query_text)
        except BoundError as exc:  # the store's own rule for a name and a query
            self._say(sentence(str(exc)))
            return
        self.dismiss(name)

    def _say(self, text: str) -> None:
        self.query_one("#save-search-error", Label).update(literal(text))

    def action_cancel(self) -> None:
        self.dismiss(None)
