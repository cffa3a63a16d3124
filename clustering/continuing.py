"""A re-cluster that continues the saved model instead of starting over.

The entries already in topics stay where they are; the saved model's vocabulary, idf and
LSA projection give every entry its vector (when they still fit the entries); each new
entry goes to the nearest topic's centre when it fits there as well as the topic's own
entries do. A topic changes only where the data asks:

- new entries that fit no topic and agree among themselves form a new topic;
- a topic that new entries made incoherent (its cohesion fell below MIXED_BELOW) splits
  in two when both parts are coherent;
- a topic left with no entry goes.

The user's corrections hold as in a fresh fit (:func:`.holding.hold`); hidden topics are
already gone from the store, their entries in their next-best topics. The fit's own
steps then judge, name and centre the topics (``TopicModel._finish``), so names follow
the fresh fit's rules. :func:`.pipeline.cluster_store` calls :func:`continue_fit`, and
fits afresh when it returns None.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .cohesion import MIXED_BELOW, pair_mean, relative
from .features import Docs, TokenCounts, count_entries, feature_docs, features_in
from .holding import Groups, hold
from .membership import anchor_term_sets
from .neighbours import neighbour_graph, smooth, smooth_count
from .partition import kmeans
from .stages import Progress, Stage, StageClock
from .tokenize import BIGRAM_MARK

if TYPE_CHECKING:
    from .estimator import TopicModel

NEW_MIN = 3  # entries a new topic (or each part of a split) needs at least
FIT_QUANTILE = 0.1  # a new entry fits a topic as close as this share of old entries are
VOCAB_KEEP = 0.6  # new entries' words the saved vocabulary knows, relative to old ones'
GROWTH_MAX = 0.5  # more new entries than this share of the old ones: start over
SPLIT_STARTS = 4  # KMeans starts when a topic splits in two or new entries group


@dataclass(slots=True)
class Start:
    """The topics a continued fit starts from, as the store holds them."""

    labels: Any  # (n,) each entry's topic index, -1 for an entry in no topic yet
    anchors: list[str | None]  # each topic's anchor
    pinned: list[Hashable | None]  # each topic's key when the user named it
    cohesion: list[float]  # each topic's cohesion when it was stored
    grow: bool = True  # may new topics form and topics split (False: a k the user typed)
    dissolve: Any = ()  # entries of topics hidden since (label -1): to their nearest topic


class Continued(NamedTuple):
    """What a continued fit made: each topic's index in the start (None: a new topic or a
    split's part) and what changed."""

    origin: list[int | None]
    changes: Changes


@dataclass(slots=True)
class Changes:
    """What a continued re-cluster changed, for one line."""

    new_topics: int = 0
    split: int = 0
    gone: int = 0
    moved: int = 0  # entries that were in a topic and are in another now
    placed: int = 0  # entries in no topic before
    old: int = 0  # entries that were in a topic

    def line(self) -> str:
        """ "2 new topics, 1 split, 3% of entries moved"."""
        parts = []
        if self.new_topics:
            parts.append(f"{self.new_topics} new {'topic' if self.new_topics == 1 else 'topics'}")
        if self.split:
            parts.append(f"{self.split} split")
        if self.gone:
            parts.append(f"{self.gone} gone")
        share = self.moved / self.old if self.old else 0.0
        moved = "no entry moved" if not self.moved else f"{_percent(share)} of entries moved"
        parts.append(moved)
        if self.placed:
            parts.append(f"{self.placed} new {'entry' if self.placed == 1 else 'entries'} placed")
        return ", ".join(parts)


def _percent(share: float) -> str:
    return f"{share:.0%}" if share >= 0.01 else "under 1%"


