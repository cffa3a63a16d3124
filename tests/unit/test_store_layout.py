"""How clustering results sit in the store: cached tokens as ids into one token table,
read back as arrays; similar entries inside the assignment rows.

A re-cluster builds its count matrix straight from the cached ids; these tests hold that
path to the same tokens and the same counts as token lists, and the ids to one meaning
when two writers add tokens at once.
"""

from __future__ import annotations

import re
import sqlite3
from array import array
from pathlib import Path

import numpy as np
import orjson
import pytest
from helpers import DIGEST, LISTING, ROOT, SCHEMA_4, SCHEMA_6, SCHEMA_7
from topiclens.clustering.features import count_matrix, select_terms
from topiclens.clustering.token_cache import entry_token_ids
from topiclens.clustering.tokenize import default_tokenizer
from topiclens.store import Store
from topiclens.store.importer import import_file


def _ids(blob: bytes) -> list[int]:
    return array("I", blob).tolist()


def test_two_writers_never_give_one_id_to_two_tokens(tmp_path: Path):
    with Store.open_dir(tmp_path) as a, Store.open_dir(tmp_path) as b:
        import_file(a, DIGEST)
        eids = [row[0] for row in a.query("SELECT id FROM entries ORDER BY id")][:4]
        wrote = {}
        # each writer gives out ids from what it read before the other wrote
        for store, eid, toks in (
            (a, eids[0], ["kv", "cache", "kv"]),
            (b, eids[1], ["cache", "moe", "专家并行"]),
            (a, eids[2], ["moe", "nvlink", "专家并行"]),
            (b, eids[3], ["nvlink", "kv", "投机解码"]),
        ):
            (blob,) = store.put_tokens([(eid, "h", "v1", toks)])
            wrote[eid] = (toks, blob)
        for store in (a, b):
            vocab = store.token_vocab()
            assert len(vocab) == len(set(vocab)) == 6
            for eid, digest, blob in store.iter_cached_tokens("v1"):
                toks, stored = wrote[eid]
                assert digest == "h" and blob == stored
                assert [vocab[i] for i in _ids(blob)] == toks


