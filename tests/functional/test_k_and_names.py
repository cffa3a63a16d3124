"""`k` means what it says, and names the user gave outlive every sequence of re-clusters.

Pipeline level (`cluster_store` and its `ClusterReport`); the command's lines are in
tests/functional/test_topics_cli.py. The bundled corpus is clustered once per test process
(conftest); each test that changes a store works on its own copy.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from topiclens.clustering import TopicModel, cluster_store
from topiclens.clustering.partition import MAX_SHARE
from topiclens.store import Store
from topiclens.store.corrections import NAMED_TOPICS
from topiclens.store.importer import import_file

pytestmark = pytest.mark.xdist_group("topics")

SPEC_TITLES = (
    "The Economics of Speculative Decoding",
    "Adaptive speculative decoding: picking draft lengths at runtime",
)


@pytest.fixture
def home(bundled_home: Path) -> Path:
    return bundled_home


def _titled(store: Store, title: str) -> str:
    return next(e.id for e in store.entries() if e.title == title)


def _name(store: Store, how_many: int) -> dict[int, str]:
    """Rename the speculative decoding topic, then a keyword-named one, then the KV cache
    topic (the first ``how_many`` of them); returns {topic id: the name given}."""
    by_name = {t.name: t for t in store.topics()}
    plain = next(t for t in store.topics() if t.anchor is None)
    order = [
        (by_name["Speculative decoding"].id, "Guess and check"),
        (plain.id, "My own pile"),
        (by_name["KV cache"].id, "Cache of keys"),
    ]
    given = dict(order[:how_many])
    for tid, name in given.items():
        assert store.rename_topic(tid, name)
    return given


def _check_names(store: Store, given: dict[int, str], report) -> set[str]:
    """Every name is a user-named topic with its old id, or in the report: never gone
    in silence. Returns the names that have a topic."""
    topics = {t.id: t for t in store.topics()}
    present = set()
    for tid, name in given.items():
        t = topics.get(tid)
        if t is not None:
            assert t.name == name and t.user_named
            present.add(name)
        else:
            assert name in report.lost_names
    assert sorted(present | set(report.lost_names)) == sorted(given.values())
    assert not present & set(report.lost_names)
    return present


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 2, 3, 4, 8])
def test_an_explicit_k_gives_exactly_k_topics(home: Path, k: int):
    with Store.open_dir(home) as store:
        report = cluster_store(store, k=k)
        sizes = [t.size for t in store.topics()]
    assert report.topics == len(sizes) == k and report.asked_k == k
    assert report.largest_share == pytest.approx(max(sizes) / 109)
    share_lines = [n for n in report.notes() if "as asked" in n]
    if k > 1 and max(sizes) > MAX_SHARE * 109:
        assert share_lines == [
            f"{k} topics as asked: the largest holds {max(sizes) / 109:.0%} of the entries "
            f"(an automatic k splits any topic above {MAX_SHARE:.0%})"
        ]
    else:
        assert share_lines == []


@pytest.mark.slow
def test_automatic_k_keeps_the_cap_and_reports_what_it_split(tmp_path: Path):
    jam = "paper jam tray roller"
    rows = [{"title": f"Printer jam report {i}", "summary": jam} for i in range(30)]
    rows += [
        {"title": t, "summary": t}
        for t in (
            "rANS entropy coding for lossless compression",
            "NVLink and NVSwitch interconnect bandwidth",
            "Speculative decoding with a draft model",
            "KV cache offload to host memory",
            "Expert parallelism for MoE kernels",
            "Kubernetes cluster scheduling for training",
            "Cold start and checkpoint restore for serving",
            "Quantization to FP8 and W4A16 for inference",
            "Attention kernels for long context",
            "Profiling GPU kernels with Nsight",
        )
    ]
    source = tmp_path / "rows.jsonl"
    source.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    with Store.open_dir(tmp_path / "home") as store:
        import_file(store, source)
        report = cluster_store(store)
        sizes = [t.size for t in store.topics()]
    assert report.asked_k is None and report.split > 0
    assert max(sizes) <= MAX_SHARE * len(rows) and report.largest_share <= MAX_SHARE
    assert report.notes() == []  # automatic k: nothing to say to the user


def test_the_model_counts_the_topics_its_cap_split_off():
    docs = [["same", "words", "here"] for _ in range(40)]
    docs += [["rans", "entropy", "coding"], ["nvlink", "nvswitch", "bandwidth"]] * 3
    capped = TopicModel(2, random_state=0).fit(None, tokens=docs)
    plain = TopicModel(2, random_state=0, max_share=None).fit(None, tokens=docs)
    assert plain.n_topics_ == 2 and plain.n_split_ == 0
    assert capped.n_split_ > 0 and capped.n_topics_ == 2 + capped.n_split_


def _toy_store(path: Path, root: Path, copies: int) -> Path:
    a = [f"rANS 熵编码 entropy coding and lossless compression, note {i}" for i in range(copies)]
    b = [f"NVLink 与 NVSwitch 互联 interconnect bandwidth, rack {i}" for i in range(copies)]
    c = [f"投机解码 speculative decoding with a draft model, trial {i}" for i in range(copies)]
    source = root / f"toy{copies}.jsonl"
    source.write_bytes(
        b"".join(orjson.dumps({"title": t, "summary": t}) + b"\n" for t in a + b + c)
    )
    with Store.open_dir(path) as store:
        import_file(store, source)
    return path


def test_k_beyond_the_entries_or_their_different_texts_says_why(tmp_path: Path):
    # the texts differ only by a number, which the tokenizer drops: three sets of words
    with Store.open_dir(_toy_store(tmp_path / "many", tmp_path, 12)) as store:
        report = cluster_store(store, k=5)
        assert len(store.topics()) == report.topics == 3
    assert report.notes()[0] == (
        "asked for 5 topics, made 3: the 36 entries use only 3 different sets of words"
    )
    with Store.open_dir(_toy_store(tmp_path / "few", tmp_path, 2)) as store:
        report = cluster_store(store, k=8)
        assert len(store.topics()) == report.topics == 3
    assert report.notes()[0] == (
        "asked for 8 topics, made 3: there are only 6 entries, using only 3 different sets of words"
    )


@pytest.mark.slow
def test_the_issue_sequence_rename_two_then_k2_then_automatic(home: Path):
    with Store.open_dir(home) as store:
        given = _name(store, 2)
        spec = {_titled(store, t) for t in SPEC_TITLES}
        report = cluster_store(store, k=2)
        assert len(store.topics()) == 2
        _check_names(store, given, report)
        report = cluster_store(store)
        assert _check_names(store, given, report) == set(given.values())
        assert report.lost_names == [] and report.gone_names == []
        guess = next(tid for tid, name in given.items() if name == "Guess and check")
        # the name came back to what it named, not to what k=2 lumped in with it
        assert spec <= set(store.topic_entry_ids(guess))
        assert store.topic(guess).size < 20


@pytest.mark.slow
def test_three_names_over_k_1_2_3_8_and_automatic(home: Path, tmp_path: Path):
    with Store.open_dir(home) as store:
        given = _name(store, 3)
    fresh = tmp_path / "fresh"
    shutil.copytree(home, fresh)
    with Store.open_dir(fresh) as store:  # the same names, re-clustered once from scratch
        cluster_store(store, fresh=True)
        once = store.assignments()
    with Store.open_dir(home) as store:
        # a topic carries one name: k = 1 keeps one, k = 2 one or two (whether two named
        # topics' entries stay apart depends on the seed), and with room for all three none
        # is lost
        for k, fewest, most in ((1, 2, 2), (2, 1, 2), (3, 0, 0), (8, 0, 0), (None, 0, 0)):
            report = cluster_store(store, k=k)
            present = _check_names(store, given, report)
            assert fewest <= len(report.lost_names) <= most, (k, report.lost_names)
            assert len(present) == 3 - len(report.lost_names)
            if report.lost_names:
                line = next(n for n in report.notes() if n.startswith("no topic this time"))
                assert all(repr(name) in line for name in report.lost_names)
                assert f"you named 3 topics and asked for {k}" in line
        # back where one re-cluster after naming would be: the small k left no trace
        assert _groups(store.assignments()) == _groups(once)
        for tid in given:
            assert set(store.topic_entry_ids(tid)) == {e for e, t in once.items() if t == tid}


def _groups(assignments: dict[str, int]) -> set[frozenset[str]]:
    by_topic: dict[int, set[str]] = {}
    for eid, tid in assignments.items():
        by_topic.setdefault(tid, set()).add(eid)
    return {frozenset(g) for g in by_topic.values()}


@pytest.mark.slow
def test_a_user_name_wins_over_the_anchor_its_topic_holds(home: Path):
    with Store.open_dir(home) as store:
        given = _name(store, 1)
        (guess,) = given
        spec = {_titled(store, t) for t in SPEC_TITLES}
        cluster_store(store)
        names = [t.name for t in store.topics()]
        assert "Guess and check" in names and "Speculative decoding" not in names
        assert store.topic(guess).anchor == "Speculative decoding"
        assert spec <= set(store.topic_entry_ids(guess))


@pytest.mark.slow
def test_names_waiting_for_room_outlive_a_restart_and_an_import(home: Path, tmp_path: Path):
    with Store.open_dir(home) as store:
        given = _name(store, 3)
        report = cluster_store(store, k=1)
        waiting = set(report.lost_names)
        assert len(waiting) == 2
    source = tmp_path / "new.jsonl"
    row = {"title": "Tree attention for speculative decoding drafts", "summary": "投机解码"}
    source.write_bytes(orjson.dumps(row) + b"\n")
    with Store.open_dir(home) as store:  # a restart
        import_file(store, source)
        report = cluster_store(store, k=8)
        assert sorted(report.restored_names) == sorted(waiting)
        assert _check_names(store, given, report) == set(given.values())
        # a name that came back is no longer "back" the next time
        assert cluster_store(store).restored_names == []


@pytest.mark.slow
def test_a_named_topic_whose_entries_are_all_gone_is_reported_once(home: Path):
    with Store.open_dir(home) as store:
        record = {"999": {"name": "Old notes", "entries": ["no-such-entry"]}}
        store.set_meta(NAMED_TOPICS, orjson.dumps(record).decode())
        report = cluster_store(store)
        assert report.gone_names == ["Old notes"]
        assert "no entry left of 'Old notes': the names are dropped" in report.notes()
        assert "Old notes" not in [t.name for t in store.topics()]
        assert cluster_store(store).gone_names == []


@pytest.mark.slow
def test_an_unreadable_names_record_is_ignored(home: Path):
    with Store.open_dir(home) as store:
        given = _name(store, 1)
        store.set_meta(NAMED_TOPICS, "{not json")
        report = cluster_store(store)
        assert _check_names(store, given, report) == set(given.values())


def test_an_automatic_k_too_small_for_the_names_says_so(tmp_path: Path):
    with Store.open_dir(_toy_store(tmp_path / "few", tmp_path, 2)) as store:
        cluster_store(store, k=3)
        given = {t.id: f"Mine {i}" for i, t in enumerate(store.topics())}
        for tid, name in given.items():
            store.rename_topic(tid, name)
        report = cluster_store(store)  # six entries: an automatic k of 2
        assert report.topics == 2 and len(report.lost_names) == 1
        _check_names(store, given, report)
        assert "(you named 3 topics; 6 entries made 2)" in report.notes()[0]
        report = cluster_store(store, k=3)
        assert _check_names(store, given, report) == set(given.values())
        assert len(report.restored_names) == 1
