"""Screens over the reader: topic overview, help, note, search, export and a confirmation."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    Button,
    Footer,
    Input,
    Label,
    OptionList,
    RadioButton,
    RadioSet,
    Static,
)
from textual.widgets.option_list import Option
from topiclens.store import Store, Topic

from .commands import APP, MAIN, NAVIGATION, Command
from .display import literal, terminal_line
from .keymap import keymap_path
from .widgets import wrap_cells

SPARKS = "▁▂▃▄▅▆▇█"
# their styles load with the first of them, not with the reader's first frame
DIALOG_CSS = Path(__file__).with_name("dialogs.tcss")
BAR_WIDTH = 24
MAX_MONTHS = 36


def months_between(first: str, last: str) -> list[str]:
    """Every 'YYYY-MM' from ``first`` to ``last`` inclusive."""
    y, m = int(first[:4]), int(first[5:7])
    out = []
    while f"{y:04d}-{m:02d}" <= last:
        out.append(f"{y:04d}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def sparkline(counts: list[int]) -> str:
    top = max(counts, default=0)
    if top == 0:
        return " " * len(counts)
    return "".join(
        " " if n == 0 else SPARKS[min(len(SPARKS) - 1, (n * len(SPARKS) - 1) // top)]
        for n in counts
    )


def bucket(counts: list[int], width: int) -> list[int]:
    """Sum ``counts`` into at most ``width`` equal buckets (oldest first)."""
    if len(counts) <= width:
        return counts
    size = -(-len(counts) // width)
    return [sum(counts[i : i + size]) for i in range(0, len(counts), size)]


FIELD_LABEL = 8  # cells for "keywords" and "sources" in the overview


class OverviewScreen(Screen[int | None]):
    """Every topic with its size as a bar, top keywords, sources and entries by month."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,o,q", "close", "Back", id="overview-close"),
        Binding("j", "down", show=False, id="overview-down"),
        Binding("k", "up", show=False, id="overview-up"),
    ]

    def __init__(self, store: Store, topics: list[Topic]) -> None:
        super().__init__()
        self.store = store
        self.topics = topics

    def compose(self) -> ComposeResult:
        yield Label("", id="overview-title")
        yield OptionList(id="overview")
        yield Footer()

    def on_mount(self) -> None:
        sources, months = self.store.topic_profile()
        all_months = sorted({m for per in months.values() for m in per})
        axis = months_between(all_months[0], all_months[-1]) if all_months else []
        biggest = max((t.size for t in self.topics), default=1) or 1
        options = []
        for t in self.topics:
            filled = max(1, round(BAR_WIDTH * t.size / biggest)) if t.size else 0
            per = months.get(t.id, {})
            spark = sparkline(bucket([per.get(m, 0) for m in axis], MAX_MONTHS))
            top_sources = " · ".join(f"{s} {n}" for s, n in sources.get(t.id, [])[:4])
            keywords = ", ".join(k for k, _ in t.keywords[:8])
            top_sources, keywords = terminal_line(top_sources), terminal_line(keywords)
            head = Content.from_markup(
                "[b]$name[/b]\n  [$accent]$bar[/][$text-muted]$rest[/] $size entries",
                name=terminal_line(t.name),
                bar="█" * filled,
                rest="░" * (BAR_WIDTH - filled),
                size=str(t.size),
            )
            tail = Content.from_markup(
                "  [$text-muted]$first[/] [$secondary]$spark[/] [$text-muted]$last[/]",
                first=axis[0] if axis else "",
                spark=spark,
                last=axis[-1] if axis else "",
            )
            prompt = Content("\n").join(
                [
                    head,
                    *self._field("keywords", keywords or "-"),
                    *self._field("sources", top_sources or "-"),
                    tail,
                ]
            )
            options.append(Option(prompt, id=f"topic-{t.id}"))
            options.append(None)
        overview = self.query_one(OptionList)
        overview.set_options(options)
        if options:
            overview.highlighted = 0
        overview.focus()
        span = f"{axis[0]} to {axis[-1]}" if axis else "no dates"
        self.query_one("#overview-title", Label).update(
            Content.from_markup(
                "[b]Topic overview[/b] [$text-muted]· $n topics · entries by month, $span · "
                "Enter jumps to a topic[/]",
                n=str(len(self.topics)),
                span=span,
            )
        )

    def _field(self, label: str, value: str) -> list[Content]:
        """``label`` and ``value``, the value wrapped under itself (not under the label)
        to the list's width: its border, padding and scrollbar take 6 cells."""
        indent = 2 + FIELD_LABEL + 1
        lines = wrap_cells(value, max(20, self.app.size.width - 6 - indent))
        first = Content.from_markup(
            "  [$text-muted]$label[/] $line", label=label.ljust(FIELD_LABEL), line=lines[0]
        )
        return [first, *(Content(" " * indent + line) for line in lines[1:])]

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.dismiss(int(event.option.id.removeprefix("topic-")))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_down(self) -> None:
        self.query_one(OptionList).action_cursor_down()

    def action_up(self) -> None:
        self.query_one(OptionList).action_cursor_up()


