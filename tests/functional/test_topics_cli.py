"""`topiclens topics --json` on the bundled corpus, topic identity, incremental assignment.

The bundled corpus is clustered once per module (about two seconds) into a store that the
read-only tests share; tests that change a store make their own.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from helpers import DIGEST, LISTING, CliResult
from topiclens.cli import main
from topiclens.cli.commands import TOPICS_HEADER
from topiclens.clustering import assign_new, cluster_store, ensure_topics
from topiclens.clustering.partition import MAX_SHARE
from topiclens.store import Store, Topic
from topiclens.store.importer import import_bundled, import_file

pytestmark = pytest.mark.xdist_group("topics")


@pytest.fixture(scope="module")
def clustered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory holding the bundled corpus, grouped into topics by `topics`."""
    home = tmp_path_factory.mktemp("clustered")
    assert main(["--data-dir", str(home), "topics"]) == 0
    return home


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliResult]:
    def go(home: Path, *args: str) -> CliResult:
        status = main(["--data-dir", str(home), *args])
        out, err = capsys.readouterr()
        return status, out, err

    return go


@pytest.fixture
def topics_json(clustered: Path, run: Callable[..., CliResult]) -> dict:
    status, out, _ = run(clustered, "topics", "--json")
    assert status == 0
    return orjson.loads(out)


def _topic_of(doc: dict, title: str) -> dict:
    hits = [t for t in doc["topics"] for e in t["entries"] if e["title"] == title]
    assert len(hits) == 1, (title, [t["name"] for t in hits])
    return hits[0]


@pytest.mark.slow
def test_json_contract_every_entry_in_exactly_one_topic(clustered: Path, topics_json: dict):
    with Store.open_dir(clustered) as store:
        all_ids = {e.id for e in store.entries()}
    assert len(all_ids) == 109
    seen: list[str] = []
    for t in topics_json["topics"]:
        assert set(t) == {
            "id",
            "name",
            "keywords",
            "size",
            "cohesion",
            "mixed",
            "entries",
            "also",
        } | {
            "user",  # the user made it, its terms, the entries pinned to it
            "terms",
            "pinned",
        }
        assert isinstance(t["id"], int) and t["name"].strip()
        assert all(isinstance(k, str) for k in t["keywords"]) and t["keywords"]
        assert t["size"] == len(t["entries"]) > 0
        for e in t["entries"]:
            assert set(e) == {"id", "title", "summary", "source", "date"}
            seen.append(e["id"])
    assert sorted(seen) == sorted(all_ids)


@pytest.mark.slow
def test_no_catch_all_topic(topics_json: dict):
    total = sum(t["size"] for t in topics_json["topics"])
    assert max(t["size"] for t in topics_json["topics"]) <= MAX_SHARE * total


@pytest.mark.slow
def test_four_anchors_present_and_hold_the_right_entries(topics_json: dict):
    names = {t["name"] for t in topics_json["topics"]}
    for anchor in ("Speculative decoding", "KV cache", "Interconnects"):
        assert anchor in names
    assert "MoE kernels & expert parallelism" in names

    spec = "Speculative decoding"
    assert _topic_of(topics_json, "The Economics of Speculative Decoding")["name"] == spec
    assert _topic_of(topics_json, "宽与深：边际上的推测解码思考")["name"] == spec
    assert (
        _topic_of(topics_json, "Adaptive speculative decoding: picking draft lengths at runtime")[
            "name"
        ]
        == spec
    )
    wires = "Interconnects"
    assert _topic_of(topics_json, "NVLink、NVSwitch 及其背后的互联架构")["name"] == wires
    assert _topic_of(topics_json, "InfiniBand, RoCE, and All That")["name"] == wires
    moe = "MoE kernels & expert parallelism"
    assert _topic_of(topics_json, "Anatomy of a high-performance EP kernel")["name"] == moe
    assert (
        _topic_of(
            topics_json,
            "UCCL-EP: DeepEP-style expert parallelism on any NIC, no GPU-initiated comms",
        )["name"]
        == moe
    )
    kv = _topic_of(topics_json, "vLLM 为 GLM 5.3 引入的 Hybrid HiSparse 混合稀疏卸载方案")
    assert kv["name"] == "KV cache"
    entropy = _topic_of(topics_json, "rANS 入门：非对称数系熵编码")
    assert entropy is _topic_of(topics_json, "tANS：预计算版的 rANS 熵编码")


