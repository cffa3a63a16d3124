"""Export the bookmarks: a format, a path, a confirmation before overwriting."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet
from topiclens.store import Store

from ..display import literal, terminal_line
from . import DIALOG_CSS
from .confirm import ConfirmScreen


class ExportScreen(ModalScreen[Path | None]):
    """Export the bookmarks: a format, a path, a confirmation before overwriting."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="export-cancel")
    ]

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        from topiclens.store.export import FORMATS, default_filename

        self.formats = FORMATS
        self.fmt = FORMATS[0].name
        self.default_filename = default_filename

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="export-dialog") as dialog:
            dialog.border_title = "Export bookmarks"
            with RadioSet(id="export-format"):
                for f in self.formats:
                    yield RadioButton(
                        f.label, value=f.name == self.fmt, name=f.name, id=f"fmt-{f.name}"
                    )
            yield Input(self.default_filename(self.fmt), id="export-path")
            yield Label("", id="export-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Export", id="export-go", variant="primary")
                yield Button("Cancel", id="export-cancel")
            yield Label(
                "Enter in the path exports · a relative path is in the current directory",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(RadioSet.Changed)
    def _format(self, event: RadioSet.Changed) -> None:
        new = event.pressed.name or self.fmt
        path = self.query_one("#export-path", Input)
        if path.value == self.default_filename(self.fmt):
            path.value = self.default_filename(new)
        self.fmt = new

    @on(Button.Pressed, "#export-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#export-go")
    @on(Input.Submitted, "#export-path")
    def export(self) -> None:
        raw = self.query_one("#export-path", Input).value.strip()
        if not raw:
            self._error("Give a path to write to.")
            return
        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        if path.exists():

            def answer(yes: bool | None) -> None:
                if yes:
                    self._write(path, force=True)

            self.app.push_screen(ConfirmScreen(f"{path} exists. Overwrite it?"), answer)
        else:
            self._write(path, force=False)

    def _write(self, path: Path, *, force: bool) -> None:
        from topiclens.store.export import ExportError, export_bookmarks

        try:
            written = export_bookmarks(self.store, self.fmt, path, force=force)
        except ExportError as exc:
            self._error(str(exc))
            return
        self.app.notify(
            terminal_line(f"Bookmarks written to {written}"), title="Exported", markup=False
        )
        self.dismiss(written)

    def _error(self, message: str) -> None:
        self.query_one("#export-error", Label).update(literal(message))
