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
from helpers import KV_CACHE, CliResult, ok

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("corrections")]


def topics(bundled_cli: Callable[..., CliResult]) -> dict:
    return orjson.loads(ok(bundled_cli("topics", "--json")))


def holding(bundled_cli: Callable[..., CliResult], members: set[str]) -> dict:
    found = topics(bundled_cli)["topics"]
    return max(found, key=lambda t: len(members & {e["id"] for e in t["entries"]}))


def backup(bundled_cli: Callable[..., CliResult], path: Path) -> dict[str, Any]:
    ok(bundled_cli("bookmark", sorted(KV_CACHE)[1]))
    ok(bundled_cli("export", "--format", "json", "--output", str(path), "--force"))
    return orjson.loads(path.read_bytes())


def test_a_rename_is_in_the_backup_and_comes_back(bundled_cli, tmp_path: Path):
    tid = holding(bundled_cli, KV_CACHE)["id"]
    ok(bundled_cli("topic", "rename", str(tid), "Mine"))
    doc = backup(bundled_cli, tmp_path / "b.json")
    assert [(n["topic_id"], n["name"]) for n in doc["corrections"]["names"]] == [(tid, "Mine")]
    ok(bundled_cli("topic", "undo"))
    assert holding(bundled_cli, KV_CACHE)["name"] != "Mine"
    out = ok(bundled_cli("import", str(tmp_path / "b.json")))
    assert "1 topic corrections restored" in out
    assert holding(bundled_cli, KV_CACHE)["name"] == "Mine"
    ok(bundled_cli("cluster"))
    assert holding(bundled_cli, KV_CACHE)["name"] == "Mine"


def test_undo_never_takes_back_a_restore_and_a_restore_is_idempotent(bundled_cli, tmp_path: Path):
    entry = sorted(KV_CACHE)[0]
    home = holding(bundled_cli, KV_CACHE)["id"]
    found = topics(bundled_cli)["topics"]
    target = next(t for t in found if t["id"] != home)
    hidden = next(t for t in found if t["id"] not in (home, target["id"]))
    ok(bundled_cli("topic", "move", entry, str(target["id"])))
    ok(bundled_cli("topic", "hide", str(hidden["id"])))
    backup(bundled_cli, tmp_path / "b.json")
    ok(bundled_cli("topic", "undo"))  # the hide
    out = ok(bundled_cli("import", str(tmp_path / "b.json")))
    assert "topic corrections restored" in out
    assert ok(bundled_cli("topic", "undo")) == "nothing to undo\n"
    after = topics(bundled_cli)
    assert entry in next(t for t in after["topics"] if t["id"] == target["id"])["pinned"]
    assert [t["id"] for t in after["hidden"]] == [hidden["id"]]
    # the same backup again changes nothing, and says so by not counting any
    out = ok(bundled_cli("import", str(tmp_path / "b.json")))
    assert "topic corrections restored" not in out
    ok(bundled_cli("cluster"))
    after = topics(bundled_cli)
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
def test_a_restore_refuses_a_bad_value_naming_it(bundled_cli, tmp_path: Path, case: str):
    hide = holding(bundled_cli, KV_CACHE)["id"]
    ok(bundled_cli("topic", "hide", str(hide)))
    doc = backup(bundled_cli, tmp_path / "b.json")
    ok(bundled_cli("topic", "undo"))
    change, field = BAD[case]
    change(doc)
    bad = tmp_path / "bad.json"
    bad.write_bytes(orjson.dumps(doc))
    status, out, err = bundled_cli("import", str(bad))
    assert status == 1
    assert "topic corrections restored" not in out
    assert f"'{field}'" in err and "none were restored" in err, err
    assert "unpack" not in err and "Traceback" not in err
    # the store is whole: nothing was restored, and every command still works
    assert topics(bundled_cli)["hidden"] == []
    ok(bundled_cli("cluster"))
    assert ok(bundled_cli("topic", "undo")) == "nothing to undo\n"
    ok(bundled_cli("topics", "--json"))
