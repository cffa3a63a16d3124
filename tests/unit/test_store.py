"""The store: schema, bookmarks, read state, search, and refusing stores it cannot use."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from topiclens.store import SCHEMA_VERSION, Store, StoreError
from topiclens.store.importer import ensure_corpus


def test_wal_and_schema_version(store: Store):
    assert store.query("PRAGMA journal_mode")[0][0] == "wal"
    assert store.query("PRAGMA user_version")[0][0] == SCHEMA_VERSION


def test_first_start_imports_bundled_corpus_once(tmp_path: Path):
    with Store.open_dir(tmp_path / "fresh") as s:
        report = ensure_corpus(s)
        assert report is not None and report.new == 109 and report.problems == []
        assert ensure_corpus(s) is None
        e = s.entries()[0]
        assert e.origin_file.startswith("bundled:")


def test_bookmarks_and_notes(store: Store):
    ids = [e.id for e in store.entries()[:3]]
    assert store.toggle_bookmark(ids[0]) is True
    assert store.toggle_bookmark(ids[1]) is True
    assert store.toggle_bookmark(ids[0]) is False
    store.set_note(ids[2], "read later")
    assert store.bookmark_ids() == {ids[1], ids[2]}
    assert store.bookmark(ids[2]).note == "read later"
    store.set_note(ids[2], "")
    assert store.bookmark(ids[2]).note == ""


def test_read_state(store: Store):
    eid = store.entries()[5].id
    store.set_read(eid)
    store.set_read(eid)
    assert store.read_ids() == {eid}
    store.set_read(eid, False)
    assert store.read_ids() == set()


def test_search_chinese_and_english(store: Store):
    zh = store.entries(store.search("投机解码"))
    assert zh and all("投机解码" in e.text() for e in zh)
    en = store.entries(store.search("speculative DECODING"))
    assert {e.title for e in en} >= {"The Economics of Speculative Decoding"}
    assert store.search("100%_nothing_like_this") == []


def test_entry_texts_hold_no_metadata(store: Store):
    texts = dict(store.entry_texts())
    e = store.entries()[0]
    assert e.source not in texts[e.id] and e.category not in texts[e.id]


def test_not_sqlite_file_is_left_untouched(tmp_path: Path):
    path = tmp_path / "topiclens.db"
    path.write_bytes(b"this is my diary, not a database\n" * 100)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a topiclens store"):
        Store(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["topiclens.db"]


def test_newer_schema_is_refused(tmp_path: Path):
    path = tmp_path / "topiclens.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer topiclens"):
        Store(path)
    assert path.read_bytes() == before


def test_data_dir_that_is_a_file(tmp_path: Path):
    path = tmp_path / "file"
    path.write_text("x")
    with pytest.raises(StoreError, match="is a file"):
        Store.open_dir(path)


def test_replace_topics_keeps_user_names(store: Store):
    from topiclens.store import Topic

    ids = [e.id for e in store.entries()]
    a, b = ids[:50], ids[50:]
    topics = [
        Topic(1, "KV cache", [("kv", 1.0)], len(a)),
        Topic(2, "MoE kernels", [("moe", 0.5)], len(b)),
    ]
    assignments = {i: (1, 0.5, ["kv"]) for i in a} | {i: (2, 0.4, ["moe"]) for i in b}
    store.replace_topics(topics, assignments, {a[0]: [(a[1], 0.9), (a[2], 0.8)]})
    assert store.rename_topic(1, "My KV")
    store.replace_topics(topics, assignments)
    # largest topic first; the renamed one keeps its name through a re-cluster
    assert [(t.id, t.name, t.user_named) for t in store.topics()] == [
        (2, "MoE kernels", False),
        (1, "My KV", True),
    ]
    assert store.topic_entry_ids(2) == [e.id for e in store.entries(b)]
    assert store.assignment(a[0]) == (1, 0.5, ["kv"])
    assert store.similar(a[0]) == [(a[1], 0.9), (a[2], 0.8)]
    store.replace_topics(topics[1:], {i: (2, 0.1, []) for i in ids})
    assert [t.id for t in store.topics()] == [2]


def test_topic_sizes_and_unread_counts_are_the_members_whatever_the_caller_says(store: Store):
    # the unread counts are the sizes less the entries read: a size must be its count
    from topiclens.store import Topic

    ids = [e.id for e in store.entries()]
    a, b = ids[:50], ids[50:]
    topics = [Topic(1, "KV cache", [("kv", 1.0)], 7), Topic(2, "MoE", [("moe", 1.0)], 999)]
    store.replace_topics(topics, {i: (1, 0.5, []) for i in a} | {i: (2, 0.5, []) for i in b})
    assert {t.id: t.size for t in store.topics()} == {1: len(a), 2: len(b)}
    store.set_read_many(a[:10])
    assert store.topic_unread_counts() == {1: len(a) - 10, 2: len(b)}
    store.set_read_many(a)
    assert store.topic_unread_counts() == {2: len(b)}


def test_external_changes_counter(store: Store, tmp_path: Path):
    before = store.external_changes()
    with Store(store.path) as other:
        other.set_read(store.entries()[0].id)
    assert store.external_changes() != before


def test_bulk_topic_write_restores_reference_checks(store: Store):
    from topiclens.store import Topic

    ids = [e.id for e in store.entries()]
    topics = [Topic(1, "All", [("kv", 1.0)], len(ids))]
    store.replace_topics(
        topics, {i: (1, 0.1, []) for i in ids}, {ids[0]: [(ids[1], 0.5)]}, model=("v1", b"m")
    )
    assert store.query("SELECT version, model FROM topic_model") == [("v1", b"m")]
    assert store.query("PRAGMA foreign_keys")[0][0] == 1
    with pytest.raises(sqlite3.IntegrityError), store.write() as conn:
        conn.execute("INSERT INTO bookmarks(entry_id, created_at) VALUES ('no-such-entry', 0)")
    assert store.bookmark_ids() == set()
