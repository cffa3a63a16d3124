"""A correction followed by `topiclens cluster` changes no entry outside the topics it
touched, and entries imported later join topics without moving the old ones. Topics are
found by their members."""

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


def assignments(home: Path) -> dict[str, int]:
    with Store.open_dir(home) as store:
        return store.assignments()


def by_size(run: Callable[..., CliResult]) -> list[dict]:
    found = orjson.loads(ok(run("topics", "--json")))["topics"]
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
    run, bundled_home: Path, correction: str
):
    before = assignments(bundled_home)
    ok(run("topic", *CORRECTIONS[correction](by_size(run))))
    corrected = assignments(bundled_home)
    # the topics the correction touched: those an entry left or joined, and renamed ones
    touched = {before.get(e) for e in before if before[e] != corrected.get(e)}
    touched |= {corrected.get(e) for e in corrected if corrected[e] != before.get(e)}
    if correction == "rename":
        touched.add(by_size(run)[0]["id"])
    out = ok(run("cluster"))
    assert "no entry moved" in out
    after = assignments(bundled_home)
    outside = [e for e, t in corrected.items() if t not in touched]
    assert outside
    assert [e for e in outside if after[e] != corrected[e]] == []


def test_new_entries_join_without_moving_old_ones(run, bundled_home: Path, tmp_path: Path):
    before = assignments(bundled_home)
    rows = [
        ("KV cache offloading to CPU memory", "Paged KV cache blocks move to host memory."),
        ("Speculative decoding in practice", "A small draft model proposes tokens to verify."),
        ("NVLink bandwidth for tensor parallelism", "NVSwitch all-reduce across eight GPUs."),
    ]
    digest = tmp_path / "more.jsonl"
    digest.write_bytes(b"".join(orjson.dumps({"title": t, "summary": s}) + b"\n" for t, s in rows))
    ok(run("import", str(digest)))
    out = ok(run("cluster"))
    assert "no entry moved" in out
    after = assignments(bundled_home)
    assert len(after) == len(before) + 3
    assert all(after[e] == t for e, t in before.items())
    out = ok(run("cluster", "--fresh"))
    assert "entry moved" not in out
