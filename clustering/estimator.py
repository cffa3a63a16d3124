"""TopicModel: texts into named topics, a scikit-learn clusterer.

    >>> model = TopicModel(random_state=0).fit(texts)
    >>> model.topic_names_, model.labels_
    >>> model.predict(more_texts)            # placed as the fit placed its own
    >>> make_pipeline(TopicModel()).fit_predict(texts)
    >>> TopicModel.from_bytes(model.to_bytes()).predict(more_texts)

``X`` is a sequence of strings, one per entry. Tokens already made (the pipeline's
cache) go in as the keyword ``tokens`` of :meth:`~TopicModel.fit`, ``predict`` and
``place``; ``X`` may then be None where the texts are not needed.

The fit's steps, each in its own module: tokens (``tokenize``), features (``features``:
counts, BM25 idf, TF-IDF, LSA), seed groups (``anchors``, the caller's pinned and held
groups), nearest entries (``neighbours``: smoothing, spectral embedding, similar
entries), clusters (``partition``: seeded KMeans, the 30 % cap; ``holding``: the held
groups, and hidden subjects kept out), then one :class:`FittedTopic` per cluster, filled
in step by step (anchor and pinned group carried on, cohesion, name and keywords, "also"
bar, centre).

Importing this module loads scikit-learn (the base classes and their parameter checks);
nothing on the reader's start-up path imports it (the package's names load lazily, the
pipeline imports it inside its functions). jieba loads when a model first tokenizes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, ClassVar, NamedTuple

from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils import Tags
from sklearn.utils._param_validation import Interval, InvalidParameterError, StrOptions
from sklearn.utils.validation import check_is_fitted

from .aboutness import Leads
from .anchor_topics import Evidence, earned_names, gather_into_anchors, split_off_rest
from .anchors import Anchor, AnchorGroup, anchor_groups
from .cohesion import MIXED_BELOW, cohesion
from .features import (
    Docs,
    Features,
    Vectorizer,
    bigrams_for,
    count_entries,
    feature_docs,
    fit_features,
    lsa_dims_for,
)
from .holding import Groups, Hidden, held_seeds, hidden_subjects, hold, place_guests, stragglers
from .membership import ALSO_MIN_CENTRALITY, anchor_term_sets, fit_also
from .naming import entry_terms, name_topics
from .neighbours import (
    SPECTRAL_MAX,
    SPECTRAL_MIN,
    neighbour_graph,
    silhouette,
    similar_pairs,
    smooth,
    smooth_count,
    spectral_embedding,
    spectral_neighbours,
)
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
from .placing import Placement, place
from .stages import Progress, Stage, StageClock
from .tokenize import Tokenizer, Vocabulary, default_tokenizer, vocabulary

TOP_SIMILAR = 5


@dataclass(slots=True)
class FittedTopic:
    """One topic as the fit builds it, step by step; the fitted per-topic attributes
    (``topic_names_``, ``cohesion_``, ``cluster_centers_``, ...) are read off these."""

    anchor: str | None = None  # the anchor whose seed group the cluster carries on
    pinned: Hashable | None = None  # the pinned group's key it carries on
    held: Hashable | None = None  # the held group's key it holds
    cohesion: float = 1.0
    mixed: bool = False
    name: str = ""
    keywords: list[tuple[str, float]] = field(default_factory=list)
    weights: dict[str, float] = field(default_factory=dict)  # its top tokens' class weights
    terms: list[str] = field(default_factory=list)  # own tokens of the anchor naming it
    also_bar: float = ALSO_MIN_CENTRALITY
    centre: Any = None  # (d,) unit-length mean of its entries' vectors


@dataclass(slots=True)
class _Seeds:
    """The groups of entries that start centroids, and k."""

    k: int
    named: list[Any]  # held groups (with their context), then pinned ones: the first k
    anchors: list[AnchorGroup]  # anchors that start a centroid of their own
    inside: list[AnchorGroup]  # anchors lying inside a named group: they only name
    pin_keys: list[Hashable]
    pin_members: list[Any]

    def groups(self) -> list[Any]:
        return self.named + [g.members for g in self.anchors]


class _Partition(NamedTuple):
    labels: Any  # (n,) cluster of each entry, 0..k-1
    vectors: Any  # the (smoothed) vectors the topics' centres are means of
    held: list[Hashable | None]  # each cluster's held key
    inertia: float
    silhouette: float | None
    spectral: bool
    n_split: int
    # (n,) the entries of a hidden subject, placed into clusters the others made (None:
    # none): they neither make, split, judge nor name a topic
    guests: Any = None


class TopicModel(ClusterMixin, BaseEstimator):
    """Group texts into named topics: TF-IDF (BM25 idf) and LSA features, KMeans (on a
    spectral embedding for modest corpora) seeded by anchors, class-TF-IDF names.

    Parameters
    ----------
    n_topics : int or "auto"
        About sqrt(n) when "auto", at least the seeded topics plus two.
    anchors : list or tuple of Anchor
        Topics readers care about; each seeds a centroid from the entries its terms weigh
        most in and names the cluster it wins.
    max_share : float in (0, 1] or None
        No topic holds more of the entries: a larger one is split, so there can be more
        than ``n_topics`` (``n_split_`` says how many).
    lsa_dims : int, None (no LSA) or "auto"
        200 up to 5,000 entries, 100 above.
    spectral : bool or "auto"
        KMeans on a spectral embedding of a nearest-entries graph sized by the expected
        topic size n / k (auto: 500-5,000 entries).
    smoothing : bool
        Pull each vector towards its nearest entries' before KMeans (not with the
        spectral step, whose diffusion does that) and when placing new texts.
    bigrams : bool or "auto"
        Feature-only Chinese character bigrams (auto: up to 5,000 entries, when the
        texts are given).
    n_init : int or "auto"
        KMeans starts (auto: 10, 4 above 5,000, 1 above 20,000).
    n_similar : int
        Similar entries kept per entry.
    tokenizer : Tokenizer or None
        The bundled one when None.
    random_state : int
        The same value gives the same topics.

    Attributes
    ----------
    n_topics_ : int
        k: ``n_topics``, or fewer when fewer entries differ, or more when the
        ``max_share`` cap split clusters or an anchor's topic gave up a rest.
    labels_ : ndarray of shape (n_entries,)
        Each fitted entry's topic, an index into the per-topic attributes.
    cluster_centers_ : ndarray of shape (n_topics_, n_dims)
        Each topic's unit-length centre in the (smoothed) LSA space.
    topic_names_ : list of str
        Each topic's name: an anchor's, "A & B" from its keywords, or "Mixed: a, b, c".
    keywords_ : list of list of (str, float)
        Each topic's display keywords and their class TF-IDF weights, best first.
    term_weights_ : list of dict
        Each topic's top tokens and their class weights (ties new entries' terms to it).
    topic_anchors_ : list of str or None
        The anchor whose seed group each topic carries on.
    topic_pinned_ : list or None
        The ``pinned`` key each topic carries on (see :meth:`fit`).
    topic_held_ : list or None
        The ``held`` key each topic holds (see :meth:`fit`); not kept by ``to_bytes``.
    cohesion_ : list of float
        How much more a topic's entries share than any two entries do, 0..1.
    mixed_ : list of bool
        Whether a topic's cohesion is below MIXED_BELOW (and no user group holds it).
    topic_terms_ : list of list of str
        The own tokens of the anchor naming each topic (empty: none names it).
    also_bars_ : list of float
        The centrality an entry needs to be listed "also" under each topic.
    also_ : list of list of (int, float)
        Each fitted entry's "also" topics and centralities; not kept by ``to_bytes``.
    scores_ : ndarray of shape (n_entries,)
        Each fitted entry's cosine to its topic's centre; not kept by ``to_bytes``.
    terms_ : list of list of str
        The terms tying each fitted entry to its topic; not kept by ``to_bytes``.
    similar_ : list of list of (int, float)
        Each fitted entry's most similar entries (index, cosine); not kept by ``to_bytes``.
    vocabulary_ : dict of str to int
        Each feature token's column.
    idf_ : ndarray of shape (n_features,)
        BM25 idf of each column.
    components_ : ndarray of shape (n_dims, n_features) or None
        The LSA projection (None without LSA).
    embedding_ : ndarray of shape (n_entries, n_dims) or None
        The fitted entries' LSA vectors (float16), which new texts are smoothed towards.
    fitted_rows_ : ndarray or None
        Set by a fit on a sample (:mod:`.scale`): the entries whose vectors
        ``embedding_`` holds; None when it holds every fitted entry's.
    guests_ : ndarray of shape (n_entries,) or None
        The fitted entries of a hidden topic's subject, placed into topics the others
        made (None: none); not kept by ``to_bytes``.
    inertia_ : float
        KMeans's inertia.
    silhouette_ : float or None
        The spectral topics' silhouette in the LSA space, how crisp the corpus is (None:
        no spectral step).
    spectral_ : bool
        Whether the topics come from the spectral embedding.
    n_split_ : int
        Topics the ``max_share`` cap split off.
    bigrams_ : bool
        Whether the features held character bigrams.
    stage_seconds_ : dict of str to float
        Seconds the fit spent in each :class:`Stage` (empty on a loaded model).
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_topics": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "anchors": [list, tuple],  # of Anchor: checked in _validate_params
        "max_share": [Interval(Real, 0, 1, closed="right"), None],
        "lsa_dims": [Interval(Integral, 1, None, closed="left"), None, StrOptions({"auto"})],
        "spectral": ["boolean", StrOptions({"auto"})],
        "smoothing": ["boolean"],
        "bigrams": ["boolean", StrOptions({"auto"})],
        "n_init": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "n_similar": [Interval(Integral, 0, None, closed="left")],
        "tokenizer": [Tokenizer, None],
        "random_state": [Interval(Integral, 0, 2**32 - 1, closed="both")],
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

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        # texts in, as scikit-learn's own text vectorizers take them
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "labels_")

    def _validate_params(self) -> None:
        super()._validate_params()
        if not all(isinstance(a, Anchor) for a in self.anchors):
            raise InvalidParameterError(
                f"The 'anchors' parameter of {type(self).__name__} must be a list or tuple "
                f"of Anchor. Got {self.anchors!r} instead."
            )

    # --- fit ------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self,
        X: Sequence[str] | None,
        y: None = None,
        *,
        tokens: Docs | None = None,
        pinned: Groups | None = None,
        held: Groups | None = None,
        hidden: Sequence[Sequence[int]] = (),
        context: Groups | None = None,
        progress: Progress | None = None,
    ) -> TopicModel:
        """Cluster the texts ``X`` (one string per entry) into topics; returns ``self``.
        ``y`` is ignored (scikit-learn's signature).

        ``tokens``, when given, are each text's tokens as the tokenizer makes them
        (token lists, or their :class:`TokenCounts`), for example from a cache: they
        stand in for tokenizing, and ``X`` is then read only for the bigram features,
        so it may be None when :meth:`needs_texts` says so.

        ``pinned`` maps a caller's key (the pipeline: a topic id) to entry indices that
        must carry on as one topic (a topic the user named): the first k groups each seed
        a centroid, and every group claims the cluster most of it goes to, unless a
        stronger claim took it (``topic_pinned_``; a key found nowhere in it kept no
        topic).

        ``held`` maps a key to entry indices that must end in one topic (a correction the
        user made: a merge, a split's part, a topic made from terms): each group seeds a
        centroid, then all of it goes to the cluster most of it went to, or to a new one
        (``topic_held_``); ``context`` adds, per key, entries that seed and choose that
        cluster without being held. Each ``hidden`` group (a topic the user hid) stays out
        of the clustering, with the entries the clusters then show to be of its subject;
        they join the nearest topics the others made, none of which they may make up most
        of, and judge, name and centre none (:func:`.holding.hidden_subjects`,
        :func:`.holding.stragglers`, :func:`.holding.place_guests`)."""

        clock = StageClock(progress)
        texts = X
        n = count_entries(texts, tokens)
        bigrams = self.needs_texts(n) and (texts is not None or self.bigrams is True)
        fitted, f = self._fit_features(texts, tokens, n, bigrams)
        clock.done(Stage.FEATURES, 0.6)

        held = {key: g for key, g in (held or {}).items() if len(g)}
        context = context or {}
        kept_out = hidden_subjects(f.vectors, hidden, held)
        # k as if the hidden topics' entries were not there: they make no topic
        m = n - int(kept_out.rows.sum())
        seeds = self._seeds(f, fitted.vocab, m, pinned or {}, held, context)
        near = neighbour_graph(f.vectors, self._neighbour_count(n), seeds.k, self.random_state)
        near_idx = near[0]
        clock.done(Stage.NEIGHBOURS, 0.65)

        part = self._partition(f.vectors, near_idx, seeds, held, kept_out, context)
        clock.done(Stage.KMEANS, 0.75)

        own = anchor_term_sets(self.anchors, self._tokenize)
        leads = Leads(texts, self._tokenize)
        labels, topics = self._topics(part, seeds, own, f, fitted.vocab, leads)
        return self._finish(topics, labels, part, own, f, fitted, texts, bigrams, near, clock)

    def _finish(
        self,
        topics: list[FittedTopic],
        labels: Any,
        part: _Partition,
        own: dict[str, set[str]],
        f: Features,
        fitted: Vectorizer,
        texts: Sequence[str] | None,
        bigrams: bool,
        near: tuple[Any, Any],
        clock: StageClock,
    ) -> TopicModel:
        """Every topic judged, named and centred from its entries (``labels``), and the
        fitted attributes set: the fit's steps after the partition, which a fit that
        continues a saved model (:mod:`.continuing`) shares."""
        import numpy as np

        near_idx, near_sim = near
        # a topic is judged, named and centred by its own entries, not a hidden subject's
        own_labels = labels if part.guests is None else np.where(part.guests, -1, labels)
        self._judge(topics, f.vectors, own_labels)
        class_weights = self._name(topics, labels, own, f, fitted.vocab, texts, part.guests)
        also, bars = fit_also(f.tfidf, f.counts, fitted.vocab, [t.terms for t in topics], labels)
        for topic, bar in zip(topics, bars, strict=True):
            topic.also_bar = bar
        self._centre(topics, part.vectors, own_labels)
        centres = np.vstack([t.centre for t in topics])
        scores = np.einsum("ij,ij->i", part.vectors, centres[labels])
        terms = entry_terms(f.tfidf, labels, class_weights, fitted.vocab, self._vocabulary())
        clock.done(Stage.NAME, 0.85)
        similar = similar_pairs(near_idx, near_sim, self.n_similar)
        clock.done(Stage.SIMILAR, 0.9)

        self._keep_topics(topics)
        self.labels_ = labels
        self.scores_ = scores
        self.terms_ = terms
        self.also_ = also
        self.similar_ = similar
        self.vocabulary_ = {t: j for j, t in enumerate(fitted.vocab)}
        self.idf_ = fitted.idf
        self.components_ = fitted.components
        # what placing new texts compares them with; float16 halves the saved model
        self.embedding_ = None if fitted.components is None else f.vectors.astype(np.float16)
        self.fitted_rows_ = None  # every entry's vector is kept (a sampled fit: its rows)
        self.guests_ = part.guests
        self.inertia_ = part.inertia
        self.silhouette_ = part.silhouette
        self.spectral_ = part.spectral
        self.n_split_ = part.n_split
        self.bigrams_ = bigrams
        self.stage_seconds_ = clock.seconds
        return self

    def needs_texts(self, n: int) -> bool:
        """Whether fitting ``n`` entries reads their texts when given their tokens (for
        the bigram features)."""
        return bigrams_for(n) if self.bigrams == "auto" else bool(self.bigrams)

    # the fit's steps, in order

    def _fit_features(
        self, texts: Sequence[str] | None, tokens: Docs | None, n: int, bigrams: bool
    ) -> tuple[Vectorizer, Features]:
        """The vocabulary, idf and LSA projection learnt, and the entries' features."""
        docs = feature_docs(texts, tokens, self._tokenizer(), bigrams)
        lsa_dims = lsa_dims_for(n) if self.lsa_dims == "auto" else self.lsa_dims
        return fit_features(docs, lsa_dims=lsa_dims, random_state=self.random_state)

    def _seeds(
        self,
        f: Features,
        vocab: Sequence[str],
        n: int,
        pinned: Groups,
        held: Groups,
        context: Groups,
    ) -> _Seeds:
        """k, and the groups that start centroids: the held and pinned groups, then the
        anchors' (largest first) while there is room."""
        import numpy as np

        anchors = anchor_groups(f.tfidf, vocab, self.anchors, self._tokenize)
        pinned = {key: g for key, g in pinned.items() if len(g)}
        pin_members = [np.asarray(g, dtype=np.int64) for g in pinned.values()]
        n_seeds = len(anchors) + len(pinned) + len(held)
        k = auto_k(n, n_seeds) if self.n_topics == "auto" else self.n_topics
        k = max(1, min(int(k), n))
        # more named groups than topics: the first k seed a centroid, every one may claim
        named = (held_seeds(held, context) + pin_members)[:k]
        anchors = sorted(anchors, key=lambda g: -len(g.members))
        # an anchor whose entries mostly lie in one named group is that group's subject: a
        # second centroid there would split the group; it still names the cluster it wins
        within = [covered(g.members, named) for g in anchors]
        inside = [g for g, w in zip(anchors, within, strict=True) if w]
        outside = [g for g, w in zip(anchors, within, strict=True) if not w]
        return _Seeds(k, named, outside[: k - len(named)], inside, list(pinned), pin_members)

    def _neighbour_count(self, n: int) -> int:
        """Nearest entries the fit looks up: for smoothing and for the similar entries."""
        return max(smooth_count(n) if self.smoothing else 0, self.n_similar)

    def _partition(
        self,
        x: Any,
        near_idx: Any,
        seeds: _Seeds,
        held: Groups,
        hidden: Hidden,
        context: Groups,
    ) -> _Partition:
        """The clusters: seeded KMeans (on the spectral embedding, or on the smoothed
        vectors) of every entry but the ``hidden`` topics', split by the cap; then the
        entries those clusters show to be of a hidden subject join them
        (:func:`.holding.stragglers`), the held groups are kept, and all of them are
        placed as guests (:func:`.holding.place_guests`)."""
        import numpy as np

        n, k, rs = x.shape[0], seeds.k, self.random_state
        guests = hidden.rows
        rows: Any = slice(None)  # the entries clustered
        groups = seeds.groups()
        if guests.any():
            rows = np.flatnonzero(~guests)
            at = np.full(n, -1, dtype=np.int64)  # each entry's position among them
            at[rows] = np.arange(len(rows))
            # a seed group of hidden entries alone seeds nothing
            groups = [g for g in (_kept(at, g) for g in groups) if len(g)]
        m = n - int(guests.sum())
        spectral = SPECTRAL_MIN <= m <= SPECTRAL_MAX if self.spectral == "auto" else self.spectral
        run_spectral = spectral and m > k + 2
        # the spectral step's diffusion already averages over neighbours: no smoothing
        xs = smooth(x, near_idx[:, : smooth_count(n)]) if self.smoothing and not run_spectral else x
        graph = spectral_neighbours(m, k)
        space = spectral_embedding(x[rows], k, graph, rs) if run_spectral else xs[rows]
        starts = n_init_for(m) if self.n_init == "auto" else self.n_init
        labels, inertia = kmeans(space, k, seed_centroids(space, groups), rs, starts)
        # how well the LSA space itself separates the topics: a diagnostic, not a switch
        # (on crisp keyword groups KMeans on the LSA vectors merges two groups on some
        # seeds, where the spectral step recovers every group)
        score = silhouette(x[rows], labels, rs) if run_spectral else None
        made = len(np.unique(labels))  # below k when fewer than k rows differ
        if self.max_share is not None and m >= 10:
            labels = cap(space, labels, rs, self.max_share)
        n_split = len(np.unique(labels)) - made
        if not guests.any():
            labels, held_keys = hold(labels, held, context)
            return _Partition(labels, xs, held_keys, inertia, score, run_spectral, n_split)
        every = np.zeros(n, dtype=np.int64)  # a guest's cluster is chosen last
        every[rows] = labels
        guests = guests | stragglers(x, every, hidden, held)
        context = {key: [i for i in g if not guests[i]] for key, g in context.items()}
        every, held_keys = hold(every, held, context)
        every, held_keys = place_guests(xs, every, guests, held_keys)
        return _Partition(every, xs, held_keys, inertia, score, run_spectral, n_split, guests)

    def _topics(
        self,
        part: _Partition,
        seeds: _Seeds,
        own: dict[str, set[str]],
        f: Features,
        vocab: Sequence[str],
        leads: Leads,
    ) -> tuple[Any, list[FittedTopic]]:
        """One topic per cluster, with the anchor and the pinned group it carries on;
        with an automatic k, an anchor's topic gives up its rest (entries not about the
        anchor's ``own`` tokens) as a topic of its own."""
        labels = part.labels
        k = int(labels.max()) + 1
        claims = seeds.anchors + seeds.inside
        names = [g.anchor.name for g in claims]
        won = carriers(labels, k, [g.members for g in claims], names, by_share=False, min_count=2)
        kept = carriers(labels, k, seeds.pin_members, seeds.pin_keys, by_share=True)
        topics = [
            FittedTopic(
                anchor=None if a is None else names[a],
                pinned=None if p is None else seeds.pin_keys[p],
                held=h,
            )
            for a, p, h in zip(won, kept, part.held, strict=True)
        ]
        if self.n_topics == "auto":  # --k N gives N topics
            whole = [t.held if t.pinned is None else t.pinned for t in topics]
            evidence = Evidence(own, f.tfidf, f.counts, vocab, f.vectors, leads)
            anchors = [t.anchor for t in topics]
            labels = split_off_rest(labels, anchors, whole, evidence, part.guests)
            grown = int(labels.max()) + 1 - k
            labels = gather_into_anchors(
                labels, anchors + [None] * grown, whole + [None] * grown, evidence, part.guests
            )
            topics += [FittedTopic() for _ in range(int(labels.max()) + 1 - k)]
        return labels, topics

    @staticmethod
    def _judge(topics: list[FittedTopic], x: Any, labels: Any) -> None:
        """Each topic's cohesion, and whether it is mixed (``labels``: -1 for an entry
        that counts in none)."""
        for topic, value in zip(topics, cohesion(x, labels, len(topics)), strict=True):
            topic.cohesion = value
            # a topic whose entries share little is mixed, whatever anchor it carries on
            topic.mixed = topic.pinned is None and topic.held is None and value < MIXED_BELOW

    def _name(
        self,
        topics: list[FittedTopic],
        labels: Any,
        own: dict[str, set[str]],
        f: Features,
        vocab: list[str],
        texts: Sequence[str] | None,
        guests: Any = None,
    ) -> Any:
        """Each topic's name, keywords, weights and naming anchor's (``own``) tokens, from
        its entries but the ``guests``; returns the class weights (k, V) the terms tying
        entries to their topic come from."""
        terms = {a.name: a.term_tokens(self._tokenize) for a in self.anchors}
        anchors = [t.anchor for t in topics]
        mixed = [t.mixed for t in topics]
        leads = Leads(texts, self._tokenize)
        counts, naming_labels = f.counts, labels
        if guests is not None:
            import numpy as np
            import scipy.sparse as sp

            counts = sp.diags((~guests).astype(f.counts.dtype)) @ f.counts
            naming_labels = np.where(guests, -1, labels)
        named = earned_names(anchors, mixed, naming_labels, terms, own, f, vocab, leads)
        in_names = set().union(*(terms[a] for a in named if a))
        naming = name_topics(
            counts,
            labels,
            len(topics),
            vocab,
            self._vocabulary(),
            named,
            mixed,
            in_names,
            texts,
            reserved=list(terms),
        )
        for c, topic in enumerate(topics):
            topic.name = naming.names[c]
            topic.keywords = naming.keywords[c]
            topic.weights = naming.weights[c]
            topic.terms = sorted(own[named[c]]) if named[c] else []
        return naming.class_weights

    @staticmethod
    def _centre(topics: list[FittedTopic], vectors: Any, labels: Any) -> None:
        """Each topic's centre: the unit-length mean of its entries' ``vectors`` (``labels``:
        -1 for an entry that counts in none)."""
        import numpy as np

        centres = np.vstack(
            [np.asarray(vectors[labels == c].mean(axis=0)).ravel() for c in range(len(topics))]
        ).astype(np.float32)
        centres /= np.maximum(np.linalg.norm(centres, axis=1, keepdims=True), 1e-12)
        for topic, centre in zip(topics, centres, strict=True):
            topic.centre = centre

    def _keep_topics(self, topics: Sequence[FittedTopic]) -> None:
        """The fitted per-topic attributes, read off the topics."""
        import numpy as np

        self.n_topics_ = len(topics)
        self.topic_names_ = [t.name for t in topics]
        self.keywords_ = [t.keywords for t in topics]
        self.term_weights_ = [t.weights for t in topics]
        self.topic_anchors_ = [t.anchor for t in topics]
        self.topic_pinned_ = [t.pinned for t in topics]
        self.topic_held_ = [t.held for t in topics]
        self.cohesion_ = [t.cohesion for t in topics]
        self.mixed_ = [t.mixed for t in topics]
        self.topic_terms_ = [t.terms for t in topics]
        self.also_bars_ = [t.also_bar for t in topics]
        self.cluster_centers_ = np.vstack([t.centre for t in topics]).astype(np.float32)

    # --- predict --------------------------------------------------------------------

    def predict(self, X: Sequence[str] | None, *, tokens: Docs | None = None) -> Any:
        """The topic (an index into ``topic_names_``) of each new text; ``tokens`` as in
        :meth:`fit`."""
        return self.place(X, tokens=tokens).labels

    def place(
        self,
        X: Sequence[str] | None,
        *,
        tokens: Docs | None = None,
        among: Sequence[bool] | None = None,
        neighbours: Callable[[Any, Any, int], tuple[Any, Any]] | None = None,
        topics: Any = None,
        bigrams: Sequence[Sequence[str] | bytes | None] | None = None,
    ) -> Placement:
        """Place new texts as the fit placed its own: :func:`.placing.place` (which says
        what each parameter does; it places with a saved model's arrays alone as well)."""
        self._check_fitted()
        return place(
            self,
            X,
            tokens=tokens,
            among=among,
            neighbours=neighbours,
            topics=topics,
            bigrams=bigrams,
        )

    def get_feature_names_out(self) -> list[str]:
        """Each feature column's token, in column order (bigrams start with \\x02)."""
        self._check_fitted()
        return list(self.vocabulary_)

    # --- saving ---------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The fitted model as bytes (:meth:`from_bytes` reads them): everything but the
        per-entry results of the fit (``scores_``, ``terms_``, ``similar_``, ``also_``)
        and ``topic_held_``."""
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
        check_is_fitted(
            self,
            msg="This %(name)s is not fitted yet: call fit, or load one with from_bytes.",
        )

    def _tokenizer(self) -> Tokenizer:
        return self.tokenizer or default_tokenizer()

    def _tokenize(self, text: str) -> list[str]:
        return self._tokenizer()(text)

    def _vocabulary(self) -> Vocabulary:
        return self.tokenizer.vocab if self.tokenizer else vocabulary()

    def _vectorizer(self) -> Vectorizer:
        return Vectorizer(list(self.vocabulary_), self.idf_, self.components_)


def _kept(at: Any, group: Sequence[int]) -> Any:
    """The rows of ``group`` that are clustered, as positions among them (``at``: each
    entry's position, -1 for one left out)."""
    import numpy as np

    pos = at[np.asarray(group, dtype=np.int64)]
    return pos[pos >= 0]
