"""Corrections made by another process while a re-cluster runs are never lost, and two
readers correcting one topic leave it consistent. The other process is the real
command line (`topiclens topic ...` in a subprocess), started at a fixed point of the
re-cluster (its progress callback) or of the split (its clustering step), so the
interleaving is the same on every run. Topics are found by their members."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
import topiclens.clustering.corrections as C
from helpers import KV_CACHE
from topiclens.cli import main
from topiclens.clustering.pipeline import cluster_store
from topiclens.clustering.stages import Stage
from topiclens.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("corrections")]


def other_process(home: Path, *args: str) -> str:
    """`topiclens --data-dir HOME ARGS...` in a process of its own; its output."""
    code = "import sys; from topiclens.cli import main; raise SystemExit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", code, "--data-dir", str(home), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def topics(home: Path) -> list[dict]:
    return orjson.loads(other_process(home, "topics", "--json"))["topics"]


def holding(found: list[dict], members: set[str]) -> dict:
    return max(found, key=lambda t: len(members & {e["id"] for e in t["entries"]}))


def once_at(stage: Stage, action: Callable[[], None]) -> Callable[[Stage, float], None]:
    """A progress callback that runs ``action`` the first time ``stage`` is reported."""
    done: list[bool] = []

    def progress(at: Stage, fraction: float) -> None:
        if at == stage and not done:
            done.append(True)
            action()

    return progress


@pytest.mark.parametrize("fresh", [False, True], ids=["continued", "fresh"])
def test_a_move_made_while_cluster_runs_holds(bundled_home: Path, fresh: bool):
    home = bundled_home
    found = topics(home)
    entry = sorted(KV_CACHE)[0]
    target = next(t for t in found if entry not in {e["id"] for e in t["entries"]})
    members = {e["id"] for e in target["entries"]}
    move = once_at(
        Stage.KMEANS, lambda: other_process(home, "topic", "move", entry, str(target["id"]))
    )
    with Store.open_dir(home) as store:
        cluster_store(store, progress=move, fresh=fresh)
    after = topics(home)
    mine = holding(after, members)
    assert entry in {e["id"] for e in mine["entries"]}
    assert entry in mine["pinned"]


@pytest.mark.parametrize("fresh", [False, True], ids=["continued", "fresh"])
def test_a_merge_made_while_cluster_runs_holds(bundled_home: Path, fresh: bool):
    home = bundled_home
    found = topics(home)
    a, b = found[0], found[1]
    together = {e["id"] for e in a["entries"]} | {e["id"] for e in b["entries"]}
    merge = once_at(
        Stage.KMEANS, lambda: other_process(home, "topic", "merge", str(a["id"]), str(b["id"]))
    )
    with Store.open_dir(home) as store:
        cluster_store(store, progress=merge, fresh=fresh)
    after = topics(home)
    mine = holding(after, together)
    assert together <= {e["id"] for e in mine["entries"]}
    assert all(t["id"] != b["id"] for t in after)


def test_a_split_while_another_reader_hides_the_topic_leaves_no_orphan(
    bundled_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    home = bundled_home
    topic = max(topics(home), key=lambda t: t["size"])
    real = C.split_parts

    def hidden_meanwhile(*args, **kwargs):  # the other reader hides it as this one splits
        other_process(home, "topic", "hide", str(topic["id"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(C, "split_parts", hidden_meanwhile)
    status = main(["--data-dir", str(home), "topic", "split", str(topic["id"])])
    _, err = capsys.readouterr()
    assert status == 1
    assert "changed while" in err and "Traceback" not in err and err.count("\n") == 1
    with Store.open_dir(home) as store:
        live = {t.id for t in store.topics()}
        shaped = store.corrections()
        hidden = {c.topic_id for c in shaped.hidden()}
        assert topic["id"] in hidden and topic["id"] not in live
        for c in shaped.topics.values():  # every correction has its topic, or is hidden
            assert (c.topic_id in live) != c.hidden, c
        assert set(shaped.pins.values()) <= live
        assigned = store.assignments()
        assert set(assigned.values()) <= live
    monkeypatch.setattr(C, "split_parts", real)
    other_process(home, "cluster")
    assert all(t["id"] != topic["id"] for t in topics(home))
