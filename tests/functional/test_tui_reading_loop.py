"""The reading loop, driven with Pilot: open and copy the link, mark a
list or everything read, next unread across topics, Space to read on, delete with undo,
the entry maximised, and the message on a terminal too small for the panes."""

from __future__ import annotations

import webbrowser
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import dump_data, run, screen_lines, set_browser
from textual.pilot import Pilot
from textual.widgets import Static
from topiclens.store import Store
from topiclens.store.models import Entry
from topiclens.store.text import entry_id as make_id
from topiclens.tui.app import TopicLensApp
from topiclens.tui.links import in_terminal
from topiclens.tui.main_screen import MIN_HEIGHT, MIN_WIDTH, MainScreen
from topiclens.tui.model import View
from topiclens.tui.widgets.topic_list import TopicItem

URL = "https://example.org/speculative?q=投机&x=1"


def toasts(app: TopicLensApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def topic_row(s: MainScreen, topic_id: int) -> TopicItem:
    """The topic list's row of topic ``topic_id`` (a bookmarks row may come first)."""
    items = (s.topic_list.item(i) for i in range(s.topic_list.item_count))
    return next(item for item in items if item.view == View("topic", topic_id))


def add_entry(store_path: Path, url: str | None, *, source: str = "Example Blog") -> str:
    """Add an entry with ``url`` to topic 1 (Speculative decoding); returns its id."""
    summary = f"Speculative decoding with a draft model, linked as {url!r}."
    entry = Entry(
        id=make_id("", summary),
        title=f"Draft models ({url})",
        summary=summary,
        source=source,
        date="2026-10-01",
        url=url,
        format="jsonl",
        origin_file="links.jsonl",
        origin_line=7,
    )
    with Store(store_path) as store:
        store.add_entries([entry])
        assert store.add_assignments({entry.id: (1, 0.5, ["speculative"])}) == []
    return entry.id


@pytest.fixture
def fake_browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$BROWSER set to a script that writes its argument to a file (returned)."""
    return set_browser(tmp_path, monkeypatch, "fake-browser")


# --- the link -------------------------------------------------------------------------


def test_open_link_runs_the_browser_from_browser_env(reader_store: Path, fake_browser: Path):
    linked = add_entry(reader_store, URL)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_entry(linked)
        await pilot.pause()
        await pilot.press("O")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert fake_browser.read_text(encoding="utf-8") == URL + "\n"
        assert f"Opening {URL}" in toasts(app)
        assert not any("No browser" in t for t in toasts(app))

    run(reader_store, scenario)


def test_a_terminal_browser_gets_the_terminal_while_it_runs(
    reader_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    linked = add_entry(reader_store, URL)
    out = set_browser(tmp_path, monkeypatch, "lynx")  # named as the terminal browser it is
    seen: list[str] = []

    @contextmanager
    def suspend() -> Iterator[None]:
        # a headless test has no terminal to hand over: record what ran while "suspended"
        seen.append("suspended")
        yield
        seen.append(out.read_text(encoding="utf-8"))

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        monkeypatch.setattr(app, "suspend", suspend)
        s.jump_to_entry(linked)
        await pilot.pause()
        await pilot.press("O")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert seen == ["suspended", URL + "\n"]
        assert not any("No browser" in t for t in toasts(app))

    run(reader_store, scenario)


def test_a_terminal_browser_without_a_terminal_runs_as_any_other(
    reader_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Headless (Textual cannot step aside): the terminal browser still gets the link."""
    linked = add_entry(reader_store, URL)
    out = set_browser(tmp_path, monkeypatch, "w3m")

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_entry(linked)
        await pilot.pause()
        await pilot.press("O")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert out.read_text(encoding="utf-8") == URL + "\n"

    run(reader_store, scenario)


@pytest.mark.parametrize(
    ("command", "terminal"),
    [("w3m", True), ("/usr/bin/lynx", True), ("elinks %s", True), ("firefox", False)],
)
def test_terminal_browsers_are_told_apart(command: str, terminal: bool):
    assert in_terminal(webbrowser.GenericBrowser(command)) is terminal
    assert in_terminal(webbrowser.BackgroundBrowser("xdg-open")) is False


def test_open_link_refuses_what_is_not_a_web_link(reader_store: Path, fake_browser: Path):
    odd = add_entry(reader_store, "--new-window=file:///etc/passwd")

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_entry(odd)
        await pilot.pause()
        await pilot.press("O")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not fake_browser.exists()
        assert any(t.startswith("Not a web link, not opened: --new-window") for t in toasts(app))

    run(reader_store, scenario)


def test_a_browser_that_fails_is_reported(
    reader_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    linked = add_entry(reader_store, URL)
    monkeypatch.setenv("BROWSER", "false")  # a command that exits 1
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "_browsers", {})

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_entry(linked)
        await pilot.pause()
        await pilot.press("O")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert any(t.startswith("No browser could open the link") for t in toasts(app))

    run(reader_store, scenario)


def test_copy_link_puts_it_on_the_clipboard(reader_store: Path):
    linked = add_entry(reader_store, URL)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_entry(linked)
        await pilot.pause()
        await pilot.press("y")
        assert app.clipboard == URL
        assert f"Copied: {URL}" in toasts(app)

    run(reader_store, scenario)


def test_no_link_says_where_the_entry_came_from(reader_store: Path, fake_browser: Path):
    with Store(reader_store) as store:
        entries = store.entries()
    sourced = next(e for e in entries if e.source and not e.url)
    unsourced = next(e for e in entries if not e.source and not e.url)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_entry(sourced.id)
        await pilot.pause()
        await pilot.press("O", "y")
        said = f"This entry has no link. Its source: {sourced.source}."
        assert toasts(app).count(said) == 2
        s.jump_to_entry(unsourced.id)
        await pilot.pause()
        await pilot.press("O")
        where = f"It came from {unsourced.origin_file}, line {unsourced.origin_line}."
        assert toasts(app)[-1] == "This entry has no link. " + where
        assert unsourced.origin_line > 0 and app.clipboard == ""
        await app.workers.wait_for_complete()
        assert not fake_browser.exists()

    run(reader_store, scenario)


# --- marking read ---------------------------------------------------------------------


def test_mark_topic_read_then_all_read_count_what_they_mark(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        first = s.topics[0]
        rows = [r[0] for r in s.entry_list.rows]
        await pilot.press("l", "enter")  # one entry read by hand first
        await pilot.press("A")
        assert toasts(app)[-1] == f"Marked {len(rows) - 1} entries read: {first.name}."
        assert first.id not in s.unread and topic_row(s, first.id).unread == 0
        assert set(rows) <= s.read and s.detail.read
        with Store(reader_store) as store:
            assert set(rows) <= store.read_ids()
            total = store.count_entries()
        await pilot.press("A")
        assert toasts(app)[-1] == f"Every entry was read already: {first.name}."
        await pilot.press("C")
        said = f"Marked {total - len(rows)} entries read: every entry is read now (z undoes)."
        assert toasts(app)[-1] == said
        assert s.unread == {} and all(s.topic_list.item(i).unread == 0 for i in range(5))
        await pilot.press("C")
        assert toasts(app)[-1] == "Every entry was read already."

    run(reader_store, scenario)


def test_mark_read_in_unread_only_mode_empties_the_list_but_the_cursor_row(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("u", "l", "j")
        at = s.entry_list.current_id
        await pilot.press("A")
        assert [r[0] for r in s.entry_list.rows] == [at]

    run(reader_store, scenario)


# --- next unread, and Space ----------------------------------------------------------


def test_next_unread_goes_across_topics_and_wraps_once(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        first, second = s.topics[0], s.topics[1]
        rows = [r[0] for r in s.entry_list.rows]
        with Store(reader_store) as store:  # the next two of this topic are read already
            store.set_read_many(rows[1:3])
        await pilot.press("R")
        await pilot.press("U")
        assert s.entry_list.cursor == 3 and s.detail.entry.id == rows[3] and s.detail.read
        # the rest of this topic read: U goes on into the next one
        await pilot.press("A")
        with Store(reader_store) as store:
            store.set_read(rows[0], False)  # one unread left behind, above the cursor
        await pilot.press("R")
        await pilot.press("U")
        assert s.state.view == View("topic", second.id) and s.entry_list.cursor == 0
        assert s.detail.entry.id == s.entry_list.rows[0][0] and s.detail.read
        assert f"Next topic: {second.name}" in toasts(app)
        # every other topic read: U comes round to the first topic's unread entry
        with Store(reader_store) as store:
            store.set_read_many(e for e in store.entry_ids() if e != rows[0])
        await pilot.press("R")
        await pilot.press("U")
        assert s.state.view == View("topic", first.id) and s.entry_list.current_id == rows[0]
        with Store(reader_store) as store:
            assert rows[0] in store.read_ids()
        await pilot.press("U")
        assert toasts(app)[-1] == "No unread entries left."
        assert s.entry_list.current_id == rows[0]

    run(reader_store, scenario)


def test_space_pages_the_entry_then_goes_to_the_next_unread(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "enter")  # the first entry, read, in the detail pane
        pane = s.detail_pane
        rows = [r[0] for r in s.entry_list.rows]
        assert pane.max_scroll_y > 0  # longer than the pane at 80x24
        pages = 0
        while pane.scroll_y < pane.max_scroll_y:
            before = pane.scroll_y
            await pilot.press("space")
            await pilot.pause()
            assert pane.scroll_y > before and s.detail.entry.id == rows[0]
            pages += 1
        assert pages >= 1
        await pilot.press("space")  # at its end: the next unread entry, marked read
        await pilot.pause()
        assert s.entry_list.cursor == 1 and s.detail.entry.id == rows[1] and s.detail.read
        assert pane.scroll_y == 0
        with Store(reader_store) as store:
            assert store.read_ids() == {rows[0], rows[1]}

    run(reader_store, scenario, size=(80, 24))


# --- delete and undo -------------------------------------------------------------------


def test_delete_then_undo_restores_everything(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        first = s.topics[0]
        rows = [r[0] for r in s.entry_list.rows]
        await pilot.press("l", "j", "enter", "N")  # the second entry: read, with a note
        await pilot.press(*"keep me", "ctrl+s")
        await pilot.pause()
        target = s.detail.entry
        assert target.id == rows[1] and s.detail.note == "keep me"
        before = dump_data(reader_store)
        unread = s.unread[first.id]
        await pilot.press("d", "y")  # it has a note: d asks first
        await pilot.pause()
        said = toasts(app)[-1]
        assert said.startswith(f"Deleted: {target.title[:20]}") and said.endswith(" (Z undoes)")
        assert target.id not in [r[0] for r in s.entry_list.rows]
        assert s.entry_list.current_id == rows[2] and s.detail.entry.id == rows[2]
        assert topic_row(s, first.id).size == first.size - 1
        assert s.unread[first.id] == unread  # it was read: the unread count stays
        assert target.id not in s.bookmarks and target.id not in s.read
        with Store(reader_store) as store:
            assert store.entry(target.id) is None and store.note(target.id) == ""
        await pilot.press("Z")
        await pilot.pause()
        assert toasts(app)[-1].startswith("Restored: ")
        assert dump_data(reader_store) == before
        assert [r[0] for r in s.entry_list.rows] == rows
        assert s.entry_list.current_id == target.id and s.detail.note == "keep me"
        assert target.id in s.bookmarks and target.id in s.read
        assert topic_row(s, first.id).size == first.size
        await pilot.press("Z")
        assert toasts(app)[-1] == "Nothing deleted to bring back."

    run(reader_store, scenario)


def test_keys_act_on_the_cursor_row_even_before_the_detail_follows(reader_store: Path):
    """Keys typed faster than the list's Highlighted message: d deletes the row under the
    cursor, not the entry the detail still shows."""

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l")
        rows = [r[0] for r in s.entry_list.rows]
        s.entry_list.move_cursor(3)
        assert s.detail.entry.id == rows[0]  # the detail has not followed yet
        s.action_delete_entry()
        with Store(reader_store) as store:
            assert store.entry(rows[3]) is None and store.entry(rows[0]) is not None
        assert s.entry_list.current_id == rows[4]

    run(reader_store, scenario)


def test_deleting_the_last_row_moves_up_and_two_undos_restore_both(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        before = dump_data(reader_store)
        rows = [r[0] for r in s.entry_list.rows]
        await pilot.press("l", "G", "d")
        assert s.entry_list.current_id == rows[-2]
        await pilot.press("d")
        assert s.entry_list.current_id == rows[-3] and len(s.entry_list.rows) == len(rows) - 2
        await pilot.press("Z", "Z")
        await pilot.pause()
        assert dump_data(reader_store) == before
        assert [r[0] for r in s.entry_list.rows] == rows

    run(reader_store, scenario)


# --- the screen ----------------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
def test_maximize_shows_the_entry_alone(reader_store: Path, size: tuple[int, int]):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("v")
        await pilot.pause()
        pane = s.detail_pane
        assert s.maximized is pane and app.focused is pane
        lines = screen_lines(app)
        assert "Topics" not in lines[0] and "Entry" in lines[0]
        assert pane.region.width == size[0] and pane.region.height == size[1] - 1
        assert "v Bookmark" not in lines[-1] and "Bookmark" in lines[-1]  # the key footer
        assert "v or escape: every pane" in lines[-2]
        await pilot.press("n")  # the keys still work on the hidden list
        await pilot.pause()
        assert s.entry_list.cursor == 1 and pane.detail.entry.id == s.entry_list.current_id
        await pilot.press("v")
        await pilot.pause()
        assert s.maximized is None and "Topics" in screen_lines(app)[0]
        await pilot.press("v", "escape")  # Textual's own key restores the panes too
        await pilot.pause()
        assert s.maximized is None and pane.border_subtitle == ""

    run(reader_store, scenario, size=size)


def test_a_terminal_too_small_shows_a_message_until_it_grows(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        message = s.query_one("#too-small", Static)
        assert message.display and not s.entry_list.display and not s.topic_list.display
        text = "\n".join(screen_lines(app))
        assert "The terminal is 50x12." in text
        assert f"topiclens needs at least {MIN_WIDTH}x{MIN_HEIGHT}:" in text
        assert "make it larger, or press q to quit." in text
        await pilot.resize_terminal(MIN_WIDTH, MIN_HEIGHT)
        await pilot.pause()
        assert not message.display and s.entry_list.display and s.topic_list.display
        assert s.detail_pane.region.height >= 3
        # the layout fits: nothing below the footer, no scrolling screen
        assert s.max_scroll_y == 0
        await pilot.resize_terminal(MIN_WIDTH, MIN_HEIGHT - 1)
        await pilot.pause()
        assert message.display
        assert f"{MIN_WIDTH}x{MIN_HEIGHT - 1}" in "\n".join(screen_lines(app))

    run(reader_store, scenario, size=(50, 12))


def test_the_least_usable_height_is_where_the_panes_stop_fitting(reader_store: Path):
    """One line less than MIN_HEIGHT and the panes would overflow the screen (checked
    with the message kept out of the way)."""

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.remove_class("-too-small")
        await pilot.pause()
        assert s.max_scroll_y > 0

    run(reader_store, scenario, size=(MIN_WIDTH, MIN_HEIGHT - 1))


def test_the_loop_commands_are_in_the_palette_and_the_help(reader_store: Path):
    from topiclens.tui.commands import BY_ID
    from topiclens.tui.screens import HelpScreen

    ids = ("open-link", "copy-link", "mark-topic-read", "mark-all-read", "next-unread")
    ids += ("read-on", "delete-entry", "undo-delete", "maximize")

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        titles = {c.title for c in app.get_system_commands(s)}
        assert {BY_ID[i].label for i in ids} <= titles
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(str(app.screen.query_one("#help-text", Static).render()).split())
        for i in ids:
            assert " ".join(BY_ID[i].help.split()) in text, i

    run(reader_store, scenario)
