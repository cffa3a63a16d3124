"""The JSON backup carries every correction, names included; a restore checks every
value, refuses a bad one in a sentence naming the field, is idempotent, and is never
taken back by `topiclens topic undo`. All through the command line; topics are found by
their members."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from topiclens.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("corrections")]

CliResult = tuple[int, str, str]
KV_CACHE = {"f8c07ca7d6cc1cfc", "59af7b28c5a8c150", "65c645ae592e06c1", "09ece52234ba9c09"}


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], bundled_home: Path) -> Callable[..., CliResult]:
    def go(*args: str) -> CliResult:
        status = main(["--data-dir", str(bundled_home), *args])
        out, err = capsys.readouterr()
        return status, out, err

    return go


def ok(result: CliResult) -> str:
    status, out, err = result
    assert status == 0, err
    return out


def topics(run: Callable[..., CliResult]) -> dict:
    return orjson.loads(ok(run("topics", "--json")))


def holding(run: Callable[..., CliResult], members: set[str]) -> dict:
    found = topics(run)["topics"]
    return max(found, key=lambda t: len(members & {e["id"] for e in t["entries"]}))


def backup(run: Callable[..., CliResult], path: Path) -> dict[str, Any]:
    ok(run("bookmark", sorted(KV_CACHE)[1]))
    ok(run("export", "--format", "json", "--output", str(path), "--force"))
    return orjson.loads(path.read_bytes())


def test_a_rename_is_in_the_backup_and_comes_back(run, tmp_path: Path):
    tid = holding(run, KV_CACHE)["id"]
    ok(run("topic", "rename", str(tid), "Mine"))
    doc = backup(run, tmp_path / "b.json")
    assert [(n["topic_id"], n["name"]) for n in doc["corrections"]["names"]] == [(tid, "Mine")]
    ok(run("topic", "undo"))
    assert holding(run, KV_CACHE)["name"] != "Mine"
    out = ok(run("import", str(tmp_path / "b.json")))
    assert "1 topic corrections restored" in out
    assert holding(run, KV_CACHE)["name"] == "Mine"
    ok(run("cluster"))
    assert holding(run, KV_CACHE)["name"] == "Mine"


def test_undo_never_takes_back_a_restore_and_a_restore_is_idempotent(run, tmp_path: Path):
    entry = sorted(KV_CACHE)[0]
    home = holding(run, KV_CACHE)["id"]
    found = topics(run)["topics"]
    target = next(t for t in found if t["id"] != home)
    hidden = next(t for t in found if t["id"] not in (home, target["id"]))
    ok(run("topic", "move", entry, str(target["id"])))
    ok(run("topic", "hide", str(hidden["id"])))
    backup(run, tmp_path / "b.json")
    ok(run("topic", "undo"))  # the hide
    out = ok(run("import", str(tmp_path / "b.json")))
    assert "topic corrections restored" in out
    assert ok(run("topic", "undo")) == "nothing to undo\n"
    after = topics(run)
    assert entry in next(t for t in after["topics"] if t["id"] == target["id"])["pinned"]
    assert [t["id"] for t in after["hidden"]] == [hidden["id"]]
    # the same backup again changes nothing, and says so by not counting any
    out = ok(run("import", str(tmp_path / "b.json")))
    assert "topic corrections restored" not in out
    ok(run("cluster"))
    after = topics(run)
    assert entry in next(t for t in after["topics"] if t["id"] == target["id"])["pinned"]
    assert all(t["id"] != hidden["id"] for t in after["topics"])


def _hidden(doc: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in doc["corrections"]["topics"] if c["hidden"])


BAD: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "keyword weight nan": (
        lambda d: _hidden(d)["keywords"][0].__setitem__(1, "nan"),
        "keywords[0]",
    ),
    "keyword without weight": (
        lambda d: _hidden(d)["keywords"].__setitem__(0, ["a"]),
        "keywords[0]",
    ),
    "made_at nan": (lambda d: _hidden(d).__setitem__("made_at", "nan"), "made_at"),
    "topic id 1e30": (lambda d: _hidden(d).__setitem__("topic_id", 1e30), "topic_id"),
    "topic id 2**63-1": (lambda d: _hidden(d).__setitem__("topic_id", 2**63 - 1), "topic_id"),
    "pin topic id 2**63-1": (
        lambda d: d["corrections"]["pins"].append({"entry_id": "x", "topic_id": 2**63 - 1}),
        "topic_id",
    ),
    "blank name": (lambda d: _hidden(d).__setitem__("name", "   "), "name"),
    "name with a line break": (lambda d: _hidden(d).__setitem__("name", "two\nlines"), "name"),
    "name with a control": (lambda d: _hidden(d).__setitem__("name", "bell\x07"), "name"),
    "renamed topic blank": (
        lambda d: d["corrections"]["names"].append({"topic_id": 3, "name": " "}),
        "name",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_restore_refuses_a_bad_value_naming_it(run, tmp_path: Path, case: str):
    hide = holding(run, KV_CACHE)["id"]
    ok(run("topic", "hide", str(hide)))
    doc = backup(run, tmp_path / "b.json")
    ok(run("topic", "undo"))
    change, field = BAD[case]
    change(doc)
    bad = tmp_path / "bad.json"
    bad.write_bytes(orjson.dumps(doc))
    status, out, err = run("import", str(bad))
    assert status == 1
    assert "topic corrections restored" not in out
    assert f"'{field}'" in err and "none were restored" in err, err
    assert "unpack" not in err and "Traceback" not in err
    # the store is whole: nothing was restored, and every command still works
    assert topics(run)["hidden"] == []
    ok(run("cluster"))
    assert ok(run("topic", "undo")) == "nothing to undo\n"
    ok(run("topics", "--json"))
