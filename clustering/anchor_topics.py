"""An anchor's topic gives up the entries that are not about it, when they make a topic.

KMeans groups entries by everything they say, so the cluster an anchor wins can hold a
neighbouring subject whose entries only mention the anchor: on the bundled corpus, vLLM
release notes that each name the KV cache in passing won the "KV cache" anchor. An
anchor's cluster is split in two when most of its entries are not about the anchor
(their text gives the anchor's terms less than ABOUT_MIN of the weight of their heaviest
word), and those are at least SPLIT_MIN_REST and share enough to be a topic of their
own (a cohesion of MIXED_BELOW or more): they become that topic, named from their
keywords, and the anchor keeps the entries about it. A rest that shares little stays
(moving it to its nearest topic made a catch-all of one topic: docs/clustering.md,
"Anchor topics keep their subject"). Only when k is automatic, so that ``--k N`` still
gives N topics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from .aboutness import Leads
from .cohesion import ANCHOR_MIN_USE, MIXED_BELOW, pair_mean, relative, term_use
from .membership import (
    ALSO_MIN_CENTRALITY,
    ALSO_MIN_COUNT,
    centrality,
    heaviest_word,
    word_columns,
)

# chosen on the bundled corpus's reference labels (F1 of its four named topics and NMI,
# three seeds; the quality suite's corpora run without anchors): docs/clustering.md
ABOUT_MIN = 0.3
SPLIT_MIN_REST = 2  # entries the rest needs to be a topic
# an entry of a mixed topic joins an anchor's topic when the anchor's terms weigh at least
# this share of their median weight in the topic's own entries (chosen with the split's
# rules by the four named topics' worst F1 and the Mixed share, docs/clustering.md)
GATHER_OF_OWN = 0.8


class Evidence(NamedTuple):
    """What the anchor steps read of a fit: each anchor's own tokens (``term_sets``), the
    entries' TF-IDF and counts over ``vocab_tokens``, the LSA rows cohesion is measured in
    (``vectors``), and the entries' leads (None: their texts are not read)."""

    term_sets: dict[str, set[str]]
    tfidf: Any
    counts: Any
    vocab_tokens: Sequence[str]
    vectors: Any
    leads: Leads | None = None


def split_off_rest(
    labels: Any,
    anchors: Sequence[str | None],
    pinned: Sequence[object | None],
    evidence: Evidence,
    guests: Any = None,
) -> Any:
    """``labels`` where each anchor's cluster (``anchors[c]``, a name in ``term_sets``;
    a cluster a user pinned is left whole) may have given its entries not about the
    anchor a new cluster, numbered from ``len(anchors)`` on; ``vectors`` are the LSA rows
    cohesion is measured in. The ``guests`` (a hidden subject's entries) stay where they
    are and count for nothing: they would make the hidden topic again."""
    import numpy as np

    term_sets, tfidf, counts, vocab_tokens, vectors, leads = evidence

    out = labels.copy()
    mine = labels if guests is None else np.where(guests, -1, labels)
    corpus = None  # the corpus's pair mean, when first needed
    words = word_columns(vocab_tokens)
    wanted = set().union(*term_sets.values()) if term_sets else set()
    col = {t: j for j, t in enumerate(vocab_tokens) if t in wanted}
    for c, name in enumerate(anchors):
        if name is None or pinned[c] is not None or name not in term_sets:
            continue
        members = np.flatnonzero(mine == c)
        cols = [col[t] for t in term_sets[name] if t in col]
        named = None if leads is None else leads.name(members, term_sets[name])
        about = about_anchor(tfidf, counts, cols, words, members, named)
        rest = members[~about]
        # most entries about the anchor: the cluster is the anchor's (and its name)
        if len(rest) * 2 < len(members) or len(rest) < SPLIT_MIN_REST or about.sum() == 0:
            continue
        if corpus is None:
            corpus = pair_mean(vectors)
        if relative(pair_mean(vectors[rest]), corpus) >= MIXED_BELOW:
            out[rest] = int(out.max()) + 1
    return out


def about_anchor(
    tfidf: Any,
    counts: Any,
    cols: Sequence[int],
    words: Any,
    members: Any,
    in_lead: Any = None,
) -> Any:
    """(len(members),) whether each of the rows ``members`` is about the anchor whose own
    tokens are the columns ``cols``: they weigh ABOUT_MIN of the row's heaviest word (of
    the columns ``words``), and the entry says them where it says what it is about (its
    lead, ``in_lead``: one mention there is enough, a title has one) or says them more
    than once; a single mention in the body is a component named in passing. Without
    ``in_lead`` (the texts are not read) one mention counts anywhere. Reads only those
    rows: at 100,000 entries the whole matrix costs seconds."""
    import numpy as np

    rows, uses = tfidf[members], counts[members]
    top = heaviest_word(rows, words)
    share = centrality(rows, uses, cols, top, min_count=1)
    if in_lead is not None:
        said = np.asarray(uses[:, cols].sum(axis=1)).ravel() if cols else np.zeros(len(share))
        share = np.where(in_lead | (said >= ALSO_MIN_COUNT), share, 0.0)
    return share >= ABOUT_MIN


