"""`topiclens topic rename|move|merge|split|new|hide|show|undo`, `rename-topic` as the alias
of `topic rename`, and what `topics --json` says of corrections."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from helpers import KV_CACHE, CliResult
from topiclens.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("corrections")]


@pytest.fixture
def home(bundled_home: Path) -> Path:
    return bundled_home


def _topics(home: Path) -> list:
    with Store.open_dir(home) as store:
        return store.topics()


def _json(bundled_cli: Callable[..., CliResult]) -> dict:
    status, out, _ = bundled_cli("topics", "--json")
    assert status == 0
    return orjson.loads(out)


def test_rename_and_its_alias(bundled_cli, home: Path):
    tid = _topics(home)[0].id
    assert bundled_cli("topic", "rename", str(tid), "Mine") == (
        0,
        f"renamed topic {tid} to 'Mine'\n",
        "",
    )
    status, out, _ = bundled_cli("rename-topic", str(tid), "Mine again")
    assert status == 0 and out == f"renamed topic {tid} to 'Mine again'\n"
    status, out, err = bundled_cli("topic", "rename", str(tid), "two\nlines")
    assert status == 2 and out == "" and "one line" in err and err.count("\n") == 1
    status, _, err = bundled_cli("topic", "rename", "99999", "x")
    assert status == 1 and "no topic with id 99999" in err


def test_move_pins_the_entry_and_topics_json_lists_it(bundled_cli, home: Path):
    first, second = _topics(home)[:2]
    with Store.open_dir(home) as store:
        entry = store.topic_entry_ids(first.id)[0]
    status, out, _ = bundled_cli("topic", "move", entry, str(second.id))
    assert status == 0 and "pinned there" in out
    doc = _json(bundled_cli)
    target = next(t for t in doc["topics"] if t["id"] == second.id)
    assert target["pinned"] == [entry] and entry in [e["id"] for e in target["entries"]]
    assert target["user"] is False  # the clustering made it; the user only pinned to it
    status, _, err = bundled_cli("topic", "move", "no-such-entry", str(second.id))
    assert status == 1 and "no entry with id 'no-such-entry'" in err


def test_merge_with_a_name(bundled_cli, home: Path):
    a, b, c = _topics(home)[:3]
    status, out, _ = bundled_cli(
        "topic", "merge", str(a.id), str(b.id), str(c.id), "--name", "All three"
    )
    assert status == 0 and out.startswith("merged ") and "into 'All three'" in out
    doc = _json(bundled_cli)
    merged = next(t for t in doc["topics"] if t["id"] == a.id)
    assert merged["name"] == "All three" and merged["user"] is True
    assert merged["size"] == a.size + b.size + c.size
    assert {t["id"] for t in doc["topics"]}.isdisjoint({b.id, c.id})


def test_split_in_three(bundled_cli, home: Path):
    big = _topics(home)[0]
    status, out, _ = bundled_cli("topic", "split", str(big.id), "--k", "3")
    assert status == 0 and out.startswith("split ")
    doc = _json(bundled_cli)
    parts = [t for t in doc["topics"] if t["user"]]
    assert len(parts) == 3 and big.id in [t["id"] for t in parts]
    assert sum(t["size"] for t in parts) == big.size
    with pytest.raises(SystemExit) as stop:  # argparse's one-line error
        bundled_cli("topic", "split", str(big.id), "--k", "1")
    assert stop.value.code == 2


def test_new_from_terms_gathers_the_kv_cache_entries(bundled_cli, home: Path):
    status, out, _ = bundled_cli("topic", "new", "KV", "--terms", "KV cache, KV 缓存")
    assert status == 0 and out.startswith("made 'KV' from ")
    doc = _json(bundled_cli)
    (kv,) = [t for t in doc["topics"] if t["name"] == "KV"]
    assert kv["user"] is True and kv["terms"] == ["KV cache", "KV 缓存"]
    assert {e["id"] for e in kv["entries"]} >= KV_CACHE
    status, _, err = bundled_cli("topic", "new", "Nothing", "--terms", "zzqx nothing-like-it")
    assert status == 1 and "no entry uses" in err
    status, _, err = bundled_cli("topic", "new", "Nothing", "--terms", " , ")
    assert status == 2 and "give the terms" in err


def test_hide_show_and_undo(bundled_cli, home: Path):
    topic = _topics(home)[1]
    status, out, _ = bundled_cli("topic", "hide", str(topic.id))
    assert status == 0 and out.startswith(f"hid '{topic.name}'")
    doc = _json(bundled_cli)
    assert topic.id not in [t["id"] for t in doc["topics"]]
    assert doc["hidden"] == [{"id": topic.id, "name": topic.name, "size": topic.size}]
    status, out, _ = bundled_cli("topics")
    assert status == 0 and topic.name not in out
    status, out, _ = bundled_cli("topic", "show", str(topic.id))
    assert status == 0 and "is shown again" in out
    assert _json(bundled_cli)["hidden"] == []
    status, out, _ = bundled_cli("topic", "undo")
    assert status == 0 and out.startswith("undone: '")  # the show taken back: hidden again
    assert [h["id"] for h in _json(bundled_cli)["hidden"]] == [topic.id]
    assert bundled_cli("topic", "undo")[1].startswith("undone: hid ")
    assert _json(bundled_cli)["hidden"] == []
    assert bundled_cli("topic", "undo") == (0, "nothing to undo\n", "")


def test_topic_alone_names_its_subcommands(bundled_cli):
    status, out, err = bundled_cli("topic")
    assert status == 2 and out == "" and "rename, move, merge" in err


def test_topics_shows_ids(bundled_cli, home: Path):
    status, out, _ = bundled_cli("topics")
    ids = [line.split()[0] for line in out.splitlines()[1:]]
    assert status == 0 and ids == [str(t.id) for t in _topics(home)]
