"""The reader's corrections (clustering.corrections) on the bundled corpus: each one, then
every one together through `cluster`, `cluster --k 3`, an import and a reopen; undo; and
their way through a JSON export and its restore.

The bundled corpus is clustered once per test process (conftest); each test works on a copy.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from topiclens.cli import main
from topiclens.clustering import cluster_store
from topiclens.clustering import corrections as C
from topiclens.clustering.corrections import CorrectionError
from topiclens.store import Store
from topiclens.store.export import render
from topiclens.store.importer import import_file
from topiclens.store.restore import restore_data

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("corrections")]

# the entries our reference labels put under "KV cache" (bench/corpora/bundled-labels.jsonl)
KV_CACHE = {"f8c07ca7d6cc1cfc", "59af7b28c5a8c150", "65c645ae592e06c1", "09ece52234ba9c09"}
KV_ENTRY = {
    "title": "Paged KV cache eviction for long contexts",
    "summary": "KV cache 的分页与淘汰：KV cache blocks evicted by recency, the KV cache "
    "kept under a memory budget, KV 缓存 offloaded to host memory when full.",
}


PASSING = {
    "title": "Draft trees for speculative decoding",
    "summary": "Speculative decoding with a draft model: draft tokens verified by the target "
    "model in one pass, the draft tree pruned by acceptance rate; the KV cache is reused.",
}


@pytest.fixture
def store(bundled_home: Path):
    with Store.open_dir(bundled_home) as s:
        yield s


def _by_name(store: Store) -> dict[str, int]:
    return {t.name: t.id for t in store.topics()}


def test_rename_and_move_pin_the_entry_and_undo_takes_them_back(store: Store):
    first, second = store.topics()[:2]
    entry = store.topic_entry_ids(first.id)[0]
    change = C.rename_topic(store, second.id, "  My pile ")
    assert change == C.Change(f"renamed topic {second.id} to 'My pile'", second.id)
    change = C.move_entry(store, entry, second.id)
    assert change.topic_id == second.id and "pinned there" in change.message
    assert store.assignment(entry).topic_id == second.id
    assert entry in store.topic_entry_ids(second.id)
    assert store.topic(second.id).size == second.size + 1
    assert store.topic(first.id).size == first.size - 1
    assert C.corrections(store).pins == {entry: second.id}

    assert C.undo(store).message.startswith("undone: moved")
    assert store.assignment(entry).topic_id == first.id
    assert store.topic(first.id).size == first.size and C.corrections(store).pins == {}
    assert C.undo(store).message == f"undone: renamed topic {second.id} to 'My pile'"
    assert store.topic(second.id).name == second.name and not store.topic(second.id).user_named
    assert C.undo(store) is None


def test_errors_say_what_is_wrong(store: Store):
    with pytest.raises(CorrectionError, match="no topic with id 9999"):
        C.rename_topic(store, 9999, "x")
    with pytest.raises(CorrectionError, match="cannot be empty"):
        C.rename_topic(store, store.topics()[0].id, "  ")
    with pytest.raises(CorrectionError, match="one line"):
        C.rename_topic(store, store.topics()[0].id, "two\nlines")
    with pytest.raises(CorrectionError, match="no entry with id 'nope'"):
        C.move_entry(store, "nope", store.topics()[0].id)
    with pytest.raises(CorrectionError, match="two topics or more"):
        C.merge_topics(store, [store.topics()[0].id])
    with pytest.raises(CorrectionError, match="2 to 20 parts"):
        C.split_topic(store, store.topics()[0].id, 1)
    with pytest.raises(CorrectionError, match="no entry uses"):
        C.new_topic(store, "Nothing", ["zzqx nonexistent"])
    with pytest.raises(CorrectionError, match="at least one term"):
        C.new_topic(store, "Nothing", [" , "])
    with pytest.raises(CorrectionError, match="is not hidden"):
        C.show_topic(store, store.topics()[0].id)
    assert C.undo(store) is None  # nothing was written


def test_a_topic_from_kv_terms_gathers_the_kv_cache_entries(store: Store):
    change = C.new_topic(store, "KV", ["KV cache, KV 缓存"])
    members = set(store.topic_entry_ids(change.topic_id))
    assert members >= KV_CACHE
    assert len(members) <= 2 * len(KV_CACHE)  # entries about it, not every mention
    topic = store.topic(change.topic_id)
    assert topic.name == "KV" and topic.user_named and topic.size == len(members)
    shaped = C.corrections(store).topics[change.topic_id]
    assert (shaped.origin, shaped.terms) == ("terms", ["KV cache", "KV 缓存"])


def test_merge_split_hide_and_show(store: Store):
    topics = store.topics()
    a, b = topics[0], topics[1]
    together = set(store.topic_entry_ids(a.id)) | set(store.topic_entry_ids(b.id))
    change = C.merge_topics(store, [a.id, b.id], name="Both")
    assert change.topic_id == a.id and store.topic(b.id) is None
    assert set(store.topic_entry_ids(a.id)) == together and store.topic(a.id).name == "Both"

    change = C.split_topic(store, a.id, k=2)
    parts = [t for t in store.topics() if C.corrections(store).topics.get(t.id)]
    assert len(parts) == 2 and a.id in {t.id for t in parts}
    assert set().union(*(store.topic_entry_ids(t.id) for t in parts)) == together
    assert all(C.corrections(store).topics[t.id].origin == "split" for t in parts)

    hidden = topics[2]
    members = store.topic_entry_ids(hidden.id)
    change = C.hide_topic(store, hidden.id)
    assert store.topic(hidden.id) is None
    assert [t.id for t in C.hidden_topics(store)] == [hidden.id]
    assigned = store.assignments()
    assert all(assigned[e] != hidden.id for e in members)  # each in its next-best topic
    assert change.topic_id in {assigned[e] for e in members}

    change = C.show_topic(store, hidden.id)
    assert set(store.topic_entry_ids(hidden.id)) == set(members)
    assert C.hidden_topics(store) == [] and store.topic(hidden.id).name == hidden.name


def _correct_everything(store: Store) -> dict[str, object]:
    """Every kind of correction, as a reader would make them; what must then hold."""
    kv = C.new_topic(store, "My KV", ["KV cache, KV 缓存"]).topic_id
    names = _by_name(store)
    merged = C.merge_topics(
        store, [names["Interconnects"], names["MoE kernels & expert parallelism"]], name="Comm"
    ).topic_id
    merged_entries = set(store.topic_entry_ids(merged))
    target = names["Speculative decoding"]
    entry = store.topic_entry_ids(names["Megakernels"])[0]
    C.move_entry(store, entry, target)
    hidden = names["Entropy coding & compression"]
    hidden_entries = set(store.topic_entry_ids(hidden))
    C.hide_topic(store, hidden)
    split = C.split_topic(store, names["GPU kernels & Tensor Core GEMM"], k=2).topic_id
    parts = {
        tid: set(store.topic_entry_ids(tid))
        for tid, c in C.corrections(store).topics.items()
        if c.origin == "split"
    }
    assert split in parts and len(parts) == 2
    return {
        "kv": kv,
        "merged": merged,
        "merged_entries": merged_entries,
        "pinned": (entry, target),
        "hidden": hidden,
        "hidden_entries": hidden_entries,
        "parts": parts,
    }


def _check_all_hold(store: Store, made: dict) -> None:
    assigned = store.assignments()
    kv = store.topic(made["kv"])
    assert kv is not None and kv.name == "My KV" and kv.user_named
    assert {e for e, t in assigned.items() if t == made["kv"]} >= KV_CACHE
    merged = store.topic(made["merged"])
    assert merged is not None and merged.name == "Comm"
    # every entry of the merge stays in it, but those a later correction took
    taken = {made["pinned"][0]} | {e for e, t in assigned.items() if t == made["kv"]}
    assert {e for e in made["merged_entries"] - taken if assigned[e] != made["merged"]} == set()
    entry, target = made["pinned"]
    assert assigned[entry] == target and store.topic(target) is not None
    assert store.topic(made["hidden"]) is None
    assert [t.id for t in C.hidden_topics(store)] == [made["hidden"]]
    assert all(assigned[e] != made["hidden"] for e in made["hidden_entries"])
    for tid, entries in made["parts"].items():
        assert {assigned[e] for e in entries - taken} == {tid}, tid


def test_every_correction_lasts_through_clusters_an_import_and_a_reopen(
    store: Store, tmp_path: Path
):
    made = _correct_everything(store)
    _check_all_hold(store, made)

    report = cluster_store(store)
    _check_all_hold(store, made)
    assert report.held == 5 and report.hidden == 1  # kv, merge, the pinned entry's, 2 parts

    # placed among an automatic k's topics (at k = 3 the topic made from terms is one of
    # three catch-alls, and may be the nearest to anything)
    path = tmp_path / "new.jsonl"
    path.write_bytes(orjson.dumps(KV_ENTRY) + b"\n" + orjson.dumps(PASSING) + b"\n")
    assert import_file(store, path).new == 2
    from topiclens.clustering import assign_new

    new_id, passing = store.search(KV_ENTRY["title"])[0], store.search(PASSING["title"])[0]
    assert assign_new(store, [new_id, passing]) == 2
    assert store.assignment(new_id).topic_id == made["kv"]  # about the terms: it joins
    assert store.assignment(passing).topic_id != made["kv"]  # one mention: it does not
    _check_all_hold(store, made)

    report = cluster_store(store, k=8)
    _check_all_hold(store, made)
    report = cluster_store(store, k=3)
    _check_all_hold(store, made)
    assert report.topics > 3
    assert report.notes()[0] == (
        f"asked for 3 topics, made {report.topics}: your corrections hold 5 and hide 1"
    )

    home = store.path.parent
    store.close()
    with Store.open_dir(home) as again:
        _check_all_hold(again, made)
        cluster_store(again)
        _check_all_hold(again, made)
        assert again.assignment(new_id).topic_id == made["kv"]
        assert again.assignment(passing).topic_id != made["kv"]


def test_undo_after_a_recluster_takes_the_correction_back_at_the_next(store: Store):
    first, second = store.topics()[:2]
    C.merge_topics(store, [first.id, second.id])
    cluster_store(store)
    change = C.undo(store)
    assert "the topics follow at the next re-cluster" in change.message
    assert C.corrections(store).is_empty()


def test_undoing_a_hide_after_a_recluster_shows_the_topic_at_once(store: Store):
    hidden = store.topics()[3]
    members = set(store.topic_entry_ids(hidden.id))
    C.hide_topic(store, hidden.id)
    cluster_store(store)
    assert store.topic(hidden.id) is None
    change = C.undo(store)
    assert "follow at the next re-cluster" not in change.message
    for _ in range(2):  # back now, and the next re-cluster keeps it
        assert C.hidden_topics(store) == [] and C.corrections(store).is_empty()
        assert store.topic(hidden.id).name == hidden.name
        assert set(store.topic_entry_ids(hidden.id)) == members
        cluster_store(store)


def test_undo_skips_entries_deleted_since(store: Store):
    first, second = store.topics()[:2]
    entry = store.topic_entry_ids(first.id)[0]
    C.move_entry(store, entry, second.id)
    with store.write() as conn:  # as deleting an entry does
        conn.execute("DELETE FROM entries WHERE id = ?", (entry,))
    assert C.undo(store).message.startswith("undone: moved")
    assert store.assignment(entry) is None and C.corrections(store).pins == {}
    assert store.topic(first.id).size == first.size - 1


def test_a_shaped_topic_whose_entries_are_gone_is_reported_in_one_line(store: Store):
    a, b = store.topics()[:2]
    C.merge_topics(store, [a.id, b.id], name="Gone soon")
    store.forget_corrections([])  # a no-op: nothing named
    with store.write() as conn:  # every entry of the merge deleted (as deleting does)
        conn.execute(
            "DELETE FROM entries WHERE id IN (SELECT entry_id FROM topic_assignments "
            "WHERE topic_id = ?)",
            (a.id,),
        )
    report = cluster_store(store)
    lines = [n for n in report.notes() if "Gone soon" in n]
    assert lines == [
        "no entry left of 'Gone soon': the topics you made cannot be kept (one made from "
        "terms comes back when an entry uses them)"
    ]
    assert a.id not in C.corrections(store).topics


def test_corrections_come_back_from_a_json_export(store: Store, tmp_path: Path):
    made = _correct_everything(store)
    before = C.corrections(store)
    data = render(store, "json")
    doc = orjson.loads(data)
    assert len(doc["corrections"]["topics"]) == len(before.topics)

    home = tmp_path / "fresh"
    assert main(["--data-dir", str(home), "topics"]) == 0
    with Store.open_dir(home) as fresh:
        assert C.corrections(fresh).is_empty()
        report = restore_data(fresh, data, "backup.json")
        assert report.problems == []
        assert report.corrections_restored == (
            len(before.topics) + len(before.pins) + len(before.names)
        )
        after = C.corrections(fresh)
        assert after.pins == before.pins
        assert {t: c._replace(made_at=0) for t, c in after.topics.items()} == {
            t: c._replace(made_at=0) for t, c in before.topics.items()
        }
        cluster_store(fresh)
        _check_all_hold(fresh, made)


def test_a_restore_refuses_corrections_it_cannot_read(store: Store):
    data = orjson.loads(render(store, "json"))
    data["corrections"] = {"topics": [{"topic_id": 1, "origin": "bogus"}], "pins": []}
    report = restore_data(store, orjson.dumps(data), "bad.json")
    assert report.corrections_restored == 0 and C.corrections(store).is_empty()
    assert [str(p) for p in report.problems] == [
        "bad.json: corrections: topic correction 1 (topic 1): unknown origin 'bogus' (one of "
        "merge, split, terms, hide, pin); none were restored"
    ]


def test_no_correction_leaves_the_clustering_as_it_was(bundled_home: Path):
    home = bundled_home
    with Store.open_dir(home) as s:
        before = {t.id: (t.name, t.size) for t in s.topics()}
        C.hide_topic(s, s.topics()[0].id)
        C.undo(s)
        report = cluster_store(s)
        assert report.held == 0 and report.hidden == 0
        assert {t.id: (t.name, t.size) for t in s.topics()} == before


def test_slow_corrections_run_in_a_worker_thread_beside_reads(store: Store):
    """As the reader's workers do: one Store shared, the correction in a thread while the
    reader keeps reading rows."""
    import threading

    results: list[object] = []
    big = store.topics()[0]

    def work() -> None:
        try:
            results.append(C.new_topic(store, "KV", ["KV cache", "KV 缓存"]))
            results.append(C.split_topic(store, big.id, 2))
        except Exception as exc:  # reported below, with the reads' outcome
            results.append(exc)

    worker = threading.Thread(target=work)
    worker.start()
    reads = 0
    while worker.is_alive() or not reads:
        for t in store.topics():
            store.topic_rows(t.id)
        reads += 1
    worker.join()
    assert [type(r) for r in results] == [C.Change, C.Change], results
    assert sum(t.size for t in store.topics()) == store.count_entries()
