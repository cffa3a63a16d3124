"""Keys and flows that do what a reader expects: the dialogs start on the choice made
first and take j/k; moving an entry, hiding a topic and undoing keep the reader's place;
the overview opens at the topic shown; the topic list keeps its order while the reader is
open; J/K walk the topics; q closes what is open before it quits; at 80x24 topic names
that start alike stay told apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import line_text, run, settle
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, RadioButton, RadioSet, Select
from topiclens.store import Entry, Store, Topic
from topiclens.tui.app import TopicLensApp
from topiclens.tui.commands import BY_ID
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.model import View
from topiclens.tui.places import keep_order, nearest
from topiclens.tui.screens.export import ExportScreen
from topiclens.tui.screens.filter import FilterScreen
from topiclens.tui.screens.overview import OverviewScreen
from topiclens.tui.screens.sort import SortScreen
from topiclens.tui.screens.topic_picker import TopicPickerScreen


def toasts(app: TopicLensApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def row_ids(s: MainScreen) -> list[str]:
    return [r[0] for r in s.entry_list.rows]


def topic_of(db: Path, entry_id: str) -> int | None:
    with Store(db) as store:
        found = store.assignment(entry_id)
    return None if found is None else found[0]


# --- the rules, without the app ------------------------------------------------------


def topic(tid: int, size: int) -> Topic:
    return Topic(tid, f"t{tid}", [("w", 1.0)], size)


def test_keep_order_keeps_known_topics_in_place_and_puts_new_ones_by_the_store():
    # the store now lists 3 first (it grew), 9 is new after 3, 2 is gone
    fresh = [topic(3, 90), topic(9, 80), topic(1, 50), topic(4, 5)]
    assert [t.id for t in keep_order(fresh, [1, 2, 3, 4])] == [1, 3, 9, 4]
    assert [t.id for t in keep_order([topic(7, 1), topic(1, 1)], [1])] == [7, 1]
    assert [t.id for t in keep_order(fresh, [])] == [3, 9, 1, 4]


def test_nearest_goes_down_first_then_up():
    assert nearest(["a", "b", "c", "d"], "c") == ["c", "d", "b", "a"]
    assert nearest(["a", "b"], "b") == ["b", "a"]
    assert nearest(["a"], "z") == []


# --- dialogs: the first choice focused, j/k in every list ----------------------------


def test_export_opens_on_the_format_and_j_enter_picks_it_then_enter_exports(
    reader_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "b", "e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        assert isinstance(app.focused, RadioSet)  # the format, not the path
        formats = [b.name for b in dialog.query(RadioButton)]
        await pilot.press("j", "j", "k", "j")  # the third format
        await pilot.press("enter")  # takes it and goes on to the path
        await pilot.pause()
        chosen = formats[2]
        assert dialog.query_one(f"#fmt-{chosen}", RadioButton).value
        path = dialog.query_one("#export-path", Input)
        assert app.focused is path
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is s
        assert Path(path.value).suffix == dialog._extension(chosen)
        assert (tmp_path / path.value).is_file()

    run(reader_store, scenario)


def test_sort_dialog_takes_j_and_k(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SortScreen)
        options = app.screen.query_one(OptionList)
        assert app.focused is options
        start = options.highlighted
        await pilot.press("j")
        assert options.highlighted == start + 1
        await pilot.press("k")
        assert options.highlighted == start
        await pilot.press("j", "enter")
        await pilot.pause()
        assert app.screen is s and s.state.sort == "source"

    run(reader_store, scenario)


def test_topic_picker_list_takes_j_and_k(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "m")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, TopicPickerScreen)
        assert isinstance(app.focused, Input)  # typing narrows first: j is a letter there
        options = picker.query_one("#picker-list", OptionList)
        await pilot.press("tab")
        assert app.focused is options
        await pilot.press("j", "j")
        assert options.highlighted == 2
        await pilot.press("k")
        assert options.highlighted == 1
        await pilot.press("escape")

    run(reader_store, scenario)


def test_filter_source_drop_down_takes_j_and_k(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "f")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, FilterScreen)
        source = dialog.query_one("#filter-source", Select)
        assert app.focused is source  # the source: the first choice
        await pilot.press("j")  # opens the drop-down
        await pilot.pause()
        assert source.expanded
        overlay = source.query_one(OptionList)
        await pilot.press("j", "j", "k")
        assert overlay.highlighted == 1
        await pilot.press("enter")
        await pilot.pause()
        assert not source.expanded and source.value not in (Select.NULL, None)

    run(reader_store, scenario)


def test_the_dialogs_lists_move_under_the_readers_binding_ids(reader_store: Path, tmp_path: Path):
    from textual.binding import Binding
    from topiclens.tui.commands import SCREEN_BINDING_IDS
    from topiclens.tui.screens.choices import ChoiceList, ChoiceSelect, ChoiceSet

    for cls in (ChoiceList, ChoiceSet, ChoiceSelect):
        for binding in cls.BINDINGS:
            assert isinstance(binding, Binding) and binding.id, (cls, binding)
            assert binding.id in BY_ID or binding.id in SCREEN_BINDING_IDS, binding.id
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('cursor-down = "down,ctrl+n"\n')

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert app.keymap_problems == []
        await pilot.press("s")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        start = options.highlighted
        await pilot.press("ctrl+n")  # the user's key for cursor-down, in a dialog too
        assert options.highlighted == start + 1
        await pilot.press("j")  # j is no longer cursor-down's
        assert options.highlighted == start + 1

    run(reader_store, scenario, keymap=keymap)


# --- m, H and z keep the reader's place ------------------------------------------------


def test_move_keeps_the_topic_and_goes_on_to_the_next_entry(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        here = s.state.view
        await pilot.press("l", "j", "j")
        ids = row_ids(s)
        moved, following = ids[2], ids[3]
        target = s.topics[-1]
        assert here is not None and target.id != here.topic_id
        await move_to(app, pilot, target.id)
        assert topic_of(reader_store, moved) == target.id
        assert s.state.view == here  # the same topic, not the target's
        assert moved not in row_ids(s)
        assert s.entry_list.current_id == following  # the entry after the moved one
        assert s.detail is not None and s.detail.entry.id == following
        message = toasts(app)[-1]
        assert "moved" in message and target.name[:20] in message  # where it went

        await pilot.press("z")  # undone: the view stays, the entry is back in it
        await settle(pilot)
        assert topic_of(reader_store, moved) == here.topic_id
        assert s.state.view == here
        assert moved in row_ids(s) and s.entry_list.current_id == following
        assert toasts(app)[-1].startswith("undone")

    run(reader_store, scenario)


def test_hide_goes_on_to_the_next_topic_and_says_where_the_entries_went(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        order = [t.id for t in s.topics]
        hidden = order[1]
        s.jump_to_topic(hidden)
        await settle(pilot)
        name = next(t.name for t in s.topics if t.id == hidden)
        await pilot.press("H")
        await settle(pilot)
        assert hidden not in {t.id for t in s.topics}
        assert s.state.view == View("topic", order[2])  # the next one in the list
        assert [t.id for t in s.topics] == [t for t in order if t != hidden]
        message = toasts(app)[-1]
        assert name[:20] in message and "most to" in message and "showing" in message

        await pilot.press("z")  # the topic is back; the view stays where the user is
        await settle(pilot)
        assert hidden in {t.id for t in s.topics}
        assert s.state.view == View("topic", order[2])

    run(reader_store, scenario)


async def move_to(app: TopicLensApp, pilot: Pilot[None], target: int) -> None:
    """Move the entry shown to topic ``target`` through the m dialog."""
    await pilot.press("m")
    await pilot.pause()
    picker = app.screen
    assert isinstance(picker, TopicPickerScreen)
    options = picker.query_one("#picker-list", OptionList)
    options.highlighted = [t.id for t in picker.shown].index(target)
    await pilot.press("enter")
    await settle(pilot)


def test_undo_leaves_the_view_on_the_topic_the_reader_went_on_to(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        ids = [t.id for t in s.topics]
        await pilot.press("l")
        moved = s.entry_list.current_id
        assert moved is not None
        await move_to(app, pilot, ids[-1])
        s.jump_to_topic(ids[2])  # reading on elsewhere
        await settle(pilot)
        await pilot.press("z")
        await settle(pilot)
        assert topic_of(reader_store, moved) == ids[0]
        assert s.state.view == View("topic", ids[2])  # not the topic the move went to
        assert toasts(app)[-1].startswith("undone")

    run(reader_store, scenario)


def test_undo_of_the_topic_shown_goes_to_a_topic_beside_it_and_says_so(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("T")
        await pilot.pause()
        await pilot.press(*"Drafts", "enter", *"eagle", "enter")
        await settle(pilot)
        made = next(t.id for t in s.topics if t.name == "Drafts")
        assert s.state.view == View("topic", made)
        listed = [t.id for t in s.topics]
        await pilot.press("z")  # the topic shown is the one undone
        await settle(pilot)
        assert made not in {t.id for t in s.topics}
        at = listed.index(made)
        beside = [listed[i] for i in (at + 1, at - 1) if 0 <= i < len(listed)]
        assert s.state.view is not None and s.state.view.topic_id == beside[0]
        shown = next(t.name for t in s.topics if t.id == beside[0])
        assert toasts(app)[-1].startswith("undone") and f"showing '{shown}" in toasts(app)[-1]

    run(reader_store, scenario)


# --- the overview, J/K, q ----------------------------------------------------------------


def test_overview_opens_at_the_topic_shown(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        third = s.topics[3]
        s.jump_to_topic(third.id)
        await settle(pilot)
        await pilot.press("o")
        await pilot.pause()
        await pilot.pause()
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        options = overview.query_one(OptionList)
        assert options.highlighted is not None
        assert options.get_option_at_index(options.highlighted).id == f"topic-{third.id}"
        await pilot.press("enter")
        await settle(pilot)
        assert s.state.view == View("topic", third.id)

    run(reader_store, scenario)


def test_capital_j_and_k_walk_the_topics_from_any_pane(reader_store: Path):
    assert BY_ID["next-topic"].keys == "J" and BY_ID["previous-topic"].keys == "K"

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        ids = [t.id for t in s.topics]
        assert s.state.view == View("topic", ids[0])
        await pilot.press("l")  # from the entries
        await pilot.press("J")
        await pilot.pause()
        assert s.state.view == View("topic", ids[1])
        assert s.focused is s.entry_list  # the focus stays where it was
        assert row_ids(s)[0] == s.entry_list.current_id
        await pilot.press("J", "J", "K")
        await pilot.pause()
        assert s.state.view == View("topic", ids[2])
        s.detail_pane.focus()
        await pilot.press("K")
        await pilot.pause()
        assert s.state.view == View("topic", ids[1])
        assert s.detail is not None and s.detail.topic is not None
        assert s.detail.topic.id == ids[1]  # the entry shown follows the topic

    run(reader_store, scenario)


def test_q_closes_a_dialog_the_overview_and_the_maximised_entry_before_quitting(
    reader_store: Path,
):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        for key in ("s", "o", "question_mark"):  # a dialog, the overview, the help
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is not s
            await pilot.press("q")
            await pilot.pause()
            assert app.screen is s and app.is_running, key
        await pilot.press("l", "b", "e")  # the export dialog, on its format choice
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is s and app.is_running
        await pilot.press("v")
        await pilot.pause()
        assert s.maximized is s.detail_pane
        await pilot.press("q")
        await pilot.pause()
        assert s.maximized is None and app.is_running
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running  # from the panes, q quits

    run(reader_store, scenario)


# --- the topic list's order ----------------------------------------------------------------


def grow(db: Path, topic_id: int, n: int) -> None:
    """Another process adds ``n`` entries to topic ``topic_id`` (as an import does)."""
    with Store(db) as store:
        entries = [
            Entry(f"{i:016x}", f"grown entry {i}", f"summary {i}", date="2099-01-01")
            for i in range(n)
        ]
        store.add_entries(entries)
        store.add_assignments({e.id: (topic_id, 0.5, []) for e in entries})


def test_topic_order_holds_while_reading_and_r_sorts_again(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        order = [t.id for t in s.topics]
        smallest = order[-1]
        grow(reader_store, smallest, 80)  # now the largest topic by far
        s.poll_store()  # another process's commit: read again
        await settle(pilot)
        assert next(t.size for t in s.topics if t.id == smallest) >= 80
        assert [t.id for t in s.topics] == order  # nothing moved under the reader
        items = [s.topic_list.item(i) for i in range(s.topic_list.item_count)]
        assert [i.view.topic_id for i in items if i and i.view.kind == "topic"] == order
        await pilot.press("R")  # on request: sorted again, largest first
        await settle(pilot)
        assert s.topics[0].id == smallest

    run(reader_store, scenario)
    run(reader_store, sorted_by_the_store)  # a new start sorts too


async def sorted_by_the_store(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
    assert [t.id for t in s.topics] == [t.id for t in s.store.topics()]


# --- 80x24: topic names that start alike stay told apart ------------------------------


MIXED = ("Mixed: recommendation, ranking, ctr", "Mixed: training, checkpoint, fsdp")


def test_topic_names_that_start_alike_stay_apart_at_80x24(reader_store: Path):
    with Store(reader_store) as store:
        topics = store.topics()
        for t, name in zip(topics[-2:], MIXED, strict=True):
            store.rename_topic(t.id, name)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        pane = s.topic_list
        lines = [line_text(pane, y) for y in range(pane.size.height)]
        for name in MIXED:
            shown = next(line for line in lines if name[:9] in line).strip()
            # the whole first keyword, and more: "Mixed: rec…" and "Mixed: tra…" were alike
            first_word = name.split(",")[0]
            assert first_word[:16] in shown, shown
        assert pane.outer_size.width <= 80 * 0.4  # the entries keep most of the screen

    run(reader_store, scenario, size=(80, 24))
