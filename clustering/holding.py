"""The fit's steps that keep the user's corrections.

- :func:`hold`: every held group of entries ends in one cluster (the one most of it went
  to, or a new one).
- :func:`hidden_subjects`, :func:`stragglers` and :func:`place_guests`: a hidden topic's
  subject stays out of a fresh fit. Its entries, and the other entries as near its
  centre as its own are, are left out of the clustering, as are those the clusters then
  made that sit nearer it than their cluster; each then joins the nearest cluster of
  the others, and no cluster takes more of them than it has entries of its own, so none
  forms, splits or is mostly the hidden subject (a re-cluster that continues the saved
  model keeps them out as :mod:`.continuing` says).

The pipeline turns the corrections in the store into these groups
(:func:`.keeping.holding`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .cohesion import MIXED_BELOW, pair_mean, relative

Groups = Mapping[Any, Sequence[int]]  # a key (a topic id) -> entry indices

# an entry is of a hidden subject when it is as near the subject's centre as all but this
# share of the hidden topic's own entries are to the centre of the others (the continued
# fit's bar for an entry fitting a topic, continuing.FIT_QUANTILE)
HIDDEN_NEAR_QUANTILE = 0.1
SUBJECT_MIN = 3  # entries a hidden topic needs for others to be of its subject


def held_seeds(held: Groups, context: Groups) -> list[Any]:
    """Each held group's seed rows: its own and its context's."""
    import numpy as np

    return [
        np.unique(np.asarray([*g, *context.get(key, ())], dtype=np.int64))
        for key, g in held.items()
    ]


class Hidden(NamedTuple):
    """The hidden subjects as a fresh fit keeps them out."""

    rows: Any  # (n,) whether each entry is of a hidden subject
    centres: Any  # (m, d) the unit centre of each hidden topic that is a subject


def hidden_subjects(x: Any, hidden: Sequence[Sequence[int]], held: Groups) -> Hidden:
    """The entries of a hidden subject among the rows of ``x`` (unit rows): each ``hidden``
    group's, and, for a coherent group of SUBJECT_MIN or more (a mixed one's entries
    share no subject another entry could be of), every entry as near its centre as its
    own entries are to the centre of the others (all but HIDDEN_NEAR_QUANTILE of them; an
    entry's own weight in the centre would flatter it). A ``held`` entry never is: a
    correction placed it. None is when every entry would be: nothing would be left."""
    import numpy as np

    n = x.shape[0]
    rows = np.zeros(n, dtype=bool)
    centres = []
    corpus = None
    for group in hidden:
        members = np.asarray(group, dtype=np.int64)
        if not len(members):
            continue
        rows[members] = True
        if len(members) < SUBJECT_MIN:
            continue
        if corpus is None:
            corpus = pair_mean(x)
        if relative(pair_mean(x[members]), corpus) < MIXED_BELOW:
            continue
        own = np.asarray(x[members], dtype=np.float64)
        total = own.sum(axis=0)
        others = total[None, :] - own
        norms = np.linalg.norm(others, axis=1)
        fit = np.einsum("ij,ij->i", own, others) / np.where(norms > 0, norms, 1.0)
        centre = total / (np.linalg.norm(total) or 1.0)
        near = np.asarray(x @ centre).ravel()
        rows |= near >= float(np.quantile(fit, HIDDEN_NEAR_QUANTILE, method="lower"))
        centres.append(centre)
    for members in held.values():
        rows[np.asarray(members, dtype=np.int64)] = False
    if rows.all():
        rows[:] = False
    return Hidden(rows, np.vstack(centres) if centres else np.zeros((0, x.shape[1])))


def stragglers(x: Any, labels: Any, hidden: Hidden, held: Groups) -> Any:
    """(n,) the entries, of none of the ``hidden`` subject's rows nor ``held``, that sit
    nearer a hidden subject's centre than their cluster's (``labels``; the centre of its
    entries not of the hidden subject): the hidden subject's entries the bar of
    :func:`hidden_subjects` missed, which the fit grouped."""
    import numpy as np

    out = np.zeros(len(labels), dtype=bool)
    if not len(hidden.centres):
        return out
    own = np.flatnonzero(~hidden.rows)
    k = int(labels[own].max()) + 1
    centres = _centres(x, own, labels[own], k)
    mine = np.einsum("ij,ij->i", np.asarray(x[own]), centres[labels[own]])
    out[own] = np.asarray(x[own] @ hidden.centres.T).max(axis=1) > mine
    for members in held.values():
        out[np.asarray(members, dtype=np.int64)] = False
    return out if not (out | hidden.rows).all() else np.zeros(len(labels), dtype=bool)


def place_guests(
    space: Any, labels: Any, guests: Any, keys: Sequence[Any]
) -> tuple[Any, list[Any]]:
    """``labels`` (renumbered 0..k-1) with each ``guests`` row in the cluster of ``space``
    whose centre (of its rows not guests) is nearest, nearest first, while the cluster
    holds fewer guests than rows of its own (once every cluster is full, the rest to
    their nearest), and each cluster's held key (``keys``: each cluster's before). A
    cluster of guests alone goes."""
    import numpy as np

    labels = np.array(labels, copy=True)
    rows = np.flatnonzero(guests)
    own = np.flatnonzero(~guests)
    k = int(labels.max()) + 1
    room = np.bincount(labels[own], minlength=k)
    live = np.flatnonzero(room)
    centres = _centres(space, own, labels[own], k)[live]
    sims = np.asarray(space[rows] @ centres.T)
    room = room[live]
    for i in np.argsort(-sims.max(axis=1), kind="stable").tolist():
        free = room > 0
        c = int(np.where(free, sims[i], -np.inf).argmax()) if free.any() else int(sims[i].argmax())
        labels[rows[i]] = live[c]
        room[c] -= 1
    kept, labels = np.unique(labels, return_inverse=True)
    return labels, [keys[c] for c in kept.tolist()]


def _centres(x: Any, rows: Any, labels: Any, k: int) -> Any:
    """(k, d) the unit mean of each cluster's ``rows`` of ``x`` (``labels``: theirs)."""
    import numpy as np

    centres = np.zeros((k, x.shape[1]))
    np.add.at(centres, labels, np.asarray(x[rows]))
    return centres / np.maximum(np.linalg.norm(centres, axis=1, keepdims=True), 1e-12)


