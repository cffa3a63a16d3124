"""Edit a bookmark's note."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from ..display import literal, terminal_line
from . import DIALOG_CSS


class NoteScreen(ModalScreen[str | None]):
    """Edit a bookmark's note: Enter saves, Escape cancels."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="note-cancel")
    ]

    def __init__(self, title: str, note: str) -> None:
        super().__init__()
        self.entry_title = title
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "Note"
            yield Label(literal(self.entry_title), classes="dialog-subject")
            yield Input(
                terminal_line(self.note), placeholder="A note for this bookmark", id="note-input"
            )
            yield Label("Enter saves · Escape cancels", classes="dialog-hint")

    @on(Input.Submitted)
    def _save(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
