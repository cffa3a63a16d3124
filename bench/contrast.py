"""WCAG contrast of every text the reader draws, in each of its themes.

Runs the real app headless (its own CSS and themes) on a store, visits every state that
draws text (each pane focused in turn, the overview, help, each dialog, toasts, the
progress line) and measures two things there:

- every named style of the lists and the detail pane (``line_styles()``: plain, muted,
  bold, each on the cursor's line, focused and not), whether or not a row uses it now;
- every segment of text the other widgets render (borders' titles, footer, dialogs,
  toasts), from the strips they draw. Dim text is Textual's mark of an inactive control
  (a disabled key in the footer), which WCAG exempts: it is left out.

A pair fails under 4.5:1 (WCAG AA for text; bold headings get no discount here). Box
drawing and block characters (borders, scrollbars, separators) are not text and are left
out. Exit status 1 when any pair fails.

    python bench/contrast.py                        # every theme, a fresh bundled store
    python bench/contrast.py --theme topiclens-light --data-dir ~/.local/share/topiclens
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rich.color import Color as RichColor
from rich.color import ColorSystem
from rich.style import Style
from textual.app import App
from textual.color import Color
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets._toggle_button import ToggleButton
from topiclens.store import Store
from topiclens.tui.app import TopicLensApp
from topiclens.tui.theme import THEMES
from topiclens.tui.widgets import CursorList, DetailPane
from topiclens.tui.workers import DIALOG

AA = 4.5
CURSOR = 3.0  # WCAG 1.4.11: a state shown by colour alone, against what is next to it
SIZE = (120, 34)


@dataclass(frozen=True)
class Pair:
    """A text colour on its background (or a cursor's background on its list's, with
    ``minimum`` 3), where it was drawn, with a sample of the text."""

    where: str
    sample: str
    fg: Color
    bg: Color
    minimum: float = AA
    state: str = ""  # what the reader showed (for the styles of widgets on every screen)

    @property
    def ratio(self) -> float:
        return contrast(self.fg, self.bg)

    @property
    def ratio_256(self) -> float:
        """The ratio in a terminal of 256 colours, where Rich draws the nearest ones."""
        return contrast(xterm_256(self.fg), xterm_256(self.bg))

    @property
    def ok(self) -> bool:
        return min(self.ratio, self.ratio_256) >= self.minimum


def luminance(color: Color) -> float:
    """WCAG 2 relative luminance of an opaque colour."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(fg: Color, bg: Color) -> float:
    """WCAG 2 contrast ratio, 1 to 21; ``fg`` is blended over ``bg`` first if translucent."""
    fg = bg + fg if fg.a < 1 else fg
    high, low = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def xterm_256(color: Color) -> Color:
    """The colour Rich draws for ``color`` in a terminal of 256 colours."""
    rgb = RichColor.from_rgb(color.r, color.g, color.b).downgrade(ColorSystem.EIGHT_BIT)
    true = rgb.get_truecolor()
    return Color(true.red, true.green, true.blue)


def style_pair(style: Style, default_fg: Color, default_bg: Color) -> tuple[Color, Color]:
    """The colours a Rich style puts on the terminal (reverse swaps them)."""
    fg = Color.from_rich_color(style.color) if style.color else default_fg
    bg = Color.from_rich_color(style.bgcolor) if style.bgcolor else default_bg
    return (bg, fg) if style.reverse else (fg, bg)


def is_text(text: str) -> bool:
    """Anything but spaces, box drawing and block elements (U+2500 to U+259F)."""
    return any(not ch.isspace() and not 0x2500 <= ord(ch) <= 0x259F for ch in text)


def widget_name(widget: Widget) -> str:
    if widget.id:
        return f"#{widget.id}"
    classes = ".".join(sorted(widget.classes))
    return type(widget).__name__ + (f".{classes}" if classes else "")


def named_styles(widget: Widget) -> list[Pair]:
    """Every named style of a list or the detail pane, used on screen now or not."""
    if isinstance(widget, CursorList):
        styles = widget.line_styles()
    elif isinstance(widget, DetailPane):
        widget.render_lines(Region(0, 0, widget.size.width, 1))  # resolves its styles
        styles = widget._styles
    else:
        return []
    _bg, fg, bg, _ = widget.colors
    focus = "focused" if widget.has_focus else "not focused"
    out = []
    for name, style in styles.items():
        if "separator" in name:
            continue
        text_fg, text_bg = style_pair(style, fg, bg)
        where = f"{widget_name(widget)} {focus} [{name or 'plain'}]"
        out.append(Pair(where, "", text_fg, text_bg))
    if "-cursor" in styles:  # the cursor's line against the others
        _fg, cursor_bg = style_pair(styles["-cursor"], fg, bg)
        _fg, row_bg = style_pair(styles[""], fg, bg)
        where = f"{widget_name(widget)} {focus} [cursor row on rows]"
        out.append(Pair(where, "", cursor_bg, row_bg, CURSOR))
    return out