def keys_for(screen: Screen[object], command: Command) -> str:
    """The keys that run ``command`` now, after the user's keymap, as the footer shows them."""
    keymap: dict[str, str] = getattr(screen.app, "_keymap", {})
    keys = keymap.get(command.id, command.keys)
    return " ".join(
        screen.app.get_key_display(Binding(key.strip(), command.action)) for key in keys.split(",")
    )


class HelpScreen(ModalScreen[None]):
    """Every key, with what it does, and where the keymap file lives."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,f1,q", "close", "Close", id="help-close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog") as dialog:
            dialog.border_title = "Keys"
            yield Static(self._text(), id="help-text")

    def on_resize(self) -> None:
        self.query_one("#help-text", Static).update(self._text())

    def _width(self) -> int:
        """Cells for a row of the list: the dialog's content width once it is laid out,
        else its CSS width (96, at most the screen) less border, padding and scrollbar."""
        if self.is_mounted:
            laid_out = self.query_one("#help-dialog").scrollable_content_region.width
            if laid_out > 0:
                return laid_out
        return min(96, self.app.size.width) - 6

    def _text(self) -> Content:
        parts: list[Content] = []
        sections = (
            ("Moving", NAVIGATION + MAIN[:4]),
            ("Entries and views", MAIN[4:]),
            ("Everywhere", APP),
        )
        indent = 19  # two spaces, the keys in 16 cells, a space
        for title, commands in sections:
            parts.append(Content.from_markup("[b $secondary]$t[/]", t=title))
            for c in commands:
                keys = terminal_line(keys_for(self, c))
                # the description wraps under itself, not under the keys
                lines = wrap_cells(f"{c.help} ({c.id})", max(20, self._width() - indent))
                first, rest = lines[0], lines[1:]
                parts.append(
                    Content.from_markup(
                        "  [b $accent]$keys[/]$pad $line",
                        keys=keys,
                        pad=" " * max(1, 16 - len(keys)),
                        line=first,
                    )
                )
                parts += [Content(" " * indent + line) for line in rest]
            parts.append(Content(""))
        parts.append(
            Content.from_markup(
                "  [b $accent]tab shift+tab[/]    Next or previous pane\n"
                "  [b $accent]ctrl+p[/]           Command palette: every command, "
                "and “jump to topic”"
            )
        )
        parts.append(Content(""))
        parts.append(
            Content.from_markup(
                "[b $secondary]Your keys[/]\n  Remap any key in [b]$path[/]\n"
                '  one line per binding id, e.g. [$accent]toggle-bookmark = "x"[/] or '
                '[$accent]cursor-down = "down,ctrl+n"[/]',
                path=terminal_line(str(getattr(self.app, "keymap_file", None) or keymap_path())),
            )
        )
        return Content("\n").join(parts)

    def action_close(self) -> None:
        self.dismiss(None)


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


class SearchScreen(ModalScreen[str | None]):
    """Ask what to search for: words in titles, summaries and comments."""

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
            yield Label(
                "Every word must appear · Enter searches · empty clears · Escape cancels",
                classes="dialog-hint",
            )

    @on(Input.Submitted)
    def _search(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    CSS_PATH = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm-yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm-no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "Confirm"
            yield Label(literal(self.question), classes="dialog-subject")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Yes (y)", id="yes", variant="warning")
                yield Button("No (n)", id="no")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


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
        self.fmt = FORMATS[0]
        self.default_filename = default_filename

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="export-dialog") as dialog:
            dialog.border_title = "Export bookmarks"
            with RadioSet(id="export-format"):
                for fmt in self.formats:
                    yield RadioButton(fmt, value=fmt == self.fmt, name=fmt, id=f"fmt-{fmt}")
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