def continue_fit(
    model: TopicModel,
    saved: TopicModel,
    texts: Sequence[str] | None,
    tokens: Docs,
    start: Start,
    *,
    held: Groups,
    context: Groups,
    progress: Progress | None = None,
) -> Continued | None:
    """Fit ``model`` (unfitted, with the saved model's parameters) by continuing the
    ``saved`` one from ``start``; None when the saved vocabulary no longer fits the
    entries (too many new ones, or new ones using words it never saw): fit afresh."""
    import numpy as np

    clock = StageClock(progress)
    n = count_entries(texts, tokens)
    old = start.labels >= 0
    n_old = int(old.sum())
    if not n_old or n - n_old > GROWTH_MAX * n_old:
        return None
    if saved.bigrams_ and texts is None:
        return None
    fitted = saved._vectorizer()
    f = features_in(feature_docs(texts, tokens, model._tokenizer(), saved.bigrams_), fitted)
    if not _vocabulary_fits(tokens, f.counts, fitted.vocab, old):
        return None
    clock.done(Stage.FEATURES, 0.6)

    k0 = len(start.anchors)
    x = f.vectors
    near = neighbour_graph(x, model._neighbour_count(n), k0, model.random_state)
    # as the saved fit: its centres are means of smoothed vectors unless it was spectral
    smoothed = model.smoothing and not saved.spectral_
    xs = smooth(x, near[0][:, : smooth_count(n)]) if smoothed else x
    clock.done(Stage.NEIGHBOURS, 0.65)

    labels = np.array(start.labels, dtype=np.int64, copy=True)
    changes = Changes(old=n_old, placed=n - n_old - len(start.dissolve))
    if len(start.dissolve):  # a hidden topic's entries form no topic again
        centres = np.vstack([_unit_mean(xs[labels == c]) for c in range(k0)])
        rows = np.asarray(start.dissolve, dtype=np.int64)
        labels[rows] = (xs[rows] @ centres.T).argmax(axis=1)
    _place_new(labels, xs, x, k0, start.grow, model.random_state, changes)
    if start.grow:
        _split_grown(labels, xs, x, start, model.random_state, changes)
    before = labels.copy()
    labels, held_keys = hold(xs, labels, held, [], context)
    k = int(labels.max()) + 1
    origin = _origins(before, labels, k0)
    changes.gone = k0 - len({o for o in origin if o is not None})
    changes.moved = int((old & (start.labels != _mapped(labels, origin, k0))).sum())
    clock.done(Stage.KMEANS, 0.75)

    from .estimator import FittedTopic, _Partition

    topics = [
        FittedTopic(
            anchor=None if o is None else start.anchors[o],
            pinned=None if o is None else start.pinned[o],
            held=h,
        )
        for o, h in zip(origin, held_keys, strict=True)
    ]
    centres = np.vstack([_unit_mean(xs[labels == c]) for c in range(k)])
    inertia = float(((xs - centres[labels]) ** 2).sum())
    part = _Partition(labels, xs, held_keys, inertia, None, saved.spectral_, 0)
    own = anchor_term_sets(model.anchors, model._tokenize)
    model._finish(topics, labels, part, own, f, fitted, texts, saved.bigrams_, near, clock)
    return Continued(origin, changes)


def _vocabulary_fits(tokens: Docs, counts: Any, vocab: Sequence[str], old: Any) -> bool:
    """Whether the new entries' words are known to the saved vocabulary about as well as
    the old entries' are (the share of their word uses it counts; bigrams left out)."""
    import numpy as np

    if old.all() or not isinstance(tokens, TokenCounts):
        return True
    words = np.asarray([not t.startswith(BIGRAM_MARK) for t in vocab], dtype=bool)
    raw = np.asarray(tokens.matrix.sum(axis=1)).ravel()
    known = np.asarray(counts[:, words].sum(axis=1)).ravel()
    old_share = known[old].sum() / max(raw[old].sum(), 1)
    new_share = known[~old].sum() / max(raw[~old].sum(), 1)
    return bool(new_share >= VOCAB_KEEP * old_share)


def _unit_mean(rows: Any) -> Any:
    import numpy as np

    c = np.asarray(rows.mean(axis=0)).ravel() if len(rows) else np.zeros(rows.shape[1])
    return c / (np.linalg.norm(c) or 1.0)


