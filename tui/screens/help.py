"""Every key, with what it does, and where the keymap file lives."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from ..commands import BY_SECTION, Command
from ..display import terminal_line
from ..keymap import keymap_path
from ..widgets.topic_list import TOPIC_ROW_HELP
from ..wrap import wrap_cells
from .styles import DIALOG_CSS


def keys_for(screen: Screen[object], command: Command) -> str:
    """The keys that run ``command`` now, after the user's keymap, as the footer shows them."""
    keymap: dict[str, str] = getattr(screen.app, "keymap", {})
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
            yield Static(id="help-text")

    def on_mount(self) -> None:
        self.call_after_refresh(self.on_resize)

    def on_resize(self) -> None:
        """The rows are wrapped to the dialog's width, known once it is laid out."""
        width = self.query_one("#help-dialog").scrollable_content_region.width
        if width > 0:
            self.query_one("#help-text", Static).update(self._text(width))

    def _text(self, width: int) -> Content:
        parts: list[Content] = []
        indent = 19  # two spaces, the keys in 16 cells, a space
        for title, commands in BY_SECTION.items():
            parts.append(Content.from_markup("[b $secondary]$t[/]", t=title))
            for c in commands:
                keys = terminal_line(keys_for(self, c))
                # the description wraps under itself, not under the keys
                lines = wrap_cells(f"{c.help} ({c.id})", max(20, width - indent))
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
        legend = wrap_cells(TOPIC_ROW_HELP, max(20, width - indent))  # the topic row's numbers
        parts.append(Content.from_markup("  [b $accent]topic rows[/]       $line", line=legend[0]))
        parts += [Content(" " * indent + line) for line in legend[1:]]
        parts.append(Content(""))
        parts.append(
            Content.from_markup(
                "[b $secondary]Your keys[/]\n  Remap any key in [b]$path[/]\n"
                '  one line per binding id, e.g. [$accent]toggle-bookmark = "x"[/] or '
                '[$accent]cursor-down = "down,ctrl+n"[/]',
                path=terminal_line(str(getattr(self.app, "keymap_file", None) or keymap_path())),
            )
        )
        problems: list[str] = getattr(self.app, "keymap_problems", [])
        if problems:  # plain Content: the file's text is never read as markup
            parts.append(Content(""))
            parts.append(Content.from_markup("[b $warning]Problems in your keymap[/]"))
            for problem in problems:
                lines = wrap_cells(terminal_line(problem), max(20, width - 4))
                parts += [Content("  " + line) for line in lines]
        return Content("\n").join(parts)

    def action_close(self) -> None:
        self.dismiss(None)
