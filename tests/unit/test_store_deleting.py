"""Deleting an entry and undoing it (store/deleting.py), and marking many entries read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import dump_store, integrity
from topiclens.store import Store
from topiclens.store.models import Entry, Topic


def _member_with_also(store: Store) -> tuple[str, int]:
    """An entry of topic 1 (of the reader store) given an "also" row under topic 2."""
    entry_id = store.topic_entry_ids(1)[1]
    topic = store.topic(1)
    assert topic is not None
    store.add_assignments({entry_id: (1, 0.3, ["投机"])}, also=[(entry_id, 2, 0.2)])
    return entry_id, topic.size


def test_delete_then_restore_gives_back_every_row(reader_store: Path):
    with Store(reader_store) as store:
        entry_id, size = _member_with_also(store)
        store.set_note(entry_id, "第一行\nsecond line")  # bookmarks it too
        store.set_read(entry_id)
        before = dump_store(reader_store)
        rows_before = store.topic_rows(1)
        deleted = store.delete_entry(entry_id)
        assert deleted is not None and deleted.entry_id == entry_id and deleted.topic_id == 1
        assert store.entry(entry_id) is None
        assert store.bookmark(entry_id) is None and store.note(entry_id) == ""
        assert entry_id not in store.read_ids()
        assert entry_id not in store.topic_entry_ids(1)
        assert entry_id not in store.also_entry_ids(2)
        assert store.topic(1).size == size - 1  # type: ignore[union-attr]
        assert integrity(reader_store) == "ok"
        conn = sqlite3.connect(reader_store)
        # no table keeps a row of it (the topic lists have no foreign key: checked by name)
        for table in ("topic_list", "topic_also_list", "topic_assignments", "topic_also"):
            found = conn.execute(f"SELECT count(*) FROM {table} WHERE entry_id = ?", (entry_id,))
            assert found.fetchone()[0] == 0, table
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        conn.close()

        assert store.restore_entry(deleted) == []
        assert dump_store(reader_store) == before  # every row, the rowid's order included
        assert store.topic_rows(1) == rows_before
        assert store.note(entry_id) == "第一行\nsecond line"
        assert entry_id in store.read_ids() and entry_id in store.bookmark_ids()


def test_delete_of_an_unknown_entry_is_none(reader_store: Path):
    with Store(reader_store) as store:
        before = dump_store(reader_store)
        assert store.delete_entry("0" * 16) is None
        assert dump_store(reader_store) == before


def test_restore_after_a_re_cluster_leaves_the_entry_unassigned(reader_store: Path):
    with Store(reader_store) as store:
        entry_id = store.topic_entry_ids(3)[0]
        store.toggle_bookmark(entry_id)
        deleted = store.delete_entry(entry_id)
        assert deleted is not None
        # the topics are grouped again without topic 3, the entry's own
        keep = [t for t in store.topics() if t.id != 3]
        assigned = {
            eid: (tid, 0.0, [])
            for eid, tid in store.assignments().items()
            if tid != 3 and eid != entry_id
        }
        store.replace_topics(keep, assigned)
        assert store.restore_entry(deleted) == ["topic_assignments"]
        assert store.entry(entry_id) is not None and entry_id in store.bookmark_ids()
        assert store.assignment(entry_id) is None
        assert entry_id in store.unassigned_ids()
        assert integrity(reader_store) == "ok"


def test_restore_when_its_rowid_was_taken_puts_it_at_the_end(reader_store: Path):
    with Store(reader_store) as store:
        last = store.entry_ids()[-1]
        deleted = store.delete_entry(last)
        assert deleted is not None
        # a new import takes the highest rowid, the one the deleted entry had
        newcomer = Entry(id="f" * 16, title="newcomer", summary="a new entry")
        store.add_entries([newcomer])
        store.restore_entry(deleted)
        assert store.entry_ids()[-2:] == [newcomer.id, last]
        assert store.entry(last) == deleted_entry_as_it_was(store, deleted)


def deleted_entry_as_it_was(store: Store, deleted: object) -> Entry:
    from topiclens.store.models import ENTRY_COLUMNS

    part = deleted.entry  # type: ignore[attr-defined]
    values = dict(zip(part.columns, part.rows[0], strict=True))
    # the row names its file by number
    (values["origin_file"],) = store.query(
        "SELECT path FROM origin_files WHERE id = ?", (values["origin_id"],)
    )[0]
    return Entry.from_row(tuple(values[c] for c in ENTRY_COLUMNS))


def test_restore_of_an_entry_imported_again_keeps_the_new_rows(reader_store: Path):
    with Store(reader_store) as store:
        entry = store.entries()[0]
        store.set_note(entry.id, "old note")
        deleted = store.delete_entry(entry.id)
        assert deleted is not None
        store.add_entries([entry])  # the same file imported again
        store.set_note(entry.id, "new note")
        store.restore_entry(deleted)
        assert store.note(entry.id) == "new note"
        assert store.count_entries() == 109
        assert integrity(reader_store) == "ok"


def test_a_re_cluster_that_read_a_deleted_entry_drops_its_rows(reader_store: Path):
    with Store(reader_store) as store:
        topics = store.topics()
        assigned = {eid: (tid, 0.0, []) for eid, tid in store.assignments().items()}
        gone = next(iter(assigned))
        also = [(gone, 5 if assigned[gone][0] != 5 else 4, 0.1)]
        store.delete_entry(gone)  # while the clustering (which read it) runs
        store.replace_topics(topics, assigned, also=also)
        assert store.assignment(gone) is None
        assert sum(t.size for t in store.topics()) == store.count_entries() == 108
        conn = sqlite3.connect(reader_store)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        conn.close()


def test_set_read_many_counts_only_changes(reader_store: Path):
    with Store(reader_store) as store:
        ids = store.topic_entry_ids(1)
        store.set_read(ids[0])
        assert store.set_read_many([*ids, ids[1], "0" * 16]) == len(ids) - 1
        assert set(ids) <= store.read_ids()
        assert 1 not in store.topic_unread_counts()
        assert store.set_read_many(ids) == 0
        assert store.set_read_many(ids[:2], read=False) == 2
        assert store.topic_unread_counts()[1] == 2


def test_mark_all_read_counts_the_unread(reader_store: Path):
    with Store(reader_store) as store:
        store.set_read(store.entry_ids()[0])
        assert store.mark_all_read() == 108
        assert store.topic_unread_counts() == {}
        assert store.mark_all_read() == 0


def test_deleting_a_topic_s_last_entry_leaves_it_empty(reader_store: Path):
    topic = Topic(9, "solo", [("solo", 1.0)], 1)
    with Store(reader_store) as store:
        entry_id = store.entry_ids()[0]
        topics = [*store.topics(), topic]
        assigned = {eid: (tid, 0.0, []) for eid, tid in store.assignments().items()}
        assigned[entry_id] = (9, 0.0, [])
        store.replace_topics(topics, assigned)
        deleted = store.delete_entry(entry_id)
        assert store.topic(9).size == 0  # type: ignore[union-attr]
        assert deleted is not None and store.restore_entry(deleted) == []
        assert store.topic(9).size == 1  # type: ignore[union-attr]
        assert store.topic_entry_ids(9) == [entry_id]
