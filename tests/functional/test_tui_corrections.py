"""The topic corrections in the reader: every one in a few keys, driven with Pilot on the
bundled corpus clustered for real (once per test process, in conftest; each test on its own copy),
asserting on the store, the screen's state and the toasts."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from helpers import ROOT, dump_data, run, settle
from textual.pilot import Pilot
from textual.widgets import Input, Label, OptionList
from topiclens.clustering import cluster_store
from topiclens.store import Store, Topic
from topiclens.tui.app import TopicLensApp
from topiclens.tui.commands import BY_ID, BY_SECTION, SCREEN_BINDING_IDS, TOPICS
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.model import View
from topiclens.tui.screens.overview import OverviewScreen, yours_text
from topiclens.tui.screens.split_topic import SplitTopicScreen
from topiclens.tui.screens.topic_name import TopicNameScreen
from topiclens.tui.screens.topic_picker import TopicPickerScreen, matching, topic_prompt
from topiclens.tui.screens.topic_terms import TopicTermsScreen
from topiclens.tui.widgets.topic_list import USER_MARK, TopicItem, topic_line

pytestmark = pytest.mark.xdist_group("topics")

LABELS = ROOT / "bench" / "corpora" / "bundled-labels.jsonl"
CORRECTION_IDS = [
    "rename-topic",
    "move-entry",
    "merge-topic",
    "split-topic",
    "topic-from-search",
    "hide-topic",
    "show-topic",
    "undo-topic",
]


@pytest.fixture
def db(bundled_home: Path) -> Path:
    """The path of this test's own copy of the clustered store."""
    return bundled_home / "topiclens.db"


def toasts(app: TopicLensApp) -> list[tuple[str, str]]:
    return [(str(n.message), n.severity) for n in app._notifications]


def topics_of(db: Path) -> dict[int, Topic]:
    with Store(db) as store:
        return {t.id: t for t in store.topics()}


def members(db: Path, topic_id: int) -> set[str]:
    with Store(db) as store:
        return set(store.topic_entry_ids(topic_id))


def topic_of(db: Path, entry_id: str) -> int | None:
    with Store(db) as store:
        found = store.assignment(entry_id)
    return None if found is None else found[0]


async def type_text(pilot: Pilot[None], text: str) -> None:
    await pilot.press(*("space" if c == " " else c for c in text))


async def pick(pilot: Pilot[None], query: str) -> None:
    """Narrow the open topic picker with ``query`` and take the first topic it lists."""
    await type_text(pilot, query)
    await pilot.pause()
    await pilot.press("enter")
    await settle(pilot)


def kv_cache_entries() -> set[str]:
    """The entries our hand-made reference labels put in the KV cache topic."""
    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()]
    return {r["id"] for r in rows if r["topic"] == "KV cache"}


# --- what the corrections promise, in the reader ---------------------------------------


def test_topic_from_the_search_kv_cache_gathers_the_kv_cache_entries(db: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("slash")
        await type_text(pilot, "KV cache, KV 缓存")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("T")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, TopicTermsScreen)
        terms = dialog.query_one("#terms-terms", Input)
        assert terms.value == "KV cache, KV 缓存"  # prefilled from the search
        await type_text(pilot, "My KV")
        await pilot.press("enter", "enter")  # the name, then the terms as they are
        await settle(pilot)
        assert app.screen is s
        made = [t for t in s.topics if t.name == "My KV"]
        assert len(made) == 1
        assert s.state.view == View("topic", made[0].id)  # the new topic is shown
        assert kv_cache_entries() <= members(db, made[0].id)
        assert {r[0] for r in s.entry_list.rows} >= kv_cache_entries()
        message, severity = toasts(app)[-1]
        assert "My KV" in message and severity == "information"

    run(db, scenario)


