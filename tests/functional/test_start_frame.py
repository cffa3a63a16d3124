"""What the reader's start does not do (docs/performance.md, start-up): lay the screen
out again for a Resize of the size it has, make the CSS variables of a theme it never
shows; and the styles read only when first needed (the too-small message's) still style
them; a slow job's progress on the footer's line."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from helpers import run, settle
from textual import events
from textual.app import App
from textual.design import ColorSystem
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from topiclens.store import Store
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen


def start_reader(reader_store: Path, app_class: type[TopicLensApp]) -> None:
    """Run ``app_class`` (a reader) headless on ``reader_store`` until it is idle after its
    first frame."""

    async def go() -> None:
        with Store(reader_store) as store:
            app = app_class(store, keymap_file=Path("/nonexistent/keymap.toml"), poll_interval=3600)
            async with app.run_test(size=(120, 34)) as pilot:
                await pilot.pause()

    asyncio.run(go())


def test_the_start_draws_one_frame_and_lays_the_screen_out_once_before_ready(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Textual sent the screen three Resizes of the size it was laid out at, each a layout
    # of the whole screen and a frame
    calls: list[str] = []
    display, layout = App._display, Screen._refresh_layout

    def drawn(self: App[None], screen: Screen[object], renderable: object) -> None:
        calls.append("frame")
        display(self, screen, renderable)  # type: ignore[arg-type]

    def laid_out(self: Screen[object], *args: object, **kwargs: object) -> None:
        calls.append("layout")
        layout(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "_display", drawn)
    monkeypatch.setattr(Screen, "_refresh_layout", laid_out)
    seen: list[list[str]] = []

    class Reader(TopicLensApp):
        def on_ready(self) -> None:
            seen.append(list(calls))
            super().on_ready()

    start_reader(reader_store, Reader)
    assert seen == [["layout", "frame"]]


def test_the_footer_first_reads_the_keys_when_it_first_draws(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the screen's bindings change before the first frame (its mount): a footer not
    # drawn yet reads them when it first draws, not at each change
    import sys

    from topiclens.tui.widgets.key_footer import KeyFooter

    keys = KeyFooter._keys
    readers: list[str] = []

    def read(self: KeyFooter) -> object:
        readers.append(sys._getframe(1).f_code.co_name)
        return keys(self)

    monkeypatch.setattr(KeyFooter, "_keys", read)
    shown: list[str] = []

    class Reader(TopicLensApp):
        def on_ready(self) -> None:
            shown.append(self.screen.query_one(KeyFooter).render_line(0).text)
            super().on_ready()

    start_reader(reader_store, Reader)
    assert readers[0] == "render_line"
    assert "Quit" in shown[0]


def test_a_resize_to_the_laid_out_size_lays_nothing_out_and_a_new_size_does(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layouts: list[tuple[int, int]] = []
    layout = Screen._refresh_layout

    def laid_out(self: Screen[object], *args: object, **kwargs: object) -> None:
        layouts.append(tuple(self.app.size))  # type: ignore[arg-type]
        layout(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Screen, "_refresh_layout", laid_out)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await settle(pilot)
        layouts.clear()
        s.post_message(events.Resize(app.size, app.size))
        await pilot.pause()
        assert layouts == []
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert (100, 30) in layouts
        assert s.topic_list.region.bottom == 29  # the panes follow (the footer's line below)

    run(reader_store, scenario, size=(120, 34))


def test_the_start_makes_the_css_variables_of_the_one_theme_it_shows(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # App.__init__ made those of Textual's default theme, never shown
    made: list[str] = []
    generate = ColorSystem.generate

    def counted(self: ColorSystem) -> dict[str, str]:
        made.append(self.primary.hex)
        return generate(self)

    monkeypatch.setattr(ColorSystem, "generate", counted)
    seen: list[tuple[list[str], str]] = []

    class Reader(TopicLensApp):
        def on_ready(self) -> None:
            seen.append((list(made), self.theme))
            super().on_ready()

    start_reader(reader_store, Reader)
    [(colours, theme)] = seen
    assert theme == "topiclens-dark"
    assert colours == ["#5FAFD7"]  # the reader's dark theme's primary


def test_the_progress_takes_the_footers_line_and_the_too_small_message_its_own_rules(
    reader_store: Path,
) -> None:
    from topiclens.tui.widgets.key_footer import KeyFooter

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        def regions() -> list[Region]:
            views = (s.topic_list, s.entry_list, s.detail_pane, s.similar_list)
            return [w.region for w in views]

        footer = s.query_one(KeyFooter)
        before = regions()
        s.show_progress("Grouping entries", 0.5)
        await pilot.pause()
        # on the footer's line, in place of the keys: every pane keeps its place and size
        assert footer.region == Region(0, 33, 120, 1) and regions() == before
        drawn = footer.render_line(0).text
        assert drawn.startswith(" Grouping entries ") and drawn.endswith(" 50% ")
        await pilot.resize_terminal(50, 12)
        await pilot.pause()
        message = s.query_one("#too-small")
        # the message in place of the panes and the footer
        assert message.display and message.region == Region(0, 0, 50, 12)
        assert not s.topic_list.display and not s.entry_list.display and not footer.display
        assert "The terminal is 50x12." in str(message.render())
        await pilot.resize_terminal(120, 34)
        await pilot.pause()
        assert not message.display and regions() == before
        assert footer.render_line(0).text.startswith(" Grouping entries ")
        s.hide_progress()
        await pilot.pause()
        assert "Quit" in footer.render_line(0).text

    run(reader_store, scenario, size=(120, 34))
