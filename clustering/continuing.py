"""A re-cluster that continues the saved model instead of starting over.

The entries already in topics stay where they are; the saved model's vocabulary, idf and
LSA projection give every entry its vector (when they still fit the entries); each new
entry goes to the nearest topic's centre when it fits there as well as the topic's own
entries do. A topic changes only where the data asks:

- new entries that fit no topic and agree among themselves form new topics, one per
  subject;
- a topic that new entries made incoherent (its cohesion fell below MIXED_BELOW) splits
  in two when the new entries form a coherent part of their own;
- a topic left with no entry goes.

The user's corrections hold as in a fresh fit (:func:`.holding.hold`); hidden topics are
already gone from the store, their entries in other topics, and neither they nor new
entries like them make, split, judge or name a topic: they go to the nearest topics with
room, none taking more of them than it has entries of its own
(:func:`.holding.place_guests`). The fit's own
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
from .holding import Groups, hold, place_guests
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
    hidden: Groups | None = None,
    progress: Progress | None = None,
) -> Continued | None:
    """Fit ``model`` (unfitted, with the saved model's parameters) by continuing the
    ``saved`` one from ``start``; None when the saved vocabulary no longer fits the
    entries (too many new ones, or new ones using words it never saw): fit afresh.
    ``hidden`` maps each hidden topic to its entries: they, and new entries nearer to
    them than to any topic, go to the nearest topic with room for them (no more of them
    than its own entries) and make or split none."""
    import numpy as np

    clock = StageClock(progress)
    hidden = hidden or {}
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
    # a hidden topic's entries, those hidden since (dissolve) and those it still holds
    gone = np.zeros(n, dtype=bool)
    gone[np.asarray(start.dissolve, dtype=np.int64)] = True
    ghosts = [np.asarray(g, dtype=np.int64) for g in [start.dissolve, *hidden.values()] if len(g)]
    for g in ghosts:
        gone[g] = True
    arrived = ~old & ~gone  # the entries new to the topics, that may make or split one
    # each topic as its own entries make it: a hidden topic's, put in it, lend it no look
    own = np.where(gone, -1, labels)
    centres = np.vstack([_unit_mean(xs[own == c]) for c in range(k0)])
    _place_new(
        labels, own, xs, x, centres, ghosts, arrived, start.grow, model.random_state, changes
    )
    if start.grow:
        _split_grown(labels, xs, x, start, arrived, model.random_state, changes)
    before = labels.copy()
    labels, held_keys = hold(labels, held, context)
    # the hidden subject's entries (the hidden topics' and new ones like them) go to the
    # nearest topics with room, as in a fresh fit: none is made mostly of them
    guests = gone | (~old & ~arrived)
    for members in held.values():
        guests[np.asarray(members, dtype=np.int64)] = False
    voters = np.ones(n, dtype=bool)  # the entries whose topic before says which it goes on
    if guests.any() and not guests.all():
        # one already in a topic (a hidden topic's entry the hide placed) stays with room
        labels, held_keys = place_guests(xs, labels, guests, held_keys, stay=old)
        voters = ~guests  # a guest's nearest topic is no claim on the one it went to
    k = int(labels.max()) + 1
    origin = _origins(before[voters], labels[voters], k0)
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
    # they judge, name and centre no topic, as in a fresh fit; but in a topic of theirs
    # alone (every entry was one)
    guests &= np.isin(labels, labels[~guests])
    part = _Partition(
        labels, xs, held_keys, inertia, None, saved.spectral_, 0, guests if guests.any() else None
    )
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
    labels: Any,
    own: Any,
    xs: Any,
    x: Any,
    centres: Any,
    ghosts: Sequence[Any],
    arrived: Any,
    grow: bool,
    rs: int,
    changes: Changes,
) -> None:
    """Each entry in no topic (label -1) to the nearest topic's centre (``centres``, of
    the topics' ``own`` entries: labels, -1 for the rest). Where ``grow``, the ``arrived``
    ones that fit none (less close than FIT_QUANTILE of the own entries are to theirs)
    and agree form new topics, one per subject (:func:`_new_groups`), which the others
    nearer to them join; an entry nearer a hidden topic's entries (``ghosts``) than any
    topic's centre forms none, or the hidden topic would be back, and is its guest
    (no longer ``arrived``) with any k."""
    import numpy as np

    new = np.flatnonzero(labels < 0)
    if not len(new):
        return
    old = np.flatnonzero(own >= 0)
    fit = np.einsum("ij,ij->i", xs[old], centres[own[old]])
    bar = float(np.quantile(fit, FIT_QUANTILE))
    sims = xs[new] @ centres.T
    best = sims.argmax(axis=1)
    near = sims[np.arange(len(new)), best]
    labels[new] = best
    ghosted = np.zeros(len(new), dtype=bool)
    for g in ghosts:
        ghosted |= xs[new] @ _unit_mean(xs[g]) > near
    arrived[new[ghosted]] = False  # like the hidden topic's own entries from now on
    if not grow:
        return
    misfits = new[(near < bar) & arrived[new]]
    if len(misfits) < NEW_MIN:
        return
    groups = _new_groups(misfits, xs, x, rs, bar)
    k0 = len(centres)
    for i, rows in enumerate(groups):
        labels[rows] = k0 + i
        changes.new_topics += 1
    if not groups:
        return
    # a new entry that fit an old topic joins a new one when that is nearer still
    made = np.vstack([_unit_mean(xs[rows]) for rows in groups])
    free = (labels[new] < k0) & arrived[new]
    to_made = xs[new[free]] @ made.T
    nearer = to_made.max(axis=1) > near[free]
    labels[new[free][nearer]] = k0 + to_made.argmax(axis=1)[nearer]


def _new_groups(rows: Any, xs: Any, x: Any, rs: int, bar: float) -> list[Any]:
    """The ``rows`` that agree, one group per subject: a group is cut in two while it is
    mixed or its halves are apart (:func:`_apart`); what is left of a group once entries
    far from the rest of it leave (:func:`_core`) is kept when it is coherent. A
    subject's size does not count: many entries of one subject stay one group, and two
    subjects two groups, however large the topics are."""
    corpus = pair_mean(x)
    todo, out = [rows], []
    while todo:
        group = todo.pop()
        coherent = relative(pair_mean(x[group]), corpus) >= MIXED_BELOW
        if len(group) >= 2 * NEW_MIN:
            halves = kmeans(xs[group], 2, [], rs, SPLIT_STARTS)[0]
            parts = [group[halves == h] for h in (0, 1)]
            if min(map(len, parts)) and (not coherent or _apart(x, *parts, corpus)):
                todo += parts
                continue
        core = _core(group, xs, bar)
        if len(core) >= NEW_MIN and relative(pair_mean(x[core]), corpus) >= MIXED_BELOW:
            out.append(core)
    return out


def _core(rows: Any, xs: Any, bar: float) -> Any:
    """``rows`` less those that sit less close to the centre of the others than ``bar``
    (old entries to their topic's centre), until all that are left do: a few short texts
    that share a word or two read as coherent next to a whole corpus, but are no
    subject."""
    import numpy as np

    rows = np.sort(rows)
    while len(rows) >= NEW_MIN:
        v = xs[rows]
        others = np.asarray(v.sum(axis=0), dtype=np.float64).ravel()[None, :] - v
        norms = np.linalg.norm(others, axis=1)
        near = np.einsum("ij,ij->i", v, others) / np.where(norms > 0, norms, 1.0)
        if near.min() >= bar:
            break
        rows = rows[near >= bar]
    return rows


def _apart(x: Any, a: Any, b: Any, corpus: float | None) -> bool:
    """Whether an entry of rows ``a`` shares with one of rows ``b`` no more than a mixed
    topic's entries share: two subjects, not two halves of one."""
    import numpy as np

    sa = np.asarray(x[a].sum(axis=0), dtype=np.float64).ravel()
    sb = np.asarray(x[b].sum(axis=0), dtype=np.float64).ravel()
    return relative(float(sa @ sb) / (len(a) * len(b)), corpus) < MIXED_BELOW


def _split_grown(
    labels: Any, xs: Any, x: Any, start: Start, arrived: Any, rs: int, changes: Changes
) -> None:
    """Split in two each topic that was coherent and that the entries which ``arrived``
    in it made mixed, when the new ones form a coherent group of their own: the part
    holding more of its old entries keeps the topic, the other leaves when it is mostly
    new entries (at most one other entry for two new). A cut through the old entries, or
    one that sets a hidden topic's entries apart, is no split the data asked for."""
    import numpy as np

    corpus = pair_mean(x)
    settled = start.labels >= 0
    for c in range(len(start.anchors)):
        members = np.flatnonzero(labels == c)
        if arrived[members].sum() < NEW_MIN or start.pinned[c] is not None:
            continue
        if start.cohesion[c] < MIXED_BELOW:
            continue
        if relative(pair_mean(x[members]), corpus) >= MIXED_BELOW:
            continue
        halves = kmeans(xs[members], 2, [], rs, SPLIT_STARTS)[0]
        parts = [members[halves == h] for h in (0, 1)]
        leaving = min(parts, key=lambda p: (int(settled[p].sum()), -len(p)))
        newcomers = int(arrived[leaving].sum())
        if newcomers < NEW_MIN or len(leaving) - newcomers > newcomers // 2:
            continue
        if min(relative(pair_mean(x[p]), corpus) for p in parts) < MIXED_BELOW:
            continue
        labels[leaving] = max(int(labels.max()) + 1, len(start.anchors))
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