@pytest.mark.slow
def test_store_keeps_why_and_similar(clustered: Path):
    with Store.open_dir(clustered) as store:
        spec = next(t for t in store.topics() if t.name == "Speculative decoding")
        some = store.topic_entry_ids(spec.id)[0]
        topic_id, score, terms = store.assignment(some)
        assert topic_id == spec.id and 0 < score <= 1.0001
        assert "speculative decoding" in terms
        similar = store.similar(some)
        assert len(similar) == 5 and some not in [o for o, _ in similar]
        assert [s for _, s in similar] == sorted((s for _, s in similar), reverse=True)


@pytest.mark.slow
def test_clustering_is_deterministic(clustered: Path, tmp_path: Path):
    with Store(tmp_path / "again.db") as store:
        import_bundled(store)
        ensure_topics(store)
        again = {eid: name for eid, name in _names(store).items()}
    with Store.open_dir(clustered) as store:
        first = _names(store)
    assert again == first


def _names(store: Store) -> dict[str, str]:
    names = {t.id: t.name for t in store.topics()}
    return {eid: names[tid] for eid, tid in store.assignments().items()}


NEW_ENTRIES = [
    {
        "title": "Tree attention for speculative decoding drafts",
        "summary": "投机解码的草稿模型用树状验证，提高接受率，draft tokens verified in one pass.",
    },
    {
        "title": "RoCE congestion control at rack scale",
        "summary": "InfiniBand 与 RoCE 的互联拥塞控制，NVLink 域之外的 scale-out 网络。",
    },
]


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    return path


@pytest.mark.slow
def test_rename_survives_import_and_recluster(
    clustered: Path, tmp_path: Path, run: Callable[..., CliResult]
):
    home = tmp_path / "home"
    shutil.copytree(clustered, home)
    with Store.open_dir(home) as store:
        by_name = {t.name: t for t in store.topics()}
        spec = by_name["Speculative decoding"]
        other = next(t for t in store.topics() if t.anchor is None)
    status, out, _ = run(home, "rename-topic", str(spec.id), "Guess and check")
    assert status == 0 and "Guess and check" in out
    assert run(home, "rename-topic", str(other.id), "My own pile")[0] == 0

    status, out, _ = run(home, "import", str(_jsonl(tmp_path / "new.jsonl", NEW_ENTRIES)))
    assert status == 0 and "2 entries joined their nearest topic" in out
    with Store.open_dir(home) as store:
        assert store.topic(spec.id).name == "Guess and check"
        new_id = store.search("Tree attention")[0]
        assert store.assignment(new_id)[0] == spec.id
        assert store.similar(new_id)

    status, out, _ = run(home, "cluster")
    # the two new entries were tokenized once, at import: nothing is tokenized again
    assert status == 0 and "111 entries" in out and "(0 tokenized, 111 from the cache" in out
    with Store.open_dir(home) as store:
        assert store.topic(spec.id).name == "Guess and check"
        assert store.topic(spec.id).user_named
        assert store.assignment(new_id)[0] == spec.id
        assert store.topic(other.id) is not None
        assert store.topic(other.id).name == "My own pile"
        assert len(store.assignments()) == 111


@pytest.mark.slow
def test_recluster_uses_the_token_cache(clustered: Path, tmp_path: Path):
    home = tmp_path / "home"
    shutil.copytree(clustered, home)
    with Store.open_dir(home) as store:
        before = store.assignments()
        report = cluster_store(store)
        after = store.assignments()
    assert report.tokenized == 0 and report.cached == 109
    assert after == before  # the cached tokens are the tokens: the same topics again


