"""clustering/scale.py: a fit on a sample of the entries, the rest placed in chunks, groups
the entries as their subjects do, keeps the user's held groups together and names similar
entries among every entry. The sample's threshold and size are lowered so that it runs on
a few hundred entries; groups are found by their members, never by their labels."""

from __future__ import annotations

import random

import numpy as np
import pytest
from topiclens.clustering import scale
from topiclens.clustering.estimator import TopicModel
from topiclens.clustering.scale import PoolIndex, counts_of, fit_sampled, sample_rows
from topiclens.clustering.token_cache import TokenIds

SUBJECTS = {
    "gpu": "gpu kernel cuda warp register shared memory tensor core occupancy",
    "db": "database index query planner btree join transaction isolation vacuum",
    "bird": "bird migration feather nest song flock wetland plumage",
}
PER_SUBJECT = 120


def corpus() -> tuple[TokenIds, dict[str, range]]:
    """PER_SUBJECT entries of each subject, interleaved, as token ids; and the rows of each."""
    rng = random.Random(0)
    vocab = sorted({w for words in SUBJECTS.values() for w in words.split()})
    column = {w: j for j, w in enumerate(vocab)}
    docs = []
    for i in range(PER_SUBJECT * len(SUBJECTS)):
        words = list(SUBJECTS.values())[i % len(SUBJECTS)].split()
        docs.append([column[w] for w in rng.sample(words, 5)])
    indptr = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in docs], out=indptr[1:])
    ids = np.asarray([j for d in docs for j in d], dtype=np.uint32)
    rows = {s: range(c, len(docs), len(SUBJECTS)) for c, s in enumerate(SUBJECTS)}
    return TokenIds(ids, indptr, vocab), rows


def model() -> TopicModel:
    return TopicModel(3, anchors=(), max_share=None, random_state=0, spectral=False)


def topics_of(labels: np.ndarray, rows: range) -> set[int]:
    return {int(labels[i]) for i in rows}


def test_counts_of_some_rows_are_those_rows_of_the_whole_matrix():
    tids, _ = corpus()
    rows = np.asarray([3, 0, 17, 359, 200])
    assert (counts_of(tids, rows).matrix != tids.counts().matrix[rows]).nnz == 0


def test_sample_rows_hold_every_forced_entry():
    rows = sample_rows(1000, 50, 0, [[999, 3], [500]])
    assert {3, 500, 999} <= set(rows.tolist())
    assert len(rows) >= 50 and (np.diff(rows) > 0).all()


def test_a_sampled_fit_groups_every_entry_by_its_subject():
    tids, rows = corpus()
    m = fit_sampled(model(), tids, size=60, pinned={}, held={}, hidden=[], context={})
    n = len(tids)
    assert len(m.labels_) == len(m.scores_) == len(m.terms_) == len(m.similar_) == n
    assert len(m.fitted_rows_) < n / 2  # most entries were placed, not fitted
    assert len(m.embedding_) == len(m.fitted_rows_)
    groups = [topics_of(m.labels_, r) for r in rows.values()]
    assert all(len(g) == 1 for g in groups)  # each subject in one topic ...
    assert len(set().union(*groups)) == 3  # ... of its own
    # similar entries are indices among every entry, of the same subject
    subject_of = {i: s for s, r in rows.items() for i in r}
    for i in (0, 1, 2, n - 1):
        assert m.similar_[i]
        assert all(subject_of[j] == subject_of[i] for j, _ in m.similar_[i])


def test_a_held_group_ends_in_one_topic_even_outside_the_sample():
    tids, rows = corpus()
    held_rows = [rows["gpu"][5], rows["db"][7], rows["bird"][9]]
    m = fit_sampled(
        model(), tids, size=30, pinned={}, held={"mine": held_rows}, hidden=[], context={}
    )
    assert set(held_rows) <= set(m.fitted_rows_.tolist())
    assert len({int(m.labels_[i]) for i in held_rows}) == 1


def test_pool_index_finds_the_nearest_rows_within_a_group(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(scale, "POOL_GROUP", 10)
    rng = np.random.default_rng(0)
    centres = np.eye(4, dtype=np.float32)
    pool = np.repeat(centres, 25, axis=0) + 0.05 * rng.standard_normal((100, 4)).astype(np.float32)
    pool /= np.linalg.norm(pool, axis=1, keepdims=True)
    idx, sim = PoolIndex(pool, 0)(pool[[0, 60]], pool, 3)
    assert set(idx[0].tolist()) <= set(range(25)) and set(idx[1].tolist()) <= set(range(50, 75))
    assert (sim[:, 0] >= sim[:, 1]).all()


def test_a_sampled_fit_keeps_a_hidden_subject_out_of_its_topics():
    tids, rows = corpus()
    hidden = list(rows["db"])[:20]
    m = fit_sampled(model(), tids, size=60, pinned={}, held={}, hidden=[hidden], context={})
    assert set(hidden) <= set(m.fitted_rows_.tolist())
    words = set(SUBJECTS["db"].split())
    assert not any(words & set(name.lower().replace("&", " ").split()) for name in m.topic_names_)
    # among the fitted entries, no topic is mostly the hidden subject's
    fitted = m.fitted_rows_
    db = np.isin(fitted, list(rows["db"]))
    for c in range(m.n_topics_):
        inside = m.labels_[fitted] == c
        assert db[inside].sum() * 2 <= inside.sum()
    assert not topics_of(m.labels_, rows["gpu"]) & topics_of(m.labels_, rows["bird"])


# the database subject leans towards the gpu one (one shared word), and outnumbers it
LEANING = {
    "gpu": (SUBJECTS["gpu"], 80),
    "db": (SUBJECTS["db"] + " memory", 120),
    "bird": (SUBJECTS["bird"], 160),
}


def leaning_corpus() -> tuple[TokenIds, np.ndarray]:
    """LEANING's entries, shuffled, as token ids; and each entry's subject."""
    rng = random.Random(0)
    vocab = sorted({w for words, _ in LEANING.values() for w in words.split()})
    column = {w: j for j, w in enumerate(vocab)}
    subjects = [s for s, (_, n) in LEANING.items() for _ in range(n)]
    rng.shuffle(subjects)
    docs = [[column[w] for w in rng.sample(LEANING[s][0].split(), 5)] for s in subjects]
    indptr = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in docs], out=indptr[1:])
    ids = np.asarray([j for d in docs for j in d], dtype=np.uint32)
    return TokenIds(ids, indptr, vocab), np.asarray(subjects)


@pytest.mark.parametrize("random_state", [0, 1, 2])
def test_entries_placed_outside_the_sample_make_no_topic_mostly_a_hidden_subject(
    random_state: int,
):
    tids, subjects = leaning_corpus()
    db = subjects == "db"
    hidden = np.flatnonzero(db)[:20].tolist()
    m = TopicModel(3, anchors=(), max_share=None, random_state=random_state, spectral=False)
    fit_sampled(m, tids, size=90, pinned={}, held={}, hidden=[hidden], context={})
    assert (~np.isin(np.arange(len(tids)), m.fitted_rows_) & db).sum() > 60  # placed
    # over every entry, no topic holds more of the hidden subject's than of its own
    for c in range(m.n_topics_):
        inside = m.labels_ == c
        assert db[inside].sum() * 2 <= inside.sum(), (c, db[inside].sum(), inside.sum())
    # the hidden subject names no topic
    words = set(SUBJECTS["db"].split())
    assert not any(words & set(name.lower().replace("&", " ").split()) for name in m.topic_names_)
