"""Nothing from outside controls the terminal, crashes or hangs the reader: a stored export
path with escapes, links that are not safe to paste, titles and names megabytes long, a
megabyte pasted as a topic's name, a search too long to run, a bad keymap file. Driven
with Pilot; each scenario also quits, which a reader stuck laying out text never does."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from helpers import CONTROL, run, screen_lines, set_browser, settle, wait_until
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, Label, TextArea
from topiclens.store import Entry, Store
from topiclens.store.bounds import NAME_MAX_CHARS
from topiclens.text import cell_width
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.model import View
from topiclens.tui.screens.export import LAST_PATH, ExportScreen
from topiclens.tui.screens.overview import OverviewScreen
from topiclens.tui.screens.search import SearchScreen
from topiclens.tui.screens.topic_name import TopicNameScreen

OSC52 = "\x1b]52;c;cHduZWQ=\x07"  # writes the clipboard
OSC0 = "\x1b]0;pwned\x07"  # retitles the window
C1 = "\x9b31m\x85"  # an 8-bit CSI and a C1 next line
ESCAPES = ("\x1b", "\x07", "\x9b", "\x85")
# more characters than any screen shows: what a pane holds of one huge text stays below it
SCREENFUL = 10_000


def toasts(app: TopicLensApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def add_entry(store_path: Path, title: str, url: str | None = None, topic: int = 1) -> str:
    """Add the newest entry of topic ``topic`` (first in its list), titled ``title``."""
    entry = Entry(f"{len(title):016x}", title, "a summary", date="2099-01-01", url=url)
    with Store(store_path) as store:
        store.add_entries([entry])
        assert store.add_assignments({entry.id: (topic, 0.5, [])}) == []
    return entry.id


async def quit_reader(app: TopicLensApp, pilot: Pilot[None]) -> None:
    await pilot.press("q")
    await pilot.pause()
    assert app.return_code == 0 and not app.is_running


def show_topic(s: MainScreen, topic_id: int) -> None:
    view = View("topic", topic_id)
    s.topic_list.select_view(view)
    s.show_view(view, wait=True)


# --- the export dialog's path, from the store ------------------------------------------


def test_the_stored_export_path_reaches_the_dialog_cleaned(reader_store: Path):
    stored = f"/tmp/out{OSC52}{OSC0}{C1}\u202e.md"
    with Store(reader_store) as store:
        store.set_meta(LAST_PATH, stored)
        store.toggle_bookmark(store.entry_ids()[0])

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportScreen), "the dialog")
        await pilot.pause()
        value = app.screen.query_one("#export-path", Input).value
        assert value == "/tmp/out]52;c;cHduZWQ=]0;pwned31m <U+202E>.md"  # NEL: a space
        screen = "".join(screen_lines(app))
        assert "]52;c;cHduZWQ=]0;pwned" in screen
        assert not any(ch in screen for ch in ESCAPES)
        await pilot.press("escape")
        await quit_reader(app, pilot)

    run(reader_store, scenario)


# --- y copies only what is safe to paste ---------------------------------------------


@pytest.mark.parametrize(
    ("url", "why"),
    [
        (f"https://example.com/a{OSC52}", "control character (U+001B)"),
        ("https://example.com/bell\x07", "control character (U+0007)"),
        ("https://example.com/c1\x9b31m", "control character (U+009B)"),
        ("https://example.com/\u202eexe.txt", "control character (U+202E)"),
        ("https://example.com/two\nlines", "control character (U+000A)"),
        ("javascript:alert(1)", "it is not a web link"),
        ("file:///etc/passwd", "it is not a web link"),
        ("https://example.com/" + "x" * 10_000, "10,020 characters long"),
    ],
    ids=["osc52", "bel", "c1", "bidi", "newline", "javascript", "file", "10KB"],
)
def test_y_copies_no_link_a_terminal_would_act_on(reader_store: Path, url: str, why: str):
    odd = add_entry(reader_store, "an odd link", url)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        show_topic(s, 1)
        s.jump_to_entry(odd)
        s.load_detail(odd)
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == ""
        said = toasts(app)[-1]
        assert said.startswith("Not copied: ") and why in said
        assert not any(ch in said for ch in ESCAPES)
        await quit_reader(app, pilot)

    run(reader_store, scenario)


def test_o_opens_no_link_a_terminal_would_act_on(
    reader_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    opened = set_browser(tmp_path, monkeypatch, "browser")
    odd = add_entry(reader_store, "an odd link", f"https://example.com/a{OSC52}")

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        show_topic(s, 1)
        s.jump_to_entry(odd)
        s.load_detail(odd)
        await pilot.pause()
        await pilot.press("O")
        await settle(pilot)
        said = toasts(app)[-1]
        assert said.startswith("Not opened: ") and "U+001B" in said
        assert not opened.exists()
        await quit_reader(app, pilot)

    run(reader_store, scenario)


def test_y_still_copies_a_web_link(reader_store: Path):
    url = "https://example.org/speculative?q=投机&x=1#part"
    linked = add_entry(reader_store, "a good link", url)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        show_topic(s, 1)
        s.jump_to_entry(linked)
        s.load_detail(linked)
        await pilot.pause()
        await pilot.press("y")
        assert app.clipboard == url
        assert toasts(app)[-1] == f"Copied: {url}"

    run(reader_store, scenario)


# --- very long text costs a frame ------------------------------------------------------


@pytest.mark.parametrize(
    "title",
    ["x" * 100_000, "长" * 100_000, "x" * 1_200_000 + " end", "word " * 250_000],
    ids=["100KB-word", "100K-chinese", "1.2MB-word", "1.2MB-words"],
)
def test_a_huge_title_is_cut_before_it_is_laid_out(reader_store: Path, title: str):
    huge = add_entry(reader_store, title, topic=2)  # the largest topic: the one shown first

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert s.entry_list.current_id == huge
        row = screen_lines(app)[1]
        assert title[:20] in row and "…" in row
        pane = s.detail_pane.text
        assert pane.startswith(title[:10]) and len(pane) < SCREENFUL
        await quit_reader(app, pilot)

    run(reader_store, scenario)


def test_a_ten_megabyte_topic_name_reached_by_the_cursor(reader_store: Path):
    name = "名" * 10_000_000
    # a name stored before names were bounded: the store refuses one this long now
    with sqlite3.connect(reader_store) as conn:
        conn.execute("UPDATE topics SET name = ? WHERE id = 3", (name,))
    conn.close()

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.topic_list.focus()
        index = next(
            i
            for i in range(s.topic_list.item_count)
            if s.topic_list.item(i).view == View("topic", 3)
        )
        await pilot.press(*["j"] * (index - s.topic_list.cursor))
        await settle(pilot)
        assert s.state.view == View("topic", 3)
        lines = screen_lines(app)
        assert any("│  名名名名" in line and "…" in line for line in lines)
        assert all(cell_width(line) == 120 for line in lines)
        title = str(s.entry_list.border_title)
        assert title.startswith("名名名") and len(title) < SCREENFUL
        assert len(s.detail_pane.text) < 2 * SCREENFUL
        await pilot.press("o")  # the overview lists every topic by name
        await wait_until(pilot, lambda: isinstance(app.screen, OverviewScreen), "the overview")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await quit_reader(app, pilot)

    run(reader_store, scenario)


def test_a_megabyte_pasted_as_a_topics_name_is_refused_in_the_dialog(reader_store: Path):
    with Store(reader_store) as store:
        before = {t.id: t.name for t in store.topics()}

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("E")
        await wait_until(pilot, lambda: isinstance(app.screen, TopicNameScreen), "the dialog")
        field = app.screen.query_one("#topic-name", Input)
        field.value = ""
        field.post_message(events.Paste("名" * 1_000_000))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TopicNameScreen)  # still open, saying why
        error = str(app.screen.query_one("#topic-name-error", Label).content)
        assert f"A topic name is at most {NAME_MAX_CHARS} characters, not 1,000,000" in error
        await pilot.press("escape")
        await pilot.pause()
        await quit_reader(app, pilot)

    run(reader_store, scenario)
    with Store(reader_store) as store:
        assert {t.id: t.name for t in store.topics()} == before


# --- a bad keymap file -------------------------------------------------------------------


def _keymap(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / "keymap.toml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "deep":
        path.write_text("help = " + "[" * 5000 + "]" * 5000 + "\n")
    elif kind == "not-a-table":
        path.write_text('keymap = "x"\n')
    elif kind == "unknown-ids":
        path.write_text("".join(f'no-such-{i} = "x"\n' for i in range(2000)))
    return path


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "deep", "not-a-table", "unknown-ids"])
def test_the_reader_starts_with_default_keys_whatever_the_keymap(
    reader_store: Path, tmp_path: Path, kind: str
):
    keymap = _keymap(tmp_path, kind)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert s.entry_list.rows and app.keymap == {}
        assert 1 <= len(app.keymap_problems) <= 6
        assert all(p.startswith(f"{keymap}:") for p in app.keymap_problems)
        await pilot.press("l", "b")  # b, the default key, still bookmarks
        with Store(reader_store) as store:
            assert store.bookmark_ids() == {s.entry_list.rows[0][0]}
        await quit_reader(app, pilot)

    run(reader_store, scenario, keymap=keymap)


# --- a search too long to run ------------------------------------------------------------

THOUSAND_WORDS = " ".join(f"w{i}" for i in range(1000))


def test_a_search_too_long_is_refused_in_the_dialog(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("slash")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen), "the dialog")
        app.screen.query_one("#search-input", Input).value = THOUSAND_WORDS
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)  # still open: the query can be cut
        error = str(app.screen.query_one("#search-error", Label).content)
        assert error == "A search is at most 64 words; this one has 1,000"
        await pilot.press("escape")
        await pilot.pause()
        await quit_reader(app, pilot)

    run(reader_store, scenario)


@pytest.mark.parametrize(
    ("query", "said"),
    [
        (THOUSAND_WORDS, "A search is at most 64 words; this one has 1,000"),
        ("x" * 50_000, "A search is at most 1,000 characters; this one has 50,000"),
    ],
    ids=["1000-words", "50000-characters"],
)
def test_a_search_too_long_shows_why_not_searching(reader_store: Path, query: str, said: str):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.run_search(query)
        await settle(pilot)
        assert s.state.view == View("search", query=query)
        assert s.entry_list.rows == [] and s.entry_list.empty_text == said
        assert said in toasts(app)
        screen = "\n".join(screen_lines(app))
        assert "Searching…" not in screen and said[:40] in screen
        # reloading the search (R) runs it in a worker: its failure is said there too
        s.entry_list.empty_text = "Searching…"
        await pilot.press("R")
        await settle(pilot)
        assert s.entry_list.empty_text.endswith(said[1:])
        await quit_reader(app, pilot)

    run(reader_store, scenario)


# --- every dialog filled from stored data --------------------------------------------------


@pytest.mark.parametrize(
    "key", ["e", "E", "N", "m", "M", "S", "T", "f", "o", "s", "question_mark", "F"]
)
def test_no_dialog_shows_stored_text_raw(hostile_store: Path, key: str):
    with Store(hostile_store) as store:
        store.set_meta(LAST_PATH, f"/tmp/{OSC52}{OSC0}{C1}.md")
        store.toggle_bookmark(store.entry_ids()[0])

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert any(CONTROL.search(row[1]) for row in s.entry_list.rows)  # hostile rows shown
        await pilot.press(key)
        await wait_until(pilot, lambda: app.screen is not s, f"the dialog of {key}")
        await pilot.pause()
        dialog = app.screen
        shown = ["".join(screen_lines(app))]
        shown += [field.value for field in dialog.query(Input)]
        shown += [area.text for area in dialog.query(TextArea)]
        for text in shown:
            assert CONTROL.search(text) is None, (type(dialog).__name__, text[:200])
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is s, f"the dialog of {key} to close")
        await quit_reader(app, pilot)

    run(hostile_store, scenario)
