"""Which topics an entry is about besides its own: its "also" topics.

An entry is also listed under a topic an anchor named when it centrally discusses that
anchor: one of the anchor's terms weighs, in the entry's own TF-IDF row, at least
ALSO_MIN_CENTRALITY of the entry's heaviest term, and the entry uses the anchor's terms
more than once. A single mention of a term in a long text weighs little beside the
text's subject, so it lists nothing. Computed by the same function for the fitted
entries and for new ones (``TopicModel.place``). By the same measure, :class:`TermIndex`
finds the entries a topic made from the user's terms gathers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .anchors import Anchor
from .tokenize import BIGRAM_MARK

if TYPE_CHECKING:
    from .estimator import TopicModel
    from .token_cache import TokenIds

# an anchor's best term weighs at least this share of the entry's heaviest term; chosen by
# the F1 of the four named topics on the bundled corpus's reference labels
# (docs/clustering.md, "Also in")
ALSO_MIN_CENTRALITY = 0.5
ALSO_MIN_COUNT = 2  # uses of the anchor's terms: one mention is not a subject
# ... and at least this share of the centrality of the topic's typical own entry (the
# median), so a topic whose own entries are all about its anchor asks as much of its
# "also" entries; chosen by the worst F1 of the four named topics (docs/clustering.md)
ALSO_OF_OWN = 0.7
# an entry central to more topics is a survey of them: it is listed under its most central
# ALSO_MAX_TOPICS (chosen by the same worst F1, docs/clustering.md)
ALSO_MAX_TOPICS = 2


def anchor_term_sets(
    anchors: Sequence[Anchor], tokenizer: Callable[[str], list[str]]
) -> dict[str, set[str]]:
    """Each anchor's own tokens: those of its terms that no other anchor's terms give
    (a token two anchors share, as "gemm" from "grouped gemm" and "GEMM", tells them
    apart for neither)."""
    sets = {a.name: a.term_tokens(tokenizer) for a in anchors}
    out = {}
    for name, tokens in sets.items():
        others = set().union(*(s for other, s in sets.items() if other != name))
        out[name] = tokens - others
    return out


def centrality(
    tfidf: Any, counts: Any, cols: Sequence[int], top: Any, min_count: int = ALSO_MIN_COUNT
) -> Any:
    """(n,) how central the terms of columns ``cols`` are to each entry: the best of their
    TF-IDF weights in the entry's row over ``top``, the row's heaviest word (bigram
    features aside); 0.0 where the entry uses the terms fewer than ``min_count`` times."""
    import numpy as np

    if not cols:
        return np.zeros(tfidf.shape[0])
    best = row_max(tfidf, cols)
    uses = row_sum(counts, cols)
    share = best / np.maximum(top, 1e-12)
    return np.where(uses >= min_count, share, 0.0)


def row_max(m: Any, cols: Any) -> Any:
    """(n,) each row's largest value in columns ``cols`` of csr ``m``, a column it does not
    hold counted as 0: what ``m[:, cols].max(axis=1)`` gives, read off the values in those
    columns without making the matrix of them (a refresh's batches asked for it a dozen
    times each)."""
    import numpy as np

    m = m.tocsr()
    if not m.has_canonical_format:  # (duplicates are summed first: scipy's own way then)
        return np.asarray(m[:, cols].max(axis=1).todense()).ravel()
    n = m.shape[0]
    wanted = np.zeros(m.shape[1], dtype=bool)
    wanted[cols] = True
    picked = wanted[m.indices]
    values = m.data[picked]
    rows = np.repeat(np.arange(n), np.diff(m.indptr))[picked]
    best = np.full(n, -np.inf, dtype=m.dtype)
    if len(rows):
        starts = np.flatnonzero(np.diff(rows, prepend=-1))  # (rows come in order)
        best[rows[starts]] = np.maximum.reduceat(values, starts)
    held = np.bincount(rows, minlength=n)
    return np.where(held < np.count_nonzero(wanted), np.maximum(best, 0), best)


def row_sum(m: Any, cols: Any) -> Any:
    """(n,) each row's sum of its values in columns ``cols`` of csr ``m`` (counts: exact),
    as :func:`row_max` reads them."""
    import numpy as np

    m = m.tocsr()
    wanted = np.zeros(m.shape[1], dtype=np.float64)
    np.add.at(wanted, cols, 1.0)  # (a column asked for twice counts twice)
    weighed = m.data * wanted[m.indices]
    return np.bincount(np.repeat(np.arange(m.shape[0]), np.diff(m.indptr)), weighed, m.shape[0])


def fit_also(
    tfidf: Any,
    counts: Any,
    vocab_tokens: Sequence[str],
    topic_terms: Sequence[Sequence[str]],
    labels: Any,
) -> tuple[list[list[tuple[int, float]]], list[float]]:
    """The fitted entries' also topics (:func:`also_topics`) and each topic's bar: the
    larger of ALSO_MIN_CENTRALITY and ALSO_OF_OWN of the median centrality of its own
    entries that use its terms. One pass over the terms' columns for both."""
    import numpy as np

    shares = _shares(tfidf, counts, vocab_tokens, topic_terms)
    bars = [ALSO_MIN_CENTRALITY] * len(topic_terms)
    for c, share in shares.items():
        own = share[(labels == c) & (share > 0)]
        if len(own):
            bars[c] = round(max(ALSO_MIN_CENTRALITY, ALSO_OF_OWN * float(np.median(own))), 4)
    return _listed(shares, labels, bars, tfidf.shape[0]), bars


