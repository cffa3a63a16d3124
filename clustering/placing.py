"""Placing new entries with a fitted model, without scikit-learn.

:func:`place` is what :meth:`.estimator.TopicModel.place` runs; it reads only the fitted
arrays and records (vocabulary, idf, LSA projection, kept vectors, centres, term weights),
so :class:`FittedArrays`, those read from a saved model alone, places exactly as the
model they were saved from. A refresh places its new entries with them: importing
scikit-learn (which ``TopicModel`` subclasses) costs about a second of CPU, more than
placing a few hundred entries.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .features import (
    Docs,
    TokenCounts,
    Vectorizer,
    count_entries,
    encoded_counts,
    feature_docs,
    features_in,
)
from .membership import also_topics
from .naming import entry_terms
from .neighbours import nearest_in, pairs_of, smooth, smooth_count, top_similar
from .tokenize import Tokenizer, default_tokenizer, vocabulary

if TYPE_CHECKING:
    from .anchors import Anchor


class Placement(NamedTuple):
    """Where :meth:`TopicModel.place` puts each new text."""

    labels: Any  # (n,) topic index
    scores: list[float]  # cosine to the topic's centre
    terms: list[list[str]]  # display terms tying the text to its topic
    similar: list[list[tuple[int, float]]]  # (index of a fitted entry, cosine), best first
    also: list[list[tuple[int, float]]]  # (another topic it centrally discusses, score)
    vectors: Any  # (n, d) the texts' smoothed vectors, as compared with the centres
    # the arrays ``similar`` lists: (n, n_similar) indices of fitted entries (-1: none) and
    # their cosines to six decimals (float64), best first (no column without fitted entries)
    near: tuple[Any, Any]


class FittedArrays:
    """What :func:`place` reads of a fitted model, as :func:`.saving.load` sets it on a
    ``TopicModel`` (the same attribute names), with no scikit-learn class behind it."""

    vocabulary_: dict[str, int]
    idf_: Any
    components_: Any
    cluster_centers_: Any
    embedding_: Any
    bigrams_: bool
    term_weights_: list[dict[str, float]]
    topic_terms_: list[list[str]]
    also_bars_: list[float]

    def __init__(
        self,
        *,
        smoothing: bool = True,
        n_similar: int = 5,
        tokenizer: Tokenizer | None = None,
        anchors: Sequence[Anchor] = (),
        **fit_only: Any,  # (the fit's other parameters: placing does not use them)
    ) -> None:
        self.smoothing = smoothing
        self.n_similar = n_similar
        self.tokenizer = tokenizer
        self.anchors = anchors

    def place(self, X: Sequence[str] | None, **how: Any) -> Placement:
        """:meth:`TopicModel.place`, the same placing."""
        return place(self, X, **how)


def place(
    model: Any,
    X: Sequence[str] | None,
    *,
    tokens: Docs | None = None,
    among: Sequence[bool] | None = None,
    neighbours: Callable[[Any, Any, int], tuple[Any, Any]] | None = None,
    topics: Any = None,
    bigrams: Sequence[Sequence[str] | bytes | None] | None = None,
) -> Placement:
    """Place new texts as the fit of ``model`` (a fitted ``TopicModel`` or its
    :class:`FittedArrays`) placed its own: the fitted vocabulary, weights and projection;
    smoothed towards their nearest fitted entries; then the nearest topic centre (only
    topics ``among`` allows, when given), or each text's topic in ``topics`` when given
    (chosen already). ``neighbours(queries, pool, m)`` finds the nearest fitted entries
    instead of :func:`nearest_in` (a large fit's grouped search, :class:`.scale.PoolIndex`).
    ``bigrams[i]``, when given and not None, are text ``i``'s bigram features, made
    already (:meth:`.tokenize.Tokenizer.tokens_and_bigrams`), as a list or as encoded
    (:func:`.token_cache.encode`)."""
    import numpy as np

    n = count_entries(X, tokens)
    # the tokenizer (its patterns compiled: about 0.1 s) only where a text is tokenized
    # here: a refresh's entries come with their tokens and bigram features made
    tokenizer: Tokenizer | None = model.tokenizer
    if model.bigrams_ and isinstance(tokens, TokenCounts) and X is not None and bigrams:
        # the bigram features counted straight into the fitted vocabulary from their
        # encoded form: no string made for each, and no vocabulary of the texts' own
        docs = tokens.beside(_bigram_counts(model, X, bigrams))
    else:
        docs = feature_docs(X, tokens, tokenizer or default_tokenizer(), model.bigrams_, bigrams)
    vocab = list(model.vocabulary_)
    f = features_in(docs, Vectorizer(vocab, model.idf_, model.components_))
    vectors = f.vectors
    near = (np.full((n, 0), -1, dtype=np.int64), np.zeros((n, 0)))  # (no fitted entries)
    if model.embedding_ is not None and len(model.embedding_):
        pool = model.embedding_.astype(np.float32)
        k_smooth = smooth_count(len(pool)) if model.smoothing else 0
        near_idx, near_sim = (neighbours or nearest_in)(
            vectors, pool, max(k_smooth, model.n_similar)
        )
        if model.smoothing:
            vectors = smooth(vectors, near_idx[:, :k_smooth], pool)
        near = top_similar(near_idx, near_sim, model.n_similar)
    sims = vectors @ model.cluster_centers_.T
    if among is not None:
        sims[:, ~np.asarray(among, dtype=bool)] = -np.inf
    labels = sims.argmax(axis=1) if topics is None else np.asarray(topics, dtype=np.int64)
    best = sims[np.arange(n), labels]
    scores = np.where(np.isfinite(best), best, 0.0).astype(np.float64).tolist()
    weights = {}
    for c in np.unique(labels).tolist():
        row = np.zeros(len(vocab), dtype=np.float64)
        for token, w in model.term_weights_[c].items():
            row[model.vocabulary_[token]] = w
        weights[c] = row
    terms = entry_terms(
        f.tfidf, labels, weights, vocab, tokenizer.vocab if tokenizer else vocabulary()
    )
    topic_terms = [t if among is None or among[c] else [] for c, t in enumerate(model.topic_terms_)]
    also = also_topics(f.tfidf, f.counts, vocab, topic_terms, labels, model.also_bars_)
    return Placement(labels, scores, terms, pairs_of(*near), also, vectors, near)


# each model's vocabulary as encoded tokens, made once (a refresh places batch after batch
# with one model), and made again when the model is fitted again (a new vocabulary)
_ENCODED: weakref.WeakKeyDictionary[Any, tuple[Any, dict[bytes, int]]] = weakref.WeakKeyDictionary()


def _bigram_counts(
    model: Any,
    texts: Sequence[str],
    bigrams: Sequence[Sequence[str] | bytes | None],
) -> TokenCounts:
    """The texts' bigram features (``bigrams[i]``, else made from ``texts[i]``) counted in
    the columns of ``model``'s vocabulary."""
    from .token_cache import SEP

    fitted = model.vocabulary_
    found = _ENCODED.get(model)
    if found is None or found[0] is not fitted:
        columns = {t.encode("utf-8", "surrogatepass"): j for j, t in enumerate(fitted)}
        _ENCODED[model] = found = (fitted, columns)
    blobs = [
        b
        if isinstance(b, bytes)
        else SEP.join(
            (model.tokenizer or default_tokenizer()).bigrams(t) if b is None else b
        ).encode("utf-8", "surrogatepass")
        for t, b in zip(texts, bigrams, strict=True)
    ]
    return TokenCounts(encoded_counts(blobs, found[1], len(fitted)), list(fitted))