@pytest.mark.slow
def test_assign_new_places_entries_in_existing_topics(clustered: Path, tmp_path: Path):
    home = tmp_path / "home"
    shutil.copytree(clustered, home)
    with Store.open_dir(home) as store:
        before = {t.id: t.size for t in store.topics()}
        from topiclens.store.importer import import_file

        report = import_file(store, _jsonl(tmp_path / "n.jsonl", NEW_ENTRIES))
        assert store.unassigned_ids() == report.new_ids
        assert assign_new(store, report.new_ids) == 2
        assert assign_new(store, report.new_ids) == 0  # already placed
        # the RoCE entry joins a topic about interconnects (the anchor's own, or the one
        # on rack-scale NVLink networking), found by what the topic's keywords say
        roce = store.search("RoCE congestion")[0]
        joined = store.topic(store.assignment(roce)[0])
        assert "interconnect" in [w for w, _ in joined.keywords][:3], joined
        after = {t.id: t.size for t in store.topics()}
        assert sum(after.values()) == sum(before.values()) + 2
        assert set(after) == set(before)  # no re-cluster


@pytest.mark.slow
def test_labels_never_reach_the_features(tmp_path: Path):
    """Same texts, different sources, categories and extra labels: same topics."""
    from topiclens.store.importer import bundled_paths
    from topiclens.store.parsers import parse_file

    entries = [e for _, p in bundled_paths() for e in parse_file(p).entries]
    homes = []
    for variant in range(2):
        rows = [
            {
                "title": e.title,
                "summary": e.summary,
                "comment": e.comment,
                "source": f"source {(i * 7 + variant) % 5}",
                "category": ["speculative decoding", "KV cache", "工学"][(i + variant) % 3],
                "discipline": f"label-{(i * 3 + variant) % 11}",
            }
            for i, e in enumerate(entries)
        ]
        home = tmp_path / f"v{variant}"
        with Store.open_dir(home) as store:
            from topiclens.store.importer import import_file

            import_file(store, _jsonl(tmp_path / f"v{variant}.jsonl", rows))
            cluster_store(store)
            homes.append(_names(store))
    assert homes[0] == homes[1]


@pytest.mark.slow
def test_topics_text_and_errors(clustered: Path, run: Callable[..., CliResult]):
    status, out, _ = run(clustered, "topics")
    assert status == 0 and "Speculative decoding" in out
    status, _, err = run(clustered, "rename-topic", "99999", "x")
    assert status == 1 and "no topic with id 99999" in err
    status, _, err = run(clustered, "rename-topic", "1", "   ")
    assert status == 2 and "empty" in err


@pytest.mark.slow
def test_cluster_with_bad_anchors_names_the_file(
    clustered: Path, tmp_path: Path, run: Callable[..., CliResult]
):
    bad = tmp_path / "anchors.toml"
    bad.write_text("[[anchor]]\nname = 3\n", encoding="utf-8")
    status, _, err = run(clustered, "cluster", "--anchors", str(bad))
    assert status == 2 and str(bad) in err


@pytest.mark.slow
def test_cluster_with_k_and_own_anchors(tmp_path: Path, run: Callable[..., CliResult]):
    anchors = tmp_path / "mine.toml"
    anchors.write_text(
        '[[anchor]]\nname = "Squeezing bits"\nterms = ["熵编码", "rANS", "compression"]\n',
        encoding="utf-8",
    )
    home = tmp_path / "home"
    # k = 10: an explicit k is not split by the 30 % cap, and at 8 the four compression
    # entries share a topic where fewer than 60 % use the anchor's terms (no name earned)
    status, out, _ = run(home, "cluster", "--k", "10", "--anchors", str(anchors))
    assert status == 0 and "109 entries" in out
    with Store.open_dir(home) as store:
        names = [t.name for t in store.topics()]
    assert "Squeezing bits" in names and "Speculative decoding" not in names
    assert len(names) == 10


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 2])
def test_cluster_k_gives_k_topics_and_says_when_one_is_large(
    clustered: Path, tmp_path: Path, run: Callable[..., CliResult], k: int
):
    home = tmp_path / "home"
    shutil.copytree(clustered, home)
    status, out, err = run(home, "cluster", "--k", str(k))
    assert status == 0, err
    noun = "topic" if k == 1 else "topics"
    assert out.startswith(f"109 entries in {k} {noun} (")
    status, listing, _ = run(home, "topics", "--json")
    sizes = [t["size"] for t in orjson.loads(listing)["topics"]]
    assert len(sizes) == k
    lines = out.splitlines()
    if k == 1:  # one topic holds everything: nothing worth a line
        assert len(lines) == 1
    else:
        share = max(sizes) / 109
        assert share > MAX_SHARE
        assert lines[1:] == [
            f"2 topics as asked: the largest holds {share:.0%} of the entries "
            f"(an automatic k splits any topic above {MAX_SHARE:.0%})"
        ]


