"""The store's size: token ids cached as 16-bit words, a store of the 32-bit cache migrated
to read the same, and ``compact`` giving free pages back (a large store in large pages)."""

from __future__ import annotations

import re
import shutil
import sqlite3
from array import array
from pathlib import Path

import pytest
from helpers import BEFORE_SMALLER_ROWS, DIGEST, LISTING, dump_store, integrity
from topiclens.cli import main
from topiclens.clustering.token_cache import entry_token_ids
from topiclens.store import Store, StoreError
from topiclens.store.compact import (
    LARGE_PAGE,
    LARGE_STORE,
    SMALL_PAGE,
    compact,
    large_pages_for_import,
)
from topiclens.store.importer import import_file
from topiclens.store.migrations import MIGRATIONS, compact_token_cache
from topiclens.store.token_ids import LIMIT, WIDE, pack, unpack
from topiclens.tui.details import load_detail


def _ids(blob: bytes) -> list[int]:
    return array("I", blob).tolist()


def test_token_ids_round_trip_through_their_stored_words():
    rows = [
        [],
        [0, 1, 2, 65_534],
        [WIDE, 0, WIDE + 1, 0x7FFF, 0x8000, 0x1FFFF, LIMIT - 1, 5],  # every edge of a wide id
        [3, 3, 3],
        [],
        [70_000],
    ]
    stored = [pack(r) for r in rows]
    assert [len(b) for b in stored[:2]] == [0, 8]  # two bytes an id below WIDE
    assert [_ids(b) for b in unpack(stored)] == rows
    assert [_ids(b) for b in unpack(stored[1:2])] == [rows[1]]  # a batch with no wide id
    with pytest.raises(ValueError, match="too large"):
        pack([LIMIT])


def test_the_cache_keeps_two_bytes_a_token_and_reads_back_32_bit_ids(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        eid = store.query("SELECT id FROM entries LIMIT 1")[0][0]
        (blob,) = store.put_tokens([(eid, "", "v1", ["kv", "cache", "kv", "moe"])])
        assert _ids(blob) == [0, 1, 0, 2]
        assert store.query("SELECT length(tokens) FROM token_cache")[0][0] == 8
        assert list(store.iter_cached_tokens("v1")) == [(eid, "", blob)]


def _state(home: Path) -> dict[str, object]:
    """What a reader and a re-cluster read from the store at ``home``."""
    with Store.open_dir(home) as store:
        ids = store.entry_ids()
        topics = store.topics()
        tokens, tokenized = entry_token_ids(store, ids)
        details = [load_detail(store, eid, topics, frozenset()) for eid in ids[:40]]
        state = {
            "entries": [e.to_row(0.0) for e in store.entries()],
            "topics": topics,
            "rows": {t.id: store.topic_rows(t.id) for t in topics},
            "assignments": store.assignments(),
            "similar": [d.similar if d else None for d in details],
            "tokens": (tokens.ids.tolist(), tokens.indptr.tolist(), tokens.vocab),
            "tokenized": tokenized,
        }
    for fmt in ("json", "md"):
        out = home.parent / f"{home.name}-export.{fmt}"
        assert main(["--data-dir", str(home), "export", "--format", fmt, "-o", str(out)]) == 0
        state[fmt] = re.sub(r"\d{4}-\d\d-\d\dT[\d:]+Z", "", out.read_text(encoding="utf-8"))
    return state


def test_a_store_of_32_bit_token_ids_migrates_and_reads_the_same(
    bundled_home: Path, tmp_path: Path
):
    with Store.open_dir(bundled_home) as store:  # something for the exports to hold
        for eid in store.entry_ids()[:5]:
            store.set_bookmark(eid, True)
            store.set_note(eid, f"note on {eid}")
    old = tmp_path / "old"
    shutil.copytree(bundled_home, old)
    conn = sqlite3.connect(old / "topiclens.db")  # the cache as the schema before wrote it
    conn.executescript(BEFORE_SMALLER_ROWS)
    rows = conn.execute("SELECT rowid, tokens FROM token_cache").fetchall()
    wide = unpack([blob for _, blob in rows])
    conn.executemany(
        "UPDATE token_cache SET tokens = ? WHERE rowid = ?",
        [(blob, rowid) for (rowid, _), blob in zip(rows, wide, strict=True)],
    )
    # ... before this round's migrations, with the index they drop
    damaged = ("0" * 16, "", "v0", b"\x01\x02\x03")  # not whole 32-bit ids: dropped
    conn.execute("INSERT INTO token_cache VALUES (?, ?, ?, ?)", damaged)
    conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(compact_token_cache)}")
    conn.execute("CREATE INDEX entries_row ON entries(id, date, title, source)")
    conn.commit()
    conn.close()
    assert len(rows) > 100
    want = _state(bundled_home)
    got = _state(old)  # opening it migrates it
    assert got["tokenized"] == want["tokenized"] == 0  # every entry's tokens came from the cache
    assert any(s for s in got["similar"]) and got["json"].count('"note"') == 5
    assert got == want
    assert dump_store(old / "topiclens.db") == dump_store(bundled_home / "topiclens.db")
    assert integrity(old / "topiclens.db") == "ok"
    conn = sqlite3.connect(old / "topiclens.db")
    indexes = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall()
    conn.close()
    assert ("entries_row",) not in indexes and ("entries_date",) in indexes
    assert integrity(old / "topiclens.db") == "ok"


