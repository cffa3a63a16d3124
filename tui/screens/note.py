"""Write an entry's note: several lines, kept apart from the bookmark flag."""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, TextArea
from topiclens.text import terminal_text as whole_text

from ..display import literal
from ..workers import DIALOG
from .styles import DIALOG_CSS


class NoteScreen(ModalScreen[str | None]):
    """Write an entry's note: Enter starts a new line, ctrl+s (or Save) saves, Escape
    cancels (asking first when the note was changed). Answers the note without its blank
    edges, or None when cancelled."""

    CSS_PATH = DIALOG_CSS
    DEFAULT_CSS = """
    NoteScreen #note-input { height: 8; min-height: 3; width: 1fr; margin-bottom: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="note-cancel"),
        Binding("ctrl+s", "save", "Save", id="note-save", priority=True),
    ]

    def __init__(self, title: str, note: str) -> None:
        super().__init__()
        self.entry_title = title
        self.note = note
        # what the editor starts with: the whole note cleaned for the terminal, never cut
        # as the panes cut stored text (what is saved is what the editor holds)
        self.shown = whole_text(note)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "Note"
            yield Label(literal(self.entry_title), classes="dialog-subject")
            # line breaks kept, control characters out: a TextArea shows text, never markup
            yield TextArea(self.shown, id="note-input", soft_wrap=True, tab_behavior="focus")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", id="note-save", variant="primary")
                yield Button("Cancel", id="note-cancel")
            yield Label(
                "Enter starts a new line · ctrl+s saves · Escape cancels", classes="dialog-hint"
            )

    def on_mount(self) -> None:
        area = self.query_one("#note-input", TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    @on(Button.Pressed, "#note-save")
    def action_save(self) -> None:
        self.dismiss(self.query_one("#note-input", TextArea).text.strip())

    @on(Button.Pressed, "#note-cancel")
    def action_cancel(self) -> None:
        if self.query_one("#note-input", TextArea).text.strip() == self.shown.strip():
            self.dismiss(None)
        else:
            self.ask_discard()

    @work(group=DIALOG)
    async def ask_discard(self) -> None:
        """The note was changed: throw the changes away only when the user says so."""
        from .confirm import ConfirmScreen

        question = "Discard the changes to this note? (n goes back to it)"
        if await self.app.push_screen_wait(ConfirmScreen(question)):
            self.dismiss(None)
