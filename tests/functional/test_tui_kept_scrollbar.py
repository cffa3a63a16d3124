"""A pane's scrollbar is drawn from its kept lines, a whole bar by its thumb or a bar of a
new thumb line by line (tui/widgets/line_cache.py, KeptScrollBar): each frame must be
what Textual's own scrollbar draws for the same thumb, colours and frame."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run, settle
from textual.geometry import Region, Size
from textual.pilot import Pilot
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.textual_compat import set_virtual_size
from topiclens.tui.theme import LIGHT
from topiclens.tui.widgets.line_cache import KeptScrollBar

Lines = list[list[tuple[str, object]]]


def lines_of(bar: ScrollBar, *, textual: bool) -> Lines:
    """The bar's whole lines, from its kept lines or as Textual draws them."""
    region = bar.size.region
    strips = ScrollBar.render_lines(bar, region) if textual else bar.render_lines(region)
    return [[(seg.text, seg.style) for seg in strip] for strip in strips]


def test_a_scrollbar_of_a_new_thumb_is_what_textual_draws(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[Widget] = []  # widgets Textual drew lines of
    original = Widget.render_lines

    def counted(self: Widget, crop: Region) -> list[Strip]:
        drawn.append(self)
        return original(self, crop)

    monkeypatch.setattr(Widget, "render_lines", counted)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        pane = s.detail_pane
        bar = pane.vertical_scrollbar
        assert isinstance(bar, KeptScrollBar)
        height = pane.scrollable_content_region.height
        assert height > 4
        bar.display = True
        await settle(pilot)
        width = pane.scrollable_content_region.width
        made_of_lines = 0
        for theme in (None, LIGHT):
            if theme is not None:
                app.theme = theme  # other colours: no line kept before may be reused
                await settle(pilot)
            # thumbs of every length, at the top, the middle and the end
            for lines in [*range(height + 1, height * 8, 3), 40 * height]:
                set_virtual_size(pane, Size(width, lines))
                for top in (0, (lines - height) // 2, lines - height):
                    pane.scroll_to(y=top, animate=False, immediate=True)
                    new = bar_key(bar) not in bar._kept
                    del drawn[:]
                    await pilot.pause()
                    s._on_timer_update()  # the frame, with the bar of this thumb
                    drawn_now = bar in drawn or bar_key(bar) not in bar._kept
                    made_of_lines += new and not drawn_now  # a new thumb, made of lines
                    kept = lines_of(bar, textual=False)
                    assert kept == lines_of(bar, textual=True), (theme, lines, top)
                    assert lines_of(bar, textual=False) == kept  # and again, as a whole
        assert made_of_lines  # thumbs new as a whole, made of lines kept for others

    run(reader_store, scenario)


def bar_key(bar: KeptScrollBar) -> object:
    """The key the bar's whole lines are kept under (as KeptScrollBar.render_lines makes it)."""
    r = bar.render()
    assert isinstance(r, ScrollBarRender)
    frame = (r.style, bar.background_colors, tuple(bar.get_line_filters()))
    geometry = (r.virtual_size, r.window_size, r.position, r.thickness, r.vertical)
    return (bar.size.region, bar.region.size, *geometry, *frame)