def test_compact_gives_free_pages_back_and_keeps_every_row(bundled_home: Path, capsys):
    db = bundled_home / "topiclens.db"
    # rows deleted since the store was written
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("CREATE TABLE ballast (b BLOB)")
    conn.execute("INSERT INTO ballast SELECT randomblob(100000) FROM token_cache LIMIT 40")
    conn.execute("DROP TABLE ballast")
    conn.close()
    rows = dump_store(db)
    before = db.stat().st_size
    assert main(["--data-dir", str(bundled_home), "compact"]) == 0
    assert "compacted the store" in capsys.readouterr().out
    assert db.stat().st_size < before - 3_000_000
    assert dump_store(db) == rows and integrity(db) == "ok"
    with Store.open_dir(bundled_home) as store:
        assert store.query("PRAGMA page_size")[0][0] == SMALL_PAGE  # a small store
        assert store.query("PRAGMA journal_mode")[0][0] == "wal"


def test_a_large_store_is_rewritten_in_large_pages(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        with store.write() as conn:  # kept: the store is large now
            conn.execute("CREATE TABLE ballast (b BLOB)")
            conn.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
                "INSERT INTO ballast SELECT randomblob(1 << 20) FROM n",
                (LARGE_STORE >> 20,),
            )
        assert store.query("PRAGMA page_size")[0][0] == SMALL_PAGE
        rows = dump_store(store.path)
        compact(store)
        assert store.query("PRAGMA page_size")[0][0] == LARGE_PAGE
        assert store.query("PRAGMA journal_mode")[0][0] == "wal"
        assert dump_store(store.path) == rows
        import_file(store, LISTING)  # and it goes on taking writes
        assert store.count_entries() > len(rows["entries"])
    assert integrity(tmp_path / "topiclens.db") == "ok"


def test_compact_is_refused_while_another_connection_has_the_store(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        rows = dump_store(tmp_path / "topiclens.db")
        refused = pytest.raises(StoreError, match="another program has the store open")
        with Store.open_dir(tmp_path) as other, refused:
            compact(other)
        assert store.query("PRAGMA journal_mode")[0][0] == "wal"
        assert store.count_entries() == len(rows["entries"])
    assert dump_store(tmp_path / "topiclens.db") == rows


def _page_size(home: Path) -> int:
    with Store.open_dir(home) as store:
        return int(store.query("PRAGMA page_size")[0][0])


def test_a_new_store_takes_large_pages_before_a_large_import(tmp_path: Path):
    with Store.open_dir(tmp_path / "large") as store:
        assert large_pages_for_import(store, LARGE_STORE)
        assert store.query("PRAGMA journal_mode")[0][0] == "wal"
        import_file(store, DIGEST)
        assert store.count_entries() > 0
        assert not large_pages_for_import(store, LARGE_STORE)  # (already)
    assert _page_size(tmp_path / "large") == LARGE_PAGE
    with Store.open_dir(tmp_path / "small") as store:  # a small import: small pages
        assert not large_pages_for_import(store, LARGE_STORE - 1)
        import_file(store, DIGEST)
        # a store holding entries is not rewritten before an import, large or not
        assert not large_pages_for_import(store, LARGE_STORE)
    assert _page_size(tmp_path / "small") == SMALL_PAGE
    assert integrity(tmp_path / "large" / "topiclens.db") == "ok"


def test_import_starts_a_new_store_in_large_pages_for_files_that_make_it_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
):
    size = DIGEST.stat().st_size
    monkeypatch.setattr("topiclens.store.compact.LARGE_STORE", size + 1)
    assert main(["--data-dir", str(tmp_path / "one"), "import", str(DIGEST)]) == 0
    assert _page_size(tmp_path / "one") == SMALL_PAGE
    two = ["import", str(DIGEST), str(LISTING)]  # together over the mark
    assert main(["--data-dir", str(tmp_path / "two"), *two]) == 0
    assert _page_size(tmp_path / "two") == LARGE_PAGE
    capsys.readouterr()
