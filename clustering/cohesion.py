"""How much a topic's entries share, and whether an anchor's name fits a topic.

Cohesion compares the mean cosine of two entries of a topic with that of any two entries
of the corpus, in the LSA space (the vectors before any smoothing, so neighbours do not
lend an entry a topic's look): 1.0 when the topic's entries say the same, 0 when they
share no more than any two entries do. A topic whose cohesion is below MIXED_BELOW is
mixed: the reader is told so ("Mixed: a, b, c") and sees it after the coherent ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# below this cohesion a keyword-named topic is mixed; chosen on the quality suite's
# labelled corpora, worst case (bench/mixed_sweep.py; docs/clustering.md, "Cohesion")
MIXED_BELOW = 0.4
ANCHOR_MIN_USE = 0.6  # share of a topic's entries that must use an anchor's terms


def cohesion(vectors: Any, labels: Any, k: int) -> list[float]:
    """Each topic's cohesion, 0..1, rounded to 4 places: how much more its entries share
    than any two entries of the corpus do, 1 - (mean cosine of two entries of the corpus)
    / (mean cosine of two entries of the topic); 0 when they share no more than any two.
    Mean cosines of pairs come from the sum of the unit rows (|sum|^2 = m + sum over
    pairs), so this is O(n * d); unlike a mean cosine to the centre it does not favour
    small topics. A topic of one entry reads 1.0."""
    corpus = pair_mean(vectors)
    return [relative(pair_mean(vectors[labels == c]), corpus) for c in range(k)]


def pair_mean(rows: Any) -> float | None:
    """The mean cosine of two of the unit ``rows`` (None for fewer than two), O(n * d)."""
    import numpy as np

    m = len(rows)
    if m < 2:
        return None
    total = np.asarray(rows.sum(axis=0), dtype=np.float64).ravel()
    return float((total @ total - m) / (m * (m - 1)))


def relative(inside: float | None, corpus: float | None) -> float:
    """A group's cohesion from its :func:`pair_mean` and the corpus's, rounded to 4 places."""
    if inside is None:
        return 1.0
    if inside <= 0:
        return 0.0
    return round(max(0.0, 1.0 - (corpus or 0.0) / inside), 4)


def term_use(counts: Any, members: Any, cols: Sequence[int]) -> float:
    """The share of the rows ``members`` (a boolean mask) of ``counts`` that use at least
    one of the terms of columns ``cols`` in their own text."""
    import numpy as np

    n = int(np.count_nonzero(members))
    if not n or not cols:
        return 0.0
    used = np.asarray(counts[np.flatnonzero(members)][:, cols].sum(axis=1)).ravel() > 0
    return float(used.mean())
