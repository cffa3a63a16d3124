"""clustering/holding.py: a hidden topic's subject stays out of a fresh fit. Its entries,
and new ones of its subject, join topics the other entries make, none of which they make
up most of, and they name none. Clusters are found by their members, never by labels."""

from __future__ import annotations

import random

import numpy as np
from topiclens.clustering.estimator import TopicModel
from topiclens.clustering.holding import hidden_subjects, place_guests, stragglers

SUBJECTS = {
    "gpu": "gpu kernel cuda warp register occupancy",
    "net": "packet router switch latency bandwidth congestion",
    "db": "database index query planner btree join",
    # a small subject beside the database one: two of its words, three of its own
    "backup": "backup snapshot replica restore archive",
}


def texts(subject: str, n: int, seed: int, k: int = 5) -> list[str]:
    rng = random.Random(seed)
    words = SUBJECTS[subject].split()
    return [" ".join(rng.sample(words, k)) for _ in range(n)]


def fit(docs: list[str], hidden: list[range]) -> TopicModel:
    model = TopicModel(anchors=(), random_state=0, bigrams=False)
    return model.fit(docs, hidden=hidden)


def shares(model: TopicModel, rows: set[int]) -> list[float]:
    """Each topic's share of entries among ``rows``."""
    out = []
    for c in range(model.n_topics_):
        inside = np.flatnonzero(model.labels_ == c).tolist()
        out.append(sum(i in rows for i in inside) / len(inside))
    return out


def test_a_fresh_fit_makes_no_topic_of_a_hidden_subject():
    # the hidden topic's 6 database entries, and 8 new ones (most of the fit would make
    # them a topic or two of their own)
    docs = texts("gpu", 30, 0) + texts("net", 30, 1) + texts("db", 6, 2) + texts("db", 8, 3)
    db = set(range(60, 74))
    model = fit(docs, [range(60, 66)])
    assert max(shares(model, db)) <= 0.5
    # no topic is named by the subject's words, nor judged by them
    words = set(SUBJECTS["db"].split())
    assert not any(
        words & set(name.lower().replace("&", " ").split()) for name in model.topic_names_
    )
    assert not any(model.mixed_)
    # the other subjects still make topics of their own
    gpu = {int(model.labels_[i]) for i in range(30)}
    net = {int(model.labels_[i]) for i in range(30, 60)}
    assert not gpu & net


def test_a_hidden_subject_is_never_most_of_the_small_topic_nearest_it():
    # the backup entries share two words with the database ones: the nearest topic to
    # every hidden entry, and a quarter their number
    backup = [f"{t} database query" for t in texts("backup", 4, 4, 3)]
    docs = texts("gpu", 30, 0) + texts("net", 30, 1) + backup + texts("db", 16, 2)
    hidden = set(range(64, 80))
    model = fit(docs, [range(64, 80)])
    assert len({int(model.labels_[i]) for i in range(60, 64)}) == 1  # still one topic
    assert max(shares(model, hidden)) <= 0.5


def test_guests_fill_the_nearest_cluster_up_to_its_own_size_then_the_next():
    # two clusters of own rows (2 on the x axis, 5 on the y axis) and six guests nearest
    # the first: two fit there, the others go to the next nearest
    space = np.asarray(
        [[1.0, 0.0]] * 2 + [[0.0, 1.0]] * 5 + [[0.9, 0.1 * i] for i in range(6)], dtype=float
    )
    space /= np.linalg.norm(space, axis=1, keepdims=True)
    labels = np.asarray([0] * 2 + [1] * 5 + [0] * 6)
    guests = np.zeros(len(space), dtype=bool)
    guests[7:] = True
    out, keys = place_guests(space, labels, guests, ["first", "second"])
    assert np.bincount(out[7:], minlength=2).tolist() == [2, 4]
    # the two placed in the first are the nearest to it
    assert set(np.flatnonzero(out[7:] == 0).tolist()) == {0, 1}
    assert keys == ["first", "second"]


def test_guests_marked_to_stay_keep_their_cluster_while_it_has_room():
    # as above, but the last two guests are already in the second cluster, and the two
    # after them in the first: those stay, and of the two others only one fits the first
    space = np.asarray(
        [[1.0, 0.0]] * 2 + [[0.0, 1.0]] * 5 + [[0.9, 0.1 * i] for i in range(6)], dtype=float
    )
    space /= np.linalg.norm(space, axis=1, keepdims=True)
    labels = np.asarray([0] * 2 + [1] * 5 + [0] * 4 + [1] * 2)
    guests = np.zeros(len(space), dtype=bool)
    guests[7:] = True
    stay = np.zeros(len(space), dtype=bool)
    stay[9:] = True
    out, _ = place_guests(space, labels, guests, ["first", "second"], stay=stay)
    assert out[11:].tolist() == [1, 1] and out[9:11].tolist() == [0, 0]
    assert np.bincount(out[7:], minlength=2).tolist() == [2, 4]
    # without the marks the nearest two take the first cluster's room
    out, _ = place_guests(space, labels, guests, ["first", "second"])
    assert out[7:9].tolist() == [0, 0] and out[11:].tolist() == [1, 1]


def test_a_cluster_of_guests_alone_goes_and_the_keys_follow():
    space = np.eye(3)[[0, 0, 1, 2, 2]].astype(float)
    labels = np.asarray([0, 0, 1, 2, 2])
    guests = np.asarray([False, False, True, False, False])
    out, keys = place_guests(space, labels, guests, [None, "gone", "kept"])
    assert len(set(out.tolist())) == 2 and keys == [None, "kept"]
    assert out[2] in {out[0], out[3]}


def test_a_cluster_as_alike_the_hidden_entries_as_they_are_joins_them_a_neighbour_does_not():
    rng = np.random.default_rng(0)

    def around(axis: list[float], n: int) -> np.ndarray:
        rows = np.asarray(axis, dtype=float) + 0.2 * rng.standard_normal((n, 3))
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    # six hidden entries and a cluster of four more of their subject; a neighbour that
    # shares a little of it; and a subject of its own
    x = np.vstack(
        [
            around([1, 0, 0], 6),
            around([1, 0, 0], 4),
            around([0.4, 1, 0], 5),
            around([0, 0, 1], 5),
        ]
    )
    labels = np.asarray([0] * 6 + [0] * 4 + [1] * 5 + [2] * 5)
    hidden = hidden_subjects(x, [range(6)], {})
    assert hidden.rows[:6].all() and not hidden.rows[6:].any()
    out = stragglers(x, labels, hidden, {})
    assert out[6:10].all() and not out[10:].any()
    # a held entry stays where the user put it
    assert not stragglers(x, labels, hidden, {"mine": [7]})[7]
