"""Entries into k clusters: seeded KMeans, the 30 % cap, and which seed group each
cluster carries on.

Seed groups (entries an anchor's terms weigh most in; the entries of a topic the user
named) each start one centroid at their mean; the other centroids start k-means++.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

MAX_SHARE = 0.30  # no cluster may hold more than this share of the entries
K_MIN, K_MAX = 6, 48
KMEANS_PP_SAMPLE = 20_000  # k-means++ starts are drawn from a sample this large


def auto_k(n: int, n_seeded: int = 0) -> int:
    """About sqrt(n) topics, at least the seed groups plus a few, never more than K_MAX."""
    if n <= 2:
        return max(1, n)
    k = round(math.sqrt(n))
    k = max(k, K_MIN, n_seeded + 2)
    k = min(k, K_MAX, max(2, n // 3))
    return k


def n_init_for(n: int) -> int:
    """KMeans starts: many where they are cheap, fewer on large corpora (where the
    anchor seeds and the sheer amount of data make starts agree anyway)."""
    return 10 if n <= 5_000 else 4 if n <= 20_000 else 1


def seed_centroids(space: Any, groups: Sequence[Any]) -> list[Any]:
    """The unit-length mean of each group's rows of ``space``."""
    import numpy as np

    out = []
    for members in groups:
        c = np.asarray(space[members].mean(axis=0)).ravel()
        out.append(c / (np.linalg.norm(c) or 1.0))
    return out


def kmeans(x: Any, k: int, seeds: list[Any], random_state: int, n_init: int) -> tuple[Any, float]:
    """Labels and inertia of KMeans whose first centroids are ``seeds`` and the rest
    k-means++; ``n_init`` starts, the lowest inertia wins."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    best = None
    # one OpenMP thread: on a shared or busy machine more threads spin, measured up to five
    # times slower; the reader runs this in the background anyway
    with threadpool_limits(limits=1, user_api="openmp"), warnings.catch_warnings():
        # fewer distinct rows than k: fewer clusters, which the caller reports in words
        warnings.simplefilter("ignore", ConvergenceWarning)
        for trial in range(n_init):
            km = _one_start(x, k, seeds, random_state + 7919 * trial)
            if best is None or km.inertia_ < best.inertia_:
                best = km
    assert best is not None
    return best.labels_.copy(), float(best.inertia_)


def one_start_centroids(x: Any, k: int, random_state: int) -> Any:
    """Unit-length centroids of one unseeded KMeans start on ``x``."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="openmp"):
        c = _one_start(x, k, [], random_state).cluster_centers_
    return (c / np.maximum(np.linalg.norm(c, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def _one_start(x: Any, k: int, seeds: list[Any], rs: int) -> Any:
    """One KMeans run from the ``seeds`` as first centroids, the rest k-means++."""
    import numpy as np
    from sklearn.cluster import KMeans, kmeans_plusplus

    x = np.asarray(x)
    init = np.vstack(seeds)[:k].astype(x.dtype) if seeds else x[:0]
    if k > len(init):
        pool = x
        if len(pool) > KMEANS_PP_SAMPLE:  # k-means++ is k passes over its input
            rng = np.random.default_rng(rs)
            pool = pool[np.sort(rng.choice(len(pool), KMEANS_PP_SAMPLE, replace=False))]
        # float64: scikit-learn's k-means++ on float32 rows is measured 40 times slower
        # for the same centres (docs/clustering.md, "k-means++ in float64")
        extra, _ = kmeans_plusplus(pool.astype(np.float64), k - len(init), random_state=rs)
        init = np.vstack([init, extra.astype(x.dtype)])
    return KMeans(k, init=init, n_init=1, random_state=rs, max_iter=100).fit(x)


def cap(x: Any, labels: Any, random_state: int, max_share: float) -> Any:
    """Split any cluster holding more than ``max_share`` of the rows in two, until none
    does (the new halves take new numbers)."""
    import warnings

    import numpy as np
    from sklearn.cluster import KMeans

    n = len(labels)
    limit = max(1, int(max_share * n))
    for _ in range(64):
        sizes = np.bincount(labels)
        big = int(sizes.argmax())
        if sizes[big] <= limit:
            break
        members = np.flatnonzero(labels == big)
        with warnings.catch_warnings():  # identical docs make sklearn warn
            warnings.simplefilter("ignore")
            km = KMeans(2, n_init=3, random_state=random_state).fit(x[members])
        # identical docs cannot be told apart: split them by order
        one = len(set(km.labels_.tolist())) < 2
        halves = np.arange(len(members)) % 2 if one else km.labels_
        labels[members[halves == 1]] = sizes.shape[0]
    return labels


def covered(members: Any, groups: Sequence[Any]) -> bool:
    """Whether more than half of ``members`` lie in one of ``groups`` (row indices)."""
    import numpy as np

    return any(2 * int(np.isin(members, g).sum()) > len(members) for g in groups)


def relabel(labels: Any) -> Any:
    """Labels numbered 0..k-1, in the order of the old numbers (no empty cluster)."""
    import numpy as np

    _, inverse = np.unique(labels, return_inverse=True)
    return inverse


def carriers(
    labels: Any,
    k: int,
    groups: Sequence[Any],
    keys: Sequence[Any],
    *,
    by_share: bool,
    min_count: int = 1,
) -> list[int | None]:
    """For each cluster, the seed group (an index into ``groups``) it carries on, or
    None: each group claims the cluster most of its rows went to, the strongest claims
    first (ties by the groups' ``keys``), one cluster per group and one group per
    cluster. A claim's strength is its count of rows, or with ``by_share`` its share of
    the group's rows; counted claims below ``min_count`` or below a quarter of the
    cluster claim nothing."""
    import numpy as np

    claims = []
    for g, members in enumerate(groups):
        counts = np.bincount(labels[members], minlength=k)
        for c in np.flatnonzero(counts):
            strength = int(counts[c]) / len(members) if by_share else int(counts[c])
            claims.append((strength, keys[g], int(c), g, int(counts[c])))
    out: list[int | None] = [None] * k
    taken: set[int] = set()
    for _, _, c, g, count in sorted(claims, key=lambda v: (-v[0], v[1], v[2])):
        if out[c] is not None or g in taken:
            continue
        if not by_share and (count < min_count or count < 0.25 * int((labels == c).sum())):
            continue
        out[c] = g
        taken.add(g)
    return out
