"""The views a heavy reader lives in, from the command line and the store: a search's
literal matches before its concept matches, mute rules whose triggers cost nothing until
the first rule, and saved searches and mute rules kept through restarts, `cluster`, and a
JSON export and restore."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import orjson
from helpers import BEFORE_SMALLER_ROWS, CliResult
from topiclens.cli.commands import CONCEPT_DIVIDER
from topiclens.store import Entry, Store
from topiclens.store.text import entry_id

Cli = Callable[..., CliResult]


def entry(title: str, summary: str, date: str | None = None, source: str = "") -> Entry:
    return Entry(
        id=entry_id(title, summary), title=title, summary=summary, date=date, source=source
    )


NAMED = entry("FlashAttention on Hopper", "Tiling the softmax.", "2024-01-01")
NAMED_IN_TEXT = entry("Kernel notes", "We switched to FlashAttention-3.", "2024-02-01")
ECONOMICS = entry(
    "The Economics of Speculative Decoding", "Draft models and attention costs.", "2026-06-01"
)


def _add(data_dir: Path, entries: list[Entry]) -> Path:
    with Store.open_dir(data_dir) as store:
        store.add_entries(entries)
        return store.path


# --- search: the words as written first, the concept after a divider ---------------------


def test_entries_search_lists_literal_matches_then_a_divider_then_concepts(
    cli: Cli, data_dir: Path
):
    _add(data_dir, [NAMED, NAMED_IN_TEXT, ECONOMICS])
    status, out, err = cli("entries", "--search", "flashattention")
    assert status == 0, err
    lines = out.splitlines()
    ids = [line.split()[0] for line in lines[1:] if not line.startswith("─")]
    assert ids == [NAMED.id, NAMED_IN_TEXT.id, ECONOMICS.id]
    assert lines.index(CONCEPT_DIVIDER) == 3  # header, two literal matches, the divider
    status, out, err = cli("entries", "--search", "flashattention", "--json")
    found = orjson.loads(out)["entries"]
    assert [(e["id"], e["match"]) for e in found] == [
        (NAMED.id, "literal"),
        (NAMED_IN_TEXT.id, "literal"),
        (ECONOMICS.id, "concept"),
    ]
    # no concept match: no divider
    status, out, err = cli("entries", "--search", "hopper")
    assert status == 0 and CONCEPT_DIVIDER not in out and NAMED.id in out


def test_search_show_lists_a_saved_search_with_the_same_divider(cli: Cli, data_dir: Path):
    _add(data_dir, [NAMED, NAMED_IN_TEXT, ECONOMICS])
    assert cli("search", "save", "fa", "flashattention")[0] == 0
    assert cli("mute", "add", "kernel notes")[0] == 0  # muted: out of the saved search
    status, out, err = cli("search", "show", "fa")
    assert status == 0, err
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[1:]] == [NAMED.id, "──", ECONOMICS.id]
    assert lines[2] == CONCEPT_DIVIDER


# --- mute rules: their triggers exist only while a rule needs them -----------------------

MUTE_TRIGGER_NAMES = {"entries_muted", "entries_muted_again", "entries_unmuted"}


def _triggers(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall()
    return {name for (name,) in rows} & MUTE_TRIGGER_NAMES


def test_a_store_with_no_mute_rule_has_no_mute_triggers(data_dir: Path):
    db = _add(data_dir, [NAMED])
    assert _triggers(db) == set()
    with Store(db) as store:
        feed, _ = store.add_feed("https://example.com/feed")
        store.add_mute_rule("feed", str(feed.id))
    assert _triggers(db) == set()  # a feed rule is matched when read: no trigger


def test_the_first_words_rule_makes_the_triggers_and_the_last_one_gone_drops_them(
    cli: Cli, data_dir: Path, tmp_path: Path
):
    db = _add(data_dir, [NAMED])
    quiet = entry("Quarterly numbers", "Revenue.", "2026-01-01", source="Quiet Blog")
    zebra = entry("A zebra crossing", "Stripes.", "2026-01-02")
    with Store(db) as store:
        words, _ = store.add_mute_rule("words", "zebra")
        assert _triggers(db) == MUTE_TRIGGER_NAMES
        source, _ = store.add_mute_rule("source", "quiet blog")
        store.add_entries([quiet, zebra])  # written after the rules: muted as they arrive
        assert store.muted_ids() == {quiet.id, zebra.id}
        store.remove_mute_rule(words.rule_id)
        assert _triggers(db) == MUTE_TRIGGER_NAMES  # a rule is left
        assert store.muted_ids() == {quiet.id}
        store.remove_mute_rule(source.rule_id)
        assert _triggers(db) == set() and store.muted_ids() == set()
        store.delete_entry(quiet.id)  # no trigger, nothing to tidy
    # from the command line too, and back from a backup
    status, _, err = cli("mute", "add", "zebra")
    assert status == 0, err
    assert _triggers(db) == MUTE_TRIGGER_NAMES
    with Store(db) as store:
        store.toggle_bookmark(NAMED.id)
    backup = tmp_path / "views.json"
    assert cli("export", "-o", str(backup))[0] == 0
    fresh = tmp_path / "fresh"
    assert cli("--data-dir", str(fresh), "import", str(backup))[0] == 0
    assert _triggers(fresh / "topiclens.db") == MUTE_TRIGGER_NAMES
    with Store.open_dir(fresh) as store:
        store.add_entries([zebra])
        assert store.muted_ids() == {zebra.id}


def test_the_upgrade_keeps_the_triggers_of_a_store_with_rules_and_drops_the_others(
    tmp_path: Path,
):
    from topiclens.store.migrations import MIGRATIONS, MUTE_TRIGGERS, sync_mute_triggers

    ruled, plain = tmp_path / "ruled", tmp_path / "plain"
    with Store.open_dir(ruled) as store:
        store.add_mute_rule("words", "zebra")
    Store.open_dir(plain).close()
    for home in (ruled, plain):  # as the schema before this one left them
        with sqlite3.connect(home / "topiclens.db") as conn:
            for sql in MUTE_TRIGGERS.values():
                conn.execute(sql)
            conn.executescript(BEFORE_SMALLER_ROWS)
            conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(sync_mute_triggers)}")
    for home in (ruled, plain):
        Store.open_dir(home).close()
    assert _triggers(ruled / "topiclens.db") == MUTE_TRIGGER_NAMES
    assert _triggers(plain / "topiclens.db") == set()
    with Store.open_dir(ruled) as store:
        zebra = entry("A zebra crossing", "Stripes.")
        store.add_entries([zebra])
        assert store.muted_ids() == {zebra.id}


# --- the river, a page at a time ----------------------------------------------------------


def test_the_river_read_a_page_at_a_time_is_the_whole_river(reader_store: Path):
    with Store(reader_store) as store:
        ids = store.entry_ids()
        store.set_read_many(ids[::3])
        store.add_mute_rule("words", "eagle")
        whole = store.river_rows()
        assert any(r[3] is None for r in whole)  # undated entries come last
        for size in (1, 7, 50, len(whole)):
            pages, after = [], None
            while page := store.river_rows(size, after=after):
                assert len(page) <= size
                pages += page
                after = page[-1][0]
            assert pages == whole, size
        assert store.river_rows(5) == whole[:5]
        assert store.river_rows(5, after=whole[-1][0]) == []
        assert store.river_rows(5, after="no-such-entry") == []
        # a page starts after its entry even once that entry is read
        store.set_read(whole[10][0])
        assert store.river_rows(3, after=whole[10][0]) == whole[11:14]
