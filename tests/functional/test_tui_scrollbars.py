"""The entry list's and the entry pane's scrollbars are always placed: a topic or an entry
that comes to need one, or no longer does, repaints its pane and lays nothing out (a
layout of the whole screen cost a topic switch several milliseconds)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run, settle
from rich.style import Style
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen


def bar_drawing(view: Widget) -> str:
    """How ``view``'s vertical scrollbar is drawn now: "thumb" (a reversed cell, Textual's
    thumb), "gutter" (blank, in the view's own background) or "other"."""
    bar = view.vertical_scrollbar
    lines = bar.render_lines(Region(0, 0, bar.region.width, bar.region.height))
    segments = [seg for line in lines for seg in line]
    if any(seg.style is not None and seg.style.reverse for seg in segments):
        return "thumb"
    base, background = view.background_colors
    gutter = Style(bgcolor=(base + background).rich_color)
    if all(seg.text.isspace() and seg.style == gutter for seg in segments):
        return "gutter"
    return "other"


def test_moving_between_views_that_scroll_and_views_that_fit_lays_nothing_out(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layouts: list[str] = []
    layout = Screen._refresh_layout

    def laid_out(self: Screen[object], *args: object, **kwargs: object) -> None:
        layouts.append("layout")
        layout(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Screen, "_refresh_layout", laid_out)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        entries, detail = s.entry_list, s.detail_pane
        seen: dict[str, set[str]] = {"entries": set(), "detail": set()}
        layouts.clear()
        for _ in range(len(s.topics) - 1):  # every topic, from the first down
            await pilot.press("j")
            await settle(pilot)
            scrolls = len(entries.rows) > entries.scrollable_content_region.height
            drawn = bar_drawing(entries)
            assert drawn == ("thumb" if scrolls else "gutter"), s.state.view
            seen["entries"].add(drawn)
        assert layouts == []
        await pilot.press("l")  # the entries of the last topic, entry by entry
        await settle(pilot)
        layouts.clear()  # (the focus moved: Textual restyles the list and lays it out)
        for _ in range(len(entries.rows) - 1):
            await pilot.press("j")
            await settle(pilot)
            drawn = bar_drawing(detail)
            assert drawn == ("thumb" if detail.max_scroll_y else "gutter")
            seen["detail"].add(drawn)
        # both kinds met in both panes: the walk crossed between them
        assert seen == {"entries": {"thumb", "gutter"}, "detail": {"thumb", "gutter"}}
        assert layouts == []

    run(reader_store, scenario, size=(120, 40))
