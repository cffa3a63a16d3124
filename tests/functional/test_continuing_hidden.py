"""A hidden topic stays hidden when `cluster` continues the saved model: new entries of
its subject join topics of old entries, none taking more of them than it has entries of
its own, and form no topic of their own, so the hidden topic does not come back under
another id or name. Topics are found by their members."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from helpers import CliResult, ok
from topiclens.store import Store

GPU = ["gpu", "kernel", "cuda", "warp", "register", "occupancy"]
DATABASE = ["database", "index", "query", "planner", "btree", "join"]
NETWORK = ["packet", "router", "switch", "latency", "bandwidth", "congestion"]
SIZES = ((GPU, 30), (DATABASE, 6), (NETWORK, 30))  # each subject's first entries
NEW = 8  # database entries imported after the hide


def _write(path: Path, texts: list[str], first: int) -> Path:
    rows = (
        orjson.dumps({"title": f"{t} {first + i}", "summary": t}) + b"\n"
        for i, t in enumerate(texts)
    )
    path.write_bytes(b"".join(rows))
    return path


def _topics(data_dir: Path) -> tuple[dict[str, int], dict[int, str], set[str]]:
    """Each entry's topic id, each topic's name, and the database entries' ids."""
    with Store.open_dir(data_dir) as store:
        database = {e.id for e in store.entries() if set(DATABASE) & set(e.title.split())}
        names = {t.id: t.name for t in store.topics()}
        return dict(store.assignments()), names, database


def _share(rows: set[str], assigned: dict[str, int], tid: int) -> float:
    """The share of topic ``tid``'s entries that are among ``rows``."""
    members = [e for e, t in assigned.items() if t == tid]
    return sum(e in rows for e in members) / len(members)


def _hide_then_cluster(
    cli: Callable[..., CliResult],
    data_dir: Path,
    tmp_path: Path,
    *cluster: str,
    sizes: tuple[tuple[list[str], int], ...] = SIZES,
    new_n: int = NEW,
) -> tuple[str, dict[int, str], list[int]]:
    """Cluster the old entries (``sizes``: each subject's), hide every topic mostly of
    database entries, import ``new_n`` more database entries and run ``cluster`` with
    ``cluster``'s options: what it printed, the first fit's topic names and the hidden
    ids."""
    rng = random.Random(0)
    old = [" ".join(rng.sample(words, 5)) for words, n in sizes for _ in range(n)]
    new = [" ".join(rng.sample(DATABASE, 5)) for _ in range(new_n)]
    anchors = tmp_path / "anchors.txt"
    anchors.write_text("")  # no anchors: the topics come from these entries alone
    ok(cli("import", str(_write(tmp_path / "old.jsonl", old, 0))))
    ok(cli("cluster", "--anchors", str(anchors)))
    first, names, database = _topics(data_dir)
    # the user hides the database subject: every topic mostly of database entries
    hidden = [t for t in names if _share(database, first, t) > 0.5]
    assert hidden
    for tid in hidden:
        ok(cli("topic", "hide", str(tid)))
    ok(cli("import", str(_write(tmp_path / "new.jsonl", new, len(old)))))
    return ok(cli("cluster", *cluster, "--anchors", str(anchors))), names, hidden


OLD = sum(n for _, n in SIZES)


def test_new_entries_of_a_hidden_topics_subject_do_not_bring_it_back(
    cli: Callable[..., CliResult], data_dir: Path, tmp_path: Path
):
    out, names, hidden = _hide_then_cluster(cli, data_dir, tmp_path)
    assert "started over" not in out
    second, after, database = _topics(data_dir)
    assert len(second) == OLD + NEW and len(database) == SIZES[1][1] + NEW
    # the new entries joined topics of old entries: no topic, and no id, is new
    assert "new topic" not in out and set(after) <= set(names) - set(hidden)
    # and no topic took more of the hidden subject's entries than it has of its own
    assert all(_share(database, second, t) <= 0.5 for t in after)
    assert not {names[t] for t in hidden} & set(after.values())


def test_a_fresh_cluster_does_not_bring_a_hidden_topic_back(
    cli: Callable[..., CliResult], data_dir: Path, tmp_path: Path
):
    _, names, hidden = _hide_then_cluster(cli, data_dir, tmp_path, "--fresh")
    second, after, database = _topics(data_dir)
    assert len(second) == OLD + NEW
    # no topic is mostly the hidden subject's entries, and none has its name
    assert all(_share(database, second, t) <= 0.5 for t in after)
    assert not {names[t] for t in hidden} & set(after.values())


@pytest.mark.parametrize("how", [(), ("--fresh",)], ids=["continued", "fresh"])
def test_many_new_entries_of_a_hidden_subject_make_no_topic_of_it(
    cli: Callable[..., CliResult], data_dir: Path, tmp_path: Path, how: tuple[str, ...]
):
    # nine times the hidden topic's entries arrive: on their own they are a topic's worth
    sizes = ((GPU, 140), (DATABASE, 20), (NETWORK, 140))
    _hide_then_cluster(cli, data_dir, tmp_path, *how, "--k", "3", sizes=sizes, new_n=180)
    second, after, database = _topics(data_dir)
    assert len(second) == 300 + 180
    assert all(_share(database, second, t) <= 0.5 for t in after)
    assert not any(set(DATABASE) & set(name.lower().split()) for name in after.values())


@pytest.mark.parametrize("how", [(), ("--fresh",)], ids=["continued", "fresh"])
def test_undoing_a_hide_after_a_cluster_brings_the_topic_back_as_it_was(
    cli: Callable[..., CliResult], data_dir: Path, tmp_path: Path, how: tuple[str, ...]
):
    rng = random.Random(0)
    old = [" ".join(rng.sample(words, 5)) for words, n in SIZES for _ in range(n)]
    anchors = tmp_path / "anchors.txt"
    anchors.write_text("")
    ok(cli("import", str(_write(tmp_path / "old.jsonl", old, 0))))
    ok(cli("cluster", "--anchors", str(anchors)))
    first, names, database = _topics(data_dir)
    tid = next(t for t in names if _share(database, first, t) > 0.5)
    members = {e for e, t in first.items() if t == tid}
    ok(cli("topic", "hide", str(tid)))
    ok(cli("cluster", *how, "--anchors", str(anchors)))
    hidden = _topics(data_dir)[1]
    # no topic has its id, nor is named by its subject's words
    assert tid not in hidden
    assert not any(set(DATABASE) & set(name.lower().split()) for name in hidden.values())
    assert ok(cli("topic", "undo")).startswith("undone: hid ")
    # back at once, and kept by the next cluster: its id, its name and its entries
    for step in ("undo", "cluster"):
        if step == "cluster":
            ok(cli("cluster", "--anchors", str(anchors)))
        now, after, _ = _topics(data_dir)
        assert after.get(tid) == names[tid], step
        assert {e for e, t in now.items() if t == tid} == members, step
