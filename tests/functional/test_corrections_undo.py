"""Undo is exact and lasting: what `topiclens topic undo` took back stays taken back across
`cluster`, and the names it leaves follow the fit's rules; a hidden topic's name does not
come back under another id; a pin undone does not come back with a deleted entry.
Topics are found by their members (the bundled corpus's entry ids), never by labels."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from topiclens.cli import main
from topiclens.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("corrections")]

CliResult = tuple[int, str, str]
KV_CACHE = {"f8c07ca7d6cc1cfc", "59af7b28c5a8c150", "65c645ae592e06c1", "09ece52234ba9c09"}
MIXED = "Mixed: "


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], bundled_home: Path) -> Callable[..., CliResult]:
    def go(*args: str) -> CliResult:
        status = main(["--data-dir", str(bundled_home), *args])
        out, err = capsys.readouterr()
        return status, out, err

    return go


def topics(run: Callable[..., CliResult]) -> list[dict]:
    status, out, _ = run("topics", "--json")
    assert status == 0
    return orjson.loads(out)["topics"]


def holding(run: Callable[..., CliResult], members: set[str]) -> dict:
    """The topic holding most of ``members``."""
    return max(topics(run), key=lambda t: len(members & {e["id"] for e in t["entries"]}))


def ok(result: CliResult) -> str:
    status, out, err = result
    assert status == 0, err
    return out


def test_an_undone_rename_stays_undone_across_clusters(run):
    tid = holding(run, KV_CACHE)["id"]
    ok(run("topic", "rename", str(tid), "My attention"))
    ok(run("cluster"))
    ok(run("topic", "undo"))
    for how in ((), ("--fresh",), ()):
        out = ok(run("cluster", *how))
        assert "My attention" not in out
        assert all(t["name"] != "My attention" for t in topics(run))


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
def test_names_after_undo_follow_the_fit(run, how: tuple[str, ...], correction: str):
    found = topics(run)
    _names_follow_the_fit(found)
    mixed = [t for t in found if t["mixed"]]
    coherent = [t for t in found if not t["mixed"]]
    assert mixed and len(coherent) >= 3
    if correction.startswith("merge"):
        ok(run("topic", "merge", str(mixed[0]["id"]), str(coherent[2]["id"])))
    else:
        ok(run("topic", "hide", str(mixed[0]["id"])))
    ok(run("cluster", *how))
    ok(run("topic", "undo"))
    _names_follow_the_fit(topics(run))
    ok(run("cluster"))
    _names_follow_the_fit(topics(run))


def test_a_hidden_topics_name_does_not_come_back_under_another_id(run, bundled_home: Path):
    with Store.open_dir(bundled_home) as store:
        anchored = [t for t in store.topics() if t.anchor and t.anchor == t.name]
    assert anchored
    for hidden in anchored[:3]:
        ok(run("topic", "hide", str(hidden.id)))
    for how in ((), ("--fresh",)):
        ok(run("cluster", *how))
        names = {t["name"] for t in topics(run)}
        assert not names & {t.name for t in anchored[:3]}
        with Store.open_dir(bundled_home) as store:
            assert not {t.anchor for t in store.topics()} & {t.anchor for t in anchored[:3]}


def test_an_undone_move_does_not_come_back_with_its_deleted_entry(run, bundled_home: Path):
    entry = sorted(KV_CACHE)[0]
    home = holding(run, KV_CACHE)["id"]
    other = next(t["id"] for t in topics(run) if t["id"] != home)
    ok(run("topic", "move", entry, str(other)))
    ok(run("delete", entry))
    ok(run("topic", "undo"))  # the move
    ok(run("restore-deleted", entry))
    assert all(entry not in t["pinned"] for t in topics(run))
    with Store.open_dir(bundled_home) as store:
        assert entry not in store.corrections().pins
