"""The reader, driven with Pilot: every key path, asserting on widget state and on the store."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import (
    HOSTILE,
    MIXED_NAME,
    READER_TOPICS,
    SIZE,
    killed_reader,
    line_text,
    make_trust_store,
    palette_hits,
    run,
    screen_lines,
    settle,
    wait_until,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.pilot import Pilot
from topiclens.clustering.search import search
from topiclens.store import Store
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.model import View
from topiclens.tui.screens import (
    ConfirmScreen,
    ExportScreen,
    HelpScreen,
    NoteScreen,
    OverviewScreen,
    SearchScreen,
)
from topiclens.tui.widgets import KeyFooter

# --- start ---------------------------------------------------------------------------


def test_opens_on_the_largest_topic_with_its_entries(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        with Store(reader_store) as store:
            topics = store.topics()
            first = topics[0]
            rows = store.topic_rows(first.id)
        assert s.state.view == View("topic", first.id)
        assert [r[0] for r in s.entry_list.rows] == [r[0] for r in rows]
        assert s.detail is not None and s.detail.entry.id == rows[0][0]
        assert s.detail.topic is not None and s.detail.topic.id == first.id
        assert app.focused is s.topic_list
        names = [s.topic_list.item(i) for i in range(s.topic_list.item_count)]
        shown = [n.name for n in names if n is not None and n.view.kind == "topic"]
        assert shown == [t.name for t in topics]
        assert names[0] is not None and names[0].view == View("river")  # All unread, above
        assert s.query_one(KeyFooter).progress is None  # a later start shows no progress

    run(reader_store, scenario)


# --- moving ----------------------------------------------------------------------------


def test_move_within_panes_and_between_them(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        topics = s.topics
        await pilot.press("j")
        await settle(pilot)
        assert s.state.view == View("topic", topics[1].id)
        assert s.entry_list.rows[0][0] == s.detail.entry.id
        await pilot.press("k")
        await settle(pilot)
        assert s.state.view == View("topic", topics[0].id)

        await pilot.press("l")
        assert app.focused is s.entry_list
        await pilot.press("j", "j", "down")
        assert s.entry_list.cursor == 3
        assert s.detail.entry.id == s.entry_list.rows[3][0]
        await pilot.press("k", "up")
        assert s.entry_list.cursor == 1
        await pilot.press("G")
        assert s.entry_list.cursor == len(s.entry_list.rows) - 1
        await pilot.press("g")
        assert s.entry_list.cursor == 0
        await pilot.press("pagedown")
        page = s.entry_list.cursor
        assert page > 5
        await pilot.press("pageup")
        assert s.entry_list.cursor == 0

        await pilot.press("right")
        assert app.focused is s.detail_pane
        await pilot.press("l")
        assert app.focused is s.query_one("#similar")
        await pilot.press("l")  # the last pane stays put
        assert app.focused is s.query_one("#similar")
        await pilot.press("h", "h")
        assert app.focused is s.entry_list
        await pilot.press("left")
        assert app.focused is s.topic_list
        await pilot.press("tab")
        assert app.focused is s.entry_list
        await pilot.press("shift+tab")
        assert app.focused is s.topic_list

    run(reader_store, scenario)


def test_next_and_previous_entry_from_any_pane(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert app.focused is s.topic_list
        await pilot.press("n", "n")
        assert s.entry_list.cursor == 2
        assert s.state.view == View("topic", s.topics[0].id)  # the topic did not move
        await pilot.press("l", "l")
        assert app.focused is s.detail_pane
        await pilot.press("p")
        assert s.entry_list.cursor == 1
        assert s.detail.entry.id == s.entry_list.rows[1][0]

    run(reader_store, scenario)


def test_enter_opens_topic_then_entry_and_marks_it_read(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("j", "enter")
        await settle(pilot)
        assert app.focused is s.entry_list
        assert s.state.view == View("topic", s.topics[1].id)
        await pilot.press("j", "enter")
        entry_id = s.entry_list.rows[1][0]
        assert app.focused is s.detail_pane
        assert s.detail.entry.id == entry_id and s.detail.read
        with Store(reader_store) as store:
            assert store.read_ids() == {entry_id}
        # the topic's unread count went down by one
        items = (s.topic_list.item(i) for i in range(s.topic_list.item_count))
        item = next(i for i in items if i is not None and i.view == s.state.view)
        assert item is not None and item.unread == item.size - 1
        # the detail pane shows the entry in full and scrolls with j/k
        entry = s.detail.entry
        assert entry.title in s.detail_pane.text
        assert entry.comment[:10] in s.detail_pane.text.replace("\n", "")
        await pilot.press("j", "j")
        assert s.detail_pane.scroll_y == 2
        await pilot.press("g")
        assert s.detail_pane.scroll_y == 0

    run(reader_store, scenario)


def test_footer_shows_the_keys_and_a_click_presses_one(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        footer = s.query_one(KeyFooter)
        text = "".join(seg.text for seg in footer.render_line(0))
        assert text.startswith("b Bookmark B Bookmarks / Search o Overview")
        assert text.rstrip().endswith("▏^p palette") and len(text) == SIZE[0]
        await pilot.click(KeyFooter, offset=(text.index("? Help") + 2, 0))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)

    run(reader_store, scenario)


def test_footer_line_is_drawn_again_when_its_keys_or_colours_change(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        from topiclens.tui.theme import LIGHT

        footer = s.query_one(KeyFooter)
        first = footer.render_line(0)
        assert footer.render_line(0) is first  # nothing changed: the line drawn last

        def text() -> str:
            return "".join(seg.text for seg in footer.render_line(0))

        app.bind("f9", "app.bell", description="Zap")  # a key more: the footer shows it
        app.refresh_bindings()
        await pilot.pause()
        assert "Zap" in text() and "Zap" not in "".join(seg.text for seg in first)

        before = footer.render_line(0)
        app.theme = LIGHT
        await pilot.pause()
        after = footer.render_line(0)
        assert [seg.text for seg in after] == [seg.text for seg in before]
        assert [seg.style for seg in after] != [seg.style for seg in before]

    run(reader_store, scenario)


def test_similar_entry_is_selectable(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "j", "j")
        similar = s.detail.similar
        assert similar, "the fixture gives every entry similar ones"
        target = similar[0][0][0]
        s.query_one("#similar").focus()
        await pilot.press("enter")
        await settle(pilot)
        assert s.detail.entry.id == target
        assert app.focused is s.entry_list

    run(reader_store, scenario)


# --- bookmarks, notes, read state ------------------------------------------------------


def test_bookmark_is_written_at_once_and_listed(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "b")
        first = s.entry_list.rows[0][0]
        # another connection sees it right away: it was committed, not kept in memory
        with Store(reader_store) as other:
            assert other.bookmark_ids() == {first}
        assert first in s.entry_list.bookmarks
        assert s.detail.bookmark is not None
        await pilot.press("h", "G", "enter")  # the last topic
        await settle(pilot)
        await pilot.press("b")
        last = s.entry_list.rows[0][0]
        await pilot.press("B")
        await settle(pilot)
        assert s.state.view == View("bookmarks")
        assert [r[0] for r in s.entry_list.rows] == [last, first]  # newest bookmark first
        assert s.topic_list.item(1).name == "Bookmarks"  # under All unread
        await pilot.press("j", "b")  # remove the first one again
        with Store(reader_store) as other:
            assert other.bookmark_ids() == {last}

    run(reader_store, scenario)


def test_note_edits_the_bookmark_note(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "j", "N")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)
        entry_id = s.entry_list.rows[1][0]
        await pilot.press(*"read later", "ctrl+s")  # Enter is a new line
        await pilot.pause()
        assert app.screen is s
        with Store(reader_store) as store:
            bookmark = store.bookmark(entry_id)
        assert bookmark is not None and bookmark.note == "read later"
        assert s.detail.bookmark.note == "read later"
        # Escape leaves the note as it was (once asked whether to throw the change away)
        await pilot.press("N")
        await pilot.pause()
        await pilot.press("x", "escape", "y")
        await pilot.pause()
        assert app.screen is s
        with Store(reader_store) as store:
            assert store.bookmark(entry_id).note == "read later"

    run(reader_store, scenario)


def test_read_toggle_and_unread_only(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "r")
        first = s.entry_list.rows[0][0]
        with Store(reader_store) as store:
            assert store.read_ids() == {first}
        assert first in s.entry_list.read
        total = len(s.entry_list.rows)
        await pilot.press("j", "u")
        assert s.state.unread_only
        assert first not in [r[0] for r in s.entry_list.rows]
        assert len(s.entry_list.rows) == total - 1
        await pilot.press("u")
        assert len(s.entry_list.rows) == total
        await pilot.press("g", "r")  # unread again
        with Store(reader_store) as store:
            assert store.read_ids() == set()

    run(reader_store, scenario)


# --- search, overview, help -----------------------------------------------------------


def test_search_chinese_and_english_shows_a_pseudo_topic(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)
        await pilot.press(*"投机解码", "enter")
        await settle(pilot)
        with Store(reader_store) as store:
            expected = search(store, "投机解码")  # the concept-aware search
        assert expected
        assert s.state.view == View("search", query="投机解码")
        assert [r[0] for r in s.entry_list.rows] == expected
        assert s.topic_list.item(0).name == "Search: 投机解码"
        assert app.focused is s.entry_list

        await pilot.press("slash")
        await pilot.pause()
        app.screen.query_one("#search-input").value = ""
        await pilot.press(*"speculative", "enter")
        await settle(pilot)
        titles = [r[1] for r in s.entry_list.rows]
        assert "The Economics of Speculative Decoding" in titles

        await pilot.press("slash")
        await pilot.pause()
        app.screen.query_one("#search-input").value = ""
        await pilot.press("enter")  # empty clears the search
        await settle(pilot)
        assert s.state.search_query is None
        assert s.state.view is not None and s.state.view.kind == "topic"

    run(reader_store, scenario)


def test_overview_lists_every_topic_and_enter_jumps(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("o")
        await pilot.pause()
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        options = overview.query_one("#overview")
        ids = [o.id for o in options.options]
        assert ids == [f"topic-{t.id}" for t in s.topics]
        text = str(options.options[0].prompt)
        assert s.topics[0].name in text and "█" in text and "entries" in text
        await pilot.press("j", "j", "enter")
        await settle(pilot)
        assert app.screen is s
        assert s.state.view == View("topic", s.topics[2].id)
        assert app.focused is s.entry_list

    run(reader_store, scenario)


def test_help_lists_every_command_and_closes(reader_store: Path):
    from topiclens.tui.commands import ALL

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text").render())
        for command in ALL:
            assert f"({command.id})" in text, command.id
        assert "keymap.toml" in text
        await pilot.press("escape")
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is s

    run(reader_store, scenario)


def test_quit(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0 and not app.is_running

    run(reader_store, scenario)


# --- export --------------------------------------------------------------------------


def test_export_writes_then_asks_before_overwriting(
    reader_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("e")  # nothing to export yet: a warning, no dialog
        await pilot.pause()
        assert app.screen is s
        await pilot.press("l", "b", "e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        path = dialog.query_one("#export-path")
        assert path.value.endswith(".md")
        await pilot.click("#fmt-json")  # json
        await pilot.pause()
        assert path.value.endswith(".json")
        path.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is s
        written = out / path.value
        data = json.loads(written.read_bytes())
        assert s.entry_list.rows[0][0] in json.dumps(data)

        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#fmt-json").value = True
        await pilot.pause()
        written.write_text("mine")
        app.screen.query_one("#export-path").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert written.read_text() == "mine"
        assert isinstance(app.screen, ExportScreen)
        app.screen.query_one("#export-path").focus()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert app.screen is s
        assert json.loads(written.read_bytes())

    run(reader_store, scenario)


def test_export_error_stays_in_the_dialog(reader_store: Path, tmp_path: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "b", "e")
        await pilot.pause()
        dialog = app.screen
        dialog.query_one("#export-path").value = str(tmp_path / "missing" / "dir" / "x.md")
        dialog.query_one("#export-path").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog
        assert str(dialog.query_one("#export-error").render()).strip()
        assert not (tmp_path / "missing").exists()

    run(reader_store, scenario)


# --- another process, refresh, keymap, palette ----------------------------------------


def test_changes_made_elsewhere_are_picked_up(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        with Store(reader_store) as other:
            other.rename_topic(s.topics[0].id, "Renamed elsewhere")
            other.toggle_bookmark(s.entry_list.rows[0][0])
        await wait_until(pilot, lambda: s.topics[0].name == "Renamed elsewhere", "the poll")
        assert s.entry_list.rows[0][0] in s.entry_list.bookmarks
        assert s.topic_list.item(1).name == "Bookmarks"  # under All unread

    run(reader_store, scenario, poll_interval=0.1)


def test_refresh_key_reloads(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        with Store(reader_store) as other:
            other.rename_topic(s.topics[0].id, "Renamed by hand")
        await pilot.press("R")
        assert s.topics[0].name == "Renamed by hand"
        assert "Renamed by hand" in s.entry_list.border_title

    run(reader_store, scenario)


def test_keymap_file_remaps_bindings(reader_store: Path, tmp_path: Path):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('toggle-bookmark = "x"\ncursor-down = "down,ctrl+n"\nno-such = "z"\n')

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "ctrl+n")
        assert s.entry_list.cursor == 1
        await pilot.press("j")  # j was replaced by the keymap
        assert s.entry_list.cursor == 1
        await pilot.press("b")
        await pilot.press("x")
        with Store(reader_store) as store:
            assert store.bookmark_ids() == {s.entry_list.rows[1][0]}
        assert app.keymap_problems == [f"{keymap}:3: unknown binding id 'no-such'"]

    run(reader_store, scenario, keymap=keymap)


def test_bad_keymap_file_keeps_default_keys(reader_store: Path, tmp_path: Path):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('toggle-bookmark = "x\n')

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert len(app.keymap_problems) == 1
        assert app.keymap_problems[0].startswith(f"{keymap}:1: ")
        await pilot.press("l", "b")
        with Store(reader_store) as store:
            assert store.bookmark_ids() == {s.entry_list.rows[0][0]}

    run(reader_store, scenario, keymap=keymap)


def test_command_palette_jumps_to_topic(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        target = s.topics[-1]
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*f"jump to topic: {target.name[:10]}")
        jump = f"Jump to topic: {target.name}"
        await wait_until(pilot, lambda: palette_hits(app)[:1] == [jump], "the palette's hits")
        await pilot.press("enter")
        await settle(pilot)
        assert s.state.view == View("topic", target.id)

        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Overview")
        await wait_until(pilot, lambda: palette_hits(app)[:1] == ["Overview"], "the hits")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)

    run(reader_store, scenario)


def test_cjk_rows_line_up(reader_store: Path):
    """Every entry row is exactly the pane's width in cells, Chinese or not."""
    from rich.cells import cell_len

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        entries = s.entry_list
        width = entries.scrollable_content_region.width
        for y in range(entries.scrollable_content_region.height):
            strip = entries.render_line(y)
            assert strip.cell_length == width
            assert sum(cell_len(seg.text) for seg in strip) == width
        # the date column starts at the same cell on every row
        texts = ["".join(seg.text for seg in entries.render_line(y)) for y in range(8)]
        dates = [s.entry_list.rows[y][3] for y in range(8)]
        cols = {cell_len(t[: t.rindex(d)]) for t, d in zip(texts, dates, strict=True)}
        assert len(cols) == 1

    run(reader_store, scenario, size=(80, 24))


