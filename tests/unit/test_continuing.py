"""clustering/continuing.py: a fit that continues a saved model keeps its entries in their
topics, puts new entries that fit into the nearest topic, and makes a new topic of new
entries that agree among themselves and fit none. Groups are found by their members."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from topiclens.clustering.continuing import Start, continue_fit
from topiclens.clustering.estimator import TopicModel

SUBJECTS = {
    "gpu": "gpu kernel cuda warp register shared memory tensor core occupancy",
    "db": "database index query planner btree join transaction isolation vacuum",
    "bird": "bird migration feather nest song flock wetland plumage",
    "reef": "coral reef fish ocean tide kelp snorkel lagoon",
    "net": "packet router switch latency bandwidth congestion tcp queue",
    "ml": "model training gradient loss epoch optimizer dropout batch",
}

LOOSE = {
    "gpu": "gpu kernel cuda warp register occupancy",
    "db": "database index query planner btree join transaction vacuum isolation replica shard "
    "wal lock mvcc cursor schema",
    "net": "packet router switch latency bandwidth congestion tcp queue mtu nic dpdk rdma bgp "
    "vlan ecmp mesh",
    "cooling": "cooling fan airflow thermal heatsink coolant",
}


def texts(subject: str, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = SUBJECTS[subject].split()
    return [" ".join(rng.sample(words, 5)) for _ in range(n)]


def fitted(old: list[str]) -> TopicModel:
    return TopicModel(
        2, anchors=(), max_share=None, random_state=0, bigrams=False, spectral=False
    ).fit(old)


def start_of(model: TopicModel, n_new: int) -> Start:
    k = model.n_topics_
    labels = np.concatenate([model.labels_, np.full(n_new, -1)])
    return Start(labels, [None] * k, [None] * k, list(model.cohesion_))


def members(labels: np.ndarray, rows: range) -> set[int]:
    return {int(labels[i]) for i in rows}


def test_new_entries_that_fit_join_and_old_ones_stay():
    old = texts("gpu", 30, 0) + texts("db", 30, 1)
    saved = fitted(old)
    new = texts("gpu", 3, 2)
    model = TopicModel(2, anchors=(), max_share=None, random_state=0, bigrams=False, spectral=False)
    done = continue_fit(
        model, saved, old + new, None, start_of(saved, len(new)), held={}, context={}
    )
    assert done is not None
    labels = model.labels_
    # every old entry is where the saved fit put it (as a topic, whatever its number)
    for c in range(saved.n_topics_):
        rows = np.flatnonzero(saved.labels_ == c)
        assert len({int(labels[i]) for i in rows}) == 1
    gpu_topic = members(labels, range(30))
    assert members(labels, range(60, 63)) == gpu_topic
    assert done.changes.moved == 0 and done.changes.new_topics == 0


def test_new_entries_of_a_new_subject_form_a_topic():
    # two old texts use the new subject's words, so the saved vocabulary knows them
    old = texts("gpu", 30, 0) + texts("db", 30, 1) + texts("bird", 2, 3)
    saved = fitted(old)
    new = texts("bird", 12, 4)
    model = TopicModel(2, anchors=(), max_share=None, random_state=0, bigrams=False, spectral=False)
    done = continue_fit(
        model, saved, old + new, None, start_of(saved, len(new)), held={}, context={}
    )
    assert done is not None and done.changes.new_topics == 1
    labels = model.labels_
    birds = members(labels, range(62, 74))
    assert len(birds) == 1
    assert not birds & (members(labels, range(30)) | members(labels, range(30, 60)))
    assert done.origin[birds.pop()] is None  # a topic made now, with an id of its own
    assert "1 new topic" in done.changes.line()


def test_too_many_new_entries_start_over():
    old = texts("gpu", 20, 0) + texts("db", 20, 1)
    saved = fitted(old)
    new = texts("gpu", 25, 2)
    model = TopicModel(2, anchors=(), max_share=None, random_state=0, bigrams=False, spectral=False)
    start = start_of(saved, len(new))
    assert continue_fit(model, saved, old + new, None, start, held={}, context={}) is None


def fitted_k(old: list[str], k: int) -> TopicModel:
    return TopicModel(
        k, anchors=(), max_share=None, random_state=0, bigrams=False, spectral=False
    ).fit(old)


def continued(old: list[str], new: list[str], k: int, **kw: Any) -> tuple[TopicModel, Any]:
    """The saved fit of ``old`` (k topics, unless ``saved`` is given), and a fit
    continuing it with ``new`` added."""
    saved = kw.pop("saved", None) or fitted_k(old, k)
    model = TopicModel(k, anchors=(), max_share=None, random_state=0, bigrams=False, spectral=False)
    start = kw.pop("start", None) or start_of(saved, len(new))
    done = continue_fit(model, saved, old + new, None, start, held={}, context={}, **kw)
    assert done is not None
    return model, done


def test_one_new_subject_among_small_topics_forms_one_topic():
    # topics of six entries: twelve new entries of one subject are one topic, not two
    old = [t for i, s in enumerate(("gpu", "db", "net", "ml")) for t in texts(s, 6, i)]
    old += texts("bird", 4, 9)  # the saved vocabulary knows the new subject's words
    new = texts("bird", 12, 10)
    model, done = continued(old, new, 4)
    birds = members(model.labels_, range(len(old), len(old) + 12))
    assert len(birds) == 1
    assert not birds & members(model.labels_, range(24))
    assert done.changes.new_topics == 1


def test_two_new_subjects_form_two_topics():
    old = texts("gpu", 30, 0) + texts("db", 30, 1) + texts("bird", 4, 2) + texts("reef", 4, 3)
    new = texts("bird", 6, 4) + texts("reef", 6, 5)
    model, done = continued(old, new, 2)
    n = len(old)
    birds, reefs = (
        members(model.labels_, range(n, n + 6)),
        members(model.labels_, range(n + 6, n + 12)),
    )
    assert len(birds) == 1 and len(reefs) == 1 and birds != reefs
    assert not (birds | reefs) & members(model.labels_, range(60))
    assert done.changes.new_topics == 2


def test_a_hidden_topics_entries_make_no_topic_again():
    # a restore hid the database topic since the fit: its entries (in no topic now) and
    # new ones of its subject go to topics of old entries, none split off to hold them
    old = texts("gpu", 30, 0) + texts("db", 20, 1) + texts("bird", 30, 2)
    saved = fitted_k(old, 3)
    db = int(saved.labels_[30])
    keep = [c for c in range(3) if c != db]
    index = {c: i for i, c in enumerate(keep)}
    new = texts("db", 6, 3)
    labels = np.asarray([index.get(int(c), -1) for c in saved.labels_] + [-1] * len(new))
    rows = list(range(30, 50))
    start = Start(labels, [None, None], [None, None], [saved.cohesion_[c] for c in keep])
    start.dissolve = rows
    model, done = continued(old, new, 3, saved=saved, start=start)
    assert done.changes.new_topics == 0 and done.changes.split == 0
    assert set(done.origin) == {0, 1}  # the two topics shown, no other
    for c in range(model.n_topics_):
        inside = np.flatnonzero(model.labels_ == c)
        assert np.count_nonzero((inside >= 30) & (inside < 50) | (inside >= 80)) < len(inside)


def test_a_loose_topic_made_mixed_is_not_cut_through_its_old_entries():
    # loose topics (two words of sixteen) barely reach the mixed threshold; new entries
    # on cooling GPUs, whose words some network entries use, tip one below it. KMeans in
    # two would cut its old entries apart (the new ones are no group of their own
    # there), which is no split the data asks for.
    rng = random.Random(0)

    def pick(subject: str, n: int) -> str:
        return " ".join(rng.sample(LOOSE[subject].split(), n))

    old = [pick("gpu", 5) for _ in range(8)] + [pick("db", 2) for _ in range(20)]
    old += [pick("net", 2) + (" " + pick("cooling", 3) if i < 5 else "") for i in range(20)]
    new = [pick("gpu", 2) + " " + pick("cooling", 4) for _ in range(10)]
    model, done = continued(old, new, 3)
    assert done.changes.moved == 0 and done.changes.split == 0
    saved = fitted_k(old, 3)
    for c in range(3):  # each old topic's entries still share one topic
        assert len(members(model.labels_, np.flatnonzero(saved.labels_ == c))) == 1