def drawn(state: str, widget: Widget) -> list[Pair]:
    """Each text colour ``widget`` draws now (its border and title included)."""
    region = widget.region
    if not region.area:
        return []
    _bg, fg, bg, _ = widget.colors
    out: dict[tuple[Color, Color], Pair] = {}
    for strip in widget.render_lines(Region(0, 0, region.width, region.height)):
        for segment in strip:
            text, style = segment.text, segment.style
            if not is_text(text) or style is None or segment.control or style.dim:
                continue
            if isinstance(widget, ToggleButton) and not widget.value and "●" in text:
                continue  # an unchosen radio button's dot is faint on purpose
            text_fg, text_bg = style_pair(style, fg, bg)
            key = (text_fg, text_bg)
            if key not in out:
                sample = text.strip()[:24]
                out[key] = Pair(widget_name(widget), sample, *key, state=state)
    return list(out.values())


def screen_pairs(state: str, app: App[None]) -> list[Pair]:
    pairs: list[Pair] = []
    screen = app.screen
    # not the screen: a dialog's screen draws the reader under it, dimmed, not to be read
    for widget in screen.walk_children(Widget):
        if not widget.display or not widget.visible:
            continue
        # a list's every style, and what it draws now: its border's title too
        pairs += named_styles(widget) + drawn(state, widget)
    return pairs


async def visit(pilot: Pilot[None]) -> list[Pair]:
    """Every state of the reader that draws text, and the pairs each draws."""
    app = pilot.app
    pairs: list[Pair] = []

    async def settle() -> None:
        # a dialog flow's worker waits for the user's answer: only the background work ends
        # (and an empty list would make Textual wait for every worker)
        work = [w for w in app.workers if w.group != DIALOG]
        if work:
            await app.workers.wait_for_complete(work)
        await pilot.pause()
        # the styles of the focus just given, now, even on a loaded machine
        app.stylesheet.update(app.screen)

    async def at(state: str, *keys: str) -> None:
        if keys:
            await pilot.press(*keys)
        await settle()
        pairs.extend(screen_pairs(state, app))

    await at("topics")
    await at("entries", "l", "b", "j")  # a bookmark: the Bookmarks row and the marks show
    await at("detail", "k", "l")
    await at("similar", "l")
    await at("note", "h", "h", "N")
    await at("search", "escape", "slash", "k", "v")
    await at("export", "escape", "e")
    await at("help", "escape", "question_mark")
    await at("overview", "escape", "o")
    await pilot.press("escape")
    from topiclens.tui.screens.confirm import ConfirmScreen

    app.push_screen(ConfirmScreen("Overwrite bookmarks.md?"))
    await at("confirm")
    await pilot.press("escape")
    for severity in ("information", "warning", "error"):
        app.notify(f"{severity.title()} toast.", title=severity.title(), severity=severity)
    await at("toasts")
    app.clear_notifications()
    app.screen.show_progress("Grouping entries", 0.4)  # type: ignore[attr-defined]
    await at("progress")
    return pairs


def measure(data_dir: Path, theme: str) -> list[Pair]:
    """The pairs the reader draws in ``theme`` on the store in ``data_dir``."""

    async def run(data_dir: Path) -> list[Pair]:
        with Store.open_dir(data_dir) as store:
            app = TopicLensApp(
                store, keymap_file=data_dir / "no-keymap.toml", cluster=False, theme=theme
            )
            async with app.run_test(size=SIZE, notifications=True) as pilot:
                return await visit(pilot)

    with tempfile.TemporaryDirectory() as tmp:  # the visit bookmarks an entry: on a copy
        copy = Path(tmp) / "store"
        shutil.copytree(data_dir, copy)
        return asyncio.run(run(copy))


def unique(pairs: list[Pair]) -> list[Pair]:
    """One of each colour pair in each widget (the first state that showed it)."""
    seen: dict[tuple[str, Color, Color], Pair] = {}
    for p in pairs:
        seen.setdefault((p.where, p.fg, p.bg), p)
    return list(seen.values())


def bundled_store(data_dir: Path) -> Path:
    """The bundled corpus, grouped by the real clustering (a few seconds)."""
    from topiclens.clustering.pipeline import cluster_store
    from topiclens.store.importer import import_bundled

    with Store.open_dir(data_dir) as store:
        if not store.count_entries():
            import_bundled(store)
        if not store.topics():
            cluster_store(store)
    return data_dir


def report(theme: str, pairs: list[Pair], *, failing_only: bool = False) -> int:
    """Print the pairs of ``theme``, failing ones flagged; returns how many fail."""
    failing = [p for p in pairs if not p.ok]
    print(f"\n{theme}: {len(pairs)} pairs, {len(failing)} under {AA}:1 (cursor rows: {CURSOR}:1)")
    for p in sorted(pairs, key=lambda p: (p.ratio, p.where)):
        if failing_only and p.ok:
            continue
        flag = "FAIL" if not p.ok else "ok  "
        sample = f"  {p.sample!r}" if p.sample else ""
        ratios = f"{p.ratio:5.2f} {p.ratio_256:5.2f}"
        where = f"{p.state}: {p.where}" if p.state else p.where
        print(f"{flag} {ratios}  {p.fg.hex6} on {p.bg.hex6}  {where}{sample}")
    return len(failing)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--theme", action="append", choices=sorted(THEMES), help="repeatable")
    parser.add_argument("--data-dir", type=Path, help="a store to read (default: a fresh one)")
    parser.add_argument("--failing", action="store_true", help="print only the failing pairs")
    args = parser.parse_args(argv)
    themes = args.theme or sorted(THEMES)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir or bundled_store(Path(tmp))
        failing = sum(
            report(t, unique(measure(data_dir, t)), failing_only=args.failing) for t in themes
        )
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
