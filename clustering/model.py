"""Topics from tokens: TF-IDF, LSA, anchor-seeded KMeans, class-based TF-IDF names.

Pure computation on token lists (no store, no I/O), in the shape scikit-learn users know:
explicit parameters, a ``random_state`` for determinism. numpy, scipy and scikit-learn are
imported inside the functions, so importing this module costs nothing.

Measured choices (bench/bench_csl.py, docs/clustering.md): sublinear term frequency
times BM25's idf over terms seen in at least two entries, rows made unit length; LSA to
``LSA_DIMS`` dimensions with unit-length rows; then KMeans with several starts, the best
start by inertia wins.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .anchors import Anchor
from .tokenize import BIGRAM_MARK, Tokenizer, Vocabulary, default_tokenizer

LSA_DIMS = 100
LSA_DIMS_SMALL = 200  # up to SPECTRAL_MAX entries (measured on CSL with bigrams: +0.005)
SPECTRAL_MIN, SPECTRAL_MAX = 500, 5_000  # KMeans runs on a spectral embedding between
# these sizes: below, a graph of 30 neighbours is too coarse (on the bundled 109 entries,
# with bigrams, two anchors lost their topic); above, the all-pairs graph costs too much
SPECTRAL_NEIGHBOURS = 30  # of a graph of each entry's nearest entries (CSL: 20 / 30 / 50)
SPECTRAL_STEPS = 3  # eigenvectors weighed by eigenvalue ** steps, as in a diffusion map
# (CSL, 5 seeds, NMI discipline at k=67: 0.554 unweighed; 0.560 / 0.561 / 0.560 at 2 / 3 / 4
# steps; 0.554 at 10, 0.541 at 20)
N_INIT = None  # starts of KMeans: 10 for small corpora, fewer as they grow (n_init_for)
SMOOTH_NEIGHBOURS = 20  # each entry's vector is pulled towards its nearest entries' ...
SMOOTH_WEIGHT = 2.0  # ... mean, with this weight (measured on CSL: +0.02 NMI)
MAX_SHARE = 0.30  # no cluster may hold more than this share of the entries
K_MIN, K_MAX = 6, 48
ANCHOR_MIN_SCORE = 0.12  # an entry seeds an anchor when its terms weigh this much
TOP_KEYWORDS = 10
TOP_TERMS = 5
TOP_SIMILAR = 5
LSA_FIT_SAMPLE = 20_000  # above this many entries, LSA is fitted on a sample this large
KMEANS_PP_SAMPLE = 20_000  # k-means++ starts are drawn from a sample this large
ALL_PAIRS_MAX = 5_000  # above this, nearest entries are looked for within clusters

Progress = Callable[[str, float], None]


def n_init_for(n: int) -> int:
    """KMeans starts: many where they are cheap, fewer on large corpora (where the
    anchor seeds and the sheer amount of data make starts agree anyway)."""
    return 10 if n <= 5_000 else 4 if n <= 20_000 else 1


def lsa_dims_for(n: int) -> int:
    return LSA_DIMS_SMALL if n <= SPECTRAL_MAX else LSA_DIMS


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


def auto_k(n: int, n_anchors: int = 0) -> int:
    """About sqrt(n) topics, at least the anchors plus a few, never more than K_MAX."""
    if n <= 2:
        return max(1, n)
    k = round(math.sqrt(n))
    k = max(k, K_MIN, n_anchors + 2)
    k = min(k, K_MAX, max(2, n // 3))
    return k


@dataclass(slots=True)
class Features:
    """TF-IDF rows, the LSA projection and the unit-length LSA vectors of the entries."""

    vocab: list[str]
    idf: Any  # (V,) float32
    tfidf: Any  # (n, V) csr, rows l2-normalised
    counts: Any  # (n, V) csr raw counts
    components: Any  # (d, V) float32, or None when LSA is skipped
    vectors: Any  # (n, d) float32, unit rows


@dataclass(slots=True)
class TokenCounts:
    """Docs given as raw term counts instead of token lists (the pipeline builds them
    from its token-id cache without making a string per token): an (n, V) csr matrix,
    duplicate entries allowed, and each column's token; columns no doc uses are allowed
    and left out."""

    matrix: Any
    vocab: list[str]

    def __len__(self) -> int:
        return int(self.matrix.shape[0])


def build_features(
    docs: Sequence[Sequence[str]] | TokenCounts,
    *,
    random_state: int = 0,
    lsa_dims: int | None = LSA_DIMS,
) -> Features:
    """``docs`` are each doc's feature tokens (word tokens, and bigrams if any), or their
    :class:`TokenCounts`; both give the same features."""
    import numpy as np
    from sklearn.preprocessing import normalize

    min_df = 2 if len(docs) >= 20 else 1
    if isinstance(docs, TokenCounts):
        counts, vocab = select_terms(docs.matrix, docs.vocab, min_df=min_df)
    else:
        counts, vocab = count_matrix(docs, min_df=min_df)
    idf = bm25_idf(counts)
    tfidf = weigh(counts, idf)
    components = None
    dims = min(lsa_dims or 0, tfidf.shape[1] - 1, tfidf.shape[0] - 1)
    if lsa_dims and dims >= 2:
        from sklearn.decomposition import TruncatedSVD

        # fewer power iterations on large corpora: each is two passes over the matrix
        n_iter = 5 if tfidf.shape[0] <= 20_000 else 2
        svd = TruncatedSVD(n_components=dims, random_state=random_state, n_iter=n_iter)
        if tfidf.shape[0] > LSA_FIT_SAMPLE:
            # the projection is learnt from a sample; every row is then one product away
            rng = np.random.default_rng(random_state)
            rows = np.sort(rng.choice(tfidf.shape[0], LSA_FIT_SAMPLE, replace=False))
            svd.fit(tfidf[rows])
            vectors = svd.transform(tfidf)
        else:
            vectors = svd.fit_transform(tfidf)
        components = svd.components_.astype(np.float32)
        vectors = normalize(vectors).astype(np.float32)
    else:
        vectors = tfidf.toarray()
    return Features(vocab, idf, tfidf, counts, components, vectors)


def bm25_idf(counts: Any) -> Any:
    """BM25's idf, log(1 + (n - df + 0.5) / (df + 0.5)), of each column (float32). A term
    in most entries weighs next to nothing (scikit-learn's smoothed idf keeps every term
    at 1 or more)."""
    import numpy as np

    n = counts.shape[0]
    df = np.bincount(counts.indices, minlength=counts.shape[1]).astype(np.float64)
    return np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)


def weigh(counts: Any, idf: Any) -> Any:
    """Unit-length rows of (1 + log tf) * idf."""
    import numpy as np
    from sklearn.preprocessing import normalize

    # in place on one copy of the counts: at 100,000 entries a sparse product by the idf
    # row costs two to three times as much
    w = counts.astype(np.float32, copy=True).tocsr()
    np.log(w.data, out=w.data)
    w.data += np.float32(1.0)
    w.data *= idf.astype(np.float32, copy=False)[w.indices]
    return normalize(w, copy=False)


def count_matrix(docs: Sequence[Sequence[str]], *, min_df: int = 1) -> tuple[Any, list[str]]:
    """Raw term counts (csr) over the terms found in at least ``min_df`` docs."""
    return select_terms(*raw_counts(docs), min_df=min_df)


def raw_counts(docs: Sequence[Sequence[str]]) -> tuple[Any, list[str]]:
    """Each doc's token counts (csr, duplicates not yet summed) over every token, in the
    order first seen, and those tokens."""
    from itertools import chain

    import numpy as np
    import scipy.sparse as sp

    # two C-level passes (dict.fromkeys, then map): at 100,000 docs about ten times faster
    # than a Python loop over the tokens
    index = {t: j for j, t in enumerate(dict.fromkeys(chain.from_iterable(docs)))}
    indptr = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, docs), dtype=np.int64, count=len(docs)), out=indptr[1:])
    indices = np.fromiter(
        map(index.__getitem__, chain.from_iterable(docs)), dtype=np.int32, count=int(indptr[-1])
    )
    data = np.ones(len(indices), dtype=np.float32)
    return sp.csr_matrix((data, indices, indptr), shape=(len(docs), len(index))), list(index)


def select_terms(m: Any, terms: list[str], *, min_df: int = 1) -> tuple[Any, list[str]]:
    """Raw counts ``m`` (csr, duplicates allowed) of the tokens ``terms``, cut to the
    terms found in at least ``min_df`` docs (and in one at least), columns in sorted
    term order."""
    import numpy as np
    import scipy.sparse as sp

    m = m.tocsr()
    m.sum_duplicates()
    df = np.bincount(m.indices, minlength=m.shape[1])
    keep = np.flatnonzero(df >= max(min_df, 1))
    if not len(keep):  # no term that common: keep them all rather than none
        keep = np.flatnonzero(df)
    # a stable column order (sorted terms) so results do not depend on document order;
    # one remapping of the column indices instead of two column selections
    kept = keep.tolist()
    order = sorted(range(len(kept)), key=[terms[j] for j in kept].__getitem__)
    vocab = [terms[kept[i]] for i in order]
    remap = np.full(m.shape[1], -1, dtype=np.int64)
    remap[keep[np.asarray(order, dtype=np.int64)]] = np.arange(len(vocab))
    cols = remap[m.indices]
    ok = cols >= 0
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))[ok]
    new_ptr = np.zeros(m.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=m.shape[0]), out=new_ptr[1:])
    m = sp.csr_matrix(
        (m.data[ok], cols[ok].astype(np.int32), new_ptr), shape=(m.shape[0], len(vocab))
    )
    m.sort_indices()
    return m, vocab


def transform(
    docs: Sequence[Sequence[str]], vocab: list[str], idf: Any, components: Any
) -> tuple[Any, Any]:
    """TF-IDF rows and unit LSA vectors of new docs, with a fitted vocabulary."""
    import numpy as np
    import scipy.sparse as sp
    from sklearn.preprocessing import normalize

    index = {t: j for j, t in enumerate(vocab)}
    rows, cols = [], []
    for i, doc in enumerate(docs):
        for t in doc:
            j = index.get(t)
            if j is not None:
                rows.append(i)
                cols.append(j)
    counts = sp.csr_matrix(
        (np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(docs), len(vocab))
    )
    counts.sum_duplicates()
    tfidf = weigh(counts, idf)
    vectors = tfidf @ components.T if components is not None else tfidf
    if components is not None:
        vectors = normalize(np.asarray(vectors)).astype(np.float32)
    return tfidf, vectors


@dataclass(slots=True)
class TopicFit:
    """The result of clustering: one label per doc, and what each topic is about."""

    labels: Any  # (n,) int
    centroids: Any  # (k, d) float32, unit rows
    names: list[str]
    anchors: list[str | None]  # the anchor each topic won, if any
    keywords: list[list[tuple[str, float]]]  # display term, weight
    keyword_tokens: list[list[tuple[str, float]]]  # token, weight (for new entries)
    scores: Any  # (n,) cosine of each doc to its topic's centroid
    terms: list[list[str]]  # per doc: display terms tying it to its topic
    similar: list[list[tuple[int, float]]]  # per doc: (doc index, cosine)
    features: Features
    kept: list[int | None] = field(default_factory=list)  # the kept topic each cluster is
    inertia: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)


def anchor_groups(
    features: Features,
    anchors: Sequence[Anchor],
    tokenizer: Tokenizer | None,
    term_tokens: Mapping[str, list[str]] | None = None,
) -> list[tuple[Anchor, Any]]:
    """For each anchor whose terms the corpus uses: the docs it seeds (doc indices).
    A doc seeds the anchor whose terms weigh most in it, if they weigh enough.
    ``term_tokens`` holds terms already tokenized (saves loading jieba's dictionary)."""
    import numpy as np
    import scipy.sparse as sp

    if not anchors:
        return []
    tk = tokenizer or default_tokenizer()
    index = {t: j for j, t in enumerate(features.vocab)}
    cols: list[int] = []
    rows: list[int] = []
    for a, anchor in enumerate(anchors):
        toks = {
            t
            for term in anchor.terms
            for t in (
                term_tokens[term] if term_tokens is not None and term in term_tokens else tk(term)
            )
        }
        for t in toks:
            j = index.get(t)
            if j is not None:
                rows.append(j)
                cols.append(a)
    if not rows:
        return []
    m = sp.csr_matrix(
        (np.ones(len(rows), dtype=np.float32), (rows, cols)),
        shape=(len(features.vocab), len(anchors)),
    )
    score = np.asarray((features.tfidf @ m).todense())
    best = score.argmax(axis=1)
    top = score[np.arange(len(best)), best]
    out = []
    min_docs = max(2, int(0.005 * score.shape[0]))
    for a, anchor in enumerate(anchors):
        members = np.flatnonzero((best == a) & (top >= ANCHOR_MIN_SCORE))
        if len(members) >= min_docs:
            out.append((anchor, members))
    return out


def _kmeans(x: Any, k: int, seeds: list[Any], random_state: int, n_init: int) -> tuple[Any, Any]:
    """KMeans whose first centroids are the anchor seeds (when given) and the rest
    k-means++; ``n_init`` starts, the lowest inertia wins."""
    from threadpoolctl import threadpool_limits

    best = None
    # one OpenMP thread: on a shared or busy machine more threads spin, measured up to five
    # times slower; the reader runs this in the background anyway
    with threadpool_limits(limits=1, user_api="openmp"):
        for trial in range(n_init):
            km = _one_start(x, k, seeds, random_state + 7919 * trial)
            if best is None or km.inertia_ < best.inertia_:
                best = km
    assert best is not None
    return best.labels_.copy(), best.inertia_


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
        # in float64: scikit-learn's k-means++ on float32 rows computes its distances in
        # small up-cast chunks, measured 40 times slower (20,000 rows: 2.8 s -> 0.07 s);
        # the centres it picks are the same rows (KMeans(init="k-means++") picks them so)
        extra, _ = kmeans_plusplus(pool.astype(np.float64), k - len(init), random_state=rs)
        init = np.vstack([init, extra.astype(x.dtype)])
    return KMeans(k, init=init, n_init=1, random_state=rs, max_iter=100).fit(x)


def _one_start_fit(x: Any, k: int, random_state: int) -> Any:
    """Unit-length centroids of one KMeans start on ``x``."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="openmp"):
        c = _one_start(x, k, [], random_state).cluster_centers_
    return (c / np.maximum(np.linalg.norm(c, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def nearest(vectors: Any, groups: Any, m: int) -> tuple[Any, Any]:
    """Each row's ``m`` nearest other rows by cosine (rows are unit length): indices and
    similarities, best first, -1 where there are fewer. All pairs when ``groups`` is None,
    else only within each group."""
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
            top = np.argpartition(-block, mm - 1, axis=1)[:, :mm]
            val = np.take_along_axis(block, top, axis=1)
            order = np.argsort(-val, axis=1, kind="stable")
            top = np.take_along_axis(top, order, axis=1)
            val = np.take_along_axis(val, order, axis=1)
            at = members[start : start + block.shape[0]]
            idx[at, :mm] = members[top]
            sim[at, :mm] = val
    return idx, sim


def smooth(vectors: Any, idx: Any, weight: float = SMOOTH_WEIGHT) -> Any:
    """Pull each unit row towards the mean of its nearest rows, then unit length again:
    neighbours vote on what an entry is about, which short or odd texts need."""
    import numpy as np

    out = np.empty_like(vectors)
    for start in range(0, vectors.shape[0], 4096):
        part = idx[start : start + 4096]
        valid = part >= 0
        acc = np.zeros((part.shape[0], vectors.shape[1]), dtype=np.float32)
        for j in range(part.shape[1]):
            rows = np.flatnonzero(valid[:, j])
            acc[rows] += vectors[part[rows, j]]
        count = np.maximum(valid.sum(axis=1, keepdims=True), 1)
        mixed = vectors[start : start + 4096] + weight * acc / count
        out[start : start + 4096] = mixed / np.maximum(
            np.linalg.norm(mixed, axis=1, keepdims=True), 1e-12
        )
    return out


def _cap(x: Any, labels: Any, random_state: int, max_share: float) -> Any:
    """Split any cluster holding more than ``max_share`` of the docs in two, until none do."""
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


def _relabel(labels: Any) -> Any:
    import numpy as np

    _, inverse = np.unique(labels, return_inverse=True)
    return inverse


def class_counts(counts: Any, labels: Any, k: int) -> Any:
    """Each term's count in each topic (k, V), float64."""
    import numpy as np
    import scipy.sparse as sp

    onehot = sp.csr_matrix(
        (np.ones(len(labels), dtype=np.float32), (labels, np.arange(len(labels)))),
        shape=(k, len(labels)),
    )
    return np.asarray((onehot @ counts).todense(), dtype=np.float64)


def class_tfidf(counts: Any, labels: Any, k: int, per_class: Any = None) -> Any:
    """Class-based TF-IDF (k, V): a term's share of a topic's words, times
    log(1 + average words per topic / the term's count over all topics)."""
    import numpy as np

    if per_class is None:
        per_class = class_counts(counts, labels, k)
    totals = per_class.sum(axis=1, keepdims=True)
    tf = per_class / np.maximum(totals, 1)
    freq = per_class.sum(axis=0)
    avg = totals.mean()
    idf = np.log1p(avg / np.maximum(freq, 1))
    return (tf * idf).astype(np.float32)


def _is_han(term: str) -> bool:
    return all("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in term)


def fragments(vocab_tokens: Sequence[str], per_class: Any) -> Any:
    """(k, V) booleans: where a short Chinese term is, in that topic, mostly a piece of
    a longer term the tokenizer also gave (its dictionary words inside a long word:
    分布式 also says 分布 and 布式; 确定性 says 定性). It is one when a longer term of
    the topic that holds it is used at least half as often there. Such pieces help to
    cluster but make poor keywords: a topic reading "分布, 布式" says less than one
    reading "分布式"."""
    import numpy as np

    index = {t: j for j, t in enumerate(vocab_tokens)}
    inside: dict[int, list[int]] = {}
    for j, term in enumerate(vocab_tokens):
        if len(term) < 3 or not _is_han(term):
            continue
        for n in (2, 3):
            for i in range(len(term) - n + 1 if len(term) > n else 0):
                part = index.get(term[i : i + n])
                if part is not None:
                    inside.setdefault(part, []).append(j)
    out = np.zeros(per_class.shape, dtype=bool)
    for part, longer in inside.items():
        out[:, part] = per_class[:, longer].max(axis=1) * 2 >= per_class[:, part]
    return out & (per_class > 0)


def _near_duplicate(a: str, b: str) -> bool:
    """ "KV / KV缓存 / 缓存" is one idea: one term inside the other, spaces and case aside."""
    x, y = a.replace(" ", "").lower(), b.replace(" ", "").lower()
    return x in y or y in x


def distinct_terms(
    ranked: Sequence[tuple[str, float]], vocab: Vocabulary, limit: int
) -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
    for token, weight in ranked:
        label = vocab.display(token)
        if any(_near_duplicate(label, kept) for kept, _ in out):
            continue
        out.append((label, weight))
        if len(out) >= limit:
            break
    return out


def topic_name(keywords: Sequence[tuple[str, float]]) -> str:
    """A short name from a topic's distinctive terms: the first two, capitalised."""
    words = [k for k, _ in keywords[:2]]
    if not words:
        return "Miscellaneous"
    return " / ".join(w[:1].upper() + w[1:] if w[:1].islower() else w for w in words)


def similar_pairs(idx: Any, sim: Any, top: int = TOP_SIMILAR) -> list[list[tuple[int, float]]]:
    """Each doc's ``top`` most similar docs, from :func:`nearest`'s answer, cosines to
    six decimals."""
    import numpy as np

    rows_i = idx[:, :top].tolist()
    rows_s = np.round(sim[:, :top].astype(np.float64), 6).tolist()
    return [
        [(j, v) for j, v in zip(ri, rs, strict=True) if j >= 0]
        for ri, rs in zip(rows_i, rows_s, strict=True)
    ]


def doc_terms(
    tfidf: Any,
    labels: Any,
    ctfidf: Any,
    vocab_tokens: list[str],
    vocab: Vocabulary,
    top: int = TOP_TERMS,
) -> list[list[str]]:
    """The terms tying each doc to its topic: its TF-IDF weight times the topic's."""
    import numpy as np

    out: list[list[str]] = [[] for _ in range(tfidf.shape[0])]
    # column -> (display label, its compact form for the near-duplicate test), made once
    labels_of: dict[int, tuple[str, str]] = {}
    for c in range(ctfidf.shape[0]):
        members = np.flatnonzero(labels == c)
        if not len(members):
            continue
        sub = tfidf[members].multiply(ctfidf[c].reshape(1, -1)).tocsr()
        # plain lists: per-row numpy calls on rows of ~100 values cost more than the work
        data, cols, ptr = sub.data.tolist(), sub.indices.tolist(), sub.indptr.tolist()
        for r, doc in enumerate(members.tolist()):
            lo, hi = ptr[r], ptr[r + 1]
            picked: list[str] = []
            compact: list[str] = []
            # stable, best first (sorted keeps the order of ties, as argsort's "stable")
            for j in sorted(range(lo, hi), key=data.__getitem__, reverse=True):
                if data[j] <= 0:
                    break
                col = cols[j]
                got = labels_of.get(col)
                if got is None:
                    label = vocab.display(vocab_tokens[col])
                    got = labels_of[col] = (label, label.replace(" ", "").lower())
                label, x = got
                # _near_duplicate, inlined: one term inside the other
                if not any(x in y or y in x for y in compact):
                    picked.append(label)
                    compact.append(x)
                    if len(picked) >= top:
                        break
            out[doc] = picked
    return out


def fit_topics(
    docs: Sequence[Sequence[str]] | TokenCounts,
    *,
    k: int | None = None,
    anchors: Sequence[Anchor] = (),
    random_state: int = 0,
    n_init: int | None = N_INIT,
    lsa_dims: int | None = -1,
    max_share: float | None = MAX_SHARE,
    tokenizer: Tokenizer | None = None,
    with_similar: bool = True,
    smoothing: bool = True,
    progress: Progress | None = None,
    kept: Sequence[tuple[int, Sequence[int]]] = (),
    extra: Sequence[Sequence[str]] | None = None,
    spectral: bool | None = None,
    anchor_tokens: Mapping[str, list[str]] | None = None,
) -> TopicFit:
    """Cluster tokenized docs (token lists, or their :class:`TokenCounts`) into topics.
    Deterministic for a given ``random_state``.

    ``kept`` lists topics that must last, as (topic id, indices of their docs now): the
    topics a user named. Like anchors, each seeds a centroid, and wins the cluster most
    of its docs go to (``TopicFit.kept``).

    ``extra`` holds feature-only tokens per doc (:meth:`Tokenizer.bigrams`): they shape
    the clusters but never name them. ``lsa_dims=-1`` chooses by size
    (:func:`lsa_dims_for`); ``spectral=None`` runs KMeans on a spectral embedding from
    ``SPECTRAL_MIN`` to ``SPECTRAL_MAX`` docs. ``smoothing`` pulls each vector towards
    its nearest docs' when KMeans runs on the LSA vectors (the spectral step's diffusion
    does that itself)."""
    import time

    import numpy as np

    stages: dict[str, float] = {}
    t0 = time.perf_counter()

    def mark(stage: str, fraction: float) -> None:
        nonlocal t0
        now = time.perf_counter()
        stages[stage] = stages.get(stage, 0.0) + now - t0
        t0 = now
        if progress:
            progress(stage, fraction)

    tk = tokenizer or (default_tokenizer() if anchors else None)
    vocab = tk.vocab if tk else _default_vocab()
    n = len(docs)
    if n == 0:
        raise ValueError("no entries to cluster")
    if lsa_dims == -1:
        lsa_dims = lsa_dims_for(n)
    if spectral is None:
        spectral = SPECTRAL_MIN <= n <= SPECTRAL_MAX
    feature_docs = docs if extra is None else [[*a, *b] for a, b in zip(docs, extra, strict=True)]
    features = build_features(feature_docs, random_state=random_state, lsa_dims=lsa_dims)
    mark("features", 0.6)
    x = features.vectors
    groups = anchor_groups(features, anchors, tk, anchor_tokens)
    keep = [(tid, np.asarray(m, dtype=np.int64)) for tid, m in kept if len(m)]
    if k is None:
        k = auto_k(n, len(groups) + len(keep))
    k = max(1, min(k, n))
    keep = keep[:k]
    groups = sorted(groups, key=lambda g: -len(g[1]))[: k - len(keep)]
    starts = n_init or n_init_for(n)

    def seeds_in(v: Any) -> list[Any]:
        out = []
        for _, members in [*keep, *groups]:
            c = np.asarray(v[members].mean(axis=0)).ravel()
            out.append(c / (np.linalg.norm(c) or 1.0))
        return out

    # nearest entries: all pairs on small corpora; on large ones within a first clustering
    m = min(SMOOTH_NEIGHBOURS, max(3, n // 50)) if smoothing else 0
    m = max(m, TOP_SIMILAR if with_similar else 0)
    first = None
    if n <= ALL_PAIRS_MAX:
        near_idx, near_sim = nearest(x, None, m)
    else:
        # a finer first pass (groups of about 1,000) keeps the within-group search cheap
        # fitted on a sample of 10,000, then every entry joins its nearest centroid
        k1 = max(k, n // 1000)
        rng = np.random.default_rng(random_state)
        sample = np.sort(rng.choice(n, size=min(n, 10_000), replace=False))
        fit1 = _one_start_fit(x[sample], k1, random_state)
        first = np.empty(n, dtype=np.int64)
        for start in range(0, n, 8192):
            first[start : start + 8192] = (x[start : start + 8192] @ fit1.T).argmax(axis=1)
        near_idx, near_sim = nearest(x, first, m)
    mark("neighbours", 0.65)
    # spectral step (modest corpora): KMeans where the nearest-entries graph's clusters
    # are compact (measured on CSL: +0.02 NMI on 13 categories). Its diffusion weighting
    # already averages each entry over its graph neighbours, so the vectors are not
    # smoothed first (CSL: +0.007 NMI on both label sets); smoothing is for KMeans on the
    # LSA vectors themselves
    run_spectral = spectral and n > k + 2
    xs = (
        smooth(x, near_idx[:, : min(SMOOTH_NEIGHBOURS, max(3, n // 50))])
        if smoothing and not run_spectral
        else x
    )
    space = spectral_embedding(x, k, SPECTRAL_NEIGHBOURS, random_state) if run_spectral else xs
    labels, inertia = _kmeans(space, k, seeds_in(space), random_state, starts)
    if max_share is not None and n >= 10:
        labels = _cap(space, labels, random_state, max_share)
    labels = _relabel(labels)
    k = int(labels.max()) + 1
    mark("kmeans", 0.75)

    # anchors win the clusters most of their seed docs went to
    won: list[str | None] = [None] * k
    votes = []
    for anchor, members in groups:
        counts = np.bincount(labels[members], minlength=k)
        for c in np.flatnonzero(counts):
            votes.append((int(counts[c]), anchor.name, int(c)))
    taken: set[str] = set()
    for count, name, c in sorted(votes, key=lambda v: (-v[0], v[1], v[2])):
        size = int((labels == c).sum())
        if won[c] is None and name not in taken and count >= 2 and count >= 0.25 * size:
            won[c] = name
            taken.add(name)
    # a kept topic lives on in the cluster most of its docs went to
    kept_by: list[int | None] = [None] * k
    kvotes = []
    for tid, members in keep:
        counts = np.bincount(labels[members], minlength=k)
        for c in np.flatnonzero(counts):
            kvotes.append((int(counts[c]) / len(members), tid, int(c)))
    done: set[int] = set()
    for _, tid, c in sorted(kvotes, key=lambda v: (-v[0], v[1], v[2])):
        if kept_by[c] is None and tid not in done:
            kept_by[c] = tid
            done.add(tid)

    per_class = class_counts(features.counts, labels, k)
    ctf = class_tfidf(features.counts, labels, k, per_class)
    # bigrams shape clusters but never name them, nor tie an entry to its topic
    marked = [j for j, t in enumerate(features.vocab) if t.startswith(BIGRAM_MARK)]
    if marked:
        ctf[:, marked] = 0.0
    # nor do pieces of longer words, where the longer word is what the topic says
    ctf[fragments(features.vocab, per_class)] = 0.0
    keyword_tokens: list[list[tuple[str, float]]] = []
    keywords: list[list[tuple[str, float]]] = []
    names: list[str] = []
    anchor_names = [n for n in won if n]
    for c in range(k):
        order = np.argsort(-ctf[c], kind="stable")[: TOP_KEYWORDS * 4]
        ranked = [(features.vocab[j], float(ctf[c, j])) for j in order if ctf[c, j] > 0]
        keyword_tokens.append(ranked[:50])
        kw = distinct_terms(ranked, vocab, TOP_KEYWORDS)
        keywords.append(kw)
        # a cluster named from its terms never takes the name of an anchor another
        # cluster won: two topics both reading "Speculative decoding" tell a reader nothing
        own = [t for t in kw if not any(_near_duplicate(t[0], n) for n in anchor_names)]
        names.append(won[c] or topic_name(own or kw))
    names = _unique_names(names)

    centroids = np.vstack(
        [np.asarray(xs[labels == c].mean(axis=0)).ravel() for c in range(k)]
    ).astype(np.float32)
    centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
    scores = np.einsum("ij,ij->i", xs, centroids[labels])
    terms = doc_terms(features.tfidf, labels, ctf, features.vocab, vocab)
    mark("name", 0.85)
    similar = similar_pairs(near_idx, near_sim) if with_similar else [[] for _ in range(n)]
    mark("similar", 0.9)
    return TopicFit(
        labels=labels,
        centroids=centroids,
        names=names,
        anchors=won,
        keywords=keywords,
        keyword_tokens=keyword_tokens,
        scores=scores,
        terms=terms,
        similar=similar,
        features=features,
        kept=kept_by,
        inertia=float(inertia),
        stages=stages,
    )


def _unique_names(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def _default_vocab() -> Vocabulary:
    from .tokenize import vocabulary

    return vocabulary()
