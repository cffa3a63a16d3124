"""Deletion that lasts: the trash survives restarts and gives every row back; what deleting
would lose; undoing "mark everything read"; entry ids by their start; the entry commands
for scripts (read, unread, bookmark, unbookmark, delete, restore-deleted)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import CliResult, dump_store, integrity
from topiclens.store import Store
from topiclens.store.entries import EntryIdError

Cli = Callable[..., CliResult]


def _rich_entry(store: Store) -> str:
    """An entry of topic 1 with an also row under topic 2, bookmarked from topic 2, with a
    note, read, and pinned to topic 1."""
    entry_id = store.topic_entry_ids(1)[1]
    store.add_assignments({entry_id: (1, 0.3, ["投机"])}, also=[(entry_id, 2, 0.2)])
    store.toggle_bookmark(entry_id, topic_id=2)
    store.set_note(entry_id, "第一行\nsecond line")
    store.set_read(entry_id)
    with store.write() as conn:
        conn.execute(
            "INSERT INTO entry_pins(entry_id, topic_id, pinned_at) VALUES (?, 1, 5.5)", (entry_id,)
        )
    return entry_id


def test_a_deletion_is_undone_after_a_restart_row_for_row(reader_store: Path):
    with Store(reader_store) as store:
        entry_id = _rich_entry(store)
        before = dump_store(reader_store)
        deleted = store.delete_entry(entry_id)
        assert deleted is not None
    # a new process: the reader's memory of the deletion is gone, the trash is not
    with Store(reader_store) as store:
        assert store.entry(entry_id) is None
        (item,) = store.trash()
        assert (item.entry_id, item.title) == (entry_id, deleted.title)
        restored = store.restore_last_deleted()
        assert restored is not None and restored.entry_id == entry_id and restored.left_out == []
        assert store.trash() == [] and store.restore_last_deleted() is None
    assert dump_store(reader_store) == before  # bookmark and its topic, note, read, pin, also
    assert integrity(reader_store) == "ok"


def test_cached_tokens_come_back_byte_for_byte(bundled_home: Path):
    db = bundled_home / "topiclens.db"
    with Store(db) as store:
        entry_id = store.entry_ids()[5]
        assert store.query("SELECT count(*) FROM token_cache WHERE entry_id = ?", (entry_id,))[0][0]
        before = dump_store(db)
        store.delete_entry(entry_id)
    with Store(db) as store:
        store.restore_deleted([entry_id])
    assert dump_store(db) == before


def test_the_last_deletion_comes_back_first_and_restore_by_id(reader_store: Path):
    with Store(reader_store) as store:
        a, b, c = store.entry_ids()[:3]
        for eid in (a, b, c):
            store.delete_entry(eid)
        assert [i.entry_id for i in store.trash()] == [c, b, a]
        assert store.restore_last_deleted().entry_id == c  # type: ignore[union-attr]
        assert [r.entry_id for r in store.restore_deleted([a, "0" * 16])] == [a]
        assert [i.entry_id for i in store.trash()] == [b]
        assert store.entry(a) is not None and store.entry(c) is not None


def test_a_bookmark_whose_topic_is_gone_comes_back_without_it(reader_store: Path):
    with Store(reader_store) as store:
        entry_id = store.topic_entry_ids(3)[0]
        store.toggle_bookmark(entry_id, topic_id=3)
        store.delete_entry(entry_id)
        keep = [t for t in store.topics() if t.id != 3]
        assigned = {e: (t, 0.0, []) for e, t in store.assignments().items() if t != 3}
        store.replace_topics(keep, assigned)
    with Store(reader_store) as store:
        restored = store.restore_last_deleted()
        assert restored is not None and restored.left_out == ["topic_assignments"]
        assert entry_id in store.bookmark_ids()
        assert store.bookmark_from_topics().get(entry_id) is None
        assert integrity(reader_store) == "ok"


def test_marks_say_what_deleting_would_lose(reader_store: Path):
    with Store(reader_store) as store:
        a, b, c = store.entry_ids()[:3]
        store.toggle_bookmark(a)
        store.set_note(b, "mine")
        store.set_bookmark(b, False)  # the note stays
        assert store.marks(a) == (True, False) and store.marks(a)
        assert store.marks(b) == (False, True) and store.marks(b)
        assert store.marks(c) == (False, False) and not store.marks(c)


def test_bookmarking_an_entry_gone_is_a_store_error_not_a_foreign_key_failure(reader_store: Path):
    from topiclens.store import StoreError

    with Store(reader_store) as store:
        for call in (
            lambda: store.toggle_bookmark("0" * 16),
            lambda: store.set_bookmark("0" * 16, True),
            lambda: store.set_read("0" * 16),
        ):
            with pytest.raises(StoreError, match="no entry 0000000000000000"):
                call()


# --- undoing "mark everything read" ---------------------------------------------------------


def test_mark_everything_read_is_undone_after_a_restart(reader_store: Path):
    with Store(reader_store) as store:
        ids = store.entry_ids()
        store.set_read_many(ids[:5])
        read_before = store.read_ids()
        assert store.mark_all_read() == len(ids) - 5
        assert store.last_undo()[0] == "mark-read"  # type: ignore[index]
        store.set_read(ids[7], False)  # read again since: it stays read
        store.set_read(ids[7], True)
    with Store(reader_store) as store:
        mark = store.last_read_mark()
        assert mark is not None and mark.count == len(ids) - 5
        assert store.undo_mark_all_read() == len(ids) - 6
        assert store.read_ids() == read_before | {ids[7]}
        assert store.undo_mark_all_read() is None and store.last_undo() is None


def test_undo_takes_the_later_of_a_correction_and_a_mark(reader_store: Path):
    from topiclens.clustering.corrections import rename_topic

    with Store(reader_store) as store:
        store.mark_all_read()
        rename_topic(store, 1, "Mine")
        assert store.last_undo()[0] == "correction"  # type: ignore[index]
        store.undo_correction()
        assert store.last_undo()[0] == "mark-read"  # type: ignore[index]


# --- entry ids by their start --------------------------------------------------------------


def test_an_id_by_its_start(reader_store: Path):
    with Store(reader_store) as store:
        ids = sorted(store.entry_ids())
        one = ids[0]
        assert store.resolve_entry_id(one) == one
        assert store.resolve_entry_id(one[:10].upper()) == one
        with pytest.raises(EntryIdError, match="cannot be empty"):
            store.resolve_entry_id("  ")
    with Store(reader_store) as store:
        with pytest.raises(EntryIdError, match=r"^\d+ entries in the store have an id starting"):
            store.resolve_entry_id(ids[0][0])
        with pytest.raises(EntryIdError, match="no entry in the store has an id starting"):
            store.resolve_entry_id("zz")
        with pytest.raises(EntryIdError, match="no entry with id 'ab%'"):
            store.resolve_entry_id("ab%")


def test_topic_move_takes_the_start_of_an_id(cli: Cli, reader_store: Path):
    with Store(reader_store) as store:
        entry_id = store.topic_entry_ids(1)[0]
    status, out, err = cli("topic", "move", entry_id[:8], "4")
    assert status == 0, err
    assert "pinned there" in out
    with Store(reader_store) as store:
        assert store.assignment(entry_id).topic_id == 4  # type: ignore[union-attr]
    first = sorted(store_ids(reader_store))[0][0]
    status, _, err = cli("topic", "move", first, "4")
    assert status == 1 and "entries in the store have an id starting with" in err


def store_ids(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [r[0] for r in conn.execute("SELECT id FROM entries")]
    finally:
        conn.close()


# --- the entry commands --------------------------------------------------------------------


def test_read_unread_bookmark_unbookmark_for_scripts(cli: Cli, reader_store: Path):
    a, b = store_ids(reader_store)[:2]
    status, out, _ = cli("read", a[:8], b)
    assert status == 0 and out == "2 entries marked read (0 already read)\n"
    assert cli("read", a)[1] == "0 entries marked read (1 already read)\n"
    assert cli("unread", a)[1] == "1 entry marked unread (0 already unread)\n"
    assert cli("bookmark", a, b)[1] == "2 entries bookmarked (0 already)\n"
    assert cli("unbookmark", b)[1] == "1 bookmark removed, notes kept (0 not bookmarked)\n"
    with Store(reader_store) as store:
        assert store.read_ids() == {b} and store.bookmark_ids() == {a}
    before = dump_store(reader_store)
    status, _, err = cli("read", a, "ffffffffffff")  # one bad id: nothing is changed
    assert status == 1 and "no entry in the store has an id starting with 'ffffffffffff'" in err
    assert dump_store(reader_store) == before


def test_delete_and_restore_deleted_from_the_command_line(cli: Cli, reader_store: Path):
    a, b = store_ids(reader_store)[:2]
    before = dump_store(reader_store)
    status, out, _ = cli("delete", a, b)
    assert status == 0 and out.startswith(f"deleted {a}  ") and f"deleted {b}" in out
    status, out, _ = cli("restore-deleted", "--list")
    assert status == 0 and out.splitlines()[0].startswith("id ")
    assert [line.split()[0] for line in out.splitlines()[1:]] == [b, a]
    status, out, _ = cli("restore-deleted")  # the last one
    assert status == 0 and out.startswith(f"restored {b}  ")
    status, out, _ = cli("restore-deleted", a[:6])
    assert status == 0 and out.startswith(f"restored {a}  ")
    assert dump_store(reader_store) == before
    status, _, err = cli("restore-deleted")
    assert status == 1 and "nothing deleted to bring back" in err
    assert cli("restore-deleted", "--list")[1].endswith("no entries (the trash is empty)\n")
