"""The views a heavy reader lives in: mute rules, saved searches and the river of unread
entries, from the store and the command line; each survives a restart, a re-cluster and a
JSON backup and its restore."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from helpers import HOSTILE_CORPUS, HOSTILE_FILES, CliResult, dump_store
from topiclens.store import Store
from topiclens.store.bounds import BoundError

Cli = Callable[..., CliResult]


def _with_word(store: Store, word: str) -> set[str]:
    low = word.lower()
    return {e.id for e in store.entries() if low in (e.title + "\n" + e.summary).lower()}


def _shown(store: Store) -> set[str]:
    """Every entry id the reader's topic lists show."""
    return {
        r[0] for t in store.topics() for r in store.topic_rows(t.id) + store.topic_also_rows(t.id)
    }


# --- mute rules -----------------------------------------------------------------------------


def test_a_words_rule_hides_entries_from_lists_and_counts_but_keeps_them(reader_store: Path):
    with Store(reader_store) as store:
        every = set(store.entry_ids())
        counts, sizes = store.topic_unread_counts(), {t.id: t.size for t in store.topics()}
        hits = _with_word(store, "eagle")
        assert hits
        rule, new = store.add_mute_rule("words", "  EAGLE  ")
        assert new and rule.kind == "words" and rule.value == "EAGLE" and rule.muted == len(hits)
        assert store.muted_ids() == hits
        assert _shown(store) == every - hits
        assert sum(store.topic_unread_counts().values()) == sum(counts.values()) - len(hits)
        visible = {t.id: t.size for t in store.visible_topics()}
        assert sum(visible.values()) == sum(sizes.values()) - len(hits)
        assert {t.id: t.size for t in store.topics()} == sizes  # the store's own sizes stay
        assert not hits & {r[0] for r in store.river_rows()}
        assert store.count_entries() == len(every)  # kept
        # the same rule again is the same rule
        again, new = store.add_mute_rule("words", "eagle")
        assert not new and again.rule_id == rule.rule_id
        assert store.remove_mute_rule(rule.rule_id) is not None
        assert _shown(store) == every and store.muted_ids() == set()
        assert store.remove_mute_rule(rule.rule_id) is None


def test_every_word_of_a_rule_must_be_there(reader_store: Path):
    with Store(reader_store) as store:
        both = _with_word(store, "kv") & _with_word(store, "显存")
        assert both and both != _with_word(store, "kv")
        store.add_mute_rule("words", "KV 显存")
        assert store.muted_ids() == both


def test_entries_written_later_are_muted_as_they_arrive(reader_store: Path, tmp_path: Path):
    from topiclens.store.importer import import_file

    with Store(reader_store) as store:
        store.add_mute_rule("words", "zebra-crossing")
        store.add_mute_rule("source", "quiet blog")
        path = tmp_path / "new.jsonl"
        path.write_text(
            '{"title": "A Zebra-Crossing study", "summary": "x"}\n'
            '{"title": "plain", "summary": "y", "source": "Quiet Blog"}\n'
            '{"title": "plain too", "summary": "z", "source": "Quiet Blog Two"}\n',
            "utf-8",
        )
        report = import_file(store, path)
        zebra, quiet, other = report.new_ids
        assert store.muted_ids() == {zebra, quiet}
        # a changed entry is judged again (a feed updates its entries in place)
        with store.write() as conn:
            conn.execute("UPDATE entries SET title = 'renamed' WHERE id = ?", (zebra,))
            conn.execute("UPDATE entries SET source = 'Quiet Blog' WHERE id = ?", (other,))
        assert store.muted_ids() == {quiet, other}
        # deleted and brought back: muted as any entry written
        store.delete_entry(quiet)
        assert store.muted_ids() == {other}
        store.restore_last_deleted()
        assert store.muted_ids() == {quiet, other}


