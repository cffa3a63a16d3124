"""Each entry's nearest entries, and what is built from them: smoothing, the spectral
embedding, similar entries. Vectors are unit rows, so a dot product is a cosine."""

from __future__ import annotations

from typing import Any

SMOOTH_NEIGHBOURS = 20  # each entry's vector is pulled towards its nearest entries' ...
SMOOTH_WEIGHT = 2.0  # ... mean, with this weight (measured on CSL: +0.02 NMI)
SPECTRAL_MIN, SPECTRAL_MAX = 500, 5_000  # KMeans runs on a spectral embedding between
# these sizes: below, the graph is too coarse; above, the all-pairs graph costs too much
# (docs/clustering.md, "Spectral step")
# each entry's graph neighbours: this share of the expected topic size n / k, within the
# bounds (chosen by the quality suite's worst ratio; docs/clustering.md, "Spectral step")
SPECTRAL_SHARE = 0.6
SPECTRAL_NEIGHBOURS_MIN, SPECTRAL_NEIGHBOURS_MAX = 15, 100
SPECTRAL_STEPS = 3  # eigenvectors weighed by eigenvalue ** steps, as in a diffusion map
SILHOUETTE_SAMPLE = 2_000  # rows the silhouette is measured on (cost O(sample^2))
ALL_PAIRS_MAX = 5_000  # above this, nearest entries are looked for within a first clustering
FIRST_PASS_SAMPLE = 10_000  # the first clustering is fitted on a sample this large


def spectral_neighbours(n: int, k: int) -> int:
    """Graph neighbours per entry in a corpus of ``n`` entries and ``k`` topics: a share
    of the expected topic size, so that short texts, whose nearest few are noisy, still
    link mostly within their topic, and small topics are not drowned by larger ones."""
    m = round(SPECTRAL_SHARE * n / max(k, 1))
    return max(1, min(n - 1, max(SPECTRAL_NEIGHBOURS_MIN, min(SPECTRAL_NEIGHBOURS_MAX, m))))


