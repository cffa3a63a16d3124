"""The fit's steps that keep the user's corrections.

- :func:`hold`: every held group of entries ends in one cluster (the one most of it went
  to, or a new one).
- :func:`hidden_subjects`, :func:`stragglers` and :func:`place_guests`: a hidden topic's
  subject stays out of a fresh fit. Its entries are left out of the clustering; of the
  clusters the others make, an entry nearer the hidden topic than its cluster, and every
  entry of a cluster as alike the hidden topic's entries as these are to each other,
  join them. Each then goes to the nearest cluster left, and no cluster takes more of
  them than it has entries of its own, so none forms, splits or is mostly the hidden
  subject (a re-cluster that continues the saved model keeps them out as
  :mod:`.continuing` says).

The pipeline turns the corrections in the store into these groups
(:func:`.keeping.holding`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .cohesion import MIXED_BELOW, pair_mean, relative

Groups = Mapping[Any, Sequence[int]]  # a key (a topic id) -> entry indices

SUBJECT_MIN = 3  # entries a hidden topic needs for others to be of its subject
# a cluster is as alike a hidden topic's entries as these are to each other unless its
# mean falls this many standard errors below theirs (about 1 in 40 by chance)
ALIKE_ERRORS = 2.0


def held_seeds(held: Groups, context: Groups) -> list[Any]:
    """Each held group's seed rows: its own and its context's."""
    import numpy as np

    return [
        np.unique(np.asarray([*g, *context.get(key, ())], dtype=np.int64))
        for key, g in held.items()
    ]


class Hidden(NamedTuple):
    """The hidden topics as a fresh fit keeps them out."""

    rows: Any  # (n,) the hidden topics' entries
    sums: Any  # (m, d) the sum of the entries of each hidden topic that is a subject
    sizes: Any  # (m,) its entries
    alike: Any  # (m,) the mean cosine of two of its entries
    spread: Any  # (m,) the standard deviation of each entry's mean cosine to the others


def hidden_subjects(x: Any, hidden: Sequence[Sequence[int]], held: Groups) -> Hidden:
    """The hidden topics' entries among the rows of ``x`` (unit rows; a ``held`` one
    never is: a correction placed it), and the subject each coherent one of SUBJECT_MIN
    or more entries is (a mixed one's entries share no subject other entries could be
    of). No entry is kept out when every one would be: nothing would be left to fit."""
    import numpy as np

    n, d = x.shape
    rows = np.zeros(n, dtype=bool)
    sums, sizes, alike, spread = [], [], [], []
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
        within = pair_mean(x[members])
        if relative(within, corpus) >= MIXED_BELOW:
            own = np.asarray(x[members], dtype=np.float64)
            total = own.sum(axis=0)
            sums.append(total)
            sizes.append(len(members))
            alike.append(within)
            spread.append(float(np.std((own @ total - 1.0) / (len(members) - 1))))
    for members in held.values():
        rows[np.asarray(members, dtype=np.int64)] = False
    if rows.all():
        rows[:] = False
    subjects = np.vstack(sums) if sums else np.zeros((0, d))
    return Hidden(rows, subjects, np.asarray(sizes), np.asarray(alike), np.asarray(spread))


def stragglers(x: Any, labels: Any, hidden: Hidden, held: Groups) -> Any:
    """(n,) the entries, of no hidden topic nor ``held``, that are of a hidden subject as
    the fit grouped them (``labels``): those nearer a hidden topic's centre than their
    cluster's (of its entries of no hidden topic), as a continued fit keeps new entries
    out, and those of a cluster whose entries are as alike the hidden topic's as these
    are to each other (the mean cosine of a pair, less ALIKE_ERRORS standard errors of a
    cluster's mean: a cluster of the subject's entries falls short of it by chance): the
    hidden topic made again."""
    import numpy as np

    out = np.zeros(len(labels), dtype=bool)
    if not len(hidden.sums):
        return out
    own = np.flatnonzero(~hidden.rows)
    k = int(labels[own].max()) + 1
    totals = _sums(x, own, labels[own], k)
    centres = unit_rows(totals)
    subjects = hidden.sums / np.linalg.norm(hidden.sums, axis=1, keepdims=True)
    mine = np.einsum("ij,ij->i", np.asarray(x[own]), centres[labels[own]])
    out[own] = np.asarray(x[own] @ subjects.T).max(axis=1) > mine
    counts = np.bincount(labels[own], minlength=k)
    cross = (totals @ hidden.sums.T) / np.outer(np.maximum(counts, 1), hidden.sizes)
    error = hidden.spread[None, :] / np.sqrt(np.maximum(counts, 1))[:, None]
    again = (cross >= hidden.alike[None, :] - ALIKE_ERRORS * error).any(axis=1)
    out[own] |= again[labels[own]]
    for members in held.values():
        out[np.asarray(members, dtype=np.int64)] = False
    return out if not (out | hidden.rows).all() else np.zeros(len(labels), dtype=bool)


def place_guests(
    space: Any, labels: Any, guests: Any, keys: Sequence[Any], stay: Any = None
) -> tuple[Any, list[Any]]:
    """``labels`` (renumbered 0..k-1) with each ``guests`` row in the cluster of ``space``
    whose centre (of its rows not guests) is nearest, nearest first, while the cluster
    holds fewer guests than rows of its own (once every cluster is full, the rest to
    their nearest), and each cluster's held key (``keys``: each cluster's before). A
    guest with a ``stay`` (n,) mark (a continued fit's: its cluster in ``labels``) keeps
    that cluster while it has room. A cluster of guests alone goes."""
    import numpy as np

    labels = np.array(labels, copy=True)
    rows = np.flatnonzero(guests)
    own = np.flatnonzero(~guests)
    k = int(labels.max()) + 1
    room = np.bincount(labels[own], minlength=k)
    live = np.flatnonzero(room)
    centres = _centres(space, own, labels[own], k)[live]
    sims = np.asarray(space[rows] @ centres.T)
    where = None  # each guest's cluster to stay in, as a position among the live
    if stay is not None:
        at = np.full(k, -1, dtype=np.int64)
        at[live] = np.arange(len(live))
        where = np.where(np.asarray(stay, dtype=bool)[rows], at[labels[rows]], -1)
    labels[rows] = live[fill(sims, room[live], where)]
    kept, labels = np.unique(labels, return_inverse=True)
    return labels, [keys[c] for c in kept.tolist()]


def fill(sims: Any, room: Any, stay: Any = None) -> Any:
    """(g,) each guest's cluster (``sims``: (g, k) its cosine to each cluster's centre):
    the nearest that holds fewer guests than its ``room`` (k,) allows, the guests nearest
    any cluster placed first; once every cluster is full, the rest go to their nearest.
    A guest's ``stay`` cluster (g,) (-1: none), where it is already, comes before any
    other while it has room, and those guests first: a guest moves only when the room
    asks."""
    import numpy as np

    room = np.array(room, dtype=np.int64, copy=True)
    if stay is not None:
        sims = np.array(sims, dtype=np.float64, copy=True)
        staying = np.flatnonzero(np.asarray(stay) >= 0)
        sims[staying, np.asarray(stay)[staying]] += 2.0  # above any cosine
    out = np.empty(len(sims), dtype=np.int64)
    for i in np.argsort(-sims.max(axis=1), kind="stable").tolist():
        free = room > 0
        c = int(np.where(free, sims[i], -np.inf).argmax()) if free.any() else int(sims[i].argmax())
        out[i] = c
        room[c] -= 1
    return out


def _sums(x: Any, rows: Any, labels: Any, k: int) -> Any:
    """(k, d) the sum of each cluster's ``rows`` of ``x`` (``labels``: theirs)."""
    import numpy as np

    sums = np.zeros((k, x.shape[1]))
    np.add.at(sums, labels, np.asarray(x[rows]))
    return sums


def _centres(x: Any, rows: Any, labels: Any, k: int) -> Any:
    """(k, d) the unit mean of each cluster's ``rows`` of ``x`` (``labels``: theirs)."""

    return unit_rows(_sums(x, rows, labels, k))


def unit_rows(a: Any) -> Any:
    """``a`` (m, d) with each row scaled to length 1 (a zero row stays zero)."""
    import numpy as np

    return a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)


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