def also_topics(
    tfidf: Any,
    counts: Any,
    vocab_tokens: Sequence[str],
    topic_terms: Sequence[Sequence[str]],
    labels: Any,
    bars: Sequence[float],
) -> list[list[tuple[int, float]]]:
    """Each entry's also topics, (topic index, centrality rounded to 4 places), best
    first: topics whose ``topic_terms`` (an anchor's own tokens; empty for a topic no
    anchor named) are central to it, at least the topic's bar (:func:`fit_also`), never
    its own topic ``labels[i]``; the ALSO_MAX_TOPICS most central. O(n * terms)."""
    shares = _shares(tfidf, counts, vocab_tokens, topic_terms)
    return _listed(shares, labels, bars, tfidf.shape[0])


def _listed(
    shares: dict[int, Any], labels: Any, bars: Sequence[float], n: int
) -> list[list[tuple[int, float]]]:
    import numpy as np

    out: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    for c, share in shares.items():
        for i in np.flatnonzero((share >= bars[c]) & (labels != c)).tolist():
            out[i].append((c, round(float(share[i]), 4)))
    for row in out:
        row.sort(key=lambda p: (-p[1], p[0]))
        del row[ALSO_MAX_TOPICS:]
    return out


def _shares(
    tfidf: Any, counts: Any, vocab_tokens: Sequence[str], topic_terms: Sequence[Sequence[str]]
) -> dict[int, Any]:
    """Topic index -> each entry's :func:`centrality` of its terms (topics with terms the
    vocabulary has)."""
    if not any(topic_terms):
        return {}
    wanted = {t for terms in topic_terms for t in terms}
    index = {t: j for j, t in enumerate(vocab_tokens) if t in wanted}
    top = heaviest_word(tfidf, word_columns(vocab_tokens))
    # the columns of every topic's terms picked out of the matrices once; each topic's
    # read from those few
    picked = sorted(set(index.values()))
    at = {j: k for k, j in enumerate(picked)}
    few_tfidf, few_counts = tfidf.tocsr()[:, picked], counts.tocsr()[:, picked]
    out = {}
    for c, terms in enumerate(topic_terms):
        cols = [at[index[t]] for t in terms if t in index]
        if cols:
            out[c] = centrality(few_tfidf, few_counts, cols, top)
    return out


def word_columns(vocab_tokens: Sequence[str]) -> Any:
    """The columns of words, bigram features aside."""
    import numpy as np

    return np.flatnonzero([not t.startswith(BIGRAM_MARK) for t in vocab_tokens])


def heaviest_word(tfidf: Any, words: Any) -> Any:
    """(n,) the TF-IDF weight of each entry's heaviest word (``words``: the columns of
    :func:`word_columns`)."""
    return row_max(tfidf, words)


class TermIndex:
    """The TF-IDF rows of some entries, to find those that centrally discuss given terms:
    by the measure that lists an entry "also" under an anchor's topic
    (:func:`centrality`: one of the terms weighs at least ALSO_MIN_CENTRALITY
    of the entry's heaviest word, and the entry uses them twice). A mention in passing
    finds nothing."""

    def __init__(self, counts: Any, vocab: Sequence[str], idf: Any) -> None:
        from .features import weigh

        self.counts = counts
        self.column = {t: j for j, t in enumerate(vocab)}
        self.tfidf = weigh(counts, idf)
        self.top = heaviest_word(self.tfidf, word_columns(vocab))

    @classmethod
    def of_entries(cls, tids: TokenIds) -> TermIndex:
        """Over these entries, weighed as a fit weighs them (its vocabulary and idf)."""
        from .features import bm25_idf, select_terms

        min_df = 2 if len(tids) >= 20 else 1  # as fit_features: a word of one doc outweighs all
        counts, vocab = select_terms(tids.counts().matrix, tids.vocab, min_df=min_df)
        return cls(counts, vocab, bm25_idf(counts))

    @classmethod
    def with_model(cls, model: TopicModel, docs: Sequence[Sequence[str]]) -> TermIndex:
        """New entries' ``docs`` (token lists) weighed as the fitted ``model`` weighs."""
        from .features import Vectorizer, features_in

        vocab = list(model.vocabulary_)
        f = features_in(docs, Vectorizer(vocab, model.idf_, None))
        return cls(f.counts, vocab, model.idf_)

    def central(self, terms: Sequence[Sequence[str]]) -> list[int]:
        """Indices of the entries that centrally discuss one of ``terms`` (token lists)."""
        import numpy as np

        cols = sorted({self.column[t] for term in terms for t in term if t in self.column})
        if not cols:
            return []
        share = centrality(self.tfidf, self.counts, cols, self.top)
        return np.flatnonzero(share >= ALSO_MIN_CENTRALITY).tolist()