# --- start without the heavy libraries ------------------------------------------------


def test_later_start_imports_neither_sklearn_nor_jieba(reader_store: Path):
    code = f"""
import asyncio, sys
from pathlib import Path
from topiclens.store import Store
from topiclens.tui.app import TopicLensApp

async def main():
    with Store({str(reader_store)!r}) as store:
        app = TopicLensApp(store, keymap_file=Path("/nonexistent/keymap.toml"))
        async with app.run_test(size=(120, 34)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert len(app.screen.entry_list.rows) > 0
            await pilot.press("j", "l", "j", "o")
            await pilot.pause()
asyncio.run(main())
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("sklearn", "jieba", "scipy"))
print(heavy)
"""
    env = {**os.environ, "TOPICLENS_HOME": str(reader_store.parent)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_fixture_topics_cover_the_corpus(reader_store: Path):
    with Store(reader_store) as store:
        assert sum(t.size for t in store.topics()) == store.count_entries()
        assert {t.id for t in store.topics()} <= {tid for tid, _, _ in READER_TOPICS}


def test_reader_doc_lists_every_binding():
    from helpers import ROOT
    from topiclens.tui.commands import ALL

    doc = (ROOT / "docs" / "reader.md").read_text(encoding="utf-8")
    for command in ALL:
        assert f"`{command.id}`" in doc, command.id


# --- first start ---------------------------------------------------------------------


def test_first_start_opens_at_once_then_groups_in_a_worker(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
):
    """An empty store: the reader shows a progress bar at once; a worker imports the
    bundled corpus and groups it (here with the fixture's rules standing in for the
    clustering, whose own test is below), then the topics appear."""
    import threading

    import topiclens.clustering
    from helpers import make_reader_store

    release = threading.Event()
    calls: list[str] = []

    def fake_ensure_topics(store: Store, progress=None) -> bool:  # type: ignore[no-untyped-def]
        assert store.count_entries() == 109  # the worker imported the bundled corpus
        calls.append(threading.current_thread().name)
        progress("kmeans", 0.5)
        release.wait(10)
        make_reader_store(data_dir)  # writes the fixture topics through another connection
        return True

    monkeypatch.setattr(topiclens.clustering, "ensure_topics", fake_ensure_topics, raising=False)
    data_dir.mkdir(parents=True)

    async def go() -> None:
        store = Store.open_dir(data_dir)
        app = TopicLensApp(store, keymap_file=data_dir / "none.toml", poll_interval=60)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            s = app.screen
            assert isinstance(s, MainScreen)
            footer = s.query_one(KeyFooter)  # the progress in the keys' place
            await wait_until(pilot, lambda: footer.progress is not None, "the progress")
            await wait_until(pilot, lambda: footer.progress[1] == 0.5, "the worker's report")
            drawn = footer.render_line(0).text
            assert "Grouping the entries into topics" in drawn and drawn.endswith(" 50% ")
            assert "Quit" not in drawn
            s.show_progress("tokenize", 0.0)  # a stage with no fraction yet: no bar
            drawn = footer.render_line(0).text
            assert "Reading the entries" in drawn and "%" not in drawn and "━" not in drawn
            s.show_progress("kmeans", 0.5)
            assert footer.progress == ("Grouping the entries into topics", 0.5)
            assert s.topics == [] and app.screen is s  # usable while it works
            release.set()
            await wait_until(pilot, lambda: s.topics, "the topics")
            await settle(pilot)
            with Store(store.path) as other:
                assert [t.id for t in s.topics] == [t.id for t in other.topics()]
            assert s.entry_list.rows and s.detail is not None
            assert footer.progress is None and "Quit" in footer.render_line(0).text
        store.close()

    asyncio.run(go())
    assert calls and calls[0] != threading.main_thread().name


@pytest.mark.parametrize("size", [(120, 34), (80, 24), (200, 50)])
def test_first_frame_is_laid_out_at_the_panes_widths(reader_store: Path, size: tuple[int, int]):
    """On the first frame every topic row fills its pane exactly, its counts flush at the right
    edge, and the first entry's title is wrapped at the detail pane's laid-out width."""
    from rich.cells import cell_len
    from topiclens.tui.wrap import wrap_cells

    async def check(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        topics = s.topic_list
        width = topics.scrollable_content_region.width
        names = {t.name for t in s.topics}
        height = min(topics.line_count, topics.size.height)
        lines = [line_text(topics, y) for y in range(height)]
        # the topics' rows: under the line that sets them apart from the pseudo-topics
        rows = lines[next(n for n, line in enumerate(lines) if line.startswith("─")) + 1 :]
        assert len(rows) >= 3
        for shown in rows:
            assert cell_len(shown) == width
            # the name, cut to its room, then the size and the unread count flush right
            row = re.fullmatch(r" (.+?) +\d+ +\d+●", shown)
            assert row is not None, shown
            name = row.group(1)
            assert name in names or (
                name.endswith("…") and any(n.startswith(name[:-1]) for n in names)
            )
        assert s.detail is not None and s.detail.entry.id == s.entry_list.rows[0][0]
        pane = s.detail_pane
        title = s.detail.entry.title
        wrapped = wrap_cells(title, pane.scrollable_content_region.width)
        assert [line_text(pane, y).rstrip() for y in range(len(wrapped))] == [
            w.rstrip() for w in wrapped
        ]

    run(reader_store, check, size=size)


def test_later_start_groups_new_entries_after_the_first_frame(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch
):
    """Entries imported since the last grouping are grouped from a worker started once
    the first frame is shown, not before it; with none, nothing is started."""
    started: list[tuple[str, int]] = []
    shown = MainScreen.first_frame_shown

    def fake_start(self: MainScreen) -> None:
        started.append(("grouping", self.store.count_unassigned()))

    def frame(self: MainScreen) -> None:
        started.append(("first frame", 0))
        shown(self)

    monkeypatch.setattr(MainScreen, "start_preparing", fake_start)
    monkeypatch.setattr(MainScreen, "first_frame_shown", frame)

    async def nothing(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        pass

    run(reader_store, nothing)
    assert started == [("first frame", 0)]
    started.clear()
    with Store(reader_store) as store, store.write() as conn:
        conn.execute(
            "DELETE FROM topic_assignments WHERE entry_id IN "
            "(SELECT entry_id FROM topic_assignments ORDER BY entry_id LIMIT 2)"
        )
    run(reader_store, nothing)
    assert started == [("first frame", 0), ("grouping", 2)]


def test_first_start_with_the_real_clustering(data_dir: Path):
    """The whole first start: bundled corpus imported and grouped by the real clustering
    in the worker, then shown; every entry lands in a topic."""

    async def go() -> None:
        with Store.open_dir(data_dir) as store:
            app = TopicLensApp(store, keymap_file=data_dir / "none.toml", poll_interval=60)
            async with app.run_test(size=SIZE) as pilot:
                s = app.screen
                assert isinstance(s, MainScreen)
                await wait_until(
                    pilot, lambda: s.topics and not s.preparing, "the grouping", timeout=120
                )
                await settle(pilot)
                assert len(s.topics) > 1
                assert sum(t.size for t in s.topics) == store.count_entries() == 109
                assert s.entry_list.rows and s.detail is not None and s.detail.topic
                assert s.query_one(KeyFooter).progress is None

    asyncio.run(go())


def test_reader_queries_agree_with_the_full_ones(reader_store: Path):
    with Store(reader_store) as store:
        topics = store.topics()
        for t in topics:
            rows = store.topic_rows(t.id)
            assert [r[0] for r in rows] == store.topic_entry_ids(t.id)
            full = store.entries([r[0] for r in rows])
            assert [(e.id, e.title, e.source, e.date) for e in full] == rows
        ids = [e.id for e in store.entries()][::-7]
        assert [r[0] for r in store.entry_rows(ids)] == ids
        assert store.topic_unread_counts() == {t.id: t.size for t in topics}
        first = store.topic_rows(topics[0].id)
        for eid, *_ in first:
            store.set_read(eid)
        store.set_read(store.topic_rows(topics[1].id)[0][0])
        unread = store.topic_unread_counts()
        assert topics[0].id not in unread
        assert unread[topics[1].id] == topics[1].size - 1
        assert store.count_unassigned() == 0
        sources, months = store.topic_profile()
        assert sum(n for per in months.values() for n in per.values()) == sum(
            1 for e in store.entries() if e.date
        )
        assert sum(n for per in sources.values() for _, n in per) == sum(
            1 for e in store.entries() if e.source
        )


def test_bookmark_survives_kill_9_right_after(reader_store: Path):
    """The reader process is killed (SIGKILL) the instant after `b`: the bookmark is there."""
    out = killed_reader(
        reader_store,
        """
        await pilot.press("l", "j", "b")
        print(app.screen.entry_list.current_id, flush=True)
        """,
    )
    entry_id = out.strip().splitlines()[-1]
    with Store(reader_store) as store:
        assert store.bookmark_ids() == {entry_id}
        assert store.query("PRAGMA integrity_check")[0][0] == "ok"


def test_wrap_cells_fills_lines_the_chinese_way(reader_store: Path):
    from rich.cells import cell_len
    from topiclens.tui.wrap import NO_LINE_START as _NO_LINE_START
    from topiclens.tui.wrap import wrap_cells

    with Store(reader_store) as store:
        texts = [e.summary for e in store.entries()] + ["x" * 30 + " 中文，标点。", "（括号）"]
    for width in (7, 20, 41, 78):
        for text in texts:
            lines = wrap_cells(text, width)
            assert all(cell_len(line) <= width for line in lines)
            assert "".join(lines).replace(" ", "") == text.replace(" ", "")
            if width >= 40:  # narrower, a long word glued to its comma may have to be cut
                assert not any(line[:1] in _NO_LINE_START for line in lines[1:] if line)
    # Chinese breaks between characters: lines come out nearly full
    zh = next(t for t in texts if t.count("，") > 3 and cell_len(t) > 200)
    lines = wrap_cells(zh, 40)
    assert all(cell_len(line) >= 30 for line in lines[:-1])


def test_wrap_tokens_split_chinese_characters_and_keep_words(reader_store: Path):
    """The tokenizer behind wrap_cells: white space runs, one token per wide character
    (two terminal cells by topiclens.text.char_cells: ideographs, kana, CJK and full-width
    punctuation), other runs whole."""
    import random

    from topiclens.text import char_cells
    from topiclens.tui.wrap import tokens

    def spec(para: str) -> list[str]:
        out: list[str] = []
        last = ""
        for ch in para:
            kind = "space" if ch.isspace() else "wide" if char_cells(ch) == 2 else "other"
            if out and kind == last and kind != "wide":
                out[-1] += ch
            else:
                out.append(ch)
            last = kind
        return out

    assert tokens("KV cache 的「分页」管理，ok") == [
        "KV",
        " ",
        "cache",
        " ",
        "的",
        "「",
        "分",
        "页",
        "」",
        "管",
        "理",
        "，",
        "ok",
    ]
    with Store(reader_store) as store:
        texts = [f"{e.title}\n{e.summary}\n{e.comment}" for e in store.entries()]
    rng = random.Random(4)
    alphabet = "ab1 \t\u3000\xa0中文，。（）ｆｕ\u2e80\u9fff\uf900\uffef\u2e7f\ua000é🙂"
    texts += ["".join(rng.choices(alphabet, k=rng.randint(0, 24))) for _ in range(3000)]
    for text in texts:
        for para in text.split("\n"):
            assert tokens(para) == spec(para), para


def test_mouse_click_moves_the_cursor_and_double_click_opens(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        # offsets count from the widget's corner, border included: row 1 is the first entry
        await pilot.click("#entries", offset=(10, 4))
        assert s.entry_list.cursor == 3
        assert s.detail.entry.id == s.entry_list.rows[3][0]
        await pilot.click("#entries", offset=(10, 4), times=2)
        assert app.focused is s.detail_pane
        with Store(reader_store) as store:
            assert store.read_ids() == {s.entry_list.rows[3][0]}

    run(reader_store, scenario)


def test_the_main_screen_is_one_class_with_one_handler_per_event():
    """MainScreen derives from Screen alone (no mixins), and no message reaches two of its
    handlers: Textual would run both, a decorated one and one named by convention."""
    import ast
    import inspect
    from functools import reduce

    from textual.message import Message
    from textual.screen import Screen
    from topiclens.tui import main_screen

    assert MainScreen.__bases__ == (Screen,)
    tree = ast.parse(inspect.getsource(MainScreen))
    handled: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if node.name.startswith("on_"):
            handled.append(node.name)  # Textual's naming convention
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and ast.unparse(decorator.func) == "on":
                name = ast.unparse(decorator.args[0])  # e.g. EntryList.Highlighted
                message = reduce(getattr, name.split("."), main_screen)
                assert issubclass(message, Message)
                handled.append(message.handler_name)
    assert "on_worker_state_changed" in handled and "on_resize" in handled
    assert sorted(handled) == sorted(set(handled))


def test_every_binding_has_an_id_a_keymap_accepts():
    from textual.binding import Binding
    from topiclens.tui import screens, widgets
    from topiclens.tui.app import TopicLensApp
    from topiclens.tui.commands import BY_ID, SCREEN_BINDING_IDS

    classes = [TopicLensApp, MainScreen, widgets.TopicList, widgets.EntryList]
    classes += [widgets.DetailPane, widgets.SimilarList]
    classes += [getattr(screens, n) for n in ("OverviewScreen", "HelpScreen", "NoteScreen")]
    classes += [getattr(screens, n) for n in ("SearchScreen", "ConfirmScreen", "ExportScreen")]
    for cls in classes:
        for binding in cls.BINDINGS:
            assert isinstance(binding, Binding) and binding.id, (cls, binding)
            assert binding.id in BY_ID or binding.id in SCREEN_BINDING_IDS, binding.id


def test_visited_topics_stay_in_memory_up_to_a_row_budget(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch
):
    """Going back to a visited topic reads nothing from the store while its rows fit in
    the budget; the least recently shown topic is the first to be read again."""
    from topiclens.tui import views as view_cache

    with Store(reader_store) as store:
        sizes = [t.size for t in store.topics()]
    budget = sizes[0] + sizes[1]  # room for the two largest topics, not for three
    monkeypatch.setattr(view_cache, "ROWS_CACHED", budget)
    reads: list[int] = []
    from topiclens.store.pages import TopicRows

    read_topic = TopicRows.__init__
    monkeypatch.setattr(
        TopicRows,
        "__init__",
        lambda self, db, tid: reads.append(tid) or read_topic(self, db, tid),
    )

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        for _ in range(len(s.topics) - 1):
            await pilot.press("j")
            await settle(pilot)
        assert s.loader.cache.row_count <= budget
        reads.clear()
        await pilot.press("k")  # the topic shown before: kept
        await settle(pilot)
        assert s.topics[-2].id not in reads
        with Store(reader_store) as store:
            assert s.entry_list.rows == store.topic_rows(s.topics[-2].id)
        reads.clear()
        await pilot.press("g", "j")  # the first topic (under All unread), shown longest ago
        await settle(pilot)
        assert s.topics[0].id in reads

    run(reader_store, scenario)


# --- hostile text: nothing from the data drives the terminal or parses as markup -------

# what a terminal would act on: C0 but tab and newline, DEL, C1, and bidi controls
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_hostile_text_reaches_no_pane_as_control_or_markup(hostile_store: Path, tmp_path: Path):
    keymap = tmp_path / "keymap.toml"
    # a key that is markup, and an unknown id with escapes that the keymap toast names
    keymap.write_text('toggle-bookmark = "[/]"\n"\\u001b]0;pwned\\u0007[/]" = "z"\n')
    seen: list[str] = []

    async def look(app: TopicLensApp, pilot: Pilot[None], where: str) -> list[str]:
        await settle(pilot)
        lines = screen_lines(app)
        bad = [line for line in lines if FORBIDDEN.search(line)]
        assert not bad, (where, bad)
        seen.extend(lines)
        return lines

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        lines = await look(app, pilot, "start")
        assert any("pwned" in line for line in lines)  # the keymap's toast names the id
        assert any("C++ [/draft]" in line for line in lines)  # exactly as named
        assert any("KV cache [WIP]" in line for line in lines)
        assert s.entry_list.rows[0][1] == HOSTILE[0]  # the store keeps what was imported
        await pilot.press("l")
        for n in range(len(HOSTILE)):
            await look(app, pilot, f"entry {n}")
            await pilot.press("j")
        for keys in (["G"], ["h", "j"], ["j"], ["B"], ["o"], ["escape"], ["question_mark"]):
            await pilot.press(*keys)
            await look(app, pilot, str(keys))
        await pilot.press("escape", "h", "g", "l")
        await pilot.press("N")
        await look(app, pilot, "note")
        await pilot.press("escape", "e")
        await look(app, pilot, "export")
        await pilot.press("escape", "slash", *"x[/]", "enter")
        lines = await look(app, pilot, "search")
        assert s.state.view == View("search", query="x[/]")
        assert any("Search: x[/]" in line for line in lines)
        await pilot.press("ctrl+p", *"jump to topic")
        await wait_until(
            pilot,
            lambda: any(h.startswith("Jump to topic") for h in palette_hits(app)),
            "the palette's hits",
        )
        await look(app, pilot, "palette")
        await pilot.press("escape")
        assert app.is_running

    run(hostile_store, scenario, keymap=keymap)
    shown = "\n".join(seen)
    as_written = ("[@click=app.quit]click me[/]", "[b]bold[/b] KV cache [WIP]")
    for text in ("clipboard ]52;c;cHduZWQ= set", *as_written):
        assert text in shown, text  # controls dropped, markup shown as written
    assert "bidi <U+202E>override<U+202C> here" in shown


def test_markup_in_data_triggers_no_action(hostile_store: Path):
    """Text reading ``[@click=app.quit]…`` in a topic's line, the entries' border title,
    an entry's title and the overview: a click on it does what a click there always does."""
    from rich.cells import cell_len

    async def click_text(pilot: Pilot[None], text: str) -> None:
        lines = screen_lines(pilot.app)
        y = next(y for y, line in enumerate(lines) if text in line)
        x = cell_len(lines[y][: lines[y].index(text)]) + 2
        await pilot.click(offset=(x, y))
        await settle(pilot)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await click_text(pilot, "[@click=app.quit]q")  # the topic's line, cut to fit
        assert "@click" in str(s.entry_list.border_title)
        await click_text(pilot, "[@click=app.quit]quit[/] ·")  # the entries' border title
        await click_text(pilot, "C++ [/draft]")  # back to the topic of the hostile entries
        await click_text(pilot, "[@click=app.quit]click me[/]")  # an entry's title
        assert s.detail is not None and s.detail.entry.title.startswith("[@click")
        await pilot.press("o")
        await click_text(pilot, "[@click=app.quit]quit[/]")  # the overview
        assert app.is_running and app.return_code is None

    run(hostile_store, scenario)


def test_closing_while_topics_are_grouped_is_quiet(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
):
    """Quit during the first start's grouping: the worker stops at its next progress
    report (so the clustering's process pool ends with it), and nothing is printed."""
    import threading

    import topiclens.clustering
    from topiclens.tui.first_start import PrepareCancelled

    started, stopped = threading.Event(), threading.Event()
    reports: list[BaseException] = []

    def slow_ensure_topics(store: Store, progress=None) -> bool:  # type: ignore[no-untyped-def]
        started.set()
        try:
            for _ in range(400):
                progress("kmeans", 0.5)
                threading.Event().wait(0.01)
        except BaseException as exc:  # what the reader raised to stop the work
            reports.append(exc)
            raise
        finally:
            stopped.set()
        return True

    monkeypatch.setattr(topiclens.clustering, "ensure_topics", slow_ensure_topics, raising=False)
    data_dir.mkdir(parents=True)

    async def go() -> None:
        with Store.open_dir(data_dir) as store:
            app = TopicLensApp(store, keymap_file=data_dir / "none.toml", poll_interval=60)
            async with app.run_test(size=SIZE) as pilot:
                await wait_until(pilot, started.is_set, "the grouping's start")
                await pilot.press("q")
            assert stopped.wait(5)

    asyncio.run(go())
    assert [type(e) for e in reports] == [PrepareCancelled]
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(), min_size=3, max_size=3), st.integers(4, 120))
def test_detail_and_list_lines_never_carry_a_control(texts: list[str], width: int):
    """Whatever an entry, topic or note holds, the lines the panes are drawn from hold no
    control character and no bidi control."""
    from topiclens.store.models import Bookmark, Entry, Topic
    from topiclens.tui.model import Detail
    from topiclens.tui.widgets import TopicItem, detail_paragraphs, render_paragraphs
    from topiclens.tui.widgets.topic_list import topic_line

    a, b, c = texts
    entry = Entry("0" * 16, a, b, comment=c, source=c, category=a, date=b, url=a)
    topic = Topic(1, c, [(a, 1.0), (b, 0.5)], 3)
    also = [Topic(2, a, [], 1), Topic(3, b, [], 1)]
    detail = Detail(entry, topic, 0.5, [a, c], [], Bookmark("0" * 16, 0.0, b), False, also)
    lines = render_paragraphs(detail_paragraphs(detail), width)
    texts_shown = ["".join(text for text, _ in line) for line in lines]
    for mixed in (False, True):
        item = TopicItem(View("topic", 1), a, 3, 1, mixed)
        texts_shown.append("".join(text for text, _ in topic_line(item, width)))
    for line in texts_shown:
        assert not FORBIDDEN.search(line), repr(line)


# --- topics a reader can trust: cohesion, mixed topics, "also here" rows ------------------


@pytest.fixture
def trust_store(reader_store: Path) -> Path:
    make_trust_store(reader_store)
    return reader_store


def test_opens_on_a_coherent_topic_when_the_largest_is_mixed(trust_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        with Store(trust_store) as store:
            topics = store.topics()
            largest = max(topics, key=lambda t: t.size)
        assert largest.mixed and largest.name == MIXED_NAME
        assert topics[-1] == largest  # listed after every coherent topic
        assert s.state.view == View("topic", topics[0].id) and not topics[0].mixed
        items = [s.topic_list.item(i) for i in range(s.topic_list.item_count)]
        assert [(i.name, i.mixed) for i in items if i is not None][-1] == (MIXED_NAME, True)
        assert s.detail is not None and s.detail.topic == topics[0]

    run(trust_store, scenario)


def test_a_re_cluster_elsewhere_reopens_on_a_coherent_topic(trust_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        first = s.state.view
        with Store(trust_store) as other:  # another process re-clusters: the topic is gone
            kept = [t for t in other.topics() if View("topic", t.id) != first]
            moved = kept[0].id
            assigned = {
                eid: (moved if View("topic", tid) == first else tid, 0.1, [])
                for eid, tid in other.assignments().items()
            }
            sizes = {t.id: sum(1 for a in assigned.values() if a[0] == t.id) for t in kept}
            other.replace_topics([t._replace(size=sizes[t.id]) for t in kept], assigned)
        await pilot.press("R")
        await settle(pilot)
        assert s.state.view is not None and s.state.view != first
        assert not next(t for t in s.topics if t.id == s.state.view.topic_id).mixed

    run(trust_store, scenario)


def test_also_rows_are_marked_and_the_detail_says_where_else(trust_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        kv = next(t for t in s.topics if t.name.startswith("KV cache"))
        with Store(trust_store) as store:
            own, also = store.topic_rows(kv.id), store.topic_also_rows(kv.id)
            unread = store.topic_unread_counts()[kv.id]
        assert also, "the fixture lists entries of other topics under KV cache"
        s.jump_to_topic(kv.id)
        await settle(pilot)
        entries = s.entry_list
        assert entries.rows == own + also and entries.also_from == len(own)
        assert str(entries.border_title) == f"{kv.name} · {len(own)} + {len(also)} also here"
        # the topic's unread count is its own entries', not its also rows'
        item = next(s.topic_list.item(i) for i in range(s.topic_list.item_count)
                    if s.topic_list.item(i).view == s.state.view)  # fmt: skip
        assert item.unread == unread == len(own)
        assert "also here" not in line_text(entries, 0)
        await pilot.press("G")  # the last row: an also row
        await settle(pilot)
        last = entries.cursor - round(entries.scroll_y)
        assert line_text(entries, last).rstrip().endswith("also here")
        assert s.detail is not None and s.detail.entry.id == also[-1][0]
        assert s.detail.topic is not None and s.detail.topic.id != kv.id
        assert kv in s.detail.also
        names = ", ".join(t.name for t in s.detail.also)
        assert f"also in: {names}" in s.detail_pane.text.replace("\n", " ")
        # unread only: the also rows that stay are still the marked ones
        await pilot.press("r", "u")
        await settle(pilot)
        assert entries.rows == own + also  # the entry under the cursor stays
        await pilot.press("k", "u", "u")
        await settle(pilot)
        assert entries.rows == own + also[:-1]
        assert entries.also_from == len(own)

    run(trust_store, scenario)


def test_also_rows_keep_the_columns_at_80x24(trust_store: Path):
    from rich.cells import cell_len

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        kv = next(t for t in s.topics if t.name.startswith("KV cache"))
        s.jump_to_topic(kv.id)
        await settle(pilot)
        entries = s.entry_list
        await pilot.press("G")  # then up to a few rows above the first also row
        assert entries.also_from is not None
        entries.move_cursor(entries.also_from - 3)
        await settle(pilot)
        assert round(entries.scroll_y) == entries.also_from - 3
        width = entries.scrollable_content_region.width
        lines = range(entries.scrollable_content_region.height)
        marked = [y for y in lines if "also" in line_text(entries, y)]
        assert marked == list(lines)[3:]  # the topic's own rows above, also rows below
        for y in lines:
            assert entries.render_line(y).cell_length == width
        texts = [line_text(entries, y) for y in lines]
        dates = [entries.rows[round(entries.scroll_y) + y][3] for y in lines]
        cols = {cell_len(t[: t.rindex(d)]) for t, d in zip(texts, dates, strict=True) if d}
        assert len(cols) == 1  # the date column starts at the same cell on every row

    run(trust_store, scenario, size=(80, 24))


def test_overview_shows_ids_cohesion_and_the_mixed_mark(trust_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        options = app.screen.query_one("#overview")
        heads = {
            int(o.id.removeprefix("topic-")): str(o.prompt).splitlines()
            for o in options.options
            if o.id
        }
        assert list(heads) == [t.id for t in s.topics]
        for t in s.topics:
            name, bar = heads[t.id][:2]
            assert name.startswith(f"{t.name} #{t.id}")
            assert ("mixed" in name) == t.mixed
            want = "not measured" if t.cohesion is None else f"{round(100 * t.cohesion)} %"
            assert bar.endswith(f"{t.size} entries · cohesion {want}")
        assert "(1 mixed)" in str(app.screen.query_one("#overview-title").render())

    run(trust_store, scenario)
