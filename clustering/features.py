"""Features of entries: term counts, BM25 idf, sublinear TF-IDF rows, LSA vectors.

The same functions serve the fit (which learns the vocabulary, the idf and the LSA
projection) and the placing of new entries (which reuses them): :func:`fit_features` and
:func:`features_in`. numpy, scipy and scikit-learn load inside the functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tokenize import Tokenizer

LSA_DIMS = 100
LSA_DIMS_SMALL = 200  # up to SMALL_MAX entries (measured on CSL with bigrams: +0.005)
SMALL_MAX = 5_000  # up to this many entries: more LSA dimensions and bigram features
LSA_FIT_SAMPLE = 20_000  # above this many entries, LSA is fitted on a sample this large


def lsa_dims_for(n: int) -> int:
    return LSA_DIMS_SMALL if n <= SMALL_MAX else LSA_DIMS


def bigrams_for(n: int) -> bool:
    """Feature-only character bigrams double the features: cheap up to SMALL_MAX
    entries, left out above (where time matters most)."""
    return n <= SMALL_MAX


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

    def plus(self, docs: Sequence[Sequence[str]]) -> TokenCounts:
        """These counts with each doc's ``docs`` tokens counted in more columns."""
        import scipy.sparse as sp

        more, more_vocab = raw_counts(docs)
        return TokenCounts(sp.hstack([self.matrix, more], format="csr"), [*self.vocab, *more_vocab])

    def beside(self, other: TokenCounts) -> TokenCounts:
        """These counts with ``other``'s (of the same docs) in more columns."""
        import scipy.sparse as sp

        matrix = sp.hstack([self.matrix, other.matrix], format="csr")
        return TokenCounts(matrix, [*self.vocab, *other.vocab])


Docs = Sequence[Sequence[str]] | TokenCounts


def count_entries(texts: Sequence[str] | None, tokens: Docs | None) -> int:
    """How many entries ``texts`` and ``tokens`` describe (they must agree)."""
    if isinstance(texts, str):
        raise ValueError("texts must be a sequence of strings, not one string")
    sizes = {len(x) for x in (texts, tokens) if x is not None}
    if len(sizes) > 1:
        raise ValueError(f"{len(texts or ())} texts but {len(tokens or ())} token lists")
    if not sizes or 0 in sizes:
        raise ValueError("no entries given")
    return sizes.pop()


def feature_docs(
    texts: Sequence[str] | None,
    tokens: Docs | None,
    tokenizer: Tokenizer,
    bigrams: bool,
    made: Sequence[Sequence[str] | None] | None = None,
) -> Docs:
    """Each entry's feature tokens: its ``tokens`` (made from its text when None), then
    with ``bigrams`` its feature-only character bigrams (``made[i]`` when not None: made
    already, with the entry's tokens)."""
    if tokens is None:
        if texts is None:
            raise ValueError("give the texts, or their tokens")
        tokens = [tokenizer(t) for t in texts]
    if not bigrams:
        return tokens
    if texts is None:
        raise ValueError("the bigram features need the texts as well as their tokens")
    if made is None:
        extra = [tokenizer.bigrams(t) for t in texts]
    else:
        extra = [tokenizer.bigrams(t) if b is None else b for t, b in zip(texts, made, strict=True)]
    if isinstance(tokens, TokenCounts):
        return tokens.plus(extra)
    return [[*a, *b] for a, b in zip(tokens, extra, strict=True)]


@dataclass(slots=True)
class Features:
    """The entries' raw counts, their TF-IDF rows and their unit-length LSA vectors."""

    counts: Any  # (n, V) csr raw counts
    tfidf: Any  # (n, V) csr, rows of unit length
    vectors: Any  # (n, d) float32 unit rows; the TF-IDF rows (dense) when LSA is off


@dataclass(slots=True)
class Vectorizer:
    """What the fit learnt and placing new entries reuses."""

    vocab: list[str]  # each column's token, sorted
    idf: Any  # (V,) float32
    components: Any  # (d, V) float32 LSA projection, or None when LSA is off


def fit_features(
    docs: Docs, *, lsa_dims: int | None, random_state: int
) -> tuple[Vectorizer, Features]:
    """Learn the vocabulary (terms in at least two docs, from 20 docs on), the idf and
    the LSA projection from ``docs``, and return them with the docs' features."""
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
            # as scikit-learn's fit_transform: the fitted rows are U * S, equal to their
            # projection up to float rounding
            vectors = svd.fit_transform(tfidf)
        components = svd.components_.astype(np.float32)
        vectors = normalize(vectors).astype(np.float32)
    else:
        vectors = tfidf.toarray()
    return Vectorizer(vocab, idf, components), Features(counts, tfidf, vectors)


def features_in(docs: Docs, fitted: Vectorizer) -> Features:
    """Features of new docs in a fitted vocabulary: the same counts, weights and
    projection as the fit's (terms the fit did not keep are left out)."""
    from itertools import repeat

    import numpy as np

    index = {t: j for j, t in enumerate(fitted.vocab)}
    m, terms = (docs.matrix, docs.vocab) if isinstance(docs, TokenCounts) else raw_counts(docs)
    m = m.tocsr()
    # only the columns the docs use are looked up (counts made over the store's whole
    # token list, or over the fitted vocabulary, leave most unused)
    used = np.flatnonzero(np.bincount(m.indices, minlength=len(terms))).tolist()
    remap = np.full(len(terms), -1, dtype=np.int64)
    looked = map(index.get, map(terms.__getitem__, used), repeat(-1))
    remap[used] = np.fromiter(looked, dtype=np.int64, count=len(used))
    counts = _move_columns(m, remap, len(fitted.vocab))
    tfidf = weigh(counts, fitted.idf)
    if fitted.components is None:
        return Features(counts, tfidf, tfidf.toarray())
    vectors = unit_rows_dense(np.asarray(tfidf @ fitted.components.T)).astype(np.float32)
    return Features(counts, tfidf, vectors)


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

    # in place on one copy of the counts: at 100,000 entries a sparse product by the idf
    # row costs two to three times as much (docs/clustering.md, "Features")
    w = counts.astype(np.float32, copy=True).tocsr()
    np.log(w.data, out=w.data)
    w.data += np.float32(1.0)
    w.data *= idf.astype(np.float32, copy=False)[w.indices]
    return unit_rows_sparse(w)


