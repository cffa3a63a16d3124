"""The views a heavy reader lives in, driven with Pilot: All unread (every unread entry,
newest first; U and space walk it), saved searches with their unread counts, muting an
entry's source or words, and a search's literal matches above its concept matches."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import KEYMAP, before, line_text, run, settle, wait_until
from textual.pilot import Pilot
from textual.widgets import Input, OptionList
from topiclens.store import Entry, Store
from topiclens.store.text import entry_id
from topiclens.tui.app import TopicLensApp
from topiclens.tui.details import load_detail
from topiclens.tui.main_screen import CONCEPT_DIVIDER, MainScreen
from topiclens.tui.model import View
from topiclens.tui.screens.mute import MuteScreen
from topiclens.tui.screens.save_search import SaveSearchScreen
from topiclens.tui.views import RIVER_PAGE
from topiclens.tui.widgets.topic_list import RIVER_NAME, TopicItem


def items(s: MainScreen) -> list[TopicItem]:
    return [s.topic_list.item(i) for i in range(s.topic_list.item_count)]  # type: ignore[misc]


def item(s: MainScreen, view: View) -> TopicItem:
    return next(i for i in items(s) if i.view == view)


def river_order(store_path: Path) -> list[str]:
    with Store(store_path) as store:
        return [r[0] for r in store.river_rows()]


def toasts(app: TopicLensApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


# --- All unread ------------------------------------------------------------------------


def test_all_unread_lists_every_unread_entry_newest_first_and_u_walks_it(reader_store: Path):
    with Store(reader_store) as store:
        store.set_read_many(store.entry_ids()[::4])  # a few read, in every topic
        unread = len(store.entry_ids()) - len(store.entry_ids()[::4])
    order = river_order(reader_store)
    assert len(order) == unread

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        # the pseudo-topic sits above the topics, counting every unread entry
        river = item(s, View("river"))
        assert river.name == RIVER_NAME and river.size == unread
        assert items(s).index(river) < min(
            i for i, t in enumerate(items(s)) if t.view.kind == "topic"
        )
        await pilot.press("a")
        await settle(pilot)
        assert s.state.view == View("river")
        assert [r[0] for r in s.entry_list.rows] == order  # across topics, newest first
        assert str(s.entry_list.border_title).startswith(f"All unread, newest first · {unread}")
        # U marks the entry under the cursor's next unread read, in the river's order
        first = s.entry_list.current_id
        assert first == order[0]
        await pilot.press("U")
        await pilot.pause()
        assert s.entry_list.current_id == order[1] and order[1] in s.read
        s.set_read(order[2], True)  # read elsewhere: U passes over it
        await pilot.press("U")
        await pilot.pause()
        assert s.entry_list.current_id == order[3]
        assert s.state.view == View("river")  # U stayed in the river, never a topic
        # space reads on: to the end of the entry, then the next unread of the river
        s.maximize(s.detail_pane, container=False)
        await pilot.pause()
        s.detail_pane.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        s.minimize()
        s.detail_pane.focus()
        await pilot.pause()
        for _ in range(50):  # a page at a time, then on
            await pilot.press("space")
            await pilot.pause()
            if s.entry_list.current_id != order[3]:
                break
        assert s.entry_list.current_id == order[4]
        assert item(s, View("river")).size == unread - 4

    run(reader_store, scenario)


def test_all_unread_reads_a_page_at_a_time_and_u_walks_on_into_the_next(data_dir: Path):
    n = RIVER_PAGE + 40
    with Store.open_dir(data_dir) as store:
        store.add_entries(
            [
                Entry(
                    id=entry_id(f"Post {i}", f"Body {i}."),
                    title=f"Post {i}",
                    summary=f"Body {i}.",
                    date=f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
                )
                for i in range(n)
            ]
        )
        path = store.path
    order = river_order(path)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.action_river()
        await settle(pilot)
        assert len(s.entry_list.rows) == RIVER_PAGE  # one page read, not the whole river
        s.entry_list.move_cursor(RIVER_PAGE - 1)
        await pilot.pause()
        assert [r[0] for r in s.entry_list.rows] == order  # the next page, near its end
        assert s.entry_list.current_id == order[RIVER_PAGE - 1]
        await pilot.press("U")
        await pilot.pause()
        assert s.entry_list.current_id == order[RIVER_PAGE]

    run(path, scenario)


def test_all_unread_is_where_the_reader_opens_again(reader_store: Path):
    order = river_order(reader_store)

    async def first(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("a")
        await settle(pilot)
        s.entry_list.move_cursor(5)
        await pilot.pause()

    async def again(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert s.state.view == View("river")
        assert s.entry_list.current_id == order[5]

    run(reader_store, first)
    run(reader_store, again)


# --- a search: literal matches, a divider, concept matches ------------------------------


def test_a_search_shows_its_literal_matches_above_a_divider_and_its_concept_matches(
    reader_store: Path,
):
    from topiclens.clustering.search import search_split

    with Store(reader_store) as store:
        literal, concept = search_split(store, "flashattention")
    assert literal and concept

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.run_search("flashattention")
        await settle(pilot)
        entries = s.entry_list
        assert [r[0] for r in entries.rows] == literal + concept
        assert str(entries.border_title).endswith(f"· {len(literal)} + {len(concept)} by concept")
        divider = entries.line_of(len(literal) - 1) + 1
        assert entries.item_at(divider) is None
        assert entries.line_of(len(literal)) == divider + 1
        y = divider - round(entries.scroll_y)
        assert CONCEPT_DIVIDER in line_text(entries, y)
        # the cursor steps over the divider
        entries.move_cursor(len(literal) - 1)
        await pilot.press("j")
        assert entries.current_id == concept[0]

    run(reader_store, scenario)


# --- saved searches ----------------------------------------------------------------------


def test_save_search_saves_it_with_a_name_and_lists_it_with_its_unread(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("W")  # no search yet: a toast says what to do
        await pilot.pause()
        assert any("Search first" in t for t in toasts(app))
        s.run_search("eagle")
        await settle(pilot)
        await pilot.press("W")
        await wait_until(pilot, lambda: isinstance(app.screen, SaveSearchScreen), "dialog")
        name = app.screen.query_one(Input)
        assert name.value == "eagle" and name.has_focus
        name.value = ""
        await pilot.press(*"Drafts", "enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        with Store(reader_store) as store:
            assert [(x.name, x.query) for x in store.saved_searches()] == [("Drafts", "eagle")]
        await wait_until(pilot, lambda: "Drafts" in s.saved_found, "the saved search's count")
        row = item(s, View("saved", query="Drafts"))
        assert row.size == len(s.saved_found["Drafts"]) and row.unread == row.size > 0
        # choosing it lists its entries; reading one lowers its count
        s.topic_list.select_view(row.view)
        s.show_view(row.view)
        await settle(pilot)
        assert {r[0] for r in s.entry_list.rows} == s.saved_found["Drafts"]
        s.set_read(s.entry_list.rows[0][0], True)
        await pilot.pause()
        assert item(s, row.view).unread == row.unread - 1

    run(reader_store, scenario)


def test_a_saved_search_follows_entries_as_they_arrive_and_survives_a_restart(
    reader_store: Path,
):
    with Store(reader_store) as store:
        store.save_search("Zebras", "zebra")
    zebra = Entry(
        id=entry_id("A zebra crossing", "Stripes."),
        title="A zebra crossing",
        summary="Stripes.",
        date="2026-10-01",
    )

    async def first(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await wait_until(pilot, lambda: "Zebras" in s.saved_found, "the count")
        assert item(s, View("saved", query="Zebras")).unread == 0
        with Store(reader_store) as other:  # another process imports a matching entry
            other.add_entries([zebra])
        s.poll_store()
        await settle(pilot)
        await wait_until(pilot, lambda: s.saved_found.get("Zebras"), "the new count")
        assert item(s, View("saved", query="Zebras")).unread == 1
        s.topic_list.select_view(View("saved", query="Zebras"))
        s.show_view(View("saved", query="Zebras"))
        await settle(pilot)
        assert [r[0] for r in s.entry_list.rows] == [zebra.id]

    async def again(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await settle(pilot)
        assert s.state.view == View("saved", query="Zebras")
        assert [r[0] for r in s.entry_list.rows] == [zebra.id]

    run(reader_store, first)
    run(reader_store, again)


# --- mute --------------------------------------------------------------------------------


def test_mute_the_entrys_source_hides_its_entries_from_lists_and_counts(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.entry_list.focus()
        await pilot.pause()
        entry = s.store.entry(s.entry_list.current_id)  # type: ignore[arg-type]
        assert entry is not None and entry.source
        with Store(reader_store) as store:
            theirs = {e.id for e in store.entries() if e.source.lower() == entry.source.lower()}
        river_before = item(s, View("river")).size
        sizes = {t.id: t.size for t in s.topics}
        await pilot.press("X")
        await wait_until(pilot, lambda: isinstance(app.screen, MuteScreen), "the dialog")
        choices = app.screen.query_one(OptionList)
        assert choices.has_focus and choices.highlighted == 0  # the source, first
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert any("Muted the source" in t for t in toasts(app))
        # gone from every list and count, kept in the store
        assert not theirs & {r[0] for r in s.entry_list.rows}
        assert item(s, View("river")).size == river_before - len(theirs)
        assert sum(t.size for t in s.topics) == sum(sizes.values()) - len(theirs)
        with Store(reader_store) as store:
            assert store.muted_ids() == theirs
            assert theirs <= set(store.entry_ids())
        # nor are they offered as similar entries: on an entry whose similar list held one
        with Store(reader_store) as store:
            near, similar = next(
                (e.id, [o for o, _ in store.similar(e.id)])
                for e in store.entries()
                if e.id not in theirs and theirs & {o for o, _ in store.similar(e.id)}
            )
        detail = load_detail(s.store, near, s.topics, frozenset())
        assert detail is not None
        assert [row[0] for row, _ in detail.similar] == [o for o in similar if o not in theirs]
        # a search still finds them
        s.run_search(entry.title)
        await settle(pilot)
        assert entry.id in {r[0] for r in s.entry_list.rows}

    run(reader_store, scenario)


def test_mute_words_typed_in_the_dialog(reader_store: Path):
    with Store(reader_store) as store:
        eagle = {e.id for e in store.entries() if "eagle" in (e.title + "\n" + e.summary).lower()}
    assert eagle

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.entry_list.focus()
        await pilot.press("X")
        await wait_until(pilot, lambda: isinstance(app.screen, MuteScreen), "the dialog")
        await pilot.press("j", "k")  # j/k move in the choices
        await pilot.press("tab")
        words = app.screen.query_one(Input)
        assert words.has_focus
        await pilot.press("enter")  # no words: refused, said why
        assert isinstance(app.screen, MuteScreen)
        await pilot.press(*"eaglejk", "backspace", "backspace", "enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        with Store(reader_store) as store:
            assert [(r.kind, r.value) for r in store.mute_rules()] == [("words", "eagle")]
        await pilot.press("a")
        await settle(pilot)
        assert not eagle & {r[0] for r in s.entry_list.rows}

    run(reader_store, scenario)


# --- how they look -------------------------------------------------------------------------


@pytest.fixture
def views_app(reader_store: Path):
    """The fixture topics with a few entries read, a saved search and a search."""
    with Store(reader_store) as store:
        store.set_read_many(store.entry_ids()[::5])
        store.save_search("Drafts", "eagle")
        yield TopicLensApp(store, keymap_file=KEYMAP, cluster=False, poll_interval=3600)


def test_river_snapshot(snap_compare, views_app: TopicLensApp):
    assert snap_compare(views_app, terminal_size=(120, 34), run_before=before("a"))


def test_search_divider_snapshot(snap_compare, views_app: TopicLensApp):
    async def search(pilot: Pilot[None]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen)
        screen.run_search("flashattention")
        await before()(pilot)
        # the last literal match under the cursor: the divider in view below it
        literal = screen.entry_list.also_from or 0
        screen.entry_list.move_cursor(literal - 1)
        await pilot.pause()

    assert snap_compare(views_app, terminal_size=(120, 34), run_before=search)


def test_mute_offers_the_entrys_feed_too_and_j_moves_to_it(reader_store: Path):
    with Store(reader_store) as store:
        feed, _ = store.add_feed("https://example.com/feed.xml", name="Example Feed")
        fed = [
            Entry(
                id=entry_id(f"Fed {i}", "From the feed."),
                title=f"Fed {i}",
                summary="From the feed.",
                source="Example Feed",
                date="2099-01-0" + str(i + 1),
                format="feed",
                feed_id=feed.id,
                feed_key=f"k{i}",
            )
            for i in range(3)
        ]
        store.add_entries(fed)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("a")  # All unread: the feed's entries are the newest
        await settle(pilot)
        assert s.entry_list.current_id == fed[2].id
        await pilot.press("X")
        await wait_until(pilot, lambda: isinstance(app.screen, MuteScreen), "the dialog")
        choices = app.screen.query_one(OptionList)
        assert choices.option_count == 2  # its source, its feed
        await pilot.press("j")
        assert choices.highlighted == 1
        await pilot.press("k", "j", "enter")
        await settle(pilot)
        with Store(reader_store) as store:
            assert [(r.kind, r.value) for r in store.mute_rules()] == [("feed", str(feed.id))]
        assert not {e.id for e in fed} & {r[0] for r in s.entry_list.rows}
        assert any("Muted the feed “Example Feed”: 3 entries hidden" in t for t in toasts(app))

    run(reader_store, scenario)