def test_move_an_entry_pins_it_in_the_topic_chosen_from_the_fuzzy_list(db: Path):
    before = topics_of(db)
    target = next(t for t in before.values() if t.name == "Speculative decoding")

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        if s.state.view == View("topic", target.id):  # the entry must come from elsewhere
            s.jump_to_topic(next(t.id for t in before.values() if t != target and not t.mixed))
            await settle(pilot)
        here = s.state.view
        await pilot.press("l")
        entry_id = s.entry_list.current_id
        assert entry_id is not None and topic_of(db, entry_id) != target.id
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, TopicPickerScreen)
        await pick(pilot, "specdec")  # fuzzy: s-p-e-c ... d-e-c
        assert app.screen is s
        assert topic_of(db, entry_id) == target.id
        assert s.state.view == here  # the reader stays where it was
        assert entry_id not in {r[0] for r in s.entry_list.rows}
        assert "pinned" in toasts(app)[-1][0] and target.name in toasts(app)[-1][0]

    run(db, scenario)
    with Store(db) as store:
        from topiclens.clustering.corrections import corrections

        assert target.id in corrections(store).pins.values()


def test_merge_two_topics_in_a_few_keys(db: Path):
    before = topics_of(db)
    first = next(t for t in before.values() if t.name == "Speculative decoding")
    second = next(t for t in before.values() if t.name == "KV cache")
    together = members(db, first.id) | members(db, second.id)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_topic(first.id)
        await settle(pilot)
        await pilot.press("M")
        await pilot.pause()
        await pick(pilot, "KV cache")
        assert isinstance(app.screen, TopicNameScreen)  # the merged topic's name
        await type_text(pilot, "Decoding and KV")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is s
        merged = next(t for t in s.topics if t.name == "Decoding and KV")
        assert s.state.view == View("topic", merged.id)
        assert merged.id == first.id and second.id not in {t.id for t in s.topics}
        assert len(s.topics) == len(before) - 1
        assert together <= members(db, merged.id)

    run(db, scenario)


def test_hide_a_topic_then_show_it_again_from_the_list_of_hidden_ones(db: Path):
    before = topics_of(db)
    hidden = next(t for t in before.values() if t.name == "Megakernels")
    its_entries = members(db, hidden.id)

    async def hide(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_topic(hidden.id)
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        assert hidden.id not in {t.id for t in s.topics}
        assert s.state.view is not None and s.state.view.topic_id != hidden.id
        # its entries went to their next-best topics
        assert all(topic_of(db, e) not in (None, hidden.id) for e in its_entries)
        assert "Megakernels" in toasts(app)[-1][0]

    async def show(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert hidden.id not in {t.id for t in s.topics}  # still hidden after a restart
        await pilot.press("alt+h")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, TopicPickerScreen)
        assert [t.id for t in picker.shown] == [hidden.id]  # only the hidden topics
        await pilot.press("enter")
        await settle(pilot)
        assert hidden.id in {t.id for t in s.topics}
        assert s.state.view == View("topic", hidden.id)
        assert members(db, hidden.id) == its_entries

    run(db, hide)
    run(db, show)


def test_split_a_topic_asks_k_and_spreads_its_entries(db: Path):
    before = topics_of(db)
    topic = next(t for t in before.values() if t.name == "GPU kernels & Tensor Core GEMM")
    its_entries = members(db, topic.id)
    main_thread = threading.get_ident()
    threads: list[int] = []
    from topiclens.clustering import corrections as api

    split = api.split_topic

    def recorded(store: Store, topic_id: int, k: int = 2):  # type: ignore[no-untyped-def]
        threads.append(threading.get_ident())
        return split(store, topic_id, k)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_topic(topic.id)
        await settle(pilot)
        await pilot.press("S")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, SplitTopicScreen)
        assert dialog.query_one("#split-k", Input).value == "2"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is s
        assert threads and threads[0] != main_thread  # off the event loop
        assert len(s.topics) == len(before) + 1
        holders = {topic_of(db, e) for e in its_entries}
        assert len(holders) == 2 and topic.id in holders

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api, "split_topic", recorded)
        run(db, scenario)


