"""Nothing a reader did is lost, driven with Pilot: the place (topic, entry, both scrolls)
kept through every way of leaving, a kill included; `d` on the focused list only, asking
before a bookmark or a note goes, into a trash `Z` empties after a restart; `C` undone by
`z`; a changed note not thrown away by Escape; a store file replaced under the reader;
and a store that refuses writes (a full disk) answered with a toast."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from helpers import dump_data, integrity, killed_reader, run, settle, wait_until, write_digest
from textual.pilot import Pilot
from textual.widgets import TextArea
from topiclens.clustering.corrections import hidden_topics
from topiclens.store import Store, StoreError, Topic
from topiclens.store.importer import import_file
from topiclens.store.models import Entry
from topiclens.store.text import entry_id as make_id
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import SAVE_PLACE_AFTER, MainScreen
from topiclens.tui.model import View
from topiclens.tui.screens import ConfirmScreen, NoteScreen


def toasts(app: TopicLensApp) -> list[tuple[str, str]]:
    return [(str(n.message), n.severity) for n in app._notifications]


def said(app: TopicLensApp) -> str:
    """Every toast shown so far, in one string."""
    return "\n".join(message for message, _ in toasts(app))


def row_ids(s: MainScreen) -> list[str]:
    return [r[0] for r in s.entry_list.rows]


def add_long_entry(store_path: Path) -> tuple[str, int]:
    """An entry far longer than the entry pane, newest of the third topic (so its first
    row, and not the topic the reader opens on); returns its id and its topic's id."""
    summary = "\n".join(f"Paragraph {n}: speculative decoding, one line." for n in range(120))
    entry = Entry(
        id=make_id("", summary),
        title="A very long post",
        summary=summary,
        source="Long Blog",
        date="2099-01-01",
    )
    with Store(store_path) as store:
        topic_id = store.topics()[2].id
        store.add_entries([entry])
        assert store.add_assignments({entry.id: (topic_id, 0.5, ["speculative"])}) == []
    return entry.id, topic_id


def without(dump: dict[str, list[tuple]], *tables: str) -> dict[str, list[tuple]]:
    return {t: rows for t, rows in dump.items() if t not in tables}


# --- the place: saved as it moves and on every way out --------------------------------


QUITS = {
    "q": ("q",),
    "overview": ("o", "ctrl+q"),
    "maximised": ("v", "ctrl+q"),
    "note dialog": ("N", "ctrl+q"),
    "search dialog": ("slash", "ctrl+q"),
}