def test_a_feed_rule(reader_store: Path):
    conn = sqlite3.connect(reader_store)
    columns = {r[1] for r in conn.execute("PRAGMA table_info(entries)")}
    if "feed_id" not in columns:  # (the feeds' own migration adds it)
        conn.execute("ALTER TABLE entries ADD COLUMN feed_id INTEGER")
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'feeds'").fetchone():
        conn.execute("INSERT INTO feeds(id, url, added_at) VALUES (7, 'http://127.0.0.1/f', 0)")
    ids = [r[0] for r in conn.execute("SELECT id FROM entries ORDER BY rowid LIMIT 4")]
    conn.executemany("UPDATE entries SET feed_id = 7 WHERE id = ?", [(i,) for i in ids])
    conn.commit()
    conn.close()
    with Store(reader_store) as store:
        rule, _ = store.add_mute_rule("feed", "7")
        assert rule.muted == 4 and store.muted_ids() == set(ids)
        assert not set(ids) & _shown(store)
        with pytest.raises(BoundError, match="a feed is given by its id"):
            store.add_mute_rule("feed", "seven")


def test_mute_from_the_command_line(cli: Cli, reader_store: Path):
    with Store(reader_store) as store:
        hits = _with_word(store, "eagle")
        source = store.entries()[0].source
        by_source = {e.id for e in store.entries() if e.source.lower() == source.lower()}
    status, out, _ = cli("mute", "add", "eagle")
    noun = "entry" if len(hits) == 1 else "entries"
    assert status == 0 and out == f"added rule 1 (words 'eagle'): it hides {len(hits)} {noun}\n"
    status, out, _ = cli("mute", "add", "--source", source.upper())
    assert status == 0 and f"it hides {len(by_source)} " in out
    status, out, _ = cli("mute", "list")
    assert out.splitlines()[1:] == [
        f"   1  {len(hits):>6}  words 'eagle'",
        f"   2  {len(by_source):>6}  source '{source.upper()}'",
    ]
    muted = hits | by_source
    status, out, _ = cli("entries", "--json")
    listed = {e["id"] for e in orjson.loads(out)["entries"]}
    assert not listed & muted and len(listed) == 109 - len(muted)
    status, out, _ = cli("entries", "--muted", "--json")
    assert {e["id"] for e in orjson.loads(out)["entries"]} == muted
    status, out, _ = cli("entries", "--search", "eagle", "--json")  # a search finds them
    found = orjson.loads(out)["entries"]
    assert hits <= {e["id"] for e in found} and all(e["muted"] for e in found if e["id"] in hits)
    assert cli("mute", "remove", "1")[1].startswith("removed rule 1 (words 'eagle')")
    status, _, err = cli("mute", "remove", "1")
    assert status == 1 and "no mute rule 1" in err
    for bad in (("mute", "add"), ("mute", "add", "x", "--source", "s"), ("mute", "add", "\x1b")):
        status, out, err = cli(*bad)
        assert status == 2 and out == "" and err.count("\n") == 1, bad


# --- saved searches -------------------------------------------------------------------------


def test_a_saved_search_gives_the_readers_search_less_the_muted(reader_store: Path):
    from topiclens.clustering.search import search

    with Store(reader_store) as store:
        assert store.save_search("Drafts", "speculative decoding")
        expected = search(store, "speculative decoding")
        assert expected and store.saved_search_ids("Drafts") == expected
        store.set_read(expected[0])
        assert store.saved_search_unread_counts() == {"Drafts": len(expected) - 1}
        store.add_mute_rule("words", store.entry(expected[1]).title)  # type: ignore[union-attr]
        assert expected[1] not in store.saved_search_ids("Drafts")  # type: ignore[operator]
        assert not store.save_search("Drafts", "eagle")  # the same name: replaced
        assert [(s.name, s.query) for s in store.saved_searches()] == [("Drafts", "eagle")]
        assert store.saved_search_ids("nothing") is None
        for name, query, reason in (
            ("", "x", "cannot be empty"),
            ("a\nb", "x", "one line"),
            ("x", "  ", "needs words"),
            ("x", " ".join(["w"] * 65), "at most 64 words"),
        ):
            with pytest.raises(BoundError, match=reason):
                store.save_search(name, query)
        assert store.remove_saved_search("Drafts") and not store.remove_saved_search("Drafts")


def test_saved_searches_from_the_command_line(cli: Cli, reader_store: Path):
    status, out, _ = cli("search", "save", "spec", "speculative decoding")
    assert status == 0 and out.startswith("saved search 'spec': ")
    status, out, _ = cli("search", "list")
    header, line = out.splitlines()
    assert header.split() == ["name", "entries", "unread", "query"]
    assert line.split()[0] == "spec" and line.endswith("speculative decoding")
    status, out, _ = cli("search", "show", "spec")
    assert status == 0 and len(out.splitlines()) > 2
    assert cli("search", "remove", "spec")[1] == "removed search 'spec'\n"
    status, _, err = cli("search", "show", "spec")
    assert status == 1 and "no saved search named 'spec'" in err
    status, out, _ = cli("search", "list")
    assert out.splitlines()[1].startswith("no saved searches")