def test_undo_takes_the_last_correction_back_then_the_one_before(db: Path):
    before = topics_of(db)
    first = next(t for t in before.values() if t.name == "Interconnects")

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_topic(first.id)
        await settle(pilot)
        await pilot.press("E")
        await pilot.pause()
        name = app.screen.query_one("#topic-name", Input)
        assert name.value == "Interconnects"
        name.value = ""
        await type_text(pilot, "NVLink and friends")
        await pilot.press("enter")
        await settle(pilot)
        assert topics_of(db)[first.id].name == "NVLink and friends"
        await pilot.press("l")
        entry_id = s.entry_list.current_id
        await pilot.press("m")
        await pilot.pause()
        await pick(pilot, "Megakernels")
        moved_to = topic_of(db, entry_id)
        assert moved_to != first.id
        await pilot.press("z")  # the move goes back
        await settle(pilot)
        assert topic_of(db, entry_id) == first.id
        assert topics_of(db)[first.id].name == "NVLink and friends"
        assert toasts(app)[-1][0].startswith("undone")
        await pilot.press("z")  # then the name
        await settle(pilot)
        assert topics_of(db)[first.id].name == "Interconnects"
        assert [t.name for t in s.topics] == [t.name for t in topics_of(db).values()]
        await pilot.press("z")
        await settle(pilot)
        assert toasts(app)[-1] == ("Nothing to undo.", "warning")

    run(db, scenario)
    with Store(db) as store:
        from topiclens.clustering.corrections import corrections

        assert corrections(store).is_empty()