@pytest.mark.parametrize("quit_keys", QUITS.values(), ids=QUITS.keys())
def test_the_place_and_the_entry_scroll_survive_any_quit(
    reader_store: Path, quit_keys: tuple[str, ...]
):
    long_id, topic_id = add_long_entry(reader_store)

    async def first(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_topic(topic_id)
        await pilot.press("enter", *"jjjjj")  # open it, then five lines down the entry
        await pilot.pause()
        assert s.detail.entry.id == long_id and s.detail_pane.scroll_y == 5
        await pilot.press(*quit_keys)
        await pilot.pause()

    run(reader_store, first)

    async def second(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert s.state.view == View("topic", topic_id)
        assert s.entry_list.current_id == long_id and s.detail.entry.id == long_id
        assert s.detail_pane.scroll_y == 5

    run(reader_store, second)


def test_the_entry_list_scroll_comes_back(reader_store: Path):
    place: dict[str, object] = {}

    async def first(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        biggest = max(s.topics, key=lambda t: t.size)
        s.jump_to_topic(biggest.id)
        await settle(pilot)
        height = s.entry_list.scrollable_content_region.height
        assert len(s.entry_list.rows) > 2 * height
        # the last screenful, the cursor on its top row: not where a restart centres it
        await pilot.press("G", *["k"] * (height - 1))
        top = round(s.entry_list.scroll_y)
        assert top > 0 and s.entry_list.cursor == top
        place.update(view=s.state.view, entry=s.entry_list.current_id, top=top)
        await pilot.press("q")

    run(reader_store, first)

    async def second(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert s.state.view == place["view"] and s.entry_list.current_id == place["entry"]
        assert round(s.entry_list.scroll_y) == place["top"]

    run(reader_store, second)


def test_the_place_is_saved_as_it_moves_and_survives_a_kill(reader_store: Path):
    """Killed (SIGKILL: no unmount, no quit) a second after moving: the place is there."""
    long_id, topic_id = add_long_entry(reader_store)
    out = killed_reader(
        reader_store,
        f"""
        app.screen.jump_to_topic({topic_id})
        await pilot.press("enter", *"jjjj")
        await pilot.pause(1.5)
        print(app.screen.detail.entry.id, int(app.screen.detail_pane.scroll_y), flush=True)
        """,
    )
    assert out.split() == [long_id, "4"]

    async def second(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        assert s.state.view == View("topic", topic_id)
        assert s.entry_list.current_id == long_id and s.detail_pane.scroll_y == 4

    run(reader_store, second)


# --- deleting: the focused list, asking first, a trash that outlives the reader ---------


def test_d_deletes_only_the_highlighted_row_of_the_focused_list(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        with Store(reader_store) as store:
            count = store.count_entries()
        shown = s.detail.entry.id
        assert app.focused is s.topic_list
        await pilot.press("d")  # the topics have the focus: the entry pane's is not the row
        await pilot.pause()
        with Store(reader_store) as store:
            assert store.count_entries() == count and store.entry(shown) is not None
        assert toasts(app)[-1] == ("Choose an entry first: l moves to the entries.", "warning")

        await pilot.press("l", "l", "l")  # the similar entries
        assert app.focused is s.similar_list
        similar = s.similar_list.current_id
        assert similar is not None and similar != shown
        await pilot.press("d")
        await pilot.pause()
        with Store(reader_store) as store:
            assert store.entry(similar) is None and store.entry(shown) is not None
        assert s.detail.entry.id == shown

        await pilot.press("v", "d")  # the entry alone on the screen: the entry shown
        await pilot.pause()
        with Store(reader_store) as store:
            assert store.entry(shown) is None

    run(reader_store, scenario)


def test_deleting_a_bookmarked_or_noted_entry_asks_first(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        rows = row_ids(s)
        await pilot.press("l", "b", "d")  # a bookmark
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "with its bookmark?" in str(app.screen.question)
        await pilot.press("n")
        await pilot.pause()
        with Store(reader_store) as store:
            assert store.entry(rows[0]) is not None and rows[0] in store.bookmark_ids()

        await pilot.press("j", "N", *"mine", "ctrl+s", "b")  # a note left without a bookmark
        await pilot.pause()
        with Store(reader_store) as store:
            assert store.note(rows[1]) == "mine" and rows[1] not in store.bookmark_ids()
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "with its note?" in str(app.screen.question)
        await pilot.press("escape")
        await pilot.pause()
        with Store(reader_store) as store:
            assert store.entry(rows[1]) is not None

        await pilot.press("d", "y")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        with Store(reader_store) as store:
            assert store.entry(rows[1]) is None and store.note(rows[1]) == ""
        assert toasts(app)[-1][0].startswith("Deleted: ")

        await pilot.press("j")  # an entry with neither goes at once
        plain = s.entry_list.current_id
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        with Store(reader_store) as store:
            assert store.entry(plain) is None

    run(reader_store, scenario)


def test_Z_brings_a_deletion_back_after_a_restart(reader_store: Path):
    deleted: dict[str, object] = {}

    async def first(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "j", "N", *"keep me", "ctrl+s")
        await pilot.pause()
        deleted.update(id=s.entry_list.current_id, rows=row_ids(s), view=s.state.view)
        deleted["dump"] = dump_data(reader_store)
        await pilot.press("d", "y")
        await pilot.pause()
        assert deleted["id"] not in row_ids(s)

    run(reader_store, first)
    with Store(reader_store) as store:
        assert store.entry(str(deleted["id"])) is None
        assert [t.entry_id for t in store.trash()] == [deleted["id"]]

    async def second(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("Z")
        await pilot.pause()
        assert toasts(app)[-1][0].startswith("Restored: ")
        assert s.state.view == deleted["view"] and row_ids(s) == deleted["rows"]
        assert s.entry_list.current_id == deleted["id"] and s.detail.note == "keep me"
        await pilot.press("Z")
        assert toasts(app)[-1][0] == "Nothing deleted to bring back."

    run(reader_store, second)
    assert dump_data(reader_store) == deleted["dump"]  # every row as it was, the trash empty


# --- mark all read: undone by z ---------------------------------------------------------


def test_C_is_undone_by_z_after_a_restart(reader_store: Path):
    read: dict[str, set[str]] = {}

    async def first(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l", "enter")  # one read by hand: it stays read
        with Store(reader_store) as store:
            read["before"] = store.read_ids()
            unread = store.count_entries() - len(read["before"])
        await pilot.press("C")
        assert toasts(app)[-1][0] == (
            f"Marked {unread} entries read: every entry is read now (z undoes)."
        )
        assert s.unread == {}

    run(reader_store, first)

    async def second(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        with Store(reader_store) as store:
            unread = store.count_entries() - len(read["before"])
        await pilot.press("z")
        await pilot.pause()
        assert toasts(app)[-1] == (
            f"Undone: mark all read. {unread} entries are unread again.",
            "information",
        )
        with Store(reader_store) as store:
            assert store.read_ids() == read["before"]
            assert s.unread == store.topic_unread_counts() and sum(s.unread.values()) == unread
        assert s.read == read["before"]
        await pilot.press("z")  # nothing left: no correction either
        await settle(pilot)
        assert toasts(app)[-1] == ("Nothing to undo.", "warning")

    run(reader_store, second)


# --- the note editor ---------------------------------------------------------------------


def test_escape_in_the_note_editor_asks_before_discarding_a_change(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        entry = s.detail.entry.id
        await pilot.press("l", "N", "escape")  # nothing typed: it closes at once
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)

        await pilot.press("N", *"half a thought", "escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # no: back to the note, as it was typed
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)
        assert app.screen.query_one(TextArea).text == "half a thought"
        await pilot.press("escape", "y")  # yes: thrown away
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        with Store(reader_store) as store:
            assert store.note(entry) == "" and entry not in store.bookmark_ids()

        await pilot.press("N", *"kept", "ctrl+s")
        await pilot.pause()
        with Store(reader_store) as store:
            assert store.note(entry) == "kept"

    run(reader_store, scenario)


# --- the store's file replaced under the reader -----------------------------------------


def replace_store(store_path: Path, other: Path) -> Path:
    """Replace the store file as `cp other.db new.db && mv new.db topiclens.db` does;
    returns a second name of the file replaced (a hard link), to check it afterwards."""
    old = store_path.with_name("old.db")
    os.link(store_path, old)
    new = store_path.with_name("new.db")
    shutil.copyfile(other, new)
    os.replace(new, store_path)
    return old


def make_other_store(store_path: Path, tmp_path: Path) -> tuple[Path, str]:
    """A copy of the store with its second topic renamed and one entry of its last topic
    deleted; returns it and the new name."""
    other = tmp_path / "other.db"
    source, target = sqlite3.connect(store_path), sqlite3.connect(other)
    source.backup(target)
    source.close()
    target.close()
    name = "Topic of the other store"
    with Store(other) as store:
        store.rename_topic(store.topics()[1].id, name)  # not the topic the test hides
        store.delete_entry(store.topic_entry_ids(store.topics()[-1].id)[0])
    return other, name


@pytest.mark.parametrize("found_by", ["key", "poll"])
def test_a_store_replaced_under_the_reader_is_opened_anew_and_both_stay_whole(
    reader_store: Path, tmp_path: Path, found_by: str
):
    other, name = make_other_store(reader_store, tmp_path)
    picked: dict[str, str] = {}
    old: list[Path] = []

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.loader.worker_store.count_entries()  # the rows' second connection is open
        await pilot.press("l", "b")  # a write before: in the old file only
        bookmarked_before = s.entry_list.current_id
        await pilot.press("j")
        picked["entry"] = s.entry_list.current_id
        old.append(replace_store(reader_store, other))
        if found_by == "key":
            await pilot.press("b")  # refused: the new file is shown instead
            await pilot.pause()
            assert toasts(app)[-1] == (
                "The store's file was replaced: the reader shows the new one now. "
                "Nothing was written: press the key again.",
                "warning",
            )
        else:
            await wait_until(pilot, lambda: "file was replaced" in said(app), "the poll")
        assert name in [t.name for t in s.topics]
        assert bookmarked_before not in s.bookmarks
        with Store(other) as store:
            other_count = store.count_entries()
        # the rows' connection reads the new file too (not the old one, still open)
        assert s.loader.worker_store.count_entries() == other_count
        picked["before"] = bookmarked_before
        s.jump_to_entry(picked["entry"])
        await pilot.pause()
        await pilot.press("b", "j")
        assert picked["entry"] in s.bookmarks
        picked["deleted"] = s.entry_list.current_id
        await pilot.press("d")  # neither bookmarked nor noted: at once
        await pilot.pause()
        assert picked["deleted"] not in row_ids(s)
        picked["topic"] = str(s.state.view.topic_id)
        await pilot.press("H")  # hide the topic shown (a correction, in a worker)
        await settle(pilot)
        assert int(picked["topic"]) not in [t.id for t in s.topics]

    run(reader_store, scenario, poll_interval=0.2 if found_by == "poll" else 60.0)
    assert integrity(reader_store) == "ok"
    assert integrity(old[0]) == "ok"
    with Store(reader_store) as store:
        assert store.bookmark_ids() == {picked["entry"]}
        assert int(picked["topic"]) in [t.id for t in hidden_topics(store)]
        assert store.entry(picked["deleted"]) is None
        assert name in [t.name for t in store.topics()]
    with Store(old[0]) as store:  # the file replaced: what was written before, nothing after
        assert store.bookmark_ids() == {picked["before"]}
        assert store.entry(picked["deleted"]) is not None
        assert int(picked["topic"]) in [t.id for t in store.topics()]
        assert name not in [t.name for t in store.topics()]


# --- a store that refuses writes: a toast, never a dead reader ---------------------------

FULL = "the disk holding it is full (database or disk is full). Nothing was half-written"

# key -> the store method it writes through
WRITES = {
    "b": "toggle_bookmark",
    "r": "set_read",
    "n": "set_read",
    "A": "set_read_many",
    "C": "mark_all_read",
    "d": "delete_entry",
    "Z": "restore_last_deleted",
}


@pytest.mark.parametrize(("key", "method"), WRITES.items(), ids=WRITES.keys())
def test_a_refused_write_is_a_toast(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch, key: str, method: str
):
    def refuse(*args: object, **kwargs: object) -> None:
        raise StoreError(f"{reader_store}: {FULL}")

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        before = dump_data(reader_store)
        await pilot.press("l")
        monkeypatch.setattr(Store, method, refuse)
        await pilot.press(key)
        await pilot.pause()
        message, severity = toasts(app)[-1]
        assert severity == "error" and message.startswith("Not saved: ") and FULL in message
        assert isinstance(app.screen, MainScreen)
        assert not s.bookmarks and not s.read
        monkeypatch.undo()
        cursor = s.entry_list.cursor or 0
        await pilot.press("j", "b")  # the reader goes on
        assert s.entry_list.cursor == cursor + 1 and s.entry_list.current_id in s.bookmarks
        assert without(before, "bookmarks") == without(dump_data(reader_store), "bookmarks")

    run(reader_store, scenario)


def small_store(home: Path) -> Path:
    """A store of 40 entries in two topics: small enough for a 1 MiB disk."""
    digest = write_digest(home.parent / "small.txt", 40)
    with Store.open_dir(home) as store:
        import_file(store, digest)
        ids = store.entry_ids()
        topics = [
            Topic(1, "First half", [("first", 1.0)], 20),
            Topic(2, "Second half", [("second", 1.0)], 20),
        ]
        store.replace_topics(topics, {e: (1 if i < 20 else 2, 0.5, []) for i, e in enumerate(ids)})
        store.query("PRAGMA wal_checkpoint(TRUNCATE)")
        return store.path


def fill(folder: Path) -> Path:
    """Fill the disk holding ``folder`` to the last byte; returns the file that does it."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 4096)
        except OSError:
            pass
    return filler


def test_a_full_disk_is_a_toast_for_every_key_that_writes(mount: Path):
    store_path = small_store(mount / "home")
    assert store_path.stat().st_size < 512 * 1024

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l")
        filler = fill(mount)
        for key in ("b", "r", "A", "C", "d"):
            app.clear_notifications()
            await pilot.press(key)
            await pilot.pause()
            message, severity = toasts(app)[-1]
            assert severity == "error" and "disk holding it is full" in message, (key, message)
            assert isinstance(app.screen, MainScreen)
        assert not s.bookmarks and not s.read
        await pilot.press("u")  # its place is written a moment later: that fails quietly
        await pilot.pause(SAVE_PLACE_AFTER + 0.3)
        assert isinstance(app.screen, MainScreen) and s.state.unread_only
        filler.unlink()
        await pilot.press("b")
        assert s.entry_list.current_id in s.bookmarks

    run(store_path, scenario)
    assert integrity(store_path) == "ok"
    with Store(store_path) as store:
        assert len(store.bookmark_ids()) == 1 and store.count_entries() == 40


def test_a_store_file_moved_away_refuses_writes_with_a_toast(reader_store: Path):
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("l")
        reader_store.rename(reader_store.with_name("elsewhere.db"))
        await wait_until(pilot, lambda: "moved or deleted" in said(app), "the poll")
        await pilot.pause(0.5)  # more polls: said once
        assert said(app).count("moved or deleted") == 1
        await pilot.press("b")  # refused, and said again: a key was pressed
        await pilot.pause()
        message, severity = toasts(app)[-1]
        assert severity == "error" and "moved or deleted" in message
        assert said(app).count("moved or deleted") == 2
        assert isinstance(app.screen, MainScreen) and not s.bookmarks
        reader_store.with_name("elsewhere.db").rename(reader_store)  # put back: writes go on
        await pilot.press("b")
        assert s.entry_list.current_id in s.bookmarks

    run(reader_store, scenario, poll_interval=0.1)
    with Store(reader_store) as store:
        assert len(store.bookmark_ids()) == 1
    assert integrity(reader_store) == "ok"
