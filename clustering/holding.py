"""How the reader's corrections enter the clustering.

- :func:`holding` turns the corrections in force into groups of entries for a fit: each
  topic the user shaped (merged, split, made from terms, or holding a pinned entry) holds
  its entries together, and each hidden topic names the entries whose cluster goes;
- :func:`hold` is the fit's step that keeps them: every held group ends in one cluster (the
  one most of it went to, or a new one), and a hidden topic's cluster is dissolved, its
  entries going to their next-nearest cluster;
- :func:`gather` finds the entries that use a topic's terms, concept-aware: terms and
  entries go through the same tokenizer, so "KV 缓存" finds "KV cache".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .anchors import Anchor
from .membership import heaviest_word, word_columns
from .token_cache import TokenIds, entry_token_ids, tokenized_anchors

if TYPE_CHECKING:
    from topiclens.store.corrections import Corrections
    from topiclens.store.db import Store

    from .estimator import TopicModel


class Holding(NamedTuple):
    """The corrections as a fit takes them: entry indices per topic id."""

    held: dict[int, list[int]]  # topic id -> entries that stay together in it (disjoint)
    hidden: dict[int, list[int]]  # hidden topic id -> its entries (none of them held)
    context: dict[int, list[int]]  # held topic id -> entries that tell its cluster, not held
    names: dict[int, str]  # held topic id -> the name the user gave it
    empty: list[int]  # shaped topics with no entry left (their corrections cannot hold)

    def is_empty(self) -> bool:
        return not self.held and not self.hidden


def term_tokens(store: Store, terms: Sequence[str]) -> list[list[str]]:
    """Each term's tokens (cached in the store's meta with the anchors' tokens)."""
    (anchor,) = tokenized_anchors(store, [Anchor("terms", tuple(terms))])
    return [list(t) for t in anchor.tokens or () if t]


class TermIndex:
    """The TF-IDF rows of some entries, to find those that centrally discuss given terms:
    by the measure that lists an entry "also" under an anchor's topic
    (:func:`.membership.centrality`: one of the terms weighs at least ALSO_MIN_CENTRALITY
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

        from .membership import ALSO_MIN_CENTRALITY, centrality

        cols = sorted({self.column[t] for term in terms for t in term if t in self.column})
        if not cols:
            return []
        share = centrality(self.tfidf, self.counts, cols, self.top)
        return np.flatnonzero(share >= ALSO_MIN_CENTRALITY).tolist()


def gather(store: Store, terms: Sequence[str], ids: Sequence[str] | None = None) -> list[str]:
    """The ids of the entries (of ``ids``, else all) that centrally discuss ``terms``
    (:class:`TermIndex`, over these entries), in the order of ``ids``."""
    ids = store.entry_ids() if ids is None else list(ids)
    tokens = term_tokens(store, terms)
    if not ids or not tokens:
        return []
    tids, _ = entry_token_ids(store, ids)
    return [ids[i] for i in TermIndex.of_entries(tids).central(tokens)]


def holding(
    store: Store, ids: Sequence[str], corr: Corrections, tids: TokenIds | None = None
) -> Holding:
    """The groups a fit of the entries ``ids`` keeps. A pin wins over everything, then the
    latest correction an entry belongs to (a topic made from terms gathers the entries
    using them now, new ones included). A topic that only holds pinned entries (origin
    "pin") is known by the entries it had when the first was pinned: its context."""
    position = {eid: i for i, eid in enumerate(ids)}
    owner: dict[str, int] = {}
    context: dict[int, list[int]] = {}
    index: TermIndex | None = None
    for c in sorted(corr.topics.values(), key=lambda c: c.made_at):
        members = [e for e in c.entries if e in position]
        if c.origin == "pin" and not c.hidden:
            context[c.topic_id] = [position[e] for e in members]
            continue
        if c.terms:
            if index is None:  # once, for every topic made from terms
                index = TermIndex.of_entries(tids or entry_token_ids(store, ids)[0])
            members += [ids[i] for i in index.central(term_tokens(store, c.terms))]
        for eid in members:
            owner[eid] = c.topic_id
    hidden_ids = {c.topic_id for c in corr.hidden()}
    owner.update((e, t) for e, t in corr.pins.items() if e in position and t not in hidden_ids)
    held: dict[int, list[int]] = {}
    hidden: dict[int, list[int]] = {}
    for eid, tid in owner.items():
        (hidden if tid in hidden_ids else held).setdefault(tid, []).append(position[eid])
    context = {tid: rows for tid, rows in context.items() if tid in held}
    shaped = [c.topic_id for c in corr.topics.values() if not c.hidden and c.origin != "pin"]
    names = {c.topic_id: c.name for c in corr.topics.values() if c.name and c.topic_id in held}
    empty = [tid for tid in shaped if tid not in held]
    return Holding(held, hidden, context, names, empty)


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
