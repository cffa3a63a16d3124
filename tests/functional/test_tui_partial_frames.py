"""A key's frame draws only the panes it changed (tui/textual_compat.py, crop_frames):
the terminal, which gets only those partial updates, must still show what a full redraw
of the screen shows, and the lists' kept line styles must follow the focus."""

from __future__ import annotations

import asyncio
from pathlib import Path

from helpers import run, settle
from rich.style import Style
from textual import events
from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate
from textual.pilot import Pilot
from textual.strip import Strip
from topiclens.text import char_cells
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.textual_compat import frames_cropped
from topiclens.tui.theme import LIGHT

Cells = list[list[tuple[str, Style | None]]]


def paint(screen: Cells, x: int, y: int, strip: Strip) -> None:
    """Write ``strip`` into ``screen`` from cell (x, y), as a terminal would."""
    row = screen[y]
    for segment in strip:
        text, style = segment.text, segment.style
        for ch in text:
            if x >= len(row):
                return
            row[x] = (ch, style)
            x += 1
            if char_cells(ch) == 2 and x < len(row):
                row[x] = ("", style)  # the right half of a wide character
                x += 1


def apply(screen: Cells, update: object) -> None:
    """Apply one of the compositor's updates to ``screen`` the way Textual writes it to
    the terminal (ChopsUpdate.render_segments: each changed span, cut by cut)."""
    if isinstance(update, LayoutUpdate):
        for y, strip in enumerate(update.strips):
            paint(screen, 0, y, Strip.join(strip))
        return
    assert isinstance(update, ChopsUpdate)
    for y, x1, x2 in update.spans:
        for end, (x, strip) in zip(update.chop_ends[y], update.chops[y].items(), strict=False):
            if strip is None or x > x2 or end <= x1:
                continue
            if not (x2 > x >= x1 and end <= x2):
                strip = strip.crop(0, min(end, x2) - x)
            paint(screen, x, y, strip)


def full(compositor: Compositor, width: int, height: int) -> Cells:
    screen: Cells = [[(" ", None)] * width for _ in range(height)]
    for y, strip in enumerate(compositor.render_strips()):
        paint(screen, 0, y, strip)
    return screen


def text_of(screen: Cells) -> list[str]:
    return ["".join(ch for ch, _ in row) for row in screen]


def test_partial_frames_show_what_a_full_redraw_shows(reader_store: Path) -> None:
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert frames_cropped(s)
        compositor = s._compositor
        width, height = s.size
        terminal = full(compositor, width, height)  # what the terminal has now
        original = compositor.render_update
        partial: list[ChopsUpdate] = []

        def recorded(*args: object, **kwargs: object) -> object:
            update = original(*args, **kwargs)  # type: ignore[arg-type]
            if update is not None:
                apply(terminal, update)
            if isinstance(update, ChopsUpdate):
                partial.append(update)
            return update

        compositor.render_update = recorded  # type: ignore[method-assign]
        # topic switches, cursor moves that scroll the list, pages, the ends, the panes'
        # focus (the cursor's colours), the entry scrolled, back to the topics
        keys = ["j", "j", "k", "l", *["j"] * 14, "pagedown", "G", "g", "tab", "j", "j"]
        keys += ["pagedown", "shift+tab", "shift+tab", "j", "k"]
        # a bookmark and a read mark (their toasts over the panes), the entry maximised
        keys += ["l", "b", "j", "r", "j", "v", "j", "escape", "j"]
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
            s._on_timer_update()  # the frame for what the key changed, now
            expected = full(compositor, width, height)
            assert text_of(terminal) == text_of(expected), f"after {key!r}"
            assert terminal == expected, f"after {key!r}: the same text in other styles"
        assert len(partial) >= len(keys)  # (partial updates were checked, not full ones)

    run(reader_store, scenario)


def test_kept_line_styles_follow_the_focus(reader_store: Path) -> None:
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        lists = [s.topic_list, s.entry_list, s.similar_list]

        async def drawn_as_styled() -> None:
            await settle(pilot)
            s._on_timer_update()
            for widget in lists:
                widget.render_lines(widget.size.region)  # (a list outside the frame)
                assert widget._styles == widget.line_styles(), type(widget).__name__
            pane = s.detail_pane
            pane.render_lines(pane.size.region)
            assert pane._styles[""] == pane.rich_style

        await drawn_as_styled()
        focused_cursor = s.topic_list._styles["-cursor"]
        for key in ("l", "tab", "tab", "shift+tab", "shift+tab", "h"):
            await pilot.press(key)
            await drawn_as_styled()
        await pilot.press("l")
        await drawn_as_styled()
        # the topic list lost the focus: its cursor is drawn in the blurred colours
        assert s.topic_list._styles["-cursor"] != focused_cursor
        dark = s.entry_list._styles[""]
        app.theme = LIGHT
        await drawn_as_styled()
        assert s.entry_list._styles[""] != dark

    run(reader_store, scenario)


def test_a_key_that_changes_several_panes_reaches_the_terminal_in_one_frame(
    reader_store: Path,
) -> None:
    """A topic switch (the topic list's cursor, the entries, the entry, the similar
    entries) and a cursor move in the entries (the list's cursor, the entry) are one frame:
    with nothing forcing frames, as in a terminal, the first update after the key already
    shows everything the key changed (it was two frames, the second a frame period later)."""

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        compositor = s._compositor
        width, height = s.size
        terminal = full(compositor, width, height)
        updates: list[object] = []
        original = compositor.render_update

        def recorded(*args: object, **kwargs: object) -> object:
            update = original(*args, **kwargs)  # type: ignore[arg-type]
            if update is not None:
                updates.append(update)
            return update

        compositor.render_update = recorded  # type: ignore[method-assign]
        s.topic_list.focus()
        await settle(pilot)
        s._on_timer_update()
        terminal = full(compositor, width, height)
        # the next topic (first visit), back (from memory), into the entries, down, a page
        for key in ("j", "k", "l", "j", "pagedown", "h", "j"):
            del updates[:]
            app._driver.send_message(events.Key(key, key if len(key) == 1 else None))  # type: ignore[union-attr]
            await settle(pilot)
            await asyncio.sleep(0.2)  # the screen's own frames, at its own pace
            if not updates:
                continue  # (the focus moved: nothing to draw)
            first = [row[:] for row in terminal]
            apply(first, updates[0])
            for update in updates:
                apply(terminal, update)
            expected = full(compositor, width, height)
            assert text_of(terminal) == text_of(expected), f"after {key!r}"
            assert text_of(first) == text_of(expected), f"{key!r}: the first frame lacks a pane"

    run(reader_store, scenario)
