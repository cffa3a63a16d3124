"""Bounded text: names stored (one rule, restore included), searches too long for SQLite
refused with a clear message, and tables that cut a huge title or name (never --json)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from helpers import CliResult, dump_store
from topiclens.store import Entry, Store, Topic
from topiclens.store.bounds import NAME_MAX_CHARS, BoundError, check_name
from topiclens.text import cell_width

Cli = Callable[..., CliResult]


# --- names ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("", "cannot be empty"),
        ("   ", "cannot be empty"),
        ("x" * (NAME_MAX_CHARS + 1), "at most 200 characters, not 201"),
        ("two\nlines", "one line of text; this one holds a line break"),
        ("esc\x1b[2J", "a control character (U+001B)"),
        ("rtl\u202e", "a control character (U+202E)"),
    ],
)
def test_one_rule_for_names(bad: str, reason: str):
    with pytest.raises(BoundError, match=re.escape(reason)):
        check_name(bad, "a topic name")
    assert check_name("  KV 缓存 [WIP]  ") == "KV 缓存 [WIP]"
    assert check_name("x" * NAME_MAX_CHARS) == "x" * NAME_MAX_CHARS


def test_a_megabyte_name_is_refused_by_the_command_line_and_the_store(cli: Cli, reader_store: Path):
    from topiclens.clustering.corrections import rename_topic

    huge = "名" * 1_000_000
    before = dump_store(reader_store)
    status, out, err = cli("topic", "rename", "1", huge)
    assert status == 2 and out == "" and "at most 200 characters, not 1,000,000" in err
    assert len(err) < 200
    with Store(reader_store) as store:
        with pytest.raises(BoundError, match="at most 200"):
            store.rename_topic(1, huge)
        with pytest.raises(BoundError, match="one line"):
            store.rename_topic(1, "two\nlines")
        with pytest.raises(BoundError, match="at most 200"):
            rename_topic(store, 1, huge)  # the reader's rename: the store refuses it
    assert dump_store(reader_store) == before


def test_a_restore_refuses_a_huge_topic_name(cli: Cli, reader_store: Path, tmp_path: Path):
    from topiclens.clustering.corrections import merge_topics

    with Store(reader_store) as store:
        merge_topics(store, [1, 2], "Mine")
        store.toggle_bookmark(store.entry_ids()[0])
    backup = tmp_path / "b.json"
    assert cli("export", "--format", "json", "-o", str(backup))[0] == 0
    doc = orjson.loads(backup.read_bytes())
    doc["corrections"]["topics"][0]["name"] = "n" * 10_000_000
    backup.write_bytes(orjson.dumps(doc))
    status, _out, err = cli("import", str(backup))
    assert status == 1 and "'name': a topic name is at most 200 characters" in err
    assert "none were restored" in err


# --- searches -------------------------------------------------------------------------------


def test_a_thousand_word_search_is_refused_clearly(cli: Cli, reader_store: Path):
    words = " ".join(f"w{i}" for i in range(1000))
    status, out, err = cli("entries", "--search", words)
    assert status == 2 and out == ""
    assert err == "topiclens: a search is at most 64 words; this one has 1,000\n"


def test_a_fifty_thousand_character_word_is_refused_clearly(cli: Cli, reader_store: Path):
    status, out, err = cli("entries", "--search", "x" * 50_000)
    assert status == 2 and out == ""
    assert err == "topiclens: a search is at most 1,000 characters; this one has 50,000\n"


def test_the_readers_search_path_is_bounded_too(reader_store: Path):
    from topiclens.clustering.search import search

    with Store(reader_store) as store:
        for query in (" ".join(["kv"] * 1000), "x" * 50_000):
            with pytest.raises(BoundError, match="a search is at most"):
                search(store, query)
            with pytest.raises(BoundError, match="a search is at most"):
                store.search(query)
        # the longest query allowed runs: 64 words, each a concept of many forms
        longest = " ".join(["投机解码 kv缓存 moe 推理"] * 16)
        assert len(longest.split()) == 64
        assert isinstance(search(store, longest), list)


# --- tables ---------------------------------------------------------------------------------


def _huge_store(home: Path) -> tuple[str, str]:
    title = "T" * 50_000_000
    name = "名" * 10_000_000
    entry = Entry("00000000000000aa", title, "a summary", source="S")
    with Store.open_dir(home) as store:
        store.add_entries([entry])
        store.replace_topics([Topic(1, "x", [("w", 1.0)], 1)], {entry.id: (1, 1.0, [])})
    # a name stored before names were bounded
    conn = sqlite3.connect(home / "topiclens.db")
    conn.execute("UPDATE topics SET name = ?", (name,))
    conn.commit()
    conn.close()
    return title, name


@pytest.mark.slow
def test_tables_cut_a_huge_title_and_name_and_json_keeps_them(cli: Cli, data_dir: Path):
    from topiclens.cli.commands import PIPED_CELLS

    title, _name = _huge_store(data_dir)
    status, out, _ = cli("entries")
    assert status == 0
    _header, line = out.splitlines()
    assert cell_width(line) <= 60 + PIPED_CELLS and line.endswith("…")
    status, out, _ = cli("topics")
    assert status == 0
    _header, line = out.splitlines()
    assert cell_width(line) <= 2 * PIPED_CELLS and "名名…" in line
    status, out, _ = cli("entries", "--json")
    assert status == 0 and orjson.loads(out)["entries"][0]["title"] == title


@pytest.mark.slow
def test_a_terminal_gets_lines_its_width(cli: Cli, data_dir: Path, monkeypatch):
    from topiclens.cli import commands

    _huge_store(data_dir)
    monkeypatch.setattr(commands, "output_width", lambda: 80)
    for command in ("entries", "topics"):
        status, out, _ = cli(command)
        assert status == 0
        assert all(cell_width(line) <= 80 for line in out.splitlines()), command
