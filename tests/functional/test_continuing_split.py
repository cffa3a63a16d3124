"""`cluster` continues the saved model when entries of a different, coherent subject are
imported into a store whose topics they land in: the old entries keep their topics and
ids, and the new subject ends in a topic of its own. Topics are found by their members.

The store: twenty entries each about GPU kernels, databases and networking; half the GPU
entries also mention two cooling words, so the saved vocabulary knows them (a continued
fit starts over on words it never saw) and `import` puts the cooling entries into GPU
topics. The new subject fits no topic's centre as well as the old entries fit theirs, so
the continued fit (clustering/continuing.py) makes it one new topic: no topic splits, as
a topic splits only when entries that fit it leave it mixed and form a group of their
own (docs/clustering.md, "Re-clustering continues the last model", says why that does
not happen here).
"""

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
COOLING = ["cooling", "fan", "airflow", "thermal", "heatsink", "coolant", "radiator", "chiller"]
NEW_ENTRIES = 8


def _texts() -> tuple[list[str], list[str]]:
    """The old entries' texts and the new (cooling) entries' texts."""
    rng = random.Random(0)
    old = [
        " ".join(rng.sample(GPU, 5) + ([COOLING[i % 8], COOLING[(i + 3) % 8]] if i < 10 else []))
        for i in range(20)
    ]
    old += [" ".join(rng.sample(DATABASE, 5)) for _ in range(20)]
    old += [" ".join(rng.sample(NETWORK, 5)) for _ in range(20)]
    new = [" ".join(rng.sample(COOLING, 5)) for _ in range(NEW_ENTRIES)]
    return old, new


def _write(path: Path, texts: list[str]) -> Path:
    rows = (orjson.dumps({"title": f"{t} {i}", "summary": t}) + b"\n" for i, t in enumerate(texts))
    path.write_bytes(b"".join(rows))
    return path


class Run:
    """The store's assignments (entry id -> topic id) before and after the import, and
    after the second `cluster`, with the second `cluster`'s output."""

    def __init__(self, cli: Callable[..., CliResult], data_dir: Path, tmp_path: Path) -> None:
        old, new = _texts()
        anchors = tmp_path / "anchors.txt"
        anchors.write_text("")  # no anchors: the topics come from these entries alone
        ok(cli("import", str(_write(tmp_path / "old.jsonl", old))))
        ok(cli("cluster", "--anchors", str(anchors)))
        self.first = self._assignments(data_dir)
        ok(cli("import", str(_write(tmp_path / "new.jsonl", new))))
        self.imported = self._assignments(data_dir)
        self.out = ok(cli("cluster", "--anchors", str(anchors)))
        self.second = self._assignments(data_dir)
        self.new = set(self.second) - set(self.first)

    @staticmethod
    def _assignments(data_dir: Path) -> dict[str, int]:
        with Store.open_dir(data_dir) as store:
            return dict(store.assignments())


@pytest.fixture
def run(cli: Callable[..., CliResult], data_dir: Path, tmp_path: Path) -> Run:
    return Run(cli, data_dir, tmp_path)


def test_old_entries_keep_their_topics_and_the_new_subject_gets_its_own(run: Run):
    assert len(run.new) == NEW_ENTRIES
    # the import put every cooling entry into a topic of old (GPU) entries
    landed = {run.imported[e] for e in run.new}
    assert landed <= set(run.first.values())
    summary = run.out.splitlines()[1]
    assert "started over" not in summary and "no entry moved" in summary
    # every old entry keeps its topic id, the topics the cooling entries landed in too
    assert all(run.second[e] == t for e, t in run.first.items())
    # the cooling entries share their topics with no old entry
    theirs = {run.second[e] for e in run.new}
    assert not theirs & set(run.first.values())


def test_the_new_subject_is_one_new_topic_and_no_topic_splits(run: Run):
    summary = run.out.splitlines()[1]
    assert summary.startswith("1 new topic, no entry moved") and "split" not in summary
    theirs = {run.second[e] for e in run.new}
    assert len(theirs) == 1 and not theirs & set(run.first.values())
    # the topics the import put the new entries in are the old ones, with their entries
    assert set(run.second.values()) - theirs == set(run.first.values())
