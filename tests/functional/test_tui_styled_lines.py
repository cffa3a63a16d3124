"""The panes' content rows are finished (border, padding, background, filters) by the
reader itself (tui/textual_compat.py, styled_lines), not by Textual's styles cache: every
row must be what Textual makes of it, in every look a pane takes."""

from __future__ import annotations

from pathlib import Path

from helpers import run, settle
from textual.geometry import Region
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widget import Widget
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.textual_compat import styled_lines
from topiclens.tui.theme import LIGHT

Lines = list[list[tuple[str, object, object]]]


def segments(strips: list[Strip]) -> Lines:
    return [[(seg.text, seg.style, seg.control) for seg in strip] for strip in strips]


def compare_panes(s: MainScreen) -> int:
    """Each pane's rows made by styled_lines and by Textual, compared; how many content
    rows styled_lines made itself."""
    made = 0
    for pane in (s.topic_list, s.entry_list, s.detail_pane, s.similar_list):
        region = pane.region.reset_offset  # the whole pane, border included
        if not region:
            continue
        textual_rows: list[Region] = []

        def textual(
            crop: Region, pane: Widget = pane, rows: list[Region] = textual_rows
        ) -> list[Strip]:
            rows.append(crop)
            pane._styles_cache.clear()  # drawn from nothing
            return Widget.render_lines(pane, crop)

        ours = styled_lines(pane, region, textual)
        made += region.height - sum(crop.height for crop in textual_rows)
        pane._styles_cache.clear()
        assert segments(ours) == segments(Widget.render_lines(pane, region)), pane.id
        # a few rows from the middle, as a partial update asks for them
        middle = Region(0, 2, region.width, region.height - 4)
        if middle.height > 0:
            pane._styles_cache.clear()
            expected = segments(Widget.render_lines(pane, middle))
            assert segments(styled_lines(pane, middle, textual)) == expected, pane.id
    return made


def test_content_rows_are_what_textual_makes_of_them(reader_store: Path) -> None:
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        made = 0
        for keys in ((), ("l",), ("l", "j", "j"), ("tab",), ("tab",), ("h", "h", "j")):
            for key in keys:
                await pilot.press(key)
            await settle(pilot)
            made += compare_panes(s)
        app.theme = LIGHT
        await settle(pilot)
        made += compare_panes(s)
        await pilot.press("l", "v")  # the entry maximised
        await settle(pilot)
        made += compare_panes(s)
        await pilot.press("escape")
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        made += compare_panes(s)
        assert made > 100  # the rows compared were made by styled_lines, not Textual

    run(reader_store, scenario)


def test_a_panes_row_style_is_worked_out_once_a_look(reader_store: Path) -> None:
    """A pane's border sides, background and filters (RowStyle) are worked out when its
    look or frame changes, not at every frame: topics switched to draw new rows with the
    row style kept, and another theme works it out again (the rows then in its colours:
    what Textual makes of them)."""
    import topiclens.tui.widgets.line_cache as line_cache
    from topiclens.tui.textual_compat import RowStyle

    made: list[str | None] = []

    class Counted(RowStyle):
        def __init__(self, widget: Widget) -> None:
            made.append(widget.id)
            super().__init__(widget)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        line_cache.RowStyle = Counted  # type: ignore[misc]
        try:
            s.topic_list.focus()
            await pilot.press("j")
            await settle(pilot)
            s._on_timer_update()
            del made[:]
            for key in ("j", "j", "k", "j"):
                await pilot.press(key)
                await settle(pilot)
                s._on_timer_update()
            assert made == []  # new rows, the same look: the row style kept
            app.theme = LIGHT
            await settle(pilot)
            s._on_timer_update()
            assert "entries" in made and "detail" in made
            compare_panes(s)
        finally:
            line_cache.RowStyle = RowStyle  # type: ignore[misc]

    run(reader_store, scenario)
