"""Undo is exact and lasting: what `topiclens topic undo` took back stays taken back across
`cluster`, and the names it leaves follow the fit's rules; a hidden topic's name does not
come back under another id; a pin undone does not come back with a deleted entry.
Topics are found by their members (the bundled corpus's entry ids), never by labels."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from helpers import KV_CACHE, CliResult, ok
from topiclens.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("corrections")]

MIXED = "Mixed: "


def topics(bundled_cli: Callable[..., CliResult]) -> list[dict]:
    status, out, _ = bundled_cli("topics", "--json")
    assert status == 0
    return orjson.loads(out)["topics"]


def holding(bundled_cli: Callable[..., CliResult], members: set[str]) -> dict:
    """The topic holding most of ``members``."""
    return max(topics(bundled_cli), key=lambda t: len(members & {e["id"] for e in t["entries"]}))


def test_an_undone_rename_stays_undone_across_clusters(bundled_cli):
    tid = holding(bundled_cli, KV_CACHE)["id"]
    ok(bundled_cli("topic", "rename", str(tid), "My attention"))
    ok(bundled_cli("cluster"))
    ok(bundled_cli("topic", "undo"))
    for how in ((), ("--fresh",), ()):
        out = ok(bundled_cli("cluster", *how))
        assert "My attention" not in out
        assert all(t["name"] != "My attention" for t in topics(bundled_cli))


def _names_follow_the_fit(found: list[dict]) -> None:
    for t in found:
        assert not t["name"].lower().startswith("mixed:") or t["name"].startswith(MIXED), t
        if t["user"]:
            continue
        # "Mixed" exactly when the topic is incoherent, and a topic of one entry is not
        assert t["name"].startswith(MIXED) == bool(t["mixed"]), t
        if t["mixed"]:
            assert t["cohesion"] < 0.4 and t["size"] > 1, t


@pytest.mark.parametrize("how", [(), ("--fresh",)], ids=["continued", "fresh"])
@pytest.mark.parametrize("correction", ["merge into a mixed topic", "hide a mixed topic"])
def test_names_after_undo_follow_the_fit(bundled_cli, how: tuple[str, ...], correction: str):
    found = topics(bundled_cli)
    _names_follow_the_fit(found)
    mixed = [t for t in found if t["mixed"]]
    coherent = [t for t in found if not t["mixed"]]
    assert mixed and len(coherent) >= 3
    if correction.startswith("merge"):
        ok(bundled_cli("topic", "merge", str(mixed[0]["id"]), str(coherent[2]["id"])))
    else:
        ok(bundled_cli("topic", "hide", str(mixed[0]["id"])))
    ok(bundled_cli("cluster", *how))
    ok(bundled_cli("topic", "undo"))
    _names_follow_the_fit(topics(bundled_cli))
    ok(bundled_cli("cluster"))
    _names_follow_the_fit(topics(bundled_cli))


def test_a_hidden_topics_name_does_not_come_back_under_another_id(bundled_cli, bundled_home: Path):
    with Store.open_dir(bundled_home) as store:
        anchored = [t for t in store.topics() if t.anchor and t.anchor == t.name]
    assert anchored
    for hidden in anchored[:3]:
        ok(bundled_cli("topic", "hide", str(hidden.id)))
    for how in ((), ("--fresh",)):
        ok(bundled_cli("cluster", *how))
        names = {t["name"] for t in topics(bundled_cli)}
        assert not names & {t.name for t in anchored[:3]}
        with Store.open_dir(bundled_home) as store:
            assert not {t.anchor for t in store.topics()} & {t.anchor for t in anchored[:3]}


def test_an_undone_move_does_not_come_back_with_its_deleted_entry(bundled_cli, bundled_home: Path):
    entry = sorted(KV_CACHE)[0]
    home = holding(bundled_cli, KV_CACHE)["id"]
    other = next(t["id"] for t in topics(bundled_cli) if t["id"] != home)
    ok(bundled_cli("topic", "move", entry, str(other)))
    ok(bundled_cli("delete", entry))
    ok(bundled_cli("topic", "undo"))  # the move
    ok(bundled_cli("restore-deleted", entry))
    assert all(entry not in t["pinned"] for t in topics(bundled_cli))
    with Store.open_dir(bundled_home) as store:
        assert entry not in store.corrections().pins


@pytest.mark.parametrize("recluster", [False, True], ids=["at-once", "after-a-cluster"])
def test_an_undone_hide_names_the_topic_shown_again(
    bundled_cli, bundled_home: Path, recluster: bool
):
    from topiclens.clustering.corrections import hide_topic, undo

    tid = holding(bundled_cli, KV_CACHE)["id"]
    with Store.open_dir(bundled_home) as store:
        went = hide_topic(store, tid).topic_id
    assert went is not None and went != tid
    if recluster:
        ok(bundled_cli("cluster"))
    with Store.open_dir(bundled_home) as store:
        change = undo(store)
        assert change is not None and change.topic_id == tid
        assert store.topic(tid) is not None
