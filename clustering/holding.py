"""The fit's step that keeps the user's corrections: every held group of entries ends in
one cluster (the one most of it went to, or a new one), and a hidden topic's cluster is
dissolved, its entries going to their next-nearest cluster. The pipeline turns the
corrections in the store into these groups (:func:`.keeping.holding`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Groups = Mapping[Any, Sequence[int]]  # a key (a topic id) -> entry indices


def held_seeds(held: Groups, context: Groups) -> list[Any]:
    """Each held group's seed rows: its own and its context's."""
    import numpy as np

    return [
        np.unique(np.asarray([*g, *context.get(key, ())], dtype=np.int64))
        for key, g in held.items()
    ]


def hold(
    space: Any,
    labels: Any,
    held: Groups,
    hidden: Sequence[Sequence[int]],
    context: Groups,
) -> tuple[Any, list[Any]]:
    """``labels`` (renumbered 0..k-1) with every ``held`` group (entry indices) in one
    cluster of its own, and each cluster's held key (None: none). A group goes to the
    cluster holding the largest share of it and of its ``context``, unless a stronger
    claim took it, else to a new one. Then the cluster most of each ``hidden`` group went
    to (one no group holds) is dissolved: its entries go to the nearest other cluster's
    centre in ``space``."""
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
    for members in hidden:
        if not len(members):
            continue
        c = int(np.bincount(labels[np.asarray(members)], minlength=k).argmax())
        live = [d for d in np.unique(labels).tolist() if d != c]
        if c in taken or not live:
            continue
        rows = np.flatnonzero(labels == c)
        centres = np.vstack([np.asarray(space[labels == d].mean(axis=0)).ravel() for d in live])
        sims = np.asarray(space[rows] @ centres.T)
        labels[rows] = np.asarray(live)[sims.argmax(axis=1)]
    _, labels = np.unique(labels, return_inverse=True)
    out: list[Any] = [None] * (int(labels.max()) + 1)
    for key in keys:
        out[int(labels[held[key][0]])] = key
    return labels, out