def test_cluster_k_beyond_the_entries_says_why_in_one_line(
    tmp_path: Path, run: Callable[..., CliResult]
):
    home = tmp_path / "home"
    rows = [{"title": t, "summary": t} for t in ("KV cache offload", "NVLink bandwidth")]
    assert run(home, "import", str(_jsonl(tmp_path / "two.jsonl", rows)))[0] == 0
    status, out, _ = run(home, "cluster", "--k", "5")
    assert status == 0
    assert out.splitlines()[1:] == ["asked for 5 topics, made 2: there are only 2 entries"]


@pytest.mark.slow
def test_names_lost_to_a_small_k_are_reported_in_one_line_then_come_back(
    clustered: Path, tmp_path: Path, run: Callable[..., CliResult]
):
    """The issue's sequence: rename two topics, `cluster --k 2`, `cluster`; and with
    `--k 1`, where one name cannot have a topic."""
    home = tmp_path / "home"
    shutil.copytree(clustered, home)
    with Store.open_dir(home) as store:
        spec = next(t for t in store.topics() if t.name == "Speculative decoding")
        other = next(t for t in store.topics() if t.anchor is None)
    assert run(home, "rename-topic", str(spec.id), "Guess and check")[0] == 0
    assert run(home, "rename-topic", str(other.id), "My [b]pile[/b]")[0] == 0
    names = ("Guess and check", "My [b]pile[/b]")

    def shown() -> str:
        status, listing, _ = run(home, "topics")
        assert status == 0
        return listing

    for k in ("2", "1"):
        status, out, _ = run(home, "cluster", "--k", k)
        assert status == 0
        listing = shown()
        for name in names:  # a topic, or named in exactly one line of the output
            told = [line for line in out.splitlines() if repr(name) in line]
            assert (name in listing) != (len(told) == 1), (k, name, out)
    assert "no topic this time for" in out and "asked for 1)" in out

    status, out, _ = run(home, "cluster")
    assert status == 0 and "names you gave, back: " in out
    listing = shown()
    assert all(name in listing for name in names)
    with Store.open_dir(home) as store:
        assert store.topic(spec.id).name == "Guess and check"
        assert store.topic(other.id).name == "My [b]pile[/b]"


@pytest.mark.slow
def test_rerun_of_a_cut_off_import_places_what_was_left_without_a_topic(
    clustered: Path, tmp_path: Path, run: Callable[..., CliResult]
):
    """An import killed after its entries were stored but before they were placed: the
    same import run again adds nothing, and places them."""
    home = tmp_path / "home"
    shutil.copytree(clustered, home)
    source = _jsonl(tmp_path / "new.jsonl", NEW_ENTRIES)
    with Store.open_dir(home) as store:
        from topiclens.store.importer import import_file

        report = import_file(store, source)  # stored, not placed: where the kill came
        assert sorted(store.unassigned_ids()) == sorted(report.new_ids)
    status, out, err = run(home, "import", str(source))
    assert status == 0, err
    assert "0 new, 2 already known" in out and "2 entries joined their nearest topic" in out
    with Store.open_dir(home) as store:
        assert store.unassigned_ids() == []
        assert len(store.assignments()) == 111