# scikit-learn's normalize(X) (l2, by row), the same arithmetic, without importing it
# (about a second of CPU, more than placing a refresh's entries costs):
# tests/unit/test_placing_arrays.py compares the two bit for bit.


def unit_rows_sparse(w: Any) -> Any:
    """The rows of csr ``w`` (float32) scaled in place to length 1, an empty row left as
    it is: as scikit-learn's ``inplace_csr_row_normalize_l2``, each row's squares (in
    float32) summed in float64 and each value divided by the root in float64."""
    import numpy as np

    squares = np.square(w.data).astype(np.float64)
    sums = np.zeros(w.shape[0], dtype=np.float64)
    filled = np.flatnonzero(np.diff(w.indptr))
    if len(filled):
        sums[filled] = np.add.reduceat(squares, w.indptr[filled])
    norms = np.sqrt(sums)
    norms[norms == 0.0] = 1.0
    per_value = np.repeat(norms, np.diff(w.indptr))
    w.data[:] = w.data.astype(np.float64) / per_value
    return w


def unit_rows_dense(x: Any) -> Any:
    """A copy of ``x`` (n, d) with each row scaled to length 1, a row of (nearly) zero
    length left as it is: as scikit-learn's ``normalize`` of a dense array."""
    import numpy as np

    x = np.array(x, copy=True)
    norms = np.sqrt(np.einsum("ij,ij->i", x, x))
    norms[norms < 10 * np.finfo(norms.dtype).eps] = 1.0
    x /= norms[:, None]
    return x


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
    # than a Python loop over the tokens (docs/clustering.md, "Earlier rounds")
    index = {t: j for j, t in enumerate(dict.fromkeys(chain.from_iterable(docs)))}
    indptr = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, docs), dtype=np.int64, count=len(docs)), out=indptr[1:])
    indices = np.fromiter(
        map(index.__getitem__, chain.from_iterable(docs)), dtype=np.int32, count=int(indptr[-1])
    )
    data = np.ones(len(indices), dtype=np.float32)
    return sp.csr_matrix((data, indices, indptr), shape=(len(docs), len(index))), list(index)


def encoded_counts(blobs: Sequence[bytes], columns: dict[bytes, int], width: int) -> Any:
    """Each doc's token counts, from its tokens as encoded (:func:`.token_cache.encode`:
    UTF-8, joined by ``SEP``), in the columns ``columns`` gives the encoded tokens (those
    it does not have left out): an (n, width) csr, duplicates not yet summed. No token is
    decoded, and the docs are split and looked up all at once."""
    from itertools import repeat

    import numpy as np
    import scipy.sparse as sp

    from .token_cache import SEP

    sep = SEP.encode()
    sizes = np.fromiter((b.count(sep) + 1 if b else 0 for b in blobs), np.int64, len(blobs))
    joined = sep.join(b for b in blobs if b)
    parts = joined.split(sep) if joined else []
    cols = np.fromiter(map(columns.get, parts, repeat(-1)), dtype=np.int64, count=len(parts))
    rows = np.repeat(np.arange(len(blobs)), sizes)
    known = cols >= 0
    indptr = np.zeros(len(blobs) + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[known], minlength=len(blobs)), out=indptr[1:])
    data = np.ones(int(indptr[-1]), dtype=np.float32)
    return sp.csr_matrix((data, cols[known].astype(np.int32), indptr), shape=(len(blobs), width))


def select_terms(m: Any, terms: list[str], *, min_df: int = 1) -> tuple[Any, list[str]]:
    """Raw counts ``m`` (csr, duplicates allowed) of the tokens ``terms``, cut to the
    terms found in at least ``min_df`` docs (and in one at least), columns in sorted
    term order (so results do not depend on document order)."""
    import numpy as np

    m = m.tocsr()
    m.sum_duplicates()
    df = np.bincount(m.indices, minlength=m.shape[1])
    keep = np.flatnonzero(df >= max(min_df, 1))
    if not len(keep):  # no term that common: keep them all rather than none
        keep = np.flatnonzero(df)
    kept = keep.tolist()
    order = sorted(range(len(kept)), key=[terms[j] for j in kept].__getitem__)
    vocab = [terms[kept[i]] for i in order]
    remap = np.full(m.shape[1], -1, dtype=np.int64)
    remap[keep[np.asarray(order, dtype=np.int64)]] = np.arange(len(vocab))
    return _move_columns(m, remap, len(vocab)), vocab


def _move_columns(m: Any, remap: Any, width: int) -> Any:
    """Counts ``m`` (csr) with column ``j`` moved to ``remap[j]`` (dropped where -1) in a
    matrix ``width`` wide, summed and sorted: one pass over the column indices instead of
    column selections."""
    import numpy as np
    import scipy.sparse as sp

    cols = remap[m.indices]
    ok = cols >= 0
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))[ok]
    new_ptr = np.zeros(m.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=m.shape[0]), out=new_ptr[1:])
    out = sp.csr_matrix((m.data[ok], cols[ok].astype(np.int32), new_ptr), shape=(m.shape[0], width))
    out.sum_duplicates()
    out.sort_indices()
    return out