def earned_names(
    won: Sequence[str | None],
    mixed: Sequence[bool],
    labels: Any,
    terms: dict[str, set[str]],
    own: dict[str, set[str]],
    features: Any,
    vocab_tokens: Sequence[str],
    leads: Leads | None = None,
) -> list[str | None]:
    """Each topic's anchor name, or None: an anchor names the topic it won (``won[c]``)
    only when the topic is not mixed, ANCHOR_MIN_USE of its entries use one of the
    anchor's ``terms``, and most of them are about the anchor (its ``own`` tokens; the
    ``features``' tfidf and counts)."""
    import numpy as np

    wanted = set().union(*terms.values()) if terms else set()
    col = {t: j for j, t in enumerate(vocab_tokens) if t in wanted}
    words = word_columns(vocab_tokens)

    def earned(c: int, name: str) -> bool:
        rows = labels == c
        used = [col[t] for t in terms[name] if t in col]
        if term_use(features.counts, rows, used) < ANCHOR_MIN_USE:
            return False
        mine = [col[t] for t in own[name] if t in col]
        members = np.flatnonzero(rows)
        named = None if leads is None else leads.name(members, own[name])
        about = about_anchor(features.tfidf, features.counts, mine, words, members, named)
        return bool(about.mean() > 0.5)

    return [a if a and not mixed[c] and earned(c, a) else None for c, a in enumerate(won)]


def gather_into_anchors(
    labels: Any,
    anchors: Sequence[str | None],
    pinned: Sequence[object | None],
    evidence: Evidence,
    guests: Any = None,
) -> Any:
    """``labels`` where an entry whose cluster is not what it is about has moved to the
    coherent anchor cluster (``anchors[c]``) it centrally discusses, the most central one
    when several qualify. Not what it is about: a mixed cluster (a cohesion below
    MIXED_BELOW: its entries share no subject), or an anchor's cluster whose anchor the
    entry is not about (:func:`about_anchor`, its ``leads`` read). Centrally: the anchor's
    own terms (``term_sets``) weigh at least ALSO_MIN_CENTRALITY of the entry's heaviest
    word and GATHER_OF_OWN of the median weight they have in the cluster's own entries, and
    the entry says them more than once: it would be listed "also" there. Clusters a user
    pinned or held keep their entries, and a cluster every entry of which would leave keeps
    them all (its entries share that much after all). The ``guests`` (a hidden subject's
    entries) stay where they are and count for nothing."""
    import numpy as np

    term_sets, tfidf, counts, vocab_tokens, vectors, leads = evidence

    out = labels.copy()
    k = int(labels.max()) + 1
    if guests is not None:  # as if they were not there; they keep their labels in ``out``
        labels = np.where(guests, -1, labels)
    if not any(a in term_sets for a in anchors[:k] if a is not None):
        return out
    corpus = pair_mean(vectors)
    coherent = [relative(pair_mean(vectors[labels == c]), corpus) >= MIXED_BELOW for c in range(k)]
    targets = [
        c
        for c, name in enumerate(anchors[:k])
        if name is not None and name in term_sets and coherent[c]
    ]
    sources = [c for c in range(k) if not coherent[c] and pinned[c] is None]
    loose = np.isin(labels, sources)
    words = word_columns(vocab_tokens)
    wanted = set().union(*(term_sets[a] for a in anchors[:k] if a in term_sets))
    col = {t: j for j, t in enumerate(vocab_tokens) if t in wanted}
    for c, name in enumerate(anchors[:k]):
        if name is None or name not in term_sets or pinned[c] is not None or not coherent[c]:
            continue
        # an anchor's cluster: its entries not about the anchor may go where they belong
        members = np.flatnonzero(labels == c)
        cols = [col[t] for t in term_sets[name] if t in col]
        named = None if leads is None else leads.name(members, term_sets[name])
        stray = members[~about_anchor(tfidf, counts, cols, words, members, named)]
        if len(stray):
            loose[stray] = True
            sources.append(c)
    if not targets or not sources:
        return out
    # only the rows that may move, and each target's own: at 100,000 entries the whole
    # matrix costs seconds
    idx = np.flatnonzero(loose)
    rows, uses = tfidf[idx], counts[idx]
    top = heaviest_word(rows, words)
    best = np.zeros(len(idx))
    where = np.full(len(labels), -1)
    for c in targets:
        cols = [col[t] for t in term_sets[anchors[c]] if t in col]
        mine = np.flatnonzero(labels == c)
        own = centrality(tfidf[mine], counts[mine], cols, heaviest_word(tfidf[mine], words))
        own = own[own > 0]
        bar = max(ALSO_MIN_CENTRALITY, GATHER_OF_OWN * float(np.median(own)) if len(own) else 0.0)
        share = centrality(rows, uses, cols, top)
        better = (labels[idx] != c) & (share >= bar) & (share > best)
        best[better], where[idx[better]] = share[better], c
    for c in sources:
        members = labels == c
        if (where[members] >= 0).all():
            where[members] = -1
    moved = where >= 0
    out[moved] = where[moved]
    return out
