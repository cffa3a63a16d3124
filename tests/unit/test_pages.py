"""A topic's rows read a page at a time give exactly the rows the whole list does, in any
order they are asked for, with the topic's own rows first and its also rows after."""

from __future__ import annotations

import contextlib
import random
import sqlite3
from pathlib import Path

import pytest
from helpers import DIGEST, LISTING, WITHOUT_ALSO_SIZES
from topiclens.store import Store, Topic
from topiclens.store import pages as pages_module
from topiclens.store.importer import import_file
from topiclens.store.migrations import MIGRATIONS, count_also_rows
from topiclens.store.pages import TopicRows, index_of


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(pages_module, "PAGE_ROWS", 4)  # many pages from a small corpus
    with Store.open_dir(tmp_path / "d") as s:
        import_file(s, DIGEST)  # dated, several on one day
        import_file(s, LISTING)  # undated: they come last
        ids = [e.id for e in s.entries()]
        assigned = {eid: (n % 2 + 1, 0.5, []) for n, eid in enumerate(ids)}
        sizes = {tid: sum(1 for a in assigned.values() if a[0] == tid) for tid in (1, 2)}
        topics = [Topic(tid, f"t{tid}", [("w", 1.0)], sizes[tid]) for tid in (1, 2)]
        also = [(eid, 2, 0.3) for eid, a in assigned.items() if a[0] == 1][::3]
        s.replace_topics(topics, assigned, also=also)
        yield s


def _whole(store: Store, tid: int) -> list[tuple]:
    return store.topic_rows(tid) + store.topic_also_rows(tid)


@pytest.mark.parametrize("tid", [1, 2])
def test_pages_read_in_any_order_are_the_whole_list(store: Store, tid: int):
    whole = _whole(store, tid)
    dated = [r for r in whole if r[3] is not None]
    assert len(dated) > 8 and len(whole) - len(dated) > 8  # both kinds span pages
    assert len({r[3] for r in dated}) < len(dated)  # ties on a date span a page's end
    orders = [
        list(range(len(whole))),  # down, a page after the other: by keyset
        list(range(len(whole)))[::-1],  # up from the end
        random.Random(tid).sample(range(len(whole)), len(whole)),  # jumps
    ]
    for order in orders:
        rows = TopicRows(store, tid)
        assert len(rows) == len(whole)
        assert [rows[i] for i in order] == [whole[i] for i in order]
    rows = TopicRows(store, tid)
    assert rows.also == len(store.topic_also_rows(tid))
    assert (tid == 2) == (rows.also > 0)
    assert rows[-1] == whole[-1] and rows[2:7] == whole[2:7] and list(rows) == whole
    for i, row in enumerate(whole):
        assert index_of(TopicRows(store, tid), row[0]) == i
    assert index_of(TopicRows(store, tid), "no-such-entry") is None


def test_a_cursor_moving_down_reads_one_page_at_a_time(store: Store):
    rows = TopicRows(store, 1)
    for i in range(10):
        rows[i]
    assert rows.pages_read == 3  # rows 0..9 of pages of 4


def test_muted_entries_are_left_out_as_in_the_whole_list(store: Store):
    source = store.topic_rows(1)[0][2]
    store.add_mute_rule("source", source)
    whole = _whole(store, 1)
    rows = TopicRows(store, 1)
    assert len(rows) == len(whole) and [rows[i] for i in range(len(whole))] == whole
    assert all(r[2] != source for r in whole)
    for i, row in enumerate(whole):  # a place counts the rows before it, muted ones left out
        assert index_of(TopicRows(store, 1), row[0]) == i


def _state_size(store: Store, tid: int, size: int, column: str = "size") -> None:
    """Make the topic's stored size (``column``: of its own rows, or of its also rows)
    ``size``, whatever its rows are (a store an older version wrote, a crash between two
    writes)."""
    with store.write() as conn:
        conn.execute(f"UPDATE topics SET {column} = ? WHERE id = ?", (size, tid))


def _read_down(rows: TopicRows) -> list[tuple]:
    """Every row from the top, one after the other, as the reader asks for them."""
    got, i = [], 0
    while i < len(rows):
        with contextlib.suppress(IndexError):  # the end found nearer, while reading
            got.append(rows[i])
        i += 1
    return got


