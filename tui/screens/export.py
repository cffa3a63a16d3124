"""Export the bookmarks: a format, a path, a confirmation before overwriting. The dialog
closes with the path written (None: nothing was), and the main screen says so."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet
from topiclens.store import Store

from ..display import literal, terminal_line
from ..workers import DIALOG
from .choices import ChoiceSet
from .confirm import ConfirmScreen
from .styles import DIALOG_CSS

# store meta keys: the last export's format and path, offered the next time
LAST_FORMAT = "reader.export_format"
LAST_PATH = "reader.export_path"


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
        self.default_filename = default_filename
        # the last export's format and path, kept in the store between opens and starts
        last = store.get_meta(LAST_FORMAT)
        self.fmt = last if any(f.name == last for f in FORMATS) else FORMATS[0].name
        self.last_path = store.get_meta(LAST_PATH) or ""

    def format_of(self, path: str) -> str | None:
        """The format whose extension ends ``path`` (any case), None when none does."""
        suffix = Path(path.strip()).suffix.lower()
        return next((f.name for f in self.formats if f.extension == suffix), None)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="export-dialog") as dialog:
            dialog.border_title = "Export bookmarks"
            with ChoiceSet(id="export-format"):
                for f in self.formats:
                    yield RadioButton(
                        f.label, value=f.name == self.fmt, name=f.name, id=f"fmt-{f.name}"
                    )
            # the last path comes from the store: shown through the terminal gate, as
            # every stored text is (an escape in it would reach the terminal raw)
            offered = terminal_line(self.last_path) or self.default_filename(self.fmt)
            yield Input(offered, id="export-path")
            yield Label("", id="export-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Export", id="export-go", variant="primary")
                yield Button("Cancel", id="export-cancel")
            yield Label(
                "j/k choose the format, Enter takes it · Enter in the path exports · "
                "a relative path is in the current directory",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        # the format first: it is the choice made first (the path follows it)
        self.query_one("#export-format", RadioSet).focus()

    @on(RadioSet.Changed)
    def _format(self, event: RadioSet.Changed) -> None:
        new = event.pressed.name or self.fmt
        if new == self.fmt:
            return
        path = self.query_one("#export-path", Input)
        if path.value == self.default_filename(self.fmt):
            path.value = self.default_filename(new)
        elif self.format_of(path.value) is not None:
            # a path naming another format's extension: give it the chosen one
            path.value = str(Path(path.value).with_suffix(self._extension(new)))
        self.fmt = new

    @on(Input.Changed, "#export-path")
    def _path(self, event: Input.Changed) -> None:
        named = self.format_of(event.value)
        if named is not None and named != self.fmt:
            self.fmt = named  # the radio set follows the extension typed
            self.query_one(f"#fmt-{named}", RadioButton).value = True

    def _extension(self, fmt: str) -> str:
        return next(f.extension for f in self.formats if f.name == fmt)

    @on(Button.Pressed, "#export-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#export-go")
    @on(Input.Submitted, "#export-path")
    @work(group=DIALOG, exclusive=True)
    async def export(self) -> None:
        """Write the bookmarks to the path given (asking first before overwriting a file);
        the dialog closes with the path written."""
        raw = self.query_one("#export-path", Input).value.strip()
        if not raw:
            self._error("Give a path to write to.")
            return
        from topiclens.store.export import ExportError, ExportExists, check_target

        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        self.fmt = self.format_of(raw) or self.fmt
        if raw.endswith("/"):
            self._error(f"{path}: is a directory; name a file to write")
            return
        force = False
        try:
            check_target(path)
        except ExportExists:  # only a regular file is offered for overwriting
            question = ConfirmScreen(f"{path} exists. Overwrite it?")
            if not await self.app.push_screen_wait(question):
                return
            force = True
        except ExportError as exc:  # a directory, a device, a missing folder
            self._error(str(exc))
            return
        self._write(path, force=force)

    def _write(self, path: Path, *, force: bool) -> None:
        from topiclens.store.export import ExportError, export_bookmarks

        try:
            written = export_bookmarks(self.store, self.fmt, path, force=force)
        except ExportError as exc:
            self._error(str(exc))
            return
        self.store.set_meta(LAST_FORMAT, self.fmt)
        self.store.set_meta(LAST_PATH, str(written))
        self.dismiss(written)

    def _error(self, message: str) -> None:
        self.query_one("#export-error", Label).update(literal(message))
