"""Sort (`s`), filter (`f`) and the reader's place remembered between starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run, screen_lines, settle
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Label, OptionList, Select, TextArea
from topiclens.store import Store
from topiclens.text import terminal_line
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.model import Row, View
from topiclens.tui.screens.filter import FilterScreen
from topiclens.tui.screens.sort import SortScreen
from topiclens.tui.state import STATE_KEY, ReaderState
from topiclens.tui.views import RowFilter, arrange_rows, date_problem
from topiclens.tui.widgets import EntryList


def ids(s: MainScreen) -> list[str]:
    return [r[0] for r in s.entry_list.rows]


async def choose_sort(app: TopicLensApp, pilot: Pilot[None], index: int) -> None:
    await pilot.press("s")
    await pilot.pause()
    assert isinstance(app.screen, SortScreen)
    app.screen.query_one(OptionList).highlighted = index
    await pilot.press("enter")
    await pilot.pause()


# --- the rules, without the app ------------------------------------------------------

ROWS: list[Row] = [
    ("a", "beta", "Zhihu", "2025-03-02"),
    ("b", "Alpha", "arXiv", "2025-01-15"),
    ("c", "gamma", "arXiv", None),
    ("d", "delta", "Zhihu", "2024-12-31"),
]


def test_sorts_keep_also_rows_in_their_own_group():
    by_source = arrange_rows(ROWS, 1, sort="source", keep_row=None)
    # own rows: arXiv (newest first) then Zhihu; the "also" row stays last
    assert [r[0] for r in by_source.rows] == ["b", "c", "a", "d"] and by_source.also == 1
    by_title = arrange_rows(ROWS, 0, sort="title", keep_row=None)
    assert [r[1] for r in by_title.rows] == ["Alpha", "beta", "delta", "gamma"]
    assert arrange_rows(ROWS, 0, sort="date", keep_row=None).rows == ROWS


def test_filter_rules_take_months_and_days_both_ends_included():
    march = RowFilter(since="2025-03")
    assert [r[0] for r in ROWS if march.keeps(r, frozenset())] == ["a"]
    until = RowFilter(until="2025-01")  # the whole of January, undated rows out
    assert [r[0] for r in ROWS if until.keeps(r, frozenset())] == ["b", "d"]
    day = RowFilter(since="2025-01-15", until="2025-01-15")
    assert [r[0] for r in ROWS if day.keeps(r, frozenset())] == ["b"]
    marked = RowFilter(source="Zhihu", bookmarked=True)
    assert [r[0] for r in ROWS if marked.keeps(r, frozenset({"d", "b"}))] == ["d"]
    assert date_problem("2025-13") and date_problem("25-01") and date_problem("2025-01-32")
    assert date_problem("2025-01") is None and date_problem("2025-01-31") is None
    assert not RowFilter().active and RowFilter(since="2025").active


# --- sort ------------------------------------------------------------------------------


def test_sort_key_orders_the_list_and_says_so(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        with Store(reader_store) as store:
            by_date = store.topic_rows(s.topics[0].id)
        await pilot.press("l")
        await pilot.press("j", "j")
        current = s.entry_list.current_id
        await choose_sort(app, pilot, 1)  # source
        assert app.screen is s and s.state.sort == "source"
        rows = s.entry_list.rows
        keys = [r[2].casefold() for r in rows]
        assert keys == sorted(keys) and len(rows) == len(by_date)
        assert len(set(keys)) > 1, "the topic has several sources: the sort is seen"
        assert s.entry_list.current_id == current  # the cursor stays on its entry
        assert "by source" in str(s.entry_list.border_subtitle)
        await choose_sort(app, pilot, 2)  # title
        titles = [r[1].casefold() for r in s.entry_list.rows]
        assert titles == sorted(titles) and "by title" in str(s.entry_list.border_subtitle)
        # the sort holds in another topic too
        await pilot.press("h", "j")
        await settle(pilot)
        titles = [r[1].casefold() for r in s.entry_list.rows]
        assert titles == sorted(titles)
        await pilot.press("k")
        await settle(pilot)
        await choose_sort(app, pilot, 0)  # back to date: the store's order, no subtitle
        assert s.entry_list.rows == by_date
        assert str(s.entry_list.border_subtitle) == ""
        await pilot.press("s", "escape")  # Escape leaves the sort as it was
        await pilot.pause()
        assert app.screen is s and s.state.sort == "date"

    run(reader_store, scenario)


# --- filter ----------------------------------------------------------------------------


def test_filter_by_source_and_dates_then_clear_with_one_key(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        everything = list(s.entry_list.rows)
        sources = {r[2] for r in everything}
        await pilot.press("f")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, FilterScreen)
        select = dialog.query_one("#filter-source", Select)
        # the sources offered are those of the entries shown
        offered = {value for _label, value in select._options if isinstance(value, str)}
        assert offered == sources
        select.value = "NVIDIA Technical Blog"
        dialog.query_one("#filter-since", Input).value = "2026-09"
        dialog.query_one("#filter-since", Input).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is s
        expected = [
            r[0]
            for r in everything
            if r[2] == "NVIDIA Technical Blog" and r[3] is not None and r[3] >= "2026-09"
        ]
        assert expected and ids(s) == expected and len(expected) < len(everything)
        subtitle = str(s.entry_list.border_subtitle)
        assert "source NVIDIA Technical Blog" in subtitle and "since 2026-09" in subtitle
        assert f"· {len(expected)}" in str(s.entry_list.border_title)

        # a date the filter cannot read stays in the dialog with a message
        await pilot.press("f")
        await pilot.pause()
        dialog = app.screen
        assert dialog.query_one("#filter-since", Input).value == "2026-09"
        dialog.query_one("#filter-until", Input).value = "2026-13"
        dialog.query_one("#filter-until", Input).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog
        assert "not a date" in str(dialog.query_one("#filter-error", Label).render())
        # a range that ends before it starts is refused too
        dialog.query_one("#filter-until", Input).value = "2026-08"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog and "is after" in str(
            dialog.query_one("#filter-error", Label).render()
        )
        await pilot.press("ctrl+r")  # one key clears every filter, from inside an input
        await pilot.pause()
        assert app.screen is s
        assert s.state.row_filter == RowFilter() and not s.state.unread_only
        assert ids(s) == [r[0] for r in everything]
        assert str(s.entry_list.border_subtitle) == ""

    run(reader_store, scenario)


def test_filter_unread_is_the_u_state_and_bookmarked_only(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "r", "j", "b", "j", "j", "b")  # one read, two bookmarked
        read_one = s.entry_list.rows[0][0]
        marked = {s.entry_list.rows[1][0], s.entry_list.rows[3][0]}
        await pilot.press("u")
        assert s.state.unread_only
        await pilot.press("f")
        await pilot.pause()
        dialog = app.screen
        assert dialog.query_one("#filter-unread", Checkbox).value  # the same state as u
        dialog.query_one("#filter-bookmarked", Checkbox).value = True
        await pilot.click("#filter-apply")
        await pilot.pause()
        assert app.screen is s
        assert set(ids(s)) == marked and read_one not in ids(s)
        assert "bookmarked" in str(s.entry_list.border_subtitle)
        await pilot.press("f")
        await pilot.pause()
        app.screen.query_one("#filter-unread", Checkbox).value = False
        app.screen.query_one("#filter-bookmarked", Checkbox).value = False
        await pilot.click("#filter-apply")
        await pilot.pause()
        assert not s.state.unread_only and read_one in ids(s)  # u's state followed the dialog
        await pilot.press("f")
        await pilot.pause()
        app.screen.query_one("#filter-bookmarked", Checkbox).value = True
        await pilot.press("escape")  # Escape changes nothing
        await pilot.pause()
        assert s.state.row_filter == RowFilter() and read_one in ids(s)

    run(reader_store, scenario)


def test_a_filter_that_hides_everything_says_so(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("f")
        await pilot.pause()
        app.screen.query_one("#filter-until", Input).value = "1999-01"
        await pilot.click("#filter-apply")
        await pilot.pause()
        assert s.entry_list.rows == [] and s.detail is None
        assert "f changes it" in s.entry_list.empty_text

    run(reader_store, scenario)


# --- remembered between starts ---------------------------------------------------------


def test_place_sort_and_filter_survive_a_restart(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch
):
    chosen: dict[str, object] = {}

    async def first(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        topic = s.topics[2]
        s.jump_to_topic(topic.id)
        await settle(pilot)
        await choose_sort(app, pilot, 2)  # title
        await pilot.press("j", "j")
        await pilot.press("f")
        await pilot.pause()
        app.screen.query_one("#filter-since", Input).value = "2024-01"
        await pilot.click("#filter-apply")
        await pilot.pause()
        await pilot.press("u")
        chosen.update(view=s.state.view, entry=s.entry_list.current_id, rows=ids(s))
        assert chosen["entry"] is not None

    run(reader_store, first)
    with Store(reader_store) as store:
        saved = json.loads(store.get_meta(STATE_KEY) or "{}")
    assert saved["view"] == chosen["view"].topic_id and saved["entry"] == chosen["entry"]

    shown: list[list[str]] = []
    show_rows = EntryList.show_rows

    def record(self: EntryList, rows: list[Row], *args: object, **kwargs: object) -> None:
        shown.append([r[0] for r in rows])
        show_rows(self, rows, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(EntryList, "show_rows", record)

    async def second(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        # the first rows the list showed were the remembered view's, sorted and filtered:
        # no other view drawn first
        assert shown[0] == chosen["rows"]
        assert s.state.view == chosen["view"]
        assert s.entry_list.current_id == chosen["entry"]
        assert s.detail is not None and s.detail.entry.id == chosen["entry"]
        assert s.state.sort == "title" and s.state.unread_only
        assert s.state.row_filter == RowFilter(since="2024-01")
        assert ids(s) == chosen["rows"]
        assert s.topic_list.item().view == chosen["view"]
        subtitle = str(s.entry_list.border_subtitle)
        assert "unread only" in subtitle and "by title" in subtitle and "since 2024-01" in subtitle

    run(reader_store, second)


def test_the_place_is_saved_on_leaving(reader_store: Path):
    """Moving is enough: the topic and the entry are remembered without a sort or a filter
    having been changed (the panes are gone when the screen unmounts; the state is not)."""
    chosen: dict[str, object] = {}

    async def first(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("j", "j", "l", "j", "j", "j")
        await settle(pilot)
        chosen.update(view=s.state.view, entry=s.entry_list.current_id)
        assert chosen["view"] == View("topic", s.topics[2].id)

    run(reader_store, first)

    async def second(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert s.state.view == chosen["view"]
        assert s.entry_list.current_id == chosen["entry"] and s.entry_list.cursor == 3

    run(reader_store, second)


def test_a_state_it_cannot_read_starts_afresh(reader_store: Path):
    with Store(reader_store) as store:
        store.set_meta(STATE_KEY, "{not json")
        first = store.topics()[0]

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert s.state.view == View("topic", first.id)
        assert s.state.sort == "date" and not s.state.unread_only

    run(reader_store, scenario)
    with Store(reader_store) as store:
        gone_topic = {"view": 999, "entry": "nope", "sort": "nonsense", "filter": {"since": 5}}
        store.set_meta(STATE_KEY, json.dumps(gone_topic))

    async def stale(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert s.state.view == View("topic", first.id)  # a topic gone since: the first one
        assert s.state.sort == "date" and s.state.row_filter == RowFilter()
        assert s.entry_list.cursor == 0

    run(reader_store, stale)


def test_hostile_sources_and_notes_reach_no_dialog_as_markup_or_control(
    hostile_store: Path,
):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        hostile = next(r[2] for r in s.entry_list.rows if "[/]" in r[2])
        await pilot.press("f")
        await pilot.pause()
        dialog = app.screen
        dialog.query_one("#filter-source", Select).value = hostile
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert "\x1b" not in shown and "\x07" not in shown
        await pilot.click("#filter-apply")
        await pilot.pause()
        assert app.screen is s and [r[2] for r in s.entry_list.rows] == [hostile]
        # the subtitle shows the name as written, cleaned, never parsed
        await pilot.pause()
        name = terminal_line(hostile)
        assert "[/]" in name and any(f"source {name}" in line for line in screen_lines(app))
        await pilot.press("f", "ctrl+r")
        s.jump_to_entry(f"{0:016x}")  # its note holds an OSC 52 sequence and markup
        await settle(pilot)
        await pilot.press("N")
        await pilot.pause()
        text = app.screen.query_one("#note-input", TextArea).text
        assert "\x1b" not in text and "[/] [b]x\nline two" in text
        assert all("\x1b" not in line for line in screen_lines(app))

    run(hostile_store, scenario)


# --- the saved place, read and written as one ------------------------------------------

DEEP = "[" * 30_000 + "]" * 30_000  # deeper than json's recursion, under the size cap


def test_the_place_round_trips_and_a_search_is_not_saved():
    state = ReaderState(
        view=View("topic", 3),
        entry="abc",
        unread_only=True,
        sort="title",
        row_filter=RowFilter(source="arXiv", since="2025-01", until="2025-03-31", bookmarked=True),
        search_query="kv",
    )
    back, problem = ReaderState.from_json(state.to_json())
    assert problem is None
    assert back == ReaderState(
        View("topic", 3), "abc", True, "title", state.row_filter, search_query=None
    )
    bookmarks, _ = ReaderState.from_json(ReaderState(View("bookmarks"), "x").to_json())
    assert (bookmarks.view, bookmarks.entry) == (View("bookmarks"), "x")
    searching = ReaderState(View("search", query="kv"), "x", search_query="kv")
    assert ReaderState.from_json(searching.to_json()) == (ReaderState(), None)


def test_a_place_saved_before_reads_the_same():
    """The stored form written by earlier versions of the reader."""
    saved = (
        '{"view": 2, "entry": "e1", "unread_only": false, "sort": "source", '
        '"filter": {"source": null, "since": "2024-01", "until": "", "bookmarked": false}}'
    )
    state, problem = ReaderState.from_json(saved)
    assert problem is None
    assert state == ReaderState(View("topic", 2), "e1", False, "source", RowFilter(since="2024-01"))
    assert ReaderState.from_json('{"view": "bookmarks"}') == (
        ReaderState(View("bookmarks")),
        None,
    )
    assert ReaderState.from_json(None) == ReaderState.from_json("") == (ReaderState(), None)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "it is not JSON"),
        (DEEP, "it is nested too deep"),
        ('{"view": ' * 3_000 + "1" + "}" * 3_000, "it is nested too deep"),
        ('{"entry": "' + "x" * 70_000 + '"}', "it is too large"),
        ("[1, 2]", "it is not a JSON object"),
        ("null", "it is not a JSON object"),
    ],
    ids=["not-json", "deep-list", "deep-object", "too-large", "a-list", "null"],
)
def test_a_place_it_cannot_read_is_the_defaults_with_one_sentence(text: str, why: str):
    state, problem = ReaderState.from_json(text)
    assert state == ReaderState()
    assert problem is not None and why in problem


def test_the_readable_part_of_a_place_is_kept():
    text = json.dumps(
        {
            "view": [1],
            "entry": "kept",
            "unread_only": "yes",
            "sort": "title",
            "filter": {"since": 5},
        }
    )
    state, problem = ReaderState.from_json(text)
    assert state == ReaderState(entry="kept", sort="title")
    assert problem is not None and "(view, unread_only, filter)" in problem


def test_a_deeply_nested_place_starts_afresh_with_one_warning(reader_store: Path):
    with Store(reader_store) as store:
        store.set_meta(STATE_KEY, DEEP)
        first = store.topics()[0]

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert s.state.view == View("topic", first.id) and s.entry_list.cursor == 0
        warnings = [n for n in app._notifications if n.severity == "warning"]
        assert len(warnings) == 1 and "nested too deep" in str(warnings[0].message)
        await pilot.press("j")

    run(reader_store, scenario)
    with Store(reader_store) as store:  # and the place is saved whole again on leaving
        state, problem = ReaderState.from_json(store.get_meta(STATE_KEY))
    assert problem is None and state.view is not None and state.view.kind == "topic"
