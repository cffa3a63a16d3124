"""The reading loop: notes kept through any bookmark key, the export dialog's
format and memory, keymap conflicts, n/p marking as they go, titles drawn to the room."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import line_text, run
from textual.pilot import Pilot
from textual.widgets import Input, Label, RadioButton, Static
from topiclens.store import Store
from topiclens.text import cell_width, fit_cells
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.model import View
from topiclens.tui.screens import ExportScreen, HelpScreen, NoteScreen, SearchScreen
from topiclens.tui.widgets.entry_list import columns


def toasts(app: TopicLensApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


# --- 1. b never destroys a note --------------------------------------------------------


def test_bookmark_key_never_destroys_a_note(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "N")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*"mine", "ctrl+s")  # Enter is a new line
        await pilot.pause()
        entry_id = s.entry_list.rows[0][0]
        await pilot.press("b")  # the note bookmarked it; this removes the bookmark
        await pilot.pause()
        assert "Bookmark removed. Its note is kept." in toasts(app)
        with Store(reader_store) as store:
            assert store.bookmark_ids() == set() and store.note(entry_id) == "mine"
        assert s.detail.bookmark is None and s.detail.note == "mine"
        assert "mine" in s.detail_pane.text  # shown though not bookmarked
        await pilot.press("b")
        await pilot.pause()
        assert s.detail.bookmark is not None and s.detail.bookmark.note == "mine"
        for _ in range(3):
            await pilot.press("b")
        await pilot.pause()
        with Store(reader_store) as store:
            assert store.bookmark_ids() == set() and store.note(entry_id) == "mine"
        # N on an un-bookmarked entry edits the kept note
        await pilot.press("N")
        await pilot.pause()
        assert app.screen.query_one("#note-input").text == "mine"

    run(reader_store, scenario)


# --- 2. the export dialog follows the extension and remembers ------------------------


def test_export_follows_the_extension_and_remembers(
    reader_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "bookmarks.html"

    async def first(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "b", "e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        path = dialog.query_one("#export-path", Input)
        path.value = ""
        path.focus()
        await pilot.press(*"bookmarks.HTML")
        await pilot.pause()
        assert dialog.query_one("#fmt-html", RadioButton).value
        path.value = "bookmarks.html"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is s
        assert target.read_text().lstrip().lower().startswith("<!doctype html")
        # a click on another format gives the typed path that format's extension
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert dialog.query_one("#export-path", Input).value == str(target)
        assert dialog.query_one("#fmt-html", RadioButton).value
        await pilot.click("#fmt-csv")
        await pilot.pause()
        assert dialog.query_one("#export-path", Input).value == str(tmp_path / "bookmarks.csv")
        # a directory is an error, never an "overwrite?" question
        dialog.query_one("#export-path", Input).value = str(tmp_path)
        dialog.query_one("#export-path", Input).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog
        assert "is a directory" in str(dialog.query_one("#export-error", Label).render())
        await pilot.press("escape")

    async def second(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("e")  # a later start offers the last path and format again
        await pilot.pause()
        dialog = app.screen
        assert dialog.query_one("#export-path", Input).value == str(target)
        assert dialog.query_one("#fmt-html", RadioButton).value
        assert not dialog.query_one("#fmt-md", RadioButton).value

    run(reader_store, first)
    run(reader_store, second)


# --- 3. keymap conflicts are reported with their line, defaults kept ----------------


def test_keymap_conflicts_are_reported_by_line_and_keep_the_defaults(
    reader_store: Path, tmp_path: Path
):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text(
        "# my keys\n"
        'toggle-bookmark = "x"\n'
        'export = "x"\n'  # x is toggle-bookmark's now
        'search = "j"\n'  # j is cursor-down's
        'help = "ctrl+zz"\n'  # no such key
        'no-such = "z"\n'
        'overview = "[b]o[/b]"\n'  # markup in a key name: shown as text, never read
    )

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert app.keymap_problems == [
            f"{keymap}:3: export: 'x' is already the key of 'toggle-bookmark'; default keys kept",
            f"{keymap}:4: search: 'j' is already the key of 'cursor-down'; default keys kept",
            f"{keymap}:5: help: 'ctrl+zz' is not a key Textual knows; default keys kept",
            f"{keymap}:6: unknown binding id 'no-such'",
            f"{keymap}:7: overview: '[b]o[/b]' is not a key Textual knows; default keys kept",
        ]
        assert [t for t in toasts(app) if t in app.keymap_problems] == app.keymap_problems
        await pilot.press("l", "j")  # j still moves down
        assert s.entry_list.cursor == 1
        await pilot.press("x")  # the accepted remapping works
        with Store(reader_store) as store:
            assert store.bookmark_ids() == {s.entry_list.rows[1][0]}
        await pilot.press("e")  # export keeps e
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        await pilot.press("escape", "question_mark")  # help keeps ?, and lists the problems
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text", Static).render())
        flat = "".join(text.split())  # the wrapping may break a long path anywhere
        assert "Problems in your keymap" in text
        for problem in app.keymap_problems:  # '[b]o[/b]' too: literal, not bold
            assert "".join(problem.split()) in flat
        await pilot.press("escape", "slash")  # search keeps /
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)

    run(reader_store, scenario, keymap=keymap, size=(160, 50))


# --- 4. n/p mark as they go; n carries on into the next topic -----------------------


def test_next_marks_read_and_carries_on_into_the_next_topic(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        first, second = s.topics[0], s.topics[1]
        rows = [r[0] for r in s.entry_list.rows]
        await pilot.press("n")
        assert s.entry_list.cursor == 1 and s.detail.entry.id == rows[1] and s.detail.read
        await pilot.press("p")  # p marks too
        with Store(reader_store) as store:
            assert store.read_ids() == {rows[0], rows[1]}
        assert s.topic_list.item(0).unread == first.size - 2
        s.entry_list.move_cursor(len(rows) - 1)  # the topic's last entry
        await pilot.press("n")
        await pilot.pause()
        assert s.state.view == View("topic", second.id)
        assert s.entry_list.cursor == 0
        head = s.entry_list.rows[0][0]
        assert s.detail.entry.id == head and head in s.read
        assert f"Next topic: {second.name}" in toasts(app)
        # the very last entry of the last topic: it says so and stays
        last = s.topics[-1]
        s.jump_to_topic(last.id)
        await pilot.pause()
        s.entry_list.move_cursor(len(s.entry_list.rows) - 1)
        at = s.entry_list.current_id
        await pilot.press("n")
        await pilot.pause()
        assert "Last entry of the last topic." in toasts(app)
        assert s.state.view == View("topic", last.id) and s.entry_list.current_id == at

    run(reader_store, scenario)


# --- 5. titles stored whole, cut only where drawn ------------------------------------


def _titles(store_path: Path, most: int = 1000) -> tuple[int, str, str]:
    """(topic id, entry id, title) of the longest title of at most ``most`` cells."""
    with Store(store_path) as store:
        rows = [(t.id, r[0], r[1]) for t in store.topics() for r in store.topic_rows(t.id)]
    return max((r for r in rows if cell_width(r[2]) <= most), key=lambda r: cell_width(r[2]))


def test_titles_use_the_room_there_is(reader_store: Path):
    topic_id, entry_id, title = _titles(reader_store, most=80)
    assert cell_width(title) > 60  # stored whole: longer than the old 56-cell cut

    def scenario_at(width: int):
        async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
            s.jump_to_topic(topic_id)
            await pilot.pause()
            s.jump_to_entry(entry_id)
            await pilot.pause()
            entries = s.entry_list
            y = entries.line_of(entries.cursor) - round(entries.scroll_y)
            row = line_text(entries, y)
            room = columns(entries.scrollable_content_region.width)[0]
            shown = fit_cells(title, room)
            assert shown in row
            if width == 160:
                assert title in row  # whole: the pane has the room
            else:
                assert shown.endswith("…") and cell_width(shown) == room  # cut to the pane
            # the detail wraps it whole (a line ends at a space, which the wrap drops)
            assert "".join(title.split()) in "".join(s.detail_pane.text.split())

        return scenario

    run(reader_store, scenario_at(160), size=(160, 50))
    run(reader_store, scenario_at(80), size=(80, 24))


def test_entries_command_cuts_titles_to_the_terminal_only(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    from topiclens.cli import main

    _, _, title = _titles(reader_store)
    data_dir = str(reader_store.parent)
    assert main(["--data-dir", data_dir, "entries"]) == 0
    piped = capsys.readouterr().out.splitlines()
    assert any(line.endswith(title) for line in piped)  # piped: whole
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    monkeypatch.setattr("shutil.get_terminal_size", lambda *a, **k: os.terminal_size((80, 24)))
    assert main(["--data-dir", data_dir, "entries"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(piped) and max(cell_width(line) for line in lines) <= 80
    assert any(line.endswith("…") for line in lines)
