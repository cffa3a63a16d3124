"""A correction followed by `topiclens cluster` changes no entry outside the topics it
touched, and entries imported later join topics without moving the old ones. Topics are
found by their members."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from helpers import CliResult, ok
from topiclens.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("corrections")]


def assignments(home: Path) -> dict[str, int]:
    with Store.open_dir(home) as store:
        return store.assignments()


def by_size(bundled_cli: Callable[..., CliResult]) -> list[dict]:
    found = orjson.loads(ok(bundled_cli("topics", "--json")))["topics"]
    return sorted(found, key=lambda t: (-t["size"], t["id"]))


CORRECTIONS: dict[str, Callable[[list[dict]], list[str]]] = {
    "rename": lambda t: ["rename", str(t[0]["id"]), "Mine"],
    "move": lambda t: ["move", t[1]["entries"][0]["id"], str(t[2]["id"])],
    "merge": lambda t: ["merge", str(t[1]["id"]), str(t[3]["id"])],
    "split": lambda t: ["split", str(t[0]["id"])],
    "hide": lambda t: ["hide", str(t[2]["id"])],
    "new from terms": lambda t: ["new", "My KV", "--terms", "KV cache"],
}


@pytest.mark.parametrize("correction", list(CORRECTIONS))
def test_a_correction_then_cluster_moves_no_entry_outside_its_topics(
    bundled_cli, bundled_home: Path, correction: str
):
    before = assignments(bundled_home)
    ok(bundled_cli("topic", *CORRECTIONS[correction](by_size(bundled_cli))))
    corrected = assignments(bundled_home)
    # the topics the correction touched: those an entry left or joined, and renamed ones
    touched = {before.get(e) for e in before if before[e] != corrected.get(e)}
    touched |= {corrected.get(e) for e in corrected if corrected[e] != before.get(e)}
    if correction == "rename":
        touched.add(by_size(bundled_cli)[0]["id"])
    out = ok(bundled_cli("cluster"))
    assert "no entry moved" in out
    after = assignments(bundled_home)
    outside = [e for e, t in corrected.items() if t not in touched]
    assert outside
    assert [e for e in outside if after[e] != corrected[e]] == []


def test_new_entries_join_without_moving_old_ones(bundled_cli, bundled_home: Path, tmp_path: Path):
    before = assignments(bundled_home)
    rows = [
        ("KV cache offloading to CPU memory", "Paged KV cache blocks move to host memory."),
        ("Speculative decoding in practice", "A small draft model proposes tokens to verify."),
        ("NVLink bandwidth for tensor parallelism", "NVSwitch all-reduce across eight GPUs."),
    ]
    digest = tmp_path / "more.jsonl"
    digest.write_bytes(b"".join(orjson.dumps({"title": t, "summary": s}) + b"\n" for t, s in rows))
    ok(bundled_cli("import", str(digest)))
    out = ok(bundled_cli("cluster"))
    assert "no entry moved" in out
    after = assignments(bundled_home)
    assert len(after) == len(before) + 3
    assert all(after[e] == t for e, t in before.items())
    out = ok(bundled_cli("cluster", "--fresh"))
    assert "entry moved" not in out
