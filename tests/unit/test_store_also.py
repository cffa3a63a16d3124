"""Topics a reader can trust, as the store keeps them: each topic's cohesion and mixed mark,
and "also" memberships (an entry listed under other topics besides its primary one)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import DIGEST, SCHEMA_6, dump_store
from topiclens.store import Store, Topic
from topiclens.store.importer import import_file

# the same order rule as a topic's own rows: newest first, undated last, then import order
JOINED_ALSO = (
    "SELECT e.id, e.title, e.source, e.date FROM topic_also a "
    "JOIN entries e ON e.id = a.entry_id WHERE a.topic_id = ? "
    "ORDER BY e.date IS NULL, e.date DESC, e.rowid"
)


def _three_topics(store: Store) -> tuple[list[str], dict[str, tuple[int, float, list[str]]]]:
    """Every entry in topic 1, 2 or 3 (by its place in the reader's order)."""
    ids = [e.id for e in store.entries()]
    return ids, {eid: (n % 3 + 1, 0.5, []) for n, eid in enumerate(ids)}


def _sizes(assigned: dict[str, tuple[int, float, list[str]]]) -> dict[int, int]:
    sizes: dict[int, int] = {}
    for tid, _, _ in assigned.values():
        sizes[tid] = sizes.get(tid, 0) + 1
    return sizes


def test_cohesion_and_mixed_round_trip_and_mixed_topics_come_last(store: Store):
    ids, assigned = _three_topics(store)
    assigned = {eid: (1 if n < 60 else 2 if n < 100 else 3, 0.5, []) for n, eid in enumerate(ids)}
    sizes = _sizes(assigned)
    assert sizes == {1: 60, 2: 40, 3: 9}
    topics = [
        Topic(1, "Mixed: power, ads, jetson", [("power", 1.0)], 60, cohesion=0.08, mixed=True),
        Topic(2, "KV cache", [("kv", 1.0)], 40, cohesion=0.61),
        Topic(3, "Interconnects", [("nvlink", 1.0)], 9),
    ]
    store.replace_topics(topics, assigned)
    got = store.topics()
    # the largest topic is mixed: the coherent ones (largest first) come before it
    assert [t.id for t in got] == [2, 3, 1]
    assert [(t.cohesion, t.mixed) for t in got] == [(0.61, False), (None, False), (0.08, True)]
    assert store.topic(1) == topics[0]
    # a re-cluster may find the topic coherent now: the mark follows the latest result
    store.replace_topics([topics[0]._replace(mixed=False, cohesion=0.7), *topics[1:]], assigned)
    assert [t.id for t in store.topics()] == [1, 2, 3]
    assert store.topic(1).cohesion == 0.7 and not store.topic(1).mixed


def test_also_rows_are_listed_in_the_readers_order_and_never_the_primary(store: Store):
    ids, assigned = _three_topics(store)
    topics = [Topic(t, f"t{t}", [], n) for t, n in sorted(_sizes(assigned).items())]
    # every entry of topic 1 also under topic 2, some of topic 3 also under 1 and 2; and
    # rows naming the entry's own topic, which the store leaves out
    also = [(eid, 2, 0.3) for eid, a in assigned.items() if a[0] == 1]
    in_3 = [eid for eid, a in assigned.items() if a[0] == 3][:6]
    also += [(eid, 1, 0.2) for eid in in_3] + [(eid, 2, 0.4) for eid in in_3[:3]]
    also += [(eid, 3, 0.9) for eid in in_3]  # primary: left out
    store.replace_topics(topics, assigned, also=also)

    for tid in (1, 2, 3):
        primary = set(store.topic_entry_ids(tid))
        listed = store.also_entry_ids(tid)
        assert not primary & set(listed)
        assert store.topic_also_rows(tid) == store.query(JOINED_ALSO, (tid,))
        assert listed == [r[0] for r in store.topic_also_rows(tid)]
    assert store.also_entry_ids(3) == []
    assert set(store.also_entry_ids(1)) == set(in_3)
    assert len(store.also_entry_ids(2)) == len(store.topic_entry_ids(1)) + 3
    rows = store.topic_also_rows(2)
    assert any(r[3] is None for r in rows) and rows[-1][3] is None  # undated last
    dated = [r[3] for r in rows if r[3] is not None]
    assert dated == sorted(dated, reverse=True)
    # best score first; never the primary topic
    assert [t.id for t in store.also_topics(in_3[0])] == [2, 1]
    assert [t.name for t in store.also_topics(in_3[4])] == ["t1"]
    assert store.also_topics(ids[1]) == []  # topic 2's entries are in no other topic
    # sizes and unread counts are the primary members only
    assert {t.id: t.size for t in store.topics()} == _sizes(assigned)
    assert store.topic_unread_counts() == _sizes(assigned)


def test_replace_replaces_every_also_row(store: Store):
    ids, assigned = _three_topics(store)
    topics = [Topic(t, f"t{t}", [], n) for t, n in sorted(_sizes(assigned).items())]
    also = [(eid, 3 if a[0] != 3 else 1, 0.5) for eid, a in assigned.items()]
    schema = store.query("SELECT type, name, sql FROM sqlite_master ORDER BY name")
    store.replace_topics(topics, assigned, also=also)
    assert sum(len(store.also_entry_ids(t)) for t in (1, 2, 3)) == len(ids)
    for tid in (1, 2, 3):  # the list, filled at once, is what the trigger would write
        assert store.topic_also_rows(tid) == store.query(JOINED_ALSO, (tid,))
    # the list's trigger, off while the rows went in, is back as it was
    assert store.query("SELECT type, name, sql FROM sqlite_master ORDER BY name") == schema
    # a re-cluster without topic 3: its also rows go with it; the others are replaced
    two = {eid: (1 if tid == 3 else tid, s, t) for eid, (tid, s, t) in assigned.items()}
    topics_2 = [Topic(t, f"t{t}", [], n) for t, n in sorted(_sizes(two).items())]
    store.replace_topics(topics_2, two, also=[*also, (ids[1], 1, 0.1)])
    assert store.also_entry_ids(3) == []
    assert store.also_entry_ids(1) == [ids[1]]  # the only row naming a kept topic ...
    assert store.also_entry_ids(2) == []  # ... that is not the entry's primary one
    assert store.query("SELECT count(*) FROM topic_also_list")[0][0] == 1
    store.replace_topics(topics_2, two)  # also=None: no also rows
    assert store.query("SELECT count(*) FROM topic_also")[0][0] == 0
    assert store.query("SELECT count(*) FROM topic_also_list")[0][0] == 0


def test_add_assignments_writes_the_new_entries_also_rows(store: Store):
    ids, assigned = _three_topics(store)
    new = ids[:4]  # placed later, as entries imported after the clustering are
    old = {eid: a for eid, a in assigned.items() if eid not in new}
    topics = [Topic(t, f"t{t}", [], n) for t, n in sorted(_sizes(old).items())]
    store.replace_topics(topics, old, also=[(ids[9], 2, 0.5)])  # ids[9] is in topic 1
    orphans = store.add_assignments(
        {new[0]: (1, 0.5, []), new[1]: (2, 0.5, []), new[2]: (99, 0.5, [])},
        also=[
            (new[0], 3, 0.7),
            (new[0], 2, 0.4),
            (new[0], 99, 0.9),  # the topic is gone: skipped, like the assignment
            (new[1], 2, 0.9),  # its primary topic: left out
            (new[2], 1, 0.5),  # its entry could not be placed: placed later, with its rows
            (new[3], 1, 0.5),  # not placed by this call
        ],
    )
    assert orphans == [new[2]]
    assert [t.id for t in store.also_topics(new[0])] == [3, 2]
    assert store.also_topics(new[1]) == store.also_topics(new[2]) == []
    assert store.also_topics(new[3]) == []
    assert sorted(store.also_entry_ids(2)) == sorted([new[0], ids[9]])  # the old row stays
    for tid in (1, 2, 3):
        assert store.topic_also_rows(tid) == store.query(JOINED_ALSO, (tid,))
    # placing an entry again replaces where else it is listed
    store.add_assignments({new[0]: (3, 0.5, [])}, also=[(new[0], 1, 0.2), (new[0], 3, 0.2)])
    assert [t.id for t in store.also_topics(new[0])] == [1]
    for tid in (1, 2, 3):
        assert store.topic_also_rows(tid) == store.query(JOINED_ALSO, (tid,))


def test_deleting_a_topic_or_an_entry_takes_its_also_rows_with_it(store: Store):
    _, assigned = _three_topics(store)
    topics = [Topic(t, f"t{t}", [], n) for t, n in sorted(_sizes(assigned).items())]
    also = [(eid, 3 if a[0] != 3 else 1, 0.5) for eid, a in assigned.items()]
    store.replace_topics(topics, assigned, also=also)
    before = len(store.also_entry_ids(1))
    with store.write() as conn:  # foreign keys on: the delete cascades
        conn.execute("DELETE FROM topics WHERE id = 3")
    assert store.query("SELECT count(*) FROM topic_also WHERE topic_id = 3")[0][0] == 0
    assert store.topic_also_rows(3) == []
    assert len(store.also_entry_ids(1)) == before
    assert store.query("SELECT count(*) FROM topic_also_list")[0][0] == before
    gone = store.also_entry_ids(1)[0]  # an entry deleted: its also rows go with it
    with store.write() as conn:
        conn.execute("DELETE FROM entries WHERE id = ?", (gone,))
    assert gone not in store.also_entry_ids(1) and store.also_topics(gone) == []
    assert store.query("SELECT count(*) FROM topic_also_list")[0][0] == before - 1


def test_a_store_of_the_previous_schema_keeps_everything(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        ids, assigned = _three_topics(store)
        topics = [Topic(t, f"t{t}", [("w", 1.0)], n) for t, n in sorted(_sizes(assigned).items())]
        store.replace_topics(topics, assigned, {ids[0]: [(ids[1], 0.5)]}, model=("v", b"m"))
        store.rename_topic(2, "Mine")
        store.set_note(ids[3], "note")
        store.set_read(ids[4])
    conn = sqlite3.connect(tmp_path / "topiclens.db")
    conn.executescript(SCHEMA_6 + "PRAGMA user_version = 6;")
    conn.close()
    before = dump_store(tmp_path / "topiclens.db")
    with Store.open_dir(tmp_path) as store:
        assert [(t.cohesion, t.mixed) for t in store.topics()] == [(None, False)] * 3
        assert [t.name for t in store.topics()] == ["t1", "Mine", "t3"]
        assert store.also_entry_ids(1) == [] and store.also_topics(ids[0]) == []
    after = dump_store(tmp_path / "topiclens.db")
    assert after.pop("topic_also") == [] and after.pop("topic_also_list") == []
    # every old row is there, the topics' with the two new columns (NULL, 0) at the end,
    # then their count of also rows (none)
    assert after.pop("topics") == [(*row, None, 0, 0) for row in before.pop("topics")]
    # the bookmark's note moved to the notes table (migration 8), with the bookmark's time
    ((eid, when, note),) = before.pop("bookmarks")
    assert (eid, note) == (ids[3], "note")
    assert after.pop("bookmarks") == [(eid, when, None)]  # (migration 10: no topic known)
    assert after.pop("notes") == [(eid, note, when)]
    # migration 9's tables, empty: no corrections yet
    assert [after.pop(t) for t in ("topic_corrections", "entry_pins", "correction_log")] == [[]] * 3
    # migration 10's, empty: nothing deleted, marked read at once, saved or muted yet
    daily = ("trash", "read_marks", "saved_searches", "mute_rules", "muted_entries")
    assert [after.pop(t) for t in daily] == [[]] * len(daily)
    # migration 11's: no feeds, and every entry from a file (no feed, key, author, content)
    assert after.pop("feeds") == [] and after.pop("entry_content") == []
    no_feed = (None, None, "", None, 0, "")
    # ... and each entry's file by number (the one file: 1; the path was the last column)
    old_rows = before.pop("entries")
    assert after.pop("entries") == [(*row[:-1], *no_feed, 1) for row in old_rows]
    assert after.pop("origin_files") == [(1, str(DIGEST))] == [(1, old_rows[0][-1])]
    assert after.pop("token_versions") == []  # the token cache's versions, by number: none
    assert after == before
