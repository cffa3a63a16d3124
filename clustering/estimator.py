"""TopicModel: texts into named topics, in scikit-learn's estimator shape.

    >>> model = TopicModel(random_state=0).fit(texts)
    >>> model.topic_names_, model.labels_
    >>> model.predict(more_texts)            # the same steps as the fit
    >>> TopicModel.from_bytes(model.to_bytes()).predict(more_texts)

The steps, each in its own module: tokens (``tokenize``), features (``features``: counts,
BM25 idf, TF-IDF, LSA), nearest entries (``neighbours``: smoothing, spectral embedding,
similar entries), clusters (``partition``: seeded KMeans, the 30 % cap), names
(``naming``). Parameters are stored as given; "auto" ones are chosen by corpus size at
fit time. numpy, scikit-learn and jieba load only when a model fits or predicts.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any, ClassVar, NamedTuple

from .anchor_topics import earned_names, split_off_rest
from .anchors import Anchor, anchor_groups
from .cohesion import MIXED_BELOW, cohesion
from .features import (
    Docs,
    Vectorizer,
    bigrams_for,
    count_entries,
    feature_docs,
    features_in,
    fit_features,
    lsa_dims_for,
)
from .holding import held_seeds, hold
from .membership import also_topics, anchor_term_sets, fit_also
from .naming import entry_terms, name_topics
from .neighbours import (
    CRISP_SILHOUETTE,
    SPECTRAL_MAX,
    SPECTRAL_MIN,
    SPECTRAL_NEIGHBOURS,
    nearest_in,
    neighbour_graph,
    silhouette,
    similar_pairs,
    smooth,
    smooth_count,
    spectral_embedding,
)
from .params import InstancesOf, Interval, NotFittedError, ParamsMixin
from .partition import (
    MAX_SHARE,
    auto_k,
    cap,
    carriers,
    covered,
    kmeans,
    n_init_for,
    seed_centroids,
)
from .stages import Progress, Stage, StageClock
from .tokenize import Tokenizer, Vocabulary, default_tokenizer, vocabulary

TOP_SIMILAR = 5


class Placement(NamedTuple):
    """Where :meth:`TopicModel.place` puts each new text."""

    labels: Any  # (n,) topic index
    scores: list[float]  # cosine to the topic's centre
    terms: list[list[str]]  # display terms tying the text to its topic
    similar: list[list[tuple[int, float]]]  # (index of a fitted entry, cosine), best first
    also: list[list[tuple[int, float]]]  # (another topic it centrally discusses, score)


class TopicModel(ParamsMixin):
    """Group texts into named topics: TF-IDF (BM25 idf) and LSA features, KMeans (on a
    spectral embedding for modest corpora) seeded by anchors, class-TF-IDF names.

    Parameters
    ----------
    n_topics : int or "auto" -- about sqrt(n), at least the seeded topics plus two.
    anchors : Anchor list -- topics readers care about; each seeds a centroid from the
        entries its terms weigh most in and names the cluster it wins.
    max_share : float in (0, 1] or None -- no topic holds more of the entries: a larger
        one is split, so there can be more than ``n_topics`` (``n_split_`` says how many).
    lsa_dims : int, None (no LSA) or "auto" -- 200 up to 5,000 entries, 100 above.
    spectral : bool or "auto" -- KMeans on a spectral embedding (auto: 500-5,000 entries,
        unless the LSA space already separates the spectral topics: a silhouette of
        CRISP_SILHOUETTE or more, ``silhouette_``, then KMeans on the LSA vectors, unsmoothed).
    smoothing : bool -- pull each vector towards its nearest entries' before KMeans (not
        with the spectral step, whose diffusion does that) and when placing new texts.
    bigrams : bool or "auto" -- feature-only Chinese character bigrams (auto: up to 5,000
        entries, when the texts are given).
    n_init : int or "auto" -- KMeans starts (auto: 10, 4 above 5,000, 1 above 20,000).
    n_similar : int -- similar entries kept per entry.
    tokenizer : Tokenizer or None -- the bundled one when None.
    random_state : int -- the same value gives the same topics.
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_topics": [Interval(Integral, 1, None), "auto"],
        "anchors": [InstancesOf(Anchor, sequence=True)],
        "max_share": [Interval(Real, 0, 1, closed="right"), None],
        "lsa_dims": [Interval(Integral, 1, None), None, "auto"],
        "spectral": [InstancesOf(bool), "auto"],
        "smoothing": [InstancesOf(bool)],
        "bigrams": [InstancesOf(bool), "auto"],
        "n_init": [Interval(Integral, 1, None), "auto"],
        "n_similar": [Interval(Integral, 0, None)],
        "tokenizer": [InstancesOf(Tokenizer), None],
        "random_state": [Interval(Integral, 0, 2**32 - 1)],
    }

    def __init__(
        self,
        n_topics: int | str = "auto",
        *,
        anchors: Sequence[Anchor] = (),
        max_share: float | None = MAX_SHARE,
        lsa_dims: int | str | None = "auto",
        spectral: bool | str = "auto",
        smoothing: bool = True,
        bigrams: bool | str = "auto",
        n_init: int | str = "auto",
        n_similar: int = TOP_SIMILAR,
        tokenizer: Tokenizer | None = None,
        random_state: int = 0,
    ) -> None:
        self.n_topics = n_topics
        self.anchors = anchors
        self.max_share = max_share
        self.lsa_dims = lsa_dims
        self.spectral = spectral
        self.smoothing = smoothing
        self.bigrams = bigrams
        self.n_init = n_init
        self.n_similar = n_similar
        self.tokenizer = tokenizer
        self.random_state = random_state

    # --- fit ------------------------------------------------------------------------

    def fit(
        self,
        texts: Sequence[str] | None,
        tokens: Docs | None = None,
        *,
        pinned: Mapping[Hashable, Sequence[int]] | None = None,
        held: Mapping[Hashable, Sequence[int]] | None = None,
        hidden: Sequence[Sequence[int]] = (),
        context: Mapping[Hashable, Sequence[int]] | None = None,
        progress: Progress | None = None,
    ) -> TopicModel:
        """Cluster ``texts`` (one string per entry) into topics; returns ``self``.

        ``tokens``, when given, are each text's tokens as the tokenizer makes them
        (token lists, or their :class:`TokenCounts`), for example from a cache: they
        stand in for tokenizing, and ``texts`` are then read only for the bigram
        features, so they may be None when :meth:`needs_texts` says so.

        ``pinned`` maps a caller's key (the pipeline: a topic id) to entry indices that
        must carry on as one topic (a topic the user named): the first k groups each seed
        a centroid, and every group claims the cluster most of it goes to, unless a
        stronger claim took it (``topic_pinned_``; a key found nowhere in it kept no
        topic).

        ``held`` maps a key to entry indices that must end in one topic (a correction the
        user made: a merge, a split's part, a topic made from terms): each group seeds a
        centroid, then all of it goes to the cluster most of it went to, or to a new one
        (``topic_held_``); ``context`` adds, per key, entries that seed and choose that
        cluster without being held. The cluster most of each ``hidden`` group went to is
        dissolved into the nearest others (:func:`.holding.hold`).

        ``n_topics_`` is k, or fewer when fewer than k entries differ, or more when the
        ``max_share`` cap split clusters (``n_split_`` of them)."""
        import numpy as np

        self._validate_params()
        clock = StageClock(progress)
        n = count_entries(texts, tokens)
        rs = self.random_state
        self.bigrams_ = self.needs_texts(n) and (texts is not None or self.bigrams is True)
        docs = feature_docs(texts, tokens, self._tokenizer(), self.bigrams_)
        lsa_dims = lsa_dims_for(n) if self.lsa_dims == "auto" else self.lsa_dims
        fitted, f = fit_features(docs, lsa_dims=lsa_dims, random_state=rs)
        clock.done(Stage.FEATURES, 0.6)

        x = f.vectors
        groups = anchor_groups(f.tfidf, fitted.vocab, self.anchors, self._tokenize)
        pinned = {key: g for key, g in (pinned or {}).items() if len(g)}
        pin_keys = list(pinned)
        pin_members = [np.asarray(g, dtype=np.int64) for g in pinned.values()]
        held = {key: g for key, g in (held or {}).items() if len(g)}
        n_seeds = len(groups) + len(pin_keys) + len(held)
        k = auto_k(n, n_seeds) if self.n_topics == "auto" else self.n_topics
        k = max(1, min(int(k), n))
        # more named groups than topics: the first k seed a centroid, every one may claim
        seeded = (held_seeds(held, context or {}) + pin_members)[:k]
        groups = sorted(groups, key=lambda g: -len(g.members))
        # an anchor whose entries mostly lie in one named group is that group's subject: a
        # second centroid there would split the group; it still names the cluster it wins
        within = [covered(g.members, seeded) for g in groups]
        inside = [g for g, w in zip(groups, within, strict=True) if w]
        groups = [g for g, w in zip(groups, within, strict=True) if not w][: k - len(seeded)]
        m = max(smooth_count(n) if self.smoothing else 0, self.n_similar)
        near_idx, near_sim = neighbour_graph(x, m, k, rs)
        clock.done(Stage.NEIGHBOURS, 0.65)

        spectral = SPECTRAL_MIN <= n <= SPECTRAL_MAX if self.spectral == "auto" else self.spectral
        run_spectral = spectral and n > k + 2
        # the spectral step's diffusion already averages over neighbours: no smoothing
        xs = smooth(x, near_idx[:, : smooth_count(n)]) if self.smoothing and not run_spectral else x
        space = spectral_embedding(x, k, SPECTRAL_NEIGHBOURS, rs) if run_spectral else xs
        seed_groups = seeded + [g.members for g in groups]
        starts = n_init_for(n) if self.n_init == "auto" else self.n_init
        labels, self.inertia_ = kmeans(space, k, seed_centroids(space, seed_groups), rs, starts)
        self.silhouette_ = silhouette(x, labels, rs) if run_spectral else None
        self.spectral_ = run_spectral
        if self.spectral == "auto" and run_spectral and self.silhouette_ >= CRISP_SILHOUETTE:
            # crisp groups: the LSA space itself separates them, and neither the spectral
            # step nor smoothing (which blurs their borders) helps
            space = xs = x
            seeds = seed_centroids(x, seed_groups)
            labels, self.inertia_ = kmeans(x, k, seeds, rs, starts)
            self.spectral_ = False
        made = len(np.unique(labels))  # below k when fewer than k rows differ
        if self.max_share is not None and n >= 10:
            labels = cap(space, labels, rs, self.max_share)
        self.n_split_ = len(np.unique(labels)) - made
        labels, self.topic_held_ = hold(space, labels, held, hidden, context or {})
        k = int(labels.max()) + 1
        clock.done(Stage.KMEANS, 0.75)

        claims = groups + inside
        names = [g.anchor.name for g in claims]
        won = carriers(labels, k, [g.members for g in claims], names, by_share=False, min_count=2)
        kept = carriers(labels, k, pin_members, pin_keys, by_share=True)
        self.topic_anchors_ = [None if g is None else names[g] for g in won]
        self.topic_pinned_ = [None if g is None else pin_keys[g] for g in kept]
        own = anchor_term_sets(self.anchors, self._tokenize)
        if self.n_topics == "auto":  # --k N gives N topics
            kept_whole = [p or h for p, h in zip(self.topic_pinned_, self.topic_held_, strict=True)]
            labels = split_off_rest(
                labels, self.topic_anchors_, kept_whole, own, f.tfidf, f.counts, fitted.vocab, x
            )
        extra = int(labels.max()) + 1 - k
        self.topic_anchors_ += [None] * extra
        self.topic_pinned_ += [None] * extra
        self.topic_held_ += [None] * extra
        k += extra
        self.cohesion_ = cohesion(x, labels, k)
        # a topic whose entries share little is mixed, whatever anchor it carries on
        self.mixed_ = [
            self.topic_pinned_[c] is None and self.topic_held_[c] is None and v < MIXED_BELOW
            for c, v in enumerate(self.cohesion_)
        ]
        terms = {a.name: a.term_tokens(self._tokenize) for a in self.anchors}
        named = earned_names(self.topic_anchors_, self.mixed_, labels, terms, own, f, fitted.vocab)
        in_names = set().union(*(terms[a] for a in named if a))
        vocab = self._vocabulary()
        naming = name_topics(
            f.counts, labels, k, fitted.vocab, vocab, named, self.mixed_, in_names, texts
        )
        self.topic_terms_ = [sorted(own[a]) if a else [] for a in named]
        self.also_, self.also_bars_ = fit_also(
            f.tfidf, f.counts, fitted.vocab, self.topic_terms_, labels
        )
        centres = np.vstack(
            [np.asarray(xs[labels == c].mean(axis=0)).ravel() for c in range(k)]
        ).astype(np.float32)
        centres /= np.maximum(np.linalg.norm(centres, axis=1, keepdims=True), 1e-12)
        self.scores_ = np.einsum("ij,ij->i", xs, centres[labels])
        self.terms_ = entry_terms(f.tfidf, labels, naming.class_weights, fitted.vocab, vocab)
        clock.done(Stage.NAME, 0.85)
        self.similar_ = similar_pairs(near_idx, near_sim, self.n_similar)
        clock.done(Stage.SIMILAR, 0.9)

        self.n_topics_ = k
        self.labels_ = labels
        self.cluster_centers_ = centres
        self.topic_names_ = naming.names
        self.keywords_ = naming.keywords
        self.term_weights_ = naming.weights
        self.vocabulary_ = {t: j for j, t in enumerate(fitted.vocab)}
        self.idf_ = fitted.idf
        self.components_ = fitted.components
        # what placing new texts compares them with; float16 halves the saved model
        self.embedding_ = None if fitted.components is None else x.astype(np.float16)
        self.stage_seconds_ = clock.seconds
        return self

    def needs_texts(self, n: int) -> bool:
        """Whether fitting ``n`` entries reads their texts when given their tokens (for
        the bigram features)."""
        return bigrams_for(n) if self.bigrams == "auto" else bool(self.bigrams)

    # --- predict --------------------------------------------------------------------

    def predict(self, texts: Sequence[str] | None, tokens: Docs | None = None) -> Any:
        """The topic (an index into ``topic_names_``) of each new text; ``tokens`` as in
        :meth:`fit`."""
        return self.place(texts, tokens).labels

    def place(
        self,
        texts: Sequence[str] | None,
        tokens: Docs | None = None,
        *,
        among: Sequence[bool] | None = None,
    ) -> Placement:
        """Place new texts as the fit placed its own: the fitted vocabulary, weights and
        projection; smoothed towards their nearest fitted entries; then the nearest
        topic centre (only topics ``among`` allows, when given)."""
        import numpy as np

        self._check_fitted()
        n = count_entries(texts, tokens)
        docs = feature_docs(texts, tokens, self._tokenizer(), self.bigrams_)
        f = features_in(docs, self._vectorizer())
        vectors = f.vectors
        similar: list[list[tuple[int, float]]] = [[] for _ in range(n)]
        if self.embedding_ is not None and len(self.embedding_):
            pool = self.embedding_.astype(np.float32)
            k_smooth = smooth_count(len(pool)) if self.smoothing else 0
            near_idx, near_sim = nearest_in(vectors, pool, max(k_smooth, self.n_similar))
            if self.smoothing:
                vectors = smooth(vectors, near_idx[:, :k_smooth], pool)
            similar = similar_pairs(near_idx, near_sim, self.n_similar)
        sims = vectors @ self.cluster_centers_.T
        if among is not None:
            sims[:, ~np.asarray(among, dtype=bool)] = -np.inf
        labels = sims.argmax(axis=1)
        best = sims[np.arange(n), labels]
        scores = np.where(np.isfinite(best), best, 0.0).astype(np.float64).tolist()
        vocab = self.get_feature_names_out()
        weights = {}
        for c in np.unique(labels).tolist():
            row = np.zeros(len(vocab), dtype=np.float64)
            for token, w in self.term_weights_[c].items():
                row[self.vocabulary_[token]] = w
            weights[c] = row
        terms = entry_terms(f.tfidf, labels, weights, vocab, self._vocabulary())
        topic_terms = [
            t if among is None or among[c] else [] for c, t in enumerate(self.topic_terms_)
        ]
        also = also_topics(f.tfidf, f.counts, vocab, topic_terms, labels, self.also_bars_)
        return Placement(labels, scores, terms, similar, also)

    def get_feature_names_out(self) -> list[str]:
        """Each feature column's token, in column order (bigrams start with \\x02)."""
        self._check_fitted()
        return list(self.vocabulary_)

    # --- saving ---------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The fitted model as bytes (:meth:`from_bytes` reads them): everything but the
        per-entry results of the fit (``scores_``, ``terms_``, ``similar_``)."""
        from .saving import dump

        self._check_fitted()
        return dump(self)

    @classmethod
    def from_bytes(cls, blob: bytes, *, tokenizer: Tokenizer | None = None) -> TopicModel:
        """A model saved by :meth:`to_bytes`; ValueError if ``blob`` is not one, or one
        of a format this version does not read."""
        from .saving import load

        return load(cls, blob, tokenizer)

    # --- helpers --------------------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "labels_"):
            raise NotFittedError(
                f"This {type(self).__name__} is not fitted yet: call fit, or load one "
                "with from_bytes."
            )

    def _tokenizer(self) -> Tokenizer:
        return self.tokenizer or default_tokenizer()

    def _tokenize(self, text: str) -> list[str]:
        return self._tokenizer()(text)

    def _vocabulary(self) -> Vocabulary:
        return self.tokenizer.vocab if self.tokenizer else vocabulary()

    def _vectorizer(self) -> Vectorizer:
        return Vectorizer(list(self.vocabulary_), self.idf_, self.components_)
