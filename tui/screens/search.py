"""Ask what to search for."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from ..display import literal, terminal_line
from .styles import DIALOG_CSS


class SearchScreen(ModalScreen[str | None]):
    """Ask what to search for: words in titles, summaries and comments, or concepts
    (``clustering.search``: 投机解码 also finds speculative decoding)."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="search-cancel")
    ]

    def __init__(self, query: str) -> None:
        super().__init__()
        self.query_text = query

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "Search"
            yield Input(
                terminal_line(self.query_text),
                placeholder="words, Chinese or English",
                id="search-input",
            )
            yield Label("", id="search-error")
            yield Label(
                "Words or concepts, either language · Enter searches · empty clears · "
                "Escape cancels",
                classes="dialog-hint",
            )

    @on(Input.Submitted)
    def _search(self, event: Input.Submitted) -> None:
        from topiclens.store.bounds import BoundError, check_query

        try:
            check_query(event.value)
        except BoundError as exc:  # the dialog stays open: the query can be shortened
            error = str(exc)
            label = self.query_one("#search-error", Label)
            label.update(literal(error[:1].upper() + error[1:]))
            label.display = True
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