def smooth_count(n: int) -> int:
    """How many nearest entries an entry is smoothed towards, in a corpus of ``n``."""
    return min(SMOOTH_NEIGHBOURS, max(3, n // 50))


def nearest(vectors: Any, groups: Any, m: int) -> tuple[Any, Any]:
    """Each row's ``m`` nearest other rows by cosine: indices and similarities, best
    first, -1 where there are fewer. All pairs when ``groups`` is None, else only within
    each group (one label per row)."""
    import numpy as np

    n = vectors.shape[0]
    idx = np.full((n, m), -1, dtype=np.int64)
    sim = np.zeros((n, m), dtype=np.float32)
    if m <= 0 or n < 2:
        return idx, sim
    parts = (
        [np.arange(n)]
        if groups is None
        else [np.flatnonzero(groups == c) for c in range(int(groups.max()) + 1)]
    )
    for members in parts:
        if len(members) < 2:
            continue
        sub = vectors[members]
        mm = min(m, len(members) - 1)
        for start in range(0, len(members), 1024):
            block = sub[start : start + 1024] @ sub.T
            rows = np.arange(block.shape[0])
            block[rows, rows + start] = -np.inf
            top, val = _best(block, mm)
            at = members[start : start + block.shape[0]]
            idx[at, :mm] = members[top]
            sim[at, :mm] = val
    return idx, sim


def nearest_in(queries: Any, vectors: Any, m: int) -> tuple[Any, Any]:
    """Each query row's ``m`` nearest rows of ``vectors`` (another set): indices and
    similarities, best first."""
    import numpy as np

    m = min(m, len(vectors))
    idx = np.zeros((len(queries), m), dtype=np.int64)
    sim = np.zeros((len(queries), m), dtype=np.float32)
    for start in range(0, len(queries), 512):
        top, val = _best(queries[start : start + 512] @ vectors.T, m)
        idx[start : start + 512] = top
        sim[start : start + 512] = val
    return idx, sim


def _best(block: Any, m: int) -> tuple[Any, Any]:
    """The columns of each row's ``m`` largest values, and the values, best first (ties
    in column order of the partition, kept by a stable sort)."""
    import numpy as np

    top = np.argpartition(-block, m - 1, axis=1)[:, :m]
    val = np.take_along_axis(block, top, axis=1)
    order = np.argsort(-val, axis=1, kind="stable")
    return np.take_along_axis(top, order, axis=1), np.take_along_axis(val, order, axis=1)


def neighbour_graph(x: Any, m: int, k: int, random_state: int) -> tuple[Any, Any]:
    """:func:`nearest` for the fit: all pairs up to ALL_PAIRS_MAX rows; above, within the
    clusters of a first KMeans pass (groups of about 1,000 keep the search cheap), fitted
    on a sample and then joined by every row."""
    import numpy as np

    from .partition import one_start_centroids

    n = x.shape[0]
    if n <= ALL_PAIRS_MAX:
        return nearest(x, None, m)
    rng = np.random.default_rng(random_state)
    sample = np.sort(rng.choice(n, size=min(n, FIRST_PASS_SAMPLE), replace=False))
    centres = one_start_centroids(x[sample], max(k, n // 1000), random_state)
    first = np.empty(n, dtype=np.int64)
    for start in range(0, n, 8192):
        first[start : start + 8192] = (x[start : start + 8192] @ centres.T).argmax(axis=1)
    return nearest(x, first, m)


def smooth(vectors: Any, idx: Any, pool: Any = None, weight: float = SMOOTH_WEIGHT) -> Any:
    """Pull each unit row towards the mean of the rows of ``pool`` (default: ``vectors``
    themselves) that ``idx`` names (-1: none), then unit length again: neighbours vote
    on what an entry is about, which short or odd texts need."""
    import numpy as np

    pool = vectors if pool is None else pool
    out = np.empty_like(vectors)
    for start in range(0, vectors.shape[0], 4096):
        part = idx[start : start + 4096]
        valid = part >= 0
        acc = np.zeros((part.shape[0], vectors.shape[1]), dtype=np.float32)
        for j in range(part.shape[1]):
            rows = np.flatnonzero(valid[:, j])
            acc[rows] += pool[part[rows, j]]
        count = np.maximum(valid.sum(axis=1, keepdims=True), 1)
        mixed = vectors[start : start + 4096] + weight * acc / count
        out[start : start + 4096] = mixed / np.maximum(
            np.linalg.norm(mixed, axis=1, keepdims=True), 1e-12
        )
    return out


def spectral_embedding(
    vectors: Any, dims: int, neighbours: int, random_state: int, steps: int = SPECTRAL_STEPS
) -> Any:
    """Rows of the top ``dims`` eigenvectors of the normalised affinity of a
    nearest-entries graph (symmetric, cosine weights), each weighed by its eigenvalue to
    the power ``steps`` (a diffusion map of that many steps: the directions a random walk
    on the graph keeps count most), made unit length: the space spectral clustering runs
    KMeans in. All pairs, so only for modest corpora."""
    import numpy as np
    import scipy.sparse as sp

    n = vectors.shape[0]
    m = min(neighbours, n - 1)
    idx, sim = nearest(vectors, None, m)
    rows = np.repeat(np.arange(n), m)
    ok = idx.ravel() >= 0
    a = sp.csr_matrix(
        (np.maximum(sim.ravel()[ok], 0.0).astype(np.float64), (rows[ok], idx.ravel()[ok])),
        shape=(n, n),
    )
    a = a.maximum(a.T)
    deg = np.asarray(a.sum(axis=1)).ravel()
    dinv = sp.diags(1.0 / np.sqrt(np.maximum(deg, 1e-12)))
    aff = (dinv @ a @ dinv).tocsr()
    dims = max(1, min(dims, n - 2))
    if n <= 1_000:
        vals, vecs = np.linalg.eigh(aff.toarray())
        vals, vecs = vals[-dims:], vecs[:, -dims:]
    else:
        from scipy.sparse.linalg import eigsh

        v0 = np.random.default_rng(random_state).random(n)
        vals, vecs = eigsh(aff, k=dims, which="LA", v0=v0)
    vecs = (vecs * np.maximum(vals, 0.0) ** steps).astype(np.float32)
    return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)


def silhouette(vectors: Any, labels: Any, random_state: int) -> float:
    """Mean silhouette of ``labels`` on unit rows (euclidean on unit rows is cosine), on a
    sample of SILHOUETTE_SAMPLE rows when there are more; 0.0 for a single cluster."""
    import numpy as np
    from sklearn.metrics import silhouette_score

    n = len(labels)
    if len(np.unique(labels)) < 2 or n < 3:
        return 0.0
    sample = SILHOUETTE_SAMPLE if n > SILHOUETTE_SAMPLE else None
    return float(silhouette_score(vectors, labels, sample_size=sample, random_state=random_state))


def top_similar(idx: Any, sim: Any, top: int) -> tuple[Any, Any]:
    """Each row's ``top`` most similar rows, from :func:`nearest`'s answer, as arrays: their
    indices (-1: none) and cosines to six decimals (float64)."""
    import numpy as np

    return idx[:, :top], np.round(sim[:, :top].astype(np.float64), 6)


def pairs_of(idx: Any, sim: Any) -> list[list[tuple[int, float]]]:
    """The arrays of :func:`top_similar` as each row's list of (row, cosine)."""
    return [
        [(j, v) for j, v in zip(ri, rs, strict=True) if j >= 0]
        for ri, rs in zip(idx.tolist(), sim.tolist(), strict=True)
    ]


def similar_pairs(idx: Any, sim: Any, top: int) -> list[list[tuple[int, float]]]:
    """Each row's ``top`` most similar rows, from :func:`nearest`'s answer, as (row,
    cosine to six decimals)."""
    return pairs_of(*top_similar(idx, sim, top))
