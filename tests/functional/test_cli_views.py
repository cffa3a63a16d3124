"""The views a heavy reader lives in, from the command line and the store: a search's
literal matches before its concept matches, mute rules whose triggers cost nothing until
the first rule, and saved searches and mute rules kept through restarts, `cluster`, and a
JSON export and restore."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
from helpers import CliResult
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