# --- the river ------------------------------------------------------------------------------


def test_the_river_is_every_unread_entry_newest_first(reader_store: Path):
    with Store(reader_store) as store:
        ids = store.entry_ids()
        store.set_read_many(ids[:10])
        rows = store.river_rows()
        assert {r[0] for r in rows} == set(ids[10:])
        dated = [r[3] for r in rows if r[3] is not None]
        assert dated == sorted(dated, reverse=True)
        assert all(r[3] is None for r in rows[len(dated) :])  # undated last
        assert store.river_rows(limit=5) == rows[:5]
        store.add_mute_rule("source", rows[0][2])
        assert rows[0][0] not in {r[0] for r in store.river_rows()}


# --- surviving a restart, a re-cluster, a backup and its restore ---------------------------


def test_views_survive_a_re_cluster(cli: Cli, bundled_home: Path):
    with Store(bundled_home / "topiclens.db") as store:
        hits = _with_word(store, "eagle")
        store.add_mute_rule("words", "eagle")
        store.save_search("kv", "KV cache")
        kv = store.saved_search_ids("kv")
    status, _, err = cli("--data-dir", str(bundled_home), "cluster")
    assert status == 0, err
    with Store(bundled_home / "topiclens.db") as store:
        assert store.muted_ids() == hits and not hits & _shown(store)
        assert store.saved_search_ids("kv") == kv


def test_views_survive_a_json_backup_and_restore_twice(
    cli: Cli, reader_store: Path, tmp_path: Path
):
    with Store(reader_store) as store:
        store.toggle_bookmark(store.entry_ids()[0])
        store.add_mute_rule("words", "eagle")
        store.add_mute_rule("source", "Some Blog")
        store.save_search("kv", "KV cache")
        store.save_search("spec", "speculative decoding")
        rules = [(r.kind, r.value, r.created_at) for r in store.mute_rules()]
        searches = store.saved_searches()
        muted = store.muted_ids()
    backup = tmp_path / "b.json"
    assert cli("export", "-o", str(backup))[0] == 0
    doc = orjson.loads(backup.read_bytes())
    assert [s["name"] for s in doc["saved_searches"]] == ["kv", "spec"]
    assert [r["kind"] for r in doc["mute_rules"]] == ["words", "source"]
    fresh = tmp_path / "fresh"
    status, out, err = cli("--data-dir", str(fresh), "import", str(backup))
    assert status == 0, err
    assert "2 saved searches and 2 mute rules restored" in out
    with Store.open_dir(fresh) as store:
        assert store.saved_searches() == searches
        assert [(r.kind, r.value, r.created_at) for r in store.mute_rules()] == rules
        assert store.muted_ids() == muted & set(store.entry_ids())
    before = dump_store(fresh / "topiclens.db")
    status, out, _ = cli("--data-dir", str(fresh), "import", str(backup))
    assert status == 0 and "saved searches" not in out  # nothing new the second time
    assert dump_store(fresh / "topiclens.db") == before


def test_a_hostile_backup_of_views_refuses_each_bad_value_alone(cli: Cli, data_dir: Path):
    path = HOSTILE_FILES / "export_views.json"
    assert path.read_bytes() == HOSTILE_CORPUS.export_views()
    searches, rules, problems = HOSTILE_CORPUS.EXPORT_VIEWS_EXPECTED
    status, out, err = cli("import", str(path))
    assert status == 1
    assert f"{searches} saved searches and {rules} mute rules restored" in out
    text = path.read_text("utf-8")
    lines = err.splitlines()
    assert len(lines) == len(problems), err
    for line, (key, fragment) in zip(lines, problems, strict=True):
        at = text[: text.index(f'"{key}"')].count("\n") + 1
        assert line.startswith(f"error: {path}:{at}: ") and fragment in line, line
        assert "\x1b" not in line
    with Store.open_dir(data_dir) as store:
        assert [s.name for s in store.saved_searches()] == ["kv"]
        assert [(r.kind, r.value) for r in store.mute_rules()] == [("words", "crypto scam")]