def _read_up(rows: TopicRows) -> list[tuple]:
    """Every row from the bottom up (a jump to the end first), starting again from the
    end whenever the list's length changes under the reader."""
    got: dict[int, tuple] = {}
    length = len(rows)
    i = length - 1
    while i >= 0:
        with contextlib.suppress(IndexError):  # past the end found while reading
            got[i] = rows[i]
        if len(rows) != length:
            length, i, got = len(rows), len(rows) - 1, {}
            continue
        i -= 1
    return [got[i] for i in range(length)]


@pytest.mark.parametrize("tid", [1, 2])
@pytest.mark.parametrize("off", [-9, -1, 1, 9, 40])
@pytest.mark.parametrize("column", ["size", "also_size"])
def test_a_wrong_stored_size_is_found_and_every_row_read_once_in_order(
    store: Store, tid: int, off: int, column: str
):
    whole = _whole(store, tid)
    counted = len(store.topic_also_rows(tid) if column == "also_size" else store.topic_rows(tid))
    _state_size(store, tid, max(0, counted + off), column)
    for read in (_read_down, _read_up):
        rows = TopicRows(store, tid)
        assert read(rows) == whole
        assert len(rows) == len(whole)
    rows = TopicRows(store, tid)
    assert list(rows) == whole and len(rows) == len(whole)
    for i, row in enumerate(whole):
        assert index_of(TopicRows(store, tid), row[0]) == i


def test_the_stored_size_is_used_without_a_count(store: Store):
    """The size stands for a count (what makes a first visit cheap): a list read a page at
    a time from the top takes its length from it until the last page proves it."""
    own = len(store.topic_rows(1))
    _state_size(store, 1, own + 3)
    rows = TopicRows(store, 1)
    assert len(rows) == own + 3 + rows.also  # not counted yet
    rows[0]
    assert len(rows) == own + 3 + rows.also  # the first page does not reach the end
    rows[own - 1]
    assert len(rows) == own + rows.also  # the last page came back short: counted


def _also_sizes_are_counts(store: Store) -> None:
    stored = dict(store.query("SELECT id, also_size FROM topics"))
    counted = dict(store.query("SELECT topic_id, count(*) FROM topic_also_list GROUP BY topic_id"))
    assert stored == {tid: counted.get(tid, 0) for tid in stored}
    assert sum(stored.values()) > 0


def test_the_stored_also_sizes_stay_the_also_rows_count_on_every_write(store: Store):
    """The also rows' length comes from ``topics.also_size``: every path that writes or
    deletes an also row (a re-cluster, new entries placed, a delete and its undo, a
    cascade from a deleted entry or topic) keeps it the count."""
    _also_sizes_are_counts(store)
    also = store.query("SELECT entry_id, topic_id FROM topic_also ORDER BY entry_id")
    placed = {eid: (2, 0.5, []) for eid, _ in also[:2]}
    store.add_assignments(placed, also=[(also[0][0], 1, 0.4)])  # moved: its also row too
    _also_sizes_are_counts(store)
    deleted = store.delete_entry(also[2][0])
    assert deleted is not None
    _also_sizes_are_counts(store)
    store.restore_entry(deleted)
    _also_sizes_are_counts(store)
    with store.write() as conn:  # foreign keys on: the deletes cascade
        conn.execute("DELETE FROM entries WHERE id = ?", (also[3][0],))
    _also_sizes_are_counts(store)
    rows = TopicRows(store, 2)
    assert list(rows) == _whole(store, 2) and rows.also == len(store.topic_also_rows(2))
    with store.write() as conn:
        conn.execute("DELETE FROM topics WHERE id = 1")
    assert dict(store.query("SELECT id, also_size FROM topics")) == {
        2: store.query("SELECT count(*) FROM topic_also_list WHERE topic_id = 2")[0][0]
    }


def test_a_store_without_the_also_counts_gets_them_when_opened(store: Store):
    path = store.path
    store.close()
    with sqlite3.connect(path) as conn:  # as the schema before the counts left it
        conn.executescript(WITHOUT_ALSO_SIZES)
        conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(count_also_rows)}")
    with Store(path) as again:
        _also_sizes_are_counts(again)
        also = again.query("SELECT entry_id FROM topic_also ORDER BY entry_id")
        again.delete_entry(also[0][0])  # counted by the triggers from now on
        _also_sizes_are_counts(again)
