"""The smaller faults of the reading loop, each driven with Pilot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import line_text, run, settle, wait_until
from textual.pilot import Pilot
from textual.widgets import Input, Label, OptionList, Static, TextArea
from topiclens.store import Store
from topiclens.store.importer import import_file
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.model import View
from topiclens.tui.screens import ConfirmScreen, ExportScreen, HelpScreen, NoteScreen
from topiclens.tui.screens.overview import OverviewScreen
from topiclens.tui.widgets import SimilarList
from topiclens.tui.widgets.topic_list import TOPIC_ROW_LEGEND


def toasts(app: TopicLensApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def test_overview_g_and_G_move_and_j_stops_at_the_end(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)
        options = app.screen.query_one("#overview", OptionList)
        last = options.option_count - 1
        assert options.highlighted == 0
        await pilot.press("G")
        assert options.highlighted == last
        await pilot.press("j", "down")  # at the end: stays, never wraps to the top
        assert options.highlighted == last
        await pilot.press("g")
        assert options.highlighted == 0
        await pilot.press("k", "up")
        assert options.highlighted == 0
        await pilot.press("j")
        assert options.highlighted == 1

    run(reader_store, scenario)


def test_unread_only_shows_it_and_drops_a_read_entry_once_the_cursor_leaves(
    reader_store: Path,
):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "u")
        assert "unread only" in str(s.entry_list.border_subtitle)
        first, second = s.entry_list.rows[0][0], s.entry_list.rows[1][0]
        total = len(s.entry_list.rows)
        await pilot.press("r")  # read now, but under the cursor: it stays
        await pilot.pause()
        assert s.entry_list.current_id == first and len(s.entry_list.rows) == total
        await pilot.press("j")
        await pilot.pause()
        assert first not in [r[0] for r in s.entry_list.rows]
        assert len(s.entry_list.rows) == total - 1
        assert s.entry_list.current_id == second and s.detail.entry.id == second
        # n marks as it goes: the entry it marked goes once n leaves it
        await pilot.press("n")
        await pilot.pause()
        third = s.entry_list.current_id
        assert third != second and third in s.read
        await pilot.press("n")
        await pilot.pause()
        shown = [r[0] for r in s.entry_list.rows]
        assert third not in shown and second in shown  # second was never read
        assert len(s.entry_list.rows) == total - 2
        assert f"· {total - 2}" in str(s.entry_list.border_title)

    run(reader_store, scenario)


def test_b_N_r_in_similar_entries_act_on_the_highlighted_row(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        shown = s.detail.entry.id
        similar = s.query_one(SimilarList)
        await pilot.press("l", "l", "l")
        assert app.focused is similar
        await pilot.press("j")
        target = similar.current_id
        assert target is not None and target != shown
        await pilot.press("b", "r")
        await pilot.pause()
        with Store(reader_store) as store:
            assert store.bookmark_ids() == {target}
            assert store.read_ids() == {target}
        assert s.detail.entry.id == shown  # the entry shown stays
        assert similar.current_id == target  # and so does the highlighted row
        await pilot.press("N")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)
        with Store(reader_store) as store:
            title = store.entry(target).title
        assert title in str(app.screen.query_one(".dialog-subject", Label).render())
        await pilot.press(*"for later", "ctrl+s")
        await pilot.pause()
        with Store(reader_store) as store:
            assert store.note(target) == "for later" and store.note(shown) == ""
        assert s.detail.entry.id == shown

    run(reader_store, scenario)


def test_multi_line_note_shown_under_the_title(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "N")
        await pilot.pause()
        area = app.screen.query_one("#note-input", TextArea)
        await pilot.press(*"first", "enter", *"second")  # Enter is a new line, not save
        assert isinstance(app.screen, NoteScreen) and area.text == "first\nsecond"
        await pilot.click("#note-save")
        await pilot.pause()
        with Store(reader_store) as store:
            assert store.note(s.detail.entry.id) == "first\nsecond"
        lines = s.detail_pane.text.split("\n")
        assert lines.index("first") < lines.index("second")
        summary = s.detail.entry.summary.split("\n")[0][:8]
        at = next(i for i, line in enumerate(lines) if summary in line)
        assert lines.index("Note") < at  # above the summary, near the top
        await pilot.press("N", "x", "escape", "y")  # Escape (asking) keeps the note as it was
        await pilot.pause()
        assert app.screen is s
        with Store(reader_store) as store:
            assert store.note(s.detail.entry.id) == "first\nsecond"

    run(reader_store, scenario)


def test_an_import_elsewhere_shows_one_toast_with_the_count(reader_store: Path, tmp_path: Path):
    lines = [
        {
            "title": f"Fresh entry {n}",
            "summary": f"Something new, number {n}.",
            "date": f"2026-10-1{n}",
        }
        for n in range(3)
    ]
    feed = tmp_path / "fresh.jsonl"
    feed.write_text("\n".join(json.dumps(line) for line in lines) + "\n")

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        # the entry count is taken after the first frame
        await wait_until(pilot, lambda: s.known_entries is not None, "the first count")
        with Store(reader_store) as other:
            import_file(other, str(feed))
        await wait_until(pilot, lambda: any("new" in t for t in toasts(app)), "the toast")
        with Store(reader_store) as other:  # its second commit: placed in a topic
            eid = next(e.id for e in other.entries() if e.title == "Fresh entry 0")
            first = other.topics()[0]
            assignments = other.assignments()
            everything = {k: (v, 0.1, []) for k, v in assignments.items()}
            everything[eid] = (first.id, 0.1, [])
            other.replace_topics(other.topics(), everything)
        assert s.state.view == View("topic", first.id)
        await wait_until(
            pilot, lambda: any(r[0] == eid for r in s.entry_list.rows), "the second reload"
        )
        await pilot.pause()
        reloads = [t for t in toasts(app) if "reloaded" in t]
        assert reloads == ["3 new entries from another process: topics and entries reloaded."]

    run(reader_store, scenario, poll_interval=0.1)


@pytest.mark.parametrize("typed", [".", "{tmp}", "{tmp}/sub"])
def test_export_refuses_a_directory_with_a_clear_message(
    reader_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typed: str
):
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "b", "e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        path = dialog.query_one("#export-path", Input)
        path.value = typed.format(tmp=tmp_path)
        path.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog and not isinstance(app.screen, ConfirmScreen)
        message = str(dialog.query_one("#export-error", Label).render())
        assert "is a directory" in message and "name a file" in message

    run(reader_store, scenario)


def test_the_two_numbers_on_a_topic_row_are_explained(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert str(s.topic_list.border_subtitle) == TOPIC_ROW_LEGEND
        assert "how many of them are unread" in str(s.topic_list.tooltip)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text", Static).render())
        assert "topic rows" in text and "how many entries it holds" in text

    run(reader_store, scenario)


def test_the_first_bookmark_shifts_no_topic(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        topics = s.topic_list
        width = topics.scrollable_content_region.width

        def lines() -> list[str]:
            return [line_text(topics, y) for y in range(topics.line_count)]

        before = lines()
        assert before[0].split() == ["Bookmarks", "0"]  # kept for them, greyed
        assert topics.item_at(0) is None  # not a cursor stop while there are none
        await pilot.press("l", "b")
        await settle(pilot)
        after = lines()
        assert after[0].split() == ["Bookmarks", "1"] and topics.item_at(0) == 0
        assert after[1:] == before[1:] and len(after) == len(before)
        assert topics.item(0).name == "Bookmarks"  # a row that is chosen like a topic
        assert width == topics.scrollable_content_region.width
        await pilot.press("b")  # the last bookmark gone: the row is kept again
        await settle(pilot)
        assert lines() == before

    run(reader_store, scenario)


def test_entries_a_first_start_imported_itself_are_not_new_from_elsewhere(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import asyncio

    import topiclens.clustering
    from helpers import SIZE, make_reader_store

    def fake_ensure_topics(store: Store, progress=None) -> bool:  # type: ignore[no-untyped-def]
        make_reader_store(data_dir)  # the fixture's topics stand in for the clustering
        return True

    monkeypatch.setattr(topiclens.clustering, "ensure_topics", fake_ensure_topics, raising=False)
    data_dir.mkdir(parents=True)
    feed = tmp_path / "one.jsonl"
    feed.write_text(json.dumps({"title": "One more", "summary": "Imported elsewhere."}) + "\n")

    async def go() -> None:
        store = Store.open_dir(data_dir)
        app = TopicLensApp(store, keymap_file=data_dir / "none.toml", poll_interval=0.1)
        async with app.run_test(size=SIZE) as pilot:
            s = app.screen
            assert isinstance(s, MainScreen)
            await wait_until(pilot, lambda: s.topics and not s.preparing, "the grouping")
            await settle(pilot)
            with Store(store.path) as other:
                import_file(other, str(feed))
            await wait_until(pilot, lambda: any("new" in t for t in toasts(app)), "the toast")
            assert "1 new entry from another process: topics and entries reloaded." in toasts(app)
        store.close()

    asyncio.run(go())