def hold(labels: Any, held: Groups, context: Groups) -> tuple[Any, list[Any]]:
    """``labels`` (renumbered 0..k-1) with every ``held`` group (entry indices) in one
    cluster of its own, and each cluster's held key (None: none). A group goes to the
    cluster holding the largest share of it and of its ``context``, unless a stronger
    claim took it, else to a new one."""
    import numpy as np

    labels = np.array(labels, copy=True)
    k = int(labels.max()) + 1
    keys = list(held)
    seeds = held_seeds(held, context)
    claims = []
    for g, members in enumerate(seeds):
        counts = np.bincount(labels[members], minlength=k)
        for c in np.flatnonzero(counts).tolist():
            claims.append((-counts[c] / len(members), g, c))
    cluster: dict[int, int] = {}
    taken: set[int] = set()
    for _, g, c in sorted(claims):
        if g not in cluster and c not in taken:
            cluster[g] = c
            taken.add(c)
    for g, key in enumerate(keys):
        if g not in cluster:
            cluster[g] = k
            taken.add(k)
            k += 1
        labels[np.asarray(held[key], dtype=np.int64)] = cluster[g]
    _, labels = np.unique(labels, return_inverse=True)
    out: list[Any] = [None] * (int(labels.max()) + 1)
    for key in keys:
        out[int(labels[held[key][0]])] = key
    return labels, out