def test_a_failed_write_forgets_the_ids_it_gave_out(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        eid = store.query("SELECT id FROM entries LIMIT 1")[0][0]
        with pytest.raises(sqlite3.IntegrityError):  # no such entry: the row is refused
            store.put_tokens([(eid, "h", "v1", ["kv"]), ("no-such-entry", "h", "v1", ["moe"])])
        assert store.token_vocab() == []
        (blob,) = store.put_tokens([(eid, "h", "v1", ["moe", "kv"])])
        assert [store.token_vocab()[i] for i in _ids(blob)] == ["moe", "kv"]


@pytest.mark.slow
def test_counts_from_ids_equal_counts_from_token_lists(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        import_file(store, LISTING)
        items = store.entry_texts()
        ids = [eid for eid, _ in items]
        fresh, tokenized = entry_token_ids(store, ids)
        cached, again = entry_token_ids(store, ids)
    assert tokenized == len(items) and again == 0
    tk = default_tokenizer()
    docs = [tk(text) for _, text in items]
    assert fresh.docs() == docs and cached.docs() == docs
    extra = [tk.bigrams(text) for _, text in items]
    got = cached.counts().plus(extra)
    matrix, vocab = select_terms(got.matrix, got.vocab, min_df=2)
    want, want_vocab = count_matrix([[*d, *e] for d, e in zip(docs, extra, strict=True)], min_df=2)
    assert vocab == want_vocab
    assert matrix.shape == want.shape and (matrix != want).nnz == 0
    assert np.array_equal(matrix.indptr, want.indptr)


def test_a_store_with_the_old_string_cache_drops_it(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        eid = store.query("SELECT id FROM entries LIMIT 1")[0][0]
    db = tmp_path / "topiclens.db"
    conn = sqlite3.connect(db)  # make it a schema-3 store holding a string-format row
    conn.executescript(
        SCHEMA_4 + "DROP TABLE token_vocab; PRAGMA user_version = 3;"
        f"INSERT INTO token_cache VALUES ('{eid}', 'h', 'v1', CAST('kv\x1fcache' AS BLOB));"
    )
    conn.close()
    with Store.open_dir(tmp_path) as store:
        assert list(store.iter_cached_tokens("v1")) == []
        assert store.token_vocab() == []


def test_similar_entries_move_into_the_assignment_rows(tmp_path: Path):
    from topiclens.store import Topic

    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        ids = [e.id for e in store.entries()]
        store.replace_topics([Topic(1, "All", [], len(ids))], {i: (1, 0.5, []) for i in ids})
    conn = sqlite3.connect(tmp_path / "topiclens.db")  # make it a schema-4 store
    conn.executescript(SCHEMA_4 + "PRAGMA user_version = 4;")
    conn.executemany(
        "INSERT INTO similar VALUES (?,?,?,?)",
        [(ids[0], ids[2], 1, 0.25), (ids[0], ids[1], 0, 0.5), (ids[1], ids[0], 0, 0.5)],
    )
    conn.commit()
    conn.close()
    with Store.open_dir(tmp_path) as store:
        assert store.similar(ids[0]) == [(ids[1], 0.5), (ids[2], 0.25)]
        assert store.similar(ids[1]) == [(ids[0], 0.5)]
        assert store.similar(ids[2]) == []
        assert store.query("SELECT name FROM sqlite_master WHERE name = 'similar'") == []


JOINED = (
    "SELECT e.id, e.title, e.source, e.date FROM topic_assignments a "
    "JOIN entries e ON e.id = a.entry_id WHERE a.topic_id = ? "
    "ORDER BY e.date IS NULL, e.date DESC, e.rowid"
)


def test_topic_lists_follow_the_assignments(tmp_path: Path):
    from topiclens.store import Topic

    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        import_file(store, LISTING)  # undated entries: they go last
        ids = [e.id for e in store.entries()]
        half = len(ids) // 2
        assignments = {i: (1 if n < half else 2, 0.5, []) for n, i in enumerate(ids)}
        topics = [Topic(1, "One", [], half), Topic(2, "Two", [], len(ids) - half)]
        store.replace_topics(topics, assignments)
        for tid in (1, 2):
            assert store.topic_rows(tid) == store.query(JOINED, (tid,))
        assert any(r[3] is None for r in store.topic_rows(2))
        moved = ids[0]  # from topic 1 to topic 2, as assign_new would
        store.add_assignments({moved: (2, 0.9, [])})
        assert moved not in [r[0] for r in store.topic_rows(1)]
        assert moved in [r[0] for r in store.topic_rows(2)]
        for tid in (1, 2):
            assert store.topic_rows(tid) == store.query(JOINED, (tid,))
    conn = sqlite3.connect(tmp_path / "topiclens.db")  # back to schema 5: no topic lists
    conn.executescript(SCHEMA_6 + "DROP TABLE topic_list; PRAGMA user_version = 5;")
    conn.close()
    with Store.open_dir(tmp_path) as store:  # the migration fills them
        for tid in (1, 2):
            assert store.topic_rows(tid) == store.query(JOINED, (tid,))


# --- the store's shape: a facade over modules by concern ----------------------------------

_SQL = re.compile(r"\b(SELECT\s.+\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|DELETE\s+FROM|CREATE\s+TABLE"
                  r"|UPDATE\s+\w+\s+SET)")  # fmt: skip


def test_no_sql_outside_the_store():
    """Other layers call store methods; they never run SQL of their own."""
    found = []
    for folder in ("clustering", "tui", "app", "cli"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if _SQL.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []
    store = (ROOT / "store" / "export.py").read_text(encoding="utf-8")
    restore = (ROOT / "store" / "restore.py").read_text(encoding="utf-8")
    assert not _SQL.search(store) and not _SQL.search(restore)


def test_store_modules_are_small_and_the_facade_keeps_its_methods():
    # (export.py is being split by its own change; every other store module is checked)
    sizes = {
        p.name: len(p.read_text(encoding="utf-8").splitlines())
        for p in (ROOT / "store").glob("*.py")
        if p.name != "export.py"
    }
    assert max(sizes.values()) <= 400, sizes
    methods = [
        "open_dir",
        "close",
        "write",
        "query",
        "get_meta",
        "set_meta",
        "add_entries",
        "import_result",
        "count_entries",
        "entry",
        "entries",
        "entry_texts",
        "entry_ids",
        "search",
        "bookmarks",
        "bookmark",
        "bookmark_ids",
        "set_bookmark",
        "toggle_bookmark",
        "set_note",
        "read_ids",
        "set_read",
        "topics",
        "topic",
        "topic_entry_ids",
        "assignments",
        "assignment",
        "similar",
        "replace_topics",
        "external_changes",
        "rename_topic",
        "iter_cached_tokens",
        "token_vocab",
        "put_tokens",
        "topic_model",
        "unassigned_ids",
        "add_assignments",
        "topic_rows",
        "topic_also_rows",
        "also_entry_ids",
        "also_topics",
        "entry_rows",
        "topic_unread_counts",
        "count_unassigned",
        "topic_profile",
    ]
    assert [m for m in methods if not callable(getattr(Store, m, None))] == []


def test_an_entry_round_trips_through_its_row_and_its_dict(tmp_path: Path):
    from topiclens.store.models import ENTRY_COLUMNS, Entry

    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        import_file(store, LISTING)
        for entry in store.entries():
            assert Entry.from_row(entry.to_row(0.0)[: len(ENTRY_COLUMNS)]) == entry
            assert Entry.from_json(orjson.loads(orjson.dumps(entry.to_json()))) == entry


def test_a_topics_entry_order_is_the_readers(tmp_path: Path):
    from topiclens.store import Topic

    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        import_file(store, LISTING)  # undated entries: they go last
        ids = [e.id for e in store.entries()]
        store.replace_topics([Topic(1, "All", [], len(ids))], {i: (1, 0.5, []) for i in ids})
        assert store.topic_entry_ids(1) == [r[0] for r in store.topic_rows(1)] == ids


def test_notes_move_out_of_the_bookmark_rows(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        ids = [e.id for e in store.entries()[:3]]
    conn = sqlite3.connect(tmp_path / "topiclens.db")  # make it a schema-7 store
    conn.executescript(
        SCHEMA_7 + "PRAGMA user_version = 7;"
        f"INSERT INTO bookmarks VALUES ('{ids[0]}', 10.0, 'mine'), ('{ids[1]}', 20.0, '');"
    )
    conn.close()
    with Store.open_dir(tmp_path) as store:
        assert store.bookmarks() == [(ids[0], 10.0, "mine"), (ids[1], 20.0, "")]
        assert store.query("SELECT entry_id, note, noted_at FROM notes") == [(ids[0], "mine", 10.0)]
        assert store.toggle_bookmark(ids[0]) is False
        assert store.note(ids[0]) == "mine" and store.loose_notes()[0].note == "mine"


def test_titles_cut_at_import_are_derived_again_whole_with_the_same_ids(tmp_path: Path):
    from topiclens.store import Topic
    from topiclens.text import fit_cells

    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        entries = {e.id: e for e in store.entries()}
        ids = list(entries)
        store.replace_topics([Topic(1, "All", [], len(ids))], {i: (1, 0.5, []) for i in ids})
    long = [e for e in entries.values() if not e.title_given and fit_cells(e.title, 56) != e.title]
    assert long  # the digest has titles longer than the old cut
    conn = sqlite3.connect(tmp_path / "topiclens.db")  # a schema-7 store: titles cut at 56
    conn.executescript(SCHEMA_7 + "PRAGMA user_version = 7;")
    for table, column in (("entries", "id"), ("topic_list", "entry_id")):
        conn.executemany(
            f"UPDATE {table} SET title = ? WHERE {column} = ?",
            [(fit_cells(e.title, 56), e.id) for e in long],
        )
    conn.commit()
    conn.close()
    with Store.open_dir(tmp_path) as store:
        assert {e.id: e for e in store.entries()} == entries  # ids and every field as imported
        assert [r[1] for r in store.topic_rows(1)] == [entries[i].title for i in ids]
        assert store.get_meta("titles.rederive") is None  # done once