def test_the_done_when_every_correction_in_a_few_keys_lasts_through_re_clusters(db: Path):
    """What the corrections promise, as a new user would try it: a topic from "KV cache,
    KV 缓存", an entry moved, two topics merged, one hidden (undone, hidden again), each in
    a few keys; then `cluster` and `cluster --k 8`, and the reader opened again shows every
    one."""
    before = topics_of(db)
    spec = next(t for t in before.values() if t.name == "Speculative decoding")
    inter = next(t for t in before.values() if t.name == "Interconnects")
    mega = next(t for t in before.values() if t.name == "Megakernels")
    merged: set[str] = set()
    moved: list[str] = []
    made: list[int] = []

    async def correct(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("slash")
        await type_text(pilot, "KV cache, KV 缓存")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("T")
        await type_text(pilot, "My KV")
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert s.state.view is not None and s.state.view.topic_id is not None
        made.append(s.state.view.topic_id)
        s.jump_to_topic(spec.id)
        await settle(pilot)
        moved.append(s.entry_list.current_id or "")
        await pilot.press("m")
        await pick(pilot, "Megakernels")
        s.jump_to_topic(mega.id)  # m leaves the view where it was
        await settle(pilot)
        await pilot.press("M")
        await pick(pilot, "Interconnects")
        await pilot.press("enter")  # the merged topic keeps Megakernels' name
        await settle(pilot)
        assert inter.id not in {t.id for t in s.topics}
        merged.update(members(db, mega.id))
        await pilot.press("H")  # hide the merged topic, undo that, hide it again
        await settle(pilot)
        assert mega.id not in {t.id for t in s.topics}
        await pilot.press("z")
        await settle(pilot)
        assert mega.id in {t.id for t in s.topics}
        s.jump_to_topic(spec.id)
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        assert spec.id not in {t.id for t in s.topics}

    async def still(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        ids = {t.id for t in s.topics}
        assert made[0] in ids and spec.id not in ids and inter.id not in ids
        assert kv_cache_entries() <= members(db, made[0])
        assert topic_of(db, moved[0]) == mega.id
        assert merged <= members(db, mega.id)  # the merged topics stay together
        await pilot.press("alt+h")
        await pilot.pause()
        assert [t.id for t in app.screen.shown] == [spec.id]  # type: ignore[attr-defined]

    run(db, correct)
    with Store(db) as store:
        cluster_store(store)
        cluster_store(store, k=8)
    run(db, still)


# --- dialogs: escape cancels, input is checked, errors are toasts -------------------------


def test_escape_cancels_every_dialog_and_changes_nothing(db: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l")
        was = dump_data(db)
        for key in ("E", "m", "M", "S", "T"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is not s, key
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is s, key
        await pilot.press("alt+h")  # no topic hidden: a warning, no dialog
        await pilot.pause()
        assert app.screen is s and toasts(app)[-1] == ("No hidden topics.", "warning")
        await settle(pilot)
        assert dump_data(db) == was
        palette = {c.title for c in app.get_system_commands(s)}
        assert {BY_ID[i].label for i in CORRECTION_IDS} <= palette

    run(db, scenario)


def test_dialogs_check_their_input_before_closing(db: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("E")
        await pilot.pause()
        app.screen.query_one("#topic-name", Input).value = "   "
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TopicNameScreen)
        error = str(app.screen.query_one("#topic-name-error", Label).render())
        assert error == "A topic name cannot be empty."
        app.screen.query_one("#topic-name", Input).value = "a\x1b[2Jb"  # an escape sequence
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TopicNameScreen)
        error = str(app.screen.query_one("#topic-name-error", Label).render())
        assert "control character (U+001B)" in error
        await pilot.press("escape", "S")
        await pilot.pause()
        app.screen.query_one("#split-k", Input).value = "1"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SplitTopicScreen)
        assert "from 2 to" in str(app.screen.query_one("#split-error", Label).render())
        await pilot.press("escape", "T")
        await pilot.pause()
        await type_text(pilot, "Name only")
        await pilot.press("enter", "enter")
        await pilot.pause()
        assert isinstance(app.screen, TopicTermsScreen)
        assert "at least one term" in str(app.screen.query_one("#terms-error", Label).render())

    run(db, scenario)


def test_a_refused_correction_is_an_error_toast(db: Path):
    from topiclens.clustering import corrections as api

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("E")
        await pilot.pause()
        # the API refuses it: its message is an error toast, the name in it never markup
        app.screen.query_one("#topic-name", Input).value = "[b]x[/b]"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is s
        assert toasts(app)[-1] == ("refused: [b]x[/b]", "error")
        assert s.correcting is False
        await pilot.press("z")  # the reader still corrects afterwards
        await settle(pilot)
        assert toasts(app)[-1] == ("Nothing to undo.", "warning")

    def refuse(store: Store, topic_id: int, name: str) -> None:
        raise api.CorrectionError(f"refused: {name}")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api, "rename_topic", refuse)
        run(db, scenario)


def test_no_correction_while_the_topics_are_being_grouped(db: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        was = dump_data(db)
        s.preparing = True  # as while the first start's worker groups the entries
        await pilot.press("H")
        await settle(pilot)
        message, severity = toasts(app)[-1]
        assert message.startswith("Topics are being grouped") and severity == "warning"
        assert dump_data(db) == was and s.correcting is False

    run(db, scenario)


# --- the fuzzy picker -------------------------------------------------------------------


def test_the_picker_matches_fuzzily_best_first_and_never_reads_names_as_markup():
    topics = [
        Topic(1, "Speculative decoding", [], 6),
        Topic(2, "KV cache", [], 5),
        Topic(3, "[b]Kernels[/b] & [@click=app.quit]x[/]", [], 4),
    ]
    assert [t.id for t, _ in matching("", topics)] == [1, 2, 3]
    assert [t.id for t, _ in matching("kvc", topics)] == [2]
    found = matching("kernels", topics)
    assert [t.id for t, _ in found] == [3]
    prompt = topic_prompt(*found[0])
    assert prompt.plain.startswith("[b]Kernels[/b] & [@click=app.quit]x[/] #3")
    assert matching("zzz", topics) == []


def test_dialogs_show_a_topic_named_in_markup_as_written(db: Path):
    from topiclens.clustering.corrections import rename_topic

    hostile = "[/] [@click=app.quit]q[/] [b"
    with Store(db) as store:
        first = store.topics()[0]
        rename_topic(store, first.id, hostile)

    def shown(app: TopicLensApp) -> str:
        return " ".join(str(label.render()) for label in app.screen.query(Label))

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_topic(first.id)
        await settle(pilot)
        for key in ("E", "S", "M"):
            await pilot.press(key)
            await pilot.pause()
            assert hostile in shown(app), key
            if key != "M":
                await pilot.press("escape")
        await pick(pilot, "")  # the merge's partner, then its name dialog
        assert isinstance(app.screen, TopicNameScreen)
        assert f"keeps “{hostile}”" in shown(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is s and app.is_running

    run(db, scenario)


def test_the_picker_narrows_as_you_type_and_moves_with_the_arrows(db: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "m")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, TopicPickerScreen)
        options = picker.query_one("#picker-list", OptionList)
        everything = options.option_count
        assert everything == len(s.topics) - 1  # not the entry's own topic
        await type_text(pilot, "kern")
        await pilot.pause()
        assert 0 < options.option_count < everything
        assert all("kern" in t.name.lower() or "k" in t.name.lower() for t in picker.shown)
        await pilot.press("down")
        assert options.highlighted == min(1, options.option_count - 1)
        await pilot.press("up", "up")
        assert options.highlighted == 0

    run(db, scenario)


# --- where ids and marks show -------------------------------------------------------------


def test_the_overview_shows_ids_and_marks_what_the_user_made(db: Path):
    from topiclens.clustering.corrections import hide_topic, move_entry, rename_topic

    with Store(db) as store:
        topics = store.topics()
        named, other = topics[0], topics[1]
        rename_topic(store, named.id, "Mine")
        entry_id = store.topic_entry_ids(named.id)[0]
        move_entry(store, entry_id, other.id)
        hide_topic(store, topics[-1].id)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("o")
        await pilot.pause()
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        options = overview.query_one(OptionList)
        prompts = {
            int(o.id.removeprefix("topic-")): str(o.prompt)
            for o in (options.get_option_at_index(i) for i in range(options.option_count))
            if o.id
        }
        assert all(f"#{t.id}" in prompts[t.id] for t in s.topics)
        assert f"Mine #{named.id} {USER_MARK}" in prompts[named.id]
        assert "named by you" in prompts[named.id]
        assert "1 entry pinned here" in prompts[other.id]
        unmarked = [t for t in s.topics if t.id not in (named.id, other.id)]
        assert not any(USER_MARK in prompts[t.id] for t in unmarked)
        title = str(overview.query_one("#overview-title", Label).render())
        assert "· 1 hidden (alt+h shows one) ·" in title

    run(db, scenario)


def test_the_topic_list_marks_user_topics_only():
    mine = TopicItem(View("topic", 1), "Mine", 3, 0, user=True)
    theirs = TopicItem(View("topic", 2), "Theirs", 3, 0)
    assert "".join(p for p, _ in topic_line(mine, 20)).startswith(f" {USER_MARK} Mine")
    assert USER_MARK not in "".join(p for p, _ in topic_line(theirs, 20))
    assert yours_text(Topic(2, "Theirs", [], 3), None) == ""


# --- the commands' declarations ---------------------------------------------------------


def test_every_correction_is_a_command_in_the_topics_section_and_the_palette():
    ids = CORRECTION_IDS
    assert [c.id for c in BY_SECTION[TOPICS]] == ids
    keys = {i: BY_ID[i].keys for i in ids}
    assert keys == {
        "rename-topic": "E",
        "move-entry": "m",
        "merge-topic": "M",
        "split-topic": "S",
        "topic-from-search": "T",
        "hide-topic": "H",
        "show-topic": "alt+h",
        "undo-topic": "z",
    }
    assert all(BY_ID[i].palette and hasattr(MainScreen, f"action_{BY_ID[i].action}") for i in ids)
    dialogs = (TopicNameScreen, TopicPickerScreen, SplitTopicScreen, TopicTermsScreen)
    for dialog in dialogs:
        for binding in dialog.BINDINGS:
            assert binding.id in SCREEN_BINDING_IDS, binding.id  # type: ignore[union-attr]
