"""The assignments' similar entries packed (store/similar_rows.py) and the token cache's
tokenizer versions numbered: what a store reads back is the same as it was written, in a
new store, in one upgraded from the schema before, and through a correction and its undo."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest
from helpers import BEFORE_SMALLER_ROWS, DIGEST, LISTING, dump_store, integrity
from topiclens.store import Store, Topic
from topiclens.store.corrections import Plan
from topiclens.store.importer import import_file
from topiclens.store.migrations import MIGRATIONS
from topiclens.store.similar_rows import as_json, pack_similar_column, read, repacked, stored

A, B, C = "45309b27b5cea940", "449d515851750275", "d9cb30a57c4dffe0"


def test_a_list_packs_into_twelve_bytes_an_entry_and_reads_back_the_same():
    near = [(A, 0.977189), (B, 0.5), (C, -0.000001)]
    value = stored(near)
    assert isinstance(value, bytes) and len(value) == 36
    assert read(value) == near
    assert orjson.loads(as_json(value)) == [[A, 0.977189], [B, 0.5], [C, -0.000001]]
    assert repacked(as_json(value)) == value
    assert stored([]) == stored(None) == "[]" and read("[]") == []


@pytest.mark.parametrize(
    "near",
    [
        [(A, 0.1234567)],  # finer than a millionth
        [("45309B27B5CEA940", 0.5)],  # capitals: packed, they would read back lower-case
        [("not-an-entry-id!", 0.5)],
        [(A[:15], 0.5)],
        [(A, 3000.0)],  # beyond a 32-bit count of millionths
    ],
)
def test_a_list_the_packing_cannot_hold_exactly_stays_json(near: list[tuple[str, float]]):
    value = stored(near)
    assert isinstance(value, str) and read(value) == near


def _clustered(home: Path) -> tuple[list[str], dict[str, list[tuple[str, float]]]]:
    """A store of the bundled digest in two topics, with similar entries and cached
    tokens of two tokenizer versions; returns the ids and the similar entries given."""
    with Store.open_dir(home) as store:
        import_file(store, DIGEST)
        ids = store.entry_ids()
        assigned = {eid: (1 + n % 2, 0.5, ["kv"]) for n, eid in enumerate(ids)}
        near = {eid: [(o, round(0.9 - k / 10, 6)) for k, o in enumerate(ids[n + 1 : n + 6])]
                for n, eid in enumerate(ids)}  # fmt: skip
        near[ids[0]] = [(ids[1], 0.1234567)]  # kept as JSON
        half = len(ids) // 2
        topics = [Topic(1, "One", [("kv", 1.0)], half), Topic(2, "Two", [("moe", 1.0)], half)]
        store.replace_topics(topics, assigned, near)
        store.put_tokens([(eid, "", "v1", ["kv", "cache", eid[:4]]) for eid in ids[:10]])
        store.put_tokens([(eid, "", "v2", ["moe"]) for eid in ids[10:12]])
    return ids, near


def _tokens(store: Store, version: str) -> list[tuple[str, str, bytes]]:
    return list(store.iter_cached_tokens(version))


def test_a_new_store_keeps_similar_entries_packed_and_tokens_by_version(tmp_path: Path):
    ids, near = _clustered(tmp_path)
    with Store.open_dir(tmp_path) as store:
        assert all(store.similar(eid) == near[eid] for eid in ids)
        kinds = dict(store.query("SELECT entry_id, typeof(similar) FROM topic_assignments"))
        assert kinds[ids[0]] == "text" and {kinds[e] for e in ids[1:-1]} == {"blob"}
        assert [eid for eid, _, _ in _tokens(store, "v1")] == ids[:10]
        assert [eid for eid, _, _ in _tokens(store, "v2")] == ids[10:12]
        assert _tokens(store, "v3") == []
        versions = store.query("SELECT version FROM token_versions ORDER BY id")
        assert versions == [("v1",), ("v2",)]


def test_a_store_of_the_schema_before_reads_the_same_after_the_upgrade(tmp_path: Path):
    ids, near = _clustered(tmp_path)
    db = tmp_path / "topiclens.db"
    with Store.open_dir(tmp_path) as store:
        v1, v2 = _tokens(store, "v1"), _tokens(store, "v2")
    want = dump_store(db)
    conn = sqlite3.connect(db)  # as the schema before wrote it: JSON, versions in full
    conn.executescript(BEFORE_SMALLER_ROWS)
    conn.executemany(
        "UPDATE topic_assignments SET similar = ? WHERE entry_id = ?",
        [(orjson.dumps(near[eid]).decode(), eid) for eid in ids],
    )
    conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(pack_similar_column)}")
    conn.commit()
    conn.close()
    with Store.open_dir(tmp_path) as store:
        assert all(store.similar(eid) == near[eid] for eid in ids)
        assert (_tokens(store, "v1"), _tokens(store, "v2")) == (v1, v2)
    assert dump_store(db) == want  # every row as a new store writes it
    conn = sqlite3.connect(db)  # the assignments are their own key index
    indexes = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert "sqlite_autoindex_topic_assignments_1" not in indexes
    assert "topic_assignments_topic_entry" in indexes
    assert integrity(db) == "ok"


def _move(store: Store, ids: list[str]) -> None:
    store.apply_correction(
        Plan(
            "moved two",
            2,
            assign={eid: (2, 1.0, ["moe"]) for eid in ids},
            pins=dict.fromkeys(ids, 2),
        )
    )


def test_a_correction_and_its_undo_keep_the_similar_entries_as_stored(tmp_path: Path):
    ids, near = _clustered(tmp_path)
    db = tmp_path / "topiclens.db"
    moved = [ids[0], ids[2]]  # (one kept as JSON, one packed)
    before = dump_store(db)["topic_assignments"]
    with Store.open_dir(tmp_path) as store:
        _move(store, moved)
        assert [store.assignment(e).topic_id for e in moved] == [2, 2]
        assert all(store.similar(eid) == near[eid] for eid in ids)
        assert store.undo_correction() is not None
    assert dump_store(db)["topic_assignments"] == before


def test_a_correction_logged_before_the_upgrade_undoes_into_packed_rows(tmp_path: Path):
    ids, near = _clustered(tmp_path)
    db = tmp_path / "topiclens.db"
    moved = [ids[2], ids[4]]
    before = dump_store(db)["topic_assignments"]
    conn = sqlite3.connect(db)  # the rows as the schema before wrote them: JSON
    conn.executemany(
        "UPDATE topic_assignments SET similar = ? WHERE entry_id = ?",
        [(orjson.dumps(near[eid]).decode(), eid) for eid in ids],
    )
    conn.commit()
    conn.close()
    with Store.open_dir(tmp_path) as store:
        _move(store, moved)  # its log holds JSON, as the schema before's did
    conn = sqlite3.connect(db)
    conn.executescript(BEFORE_SMALLER_ROWS)
    conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(pack_similar_column)}")
    conn.commit()
    conn.close()
    with Store.open_dir(tmp_path) as store:
        assert store.undo_correction() is not None
        assert all(store.similar(eid) == near[eid] for eid in ids)
    assert dump_store(db)["topic_assignments"] == before


def test_a_deleted_entry_comes_back_with_its_similar_entries(tmp_path: Path):
    ids, near = _clustered(tmp_path)
    with Store.open_dir(tmp_path) as store:
        row = store.query("SELECT * FROM topic_assignments WHERE entry_id = ?", (ids[3],))
        store.delete_entry(ids[3])
        assert store.similar(ids[3]) == []
        assert store.restore_last_deleted() is not None
        assert store.similar(ids[3]) == near[ids[3]]
        assert store.query("SELECT * FROM topic_assignments WHERE entry_id = ?", (ids[3],)) == row


def test_an_upgraded_store_keeps_every_entrys_file_and_its_trash_too(tmp_path: Path):
    ids, near = _clustered(tmp_path)
    db = tmp_path / "topiclens.db"
    with Store.open_dir(tmp_path) as store:
        import_file(store, LISTING)  # a second file
        files = {e.id: e.origin_file for e in store.entries()}
        store.delete_entry(ids[5])
    assert set(files.values()) == {str(DIGEST), str(LISTING)}
    conn = sqlite3.connect(db)  # as the schema before wrote it: paths in full
    conn.executescript(BEFORE_SMALLER_ROWS)
    ((trash_id, rows),) = conn.execute("SELECT id, rows FROM trash").fetchall()
    doc = orjson.loads(rows)
    columns = doc["entry"]["columns"]
    at = columns.index("origin_id")
    columns[at] = "origin_file"
    doc["entry"]["rows"][0][at] = files[ids[5]]
    conn.execute("UPDATE trash SET rows = ? WHERE id = ?", (orjson.dumps(doc).decode(), trash_id))
    conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(pack_similar_column)}")
    conn.commit()
    conn.close()
    with Store.open_dir(tmp_path) as store:
        assert store.restore_last_deleted() is not None
        assert {e.id: e.origin_file for e in store.entries()} == files
        assert store.similar(ids[5]) == near[ids[5]]
        paths = store.query("SELECT path FROM origin_files ORDER BY id")
        assert paths == [(str(DIGEST),), (str(LISTING),)]
        import_file(store, LISTING)  # a file imported again is numbered once
        assert store.query("SELECT count(*) FROM origin_files")[0][0] == 2
    assert integrity(db) == "ok"


def test_a_new_model_takes_the_pages_of_the_one_it_replaces(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        ids = store.entry_ids()
        topics = [Topic(1, "All", [("kv", 1.0)], len(ids))]
        for n in range(3):  # a model of 2 MiB, three times
            model = ("v1", bytes([n]) * (2 << 20))
            store.replace_topics(topics, {eid: (1, 0.5, []) for eid in ids}, model=model)
        assert store.topic_model() == model
        free = store.query("PRAGMA freelist_count")[0][0] * store.query("PRAGMA page_size")[0][0]
        assert free < 1 << 20, free