# --- cohesion, mixed topics and "also" entries, from topics put in the store directly ------


def _trust_home(home: Path) -> list[str]:
    """A store whose topics carry cohesion (one not measured), the largest mixed, and
    entries also listed under other topics; returns the entry ids in the reader's order."""
    with Store.open_dir(home) as store:
        import_file(store, DIGEST)
        import_file(store, LISTING)
        ids = [e.id for e in store.entries()]
        assigned = {
            eid: (1 if n < 10 else 3 if n < 15 else 2, 0.5, []) for n, eid in enumerate(ids)
        }
        topics = [
            Topic(1, "KV cache", [("kv", 1.0)], 10, cohesion=0.613),
            Topic(2, "Mixed: power, ads, jetson", [("power", 1.0)], len(ids) - 15,
                  cohesion=0.05, mixed=True),
            Topic(3, "Interconnects", [("nvlink", 1.0)], 5),
        ]  # fmt: skip
        also = [(ids[40], 1, 0.4), (ids[-1], 1, 0.3), (ids[20], 1, 0.9), (ids[0], 2, 0.2)]
        store.replace_topics(topics, assigned, also=also)
        assert store.unassigned_ids() == []  # `topics` has nothing to group or place
    return ids


def test_json_lists_also_entries_cohesion_and_mixed(tmp_path: Path, run: Callable[..., CliResult]):
    home = tmp_path / "home"
    ids = _trust_home(home)
    status, out, _ = run(home, "topics", "--json")
    assert status == 0
    doc = orjson.loads(out)["topics"]
    # coherent topics first (largest first), then the mixed one, though it is the largest
    assert [(t["id"], t["cohesion"], t["mixed"]) for t in doc] == [
        (1, 0.613, False),
        (3, None, False),
        (2, 0.05, True),
    ]
    with Store.open_dir(home) as store:
        for t in doc:
            assert [e["id"] for e in t["entries"]] == store.topic_entry_ids(t["id"])
            assert [e["id"] for e in t["also"]] == store.also_entry_ids(t["id"])
            assert t["size"] == len(t["entries"])
            for e in t["also"]:
                want = store.entry(e["id"])
                assert e == {"id": want.id, "title": want.title, "summary": want.summary,
                             "source": want.source, "date": want.date}  # fmt: skip
    # `entries` keeps the primary members: every entry once; `also` adds the others, in
    # the reader's order (newest first, undated last)
    assert sorted(e["id"] for t in doc for e in t["entries"]) == sorted(ids)
    kv, _, mixed = doc
    assert [e["id"] for e in kv["also"]] == [ids[20], ids[40], ids[-1]]
    assert kv["also"][-1]["date"] is None
    assert [e["id"] for e in mixed["also"]] == [ids[0]]
    assert doc[1]["also"] == []


def test_topics_text_shows_cohesion_and_marks_mixed(tmp_path: Path, run: Callable[..., CliResult]):
    from topiclens.text import cell_width

    home = tmp_path / "home"
    _trust_home(home)
    status, out, _ = run(home, "topics")
    assert status == 0
    header, *lines = out.splitlines()
    assert header == TOPICS_HEADER
    assert [line.split()[:2] for line in lines] == [["1", "10"], ["3", "5"], ["2", "94"]]
    assert "61 %  KV cache  (kv)" in lines[0]
    assert "-  Interconnects  (nvlink)" in lines[1]
    assert "5 %  Mixed: power, ads, jetson  (power)" in lines[2]
    # the names start in one column, under the header's
    starts = {cell_width(line[: line.index(name)]) for line, name in
              zip(lines, ("KV cache", "Interconnects", "Mixed"), strict=True)}  # fmt: skip
    assert starts == {header.index("name")}
    with Store.open_dir(home) as store:  # a mixed topic the user renamed is still marked
        store.rename_topic(2, "My pile")
    _, out, _ = run(home, "topics")
    assert "5 %  mixed: My pile  (power)" in out.splitlines()[-1]
