"""A store clustered on a sample (the threshold lowered to a few hundred entries): every
entry lands in its subject's topic, the saved model keeps the sample's vectors and still
places new entries with similar entries that exist, and a re-cluster continues the saved
model. Topics are found by their members, never by their labels or ids."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from topiclens.clustering.pipeline import assign_new, cluster_store
from topiclens.clustering.saved import saved_model
from topiclens.clustering.scale import Sampling
from topiclens.store import Entry, Store
from topiclens.store.text import entry_id

SUBJECTS = {
    "gpu": "gpu kernel cuda warp register shared memory tensor core occupancy",
    "db": "database index query planner btree join transaction isolation vacuum",
    "bird": "bird migration feather nest song flock wetland plumage",
}
PER_SUBJECT = 100
SAMPLING = Sampling(above=100, size=90)


def entry(subject: str, i: int, rng: random.Random) -> Entry:
    title = f"{subject} note {i}"
    summary = " ".join(rng.sample(SUBJECTS[subject].split(), 6))
    return Entry(id=entry_id(title, summary), title=title, summary=summary, lang="en")


def subjects_store(path: Path) -> tuple[Store, dict[str, list[str]]]:
    rng = random.Random(0)
    store = Store.open_dir(path)
    by_subject: dict[str, list[str]] = {s: [] for s in SUBJECTS}
    entries = []
    for i in range(PER_SUBJECT):
        for s in SUBJECTS:
            e = entry(s, i, rng)
            entries.append(e)
            by_subject[s].append(e.id)
    store.add_entries(entries)
    return store, by_subject


def topic_of_each(store: Store, ids: list[str]) -> set[int]:
    assigned = store.assignments()
    return {assigned[e] for e in ids}


@pytest.mark.slow
def test_a_sampled_cluster_puts_each_subject_in_a_topic_of_its_own(tmp_path: Path):
    store, by_subject = subjects_store(tmp_path)
    with store:
        report = cluster_store(store, k=3, sampling=SAMPLING)
        assert report.entries == 3 * PER_SUBJECT and report.topics == 3
        assert len(store.assignments()) == 3 * PER_SUBJECT
        groups = [topic_of_each(store, ids) for ids in by_subject.values()]
        assert all(len(g) == 1 for g in groups)
        assert len(set().union(*groups)) == 3
        assert sorted(t.size for t in store.topics()) == [PER_SUBJECT] * 3
        # an entry that was placed, not fitted, has similar entries of its own subject
        saved = saved_model(store)
        assert saved is not None and saved.rows is not None
        kept = {saved.entry_ids[r] for r in saved.rows}
        assert len(kept) < 3 * PER_SUBJECT
        placed = next(e for e in by_subject["db"] if e not in kept)
        similar = [other for other, _ in store.similar(placed)]
        assert similar and set(similar) <= set(by_subject["db"])

        # a new entry joins its subject's topic, its similar entries among the kept ones
        new = entry("bird", 999, random.Random(1))
        store.add_entries([new])
        assert assign_new(store, [new.id]) == 1
        assert topic_of_each(store, [new.id]) == topic_of_each(store, by_subject["bird"])
        assert {o for o, _ in store.similar(new.id)} <= kept

        # a re-cluster continues the saved model: every entry stays in its topic
        again = cluster_store(store, k=3, sampling=SAMPLING)
        assert again.changes is not None and again.changes.startswith("no entry moved")
        assert [topic_of_each(store, ids) for ids in by_subject.values()] == groups


@pytest.mark.slow
def test_a_sampled_re_cluster_makes_no_topic_mostly_a_hidden_subject(tmp_path: Path):
    from topiclens.clustering.corrections import hide_topic

    store, by_subject = subjects_store(tmp_path)
    with store:
        cluster_store(store, k=3, sampling=SAMPLING)
        (hidden,) = topic_of_each(store, by_subject["db"])
        hide_topic(store, hidden)
        # more entries of the hidden subject arrive, most of them outside the sample
        rng = random.Random(2)
        new = [entry("db", PER_SUBJECT + i, rng) for i in range(60)]
        store.add_entries(new)
        report = cluster_store(store, k=3, sampling=SAMPLING)
        assert report.changes is not None and "started over" not in report.changes
        db = set(by_subject["db"]) | {e.id for e in new}
        assigned = store.assignments()
        assert hidden not in assigned.values()
        for t in set(assigned.values()):
            inside = [e for e, u in assigned.items() if u == t]
            assert 2 * sum(e in db for e in inside) <= len(inside), t
