"""Hiding a topic sends each of its entries to its next-best topic, but no topic takes more
of a hidden topic's entries than it has entries of its own: a small topic next to the
hidden one is not made mostly of the hidden subject. Topics are found by their members."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import orjson
from helpers import CliResult, ok
from topiclens.store import Store

GPU = ["gpu", "kernel", "cuda", "warp", "register", "occupancy"]
DATABASE = ["database", "index", "query", "planner", "btree", "join"]
# a small subject near the database one: it shares two of its words
STORAGE = ["database", "index", "disk", "ssd", "raid", "volume"]
SIZES = ((GPU, 40), (DATABASE, 20), (STORAGE, 6))


def _topics(data_dir: Path) -> tuple[dict[str, int], dict[str, str]]:
    """Each entry's topic id, and each entry's subject (its first word's list)."""
    with Store.open_dir(data_dir) as store:
        subject = {e.id: e.title.split()[0] for e in store.entries()}
        return dict(store.assignments()), subject


def test_a_hidden_topics_entries_make_no_small_neighbour_mostly_theirs(
    cli: Callable[..., CliResult], data_dir: Path, tmp_path: Path
):
    rng = random.Random(0)
    rows = [
        {"title": f"{name} {i}", "summary": " ".join(rng.sample(words, 5))}
        for name, (words, n) in zip(("gpu", "database", "storage"), SIZES, strict=True)
        for i in range(n)
    ]
    path = tmp_path / "entries.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    anchors = tmp_path / "anchors.txt"
    anchors.write_text("")  # no anchors: the topics come from these entries alone
    ok(cli("import", str(path)))
    ok(cli("cluster", "--k", "3", "--anchors", str(anchors)))
    assigned, subject = _topics(data_dir)
    by_topic: dict[int, list[str]] = {}
    for e, t in assigned.items():
        by_topic.setdefault(t, []).append(subject[e])
    # each subject has a topic of its own
    assert sorted(sorted(set(s)) for s in by_topic.values()) == [
        ["database"],
        ["gpu"],
        ["storage"],
    ]
    hidden = next(t for t, s in by_topic.items() if s[0] == "database")
    members = {e for e, t in assigned.items() if t == hidden}

    assert "next-best" in ok(cli("topic", "hide", str(hidden)))
    after, _ = _topics(data_dir)
    assert hidden not in after.values() and set(after) == set(assigned)
    for t in set(after.values()):
        inside = [e for e, u in after.items() if u == t]
        assert 2 * sum(e in members for e in inside) <= len(inside), t