def _place_new(
    labels: Any, xs: Any, x: Any, k0: int, grow: bool, rs: int, changes: Changes
) -> None:
    """Each new entry (label -1) to the nearest topic's centre when it is as close as the
    old entries are to theirs; the rest form new topics where they agree (``grow``), else
    go to the nearest topic too."""
    import numpy as np

    new = np.flatnonzero(labels < 0)
    if not len(new):
        return
    centres = np.vstack([_unit_mean(xs[labels == c]) for c in range(k0)])
    old = np.flatnonzero(labels >= 0)
    own = np.einsum("ij,ij->i", xs[old], centres[labels[old]])
    bar = float(np.quantile(own, FIT_QUANTILE))
    sims = xs[new] @ centres.T
    best = sims.argmax(axis=1)
    labels[new] = best
    misfits = new[sims[np.arange(len(new)), best] < bar]
    if not grow or len(misfits) < NEW_MIN:
        return
    sizes = np.bincount(labels[old], minlength=k0)
    groups = max(1, round(len(misfits) / max(float(np.median(sizes)), 1.0)))
    groups = min(groups, len(misfits) // NEW_MIN)
    if groups < 1:
        return
    parts = (
        kmeans(xs[misfits], groups, [], rs, SPLIT_STARTS)[0]
        if groups > 1
        else np.zeros(len(misfits), dtype=np.int64)
    )
    corpus = pair_mean(x)
    for g in range(groups):
        rows = misfits[parts == g]
        if len(rows) >= NEW_MIN and relative(pair_mean(x[rows]), corpus) >= MIXED_BELOW:
            labels[rows] = int(labels.max()) + 1
            changes.new_topics += 1


def _split_grown(labels: Any, xs: Any, x: Any, start: Start, rs: int, changes: Changes) -> None:
    """Split in two each topic that was coherent and that its new entries made
    incoherent, when both parts are coherent; the part holding more of its old entries
    keeps the topic."""
    import numpy as np

    corpus = pair_mean(x)
    old = start.labels >= 0
    for c in range(len(start.anchors)):
        members = np.flatnonzero(labels == c)
        grew = bool((~old[members]).any())
        if not grew or start.pinned[c] is not None or len(members) < 2 * NEW_MIN:
            continue
        if start.cohesion[c] < MIXED_BELOW:
            continue
        if relative(pair_mean(x[members]), corpus) >= MIXED_BELOW:
            continue
        halves = kmeans(xs[members], 2, [], rs, SPLIT_STARTS)[0]
        parts = [members[halves == h] for h in (0, 1)]
        if min(map(len, parts)) < NEW_MIN:
            continue
        if min(relative(pair_mean(x[p]), corpus) for p in parts) < MIXED_BELOW:
            continue
        rest = min(parts, key=lambda p: (int(old[p].sum()), -len(p)))
        labels[rest] = int(labels.max()) + 1
        changes.split += 1


def _origins(before: Any, labels: Any, k0: int) -> list[int | None]:
    """Each cluster's topic of the start: the one most of its entries were labelled with
    ``before`` (None: a topic made now); a topic found in two clusters goes on in the one
    holding more of its entries."""
    import numpy as np

    k = int(labels.max()) + 1
    best: dict[int, tuple[int, int]] = {}  # start topic -> (entries, cluster)
    for c in range(k):
        counts = np.bincount(before[labels == c], minlength=k0)
        value = int(counts.argmax())
        if value < k0 and (value not in best or counts[value] > best[value][0]):
            best[value] = (int(counts[value]), c)
    origin: list[int | None] = [None] * k
    for value, (_, c) in best.items():
        origin[c] = value
    return origin


def _mapped(labels: Any, origin: Sequence[int | None], k0: int) -> Any:
    """Each entry's topic as an index of the start (k0 and up: a topic made now)."""
    import numpy as np

    table = np.asarray([k0 if o is None else o for o in origin], dtype=np.int64)
    return table[labels]
