"""Clustering a large store in bounded memory: fit on a sample, place the rest.

Above SAMPLE_FIT_ABOVE entries a fit learns its vocabulary, projection, clusters, names
and "also" bars from a sample of SAMPLE_SIZE entries drawn at random (with every entry a
correction or a name the user gave holds), then places every other entry in chunks of
CHUNK, as :meth:`TopicModel.place` places a new one: the fitted weights and projection,
smoothed towards its nearest sampled entries, the nearest topic's centre. Memory is then
set by the sample, the vocabulary and k, and by one chunk, not by the number of entries;
only the per-entry results (topic, score, terms, similar entries) grow with it.

:func:`fit_sampled` is the fresh fit, :func:`continue_sampled` continues the saved model
(:func:`.continuing.continue_fit` on the sample, the rest placed by the continued model).
Both leave the model as a fit on every entry would (``labels_``, ``scores_``, ``terms_``,
``similar_``, ``also_`` for every entry, ``similar_`` indices into every entry), plus
``fitted_rows_``: the entries whose vectors ``embedding_`` holds, in order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .features import TokenCounts
from .holding import Groups, fill, unit_rows
from .stages import Progress, Stage

if TYPE_CHECKING:
    from .continuing import Continued, Start
    from .estimator import Placement, TopicModel
    from .token_cache import TokenIds

# above this many entries the fit runs on a sample of SAMPLE_SIZE: a fit on fewer loses
# quality (at 100,000 entries a 50,000-entry sample scored 0.04-0.07 NMI below the full
# fit against the generated corpus's reference topics; docs/performance.md)
SAMPLE_FIT_ABOVE = 150_000
SAMPLE_SIZE = 100_000
CHUNK = 20_000  # entries placed at a time
POOL_GROUP = 1_000  # sampled entries per group of the nearest-entry search


class Sampling(NamedTuple):
    """When a fit runs on a sample, and how large."""

    above: int = SAMPLE_FIT_ABOVE  # entries
    size: int = SAMPLE_SIZE

    def applies(self, n: int) -> bool:
        return n > self.above


def sample_rows(n: int, size: int, random_state: int, forced: Sequence[Any] = ()) -> Any:
    """Sorted indices of ``size`` entries of ``n`` drawn at random, plus every index in
    the ``forced`` groups."""
    import numpy as np

    rng = np.random.default_rng(random_state)
    drawn = rng.choice(n, size=min(size, n), replace=False)
    extra = [np.asarray(g, dtype=np.int64) for g in forced if len(g)]
    return np.unique(np.concatenate([drawn.astype(np.int64), *extra]))


def counts_of(tids: TokenIds, rows: Any) -> TokenCounts:
    """Raw term counts of the entries ``rows`` only, straight from the token ids (the
    whole corpus's count matrix is never built)."""
    import numpy as np
    import scipy.sparse as sp

    lo, hi = tids.indptr[rows], tids.indptr[rows + 1]
    lengths = hi - lo
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    # each row's token positions, gathered without a Python loop over the rows
    starts = np.repeat(lo - indptr[:-1], lengths)
    cols = tids.ids[np.arange(int(indptr[-1]), dtype=np.int64) + starts].astype(np.int32)
    m = sp.csr_matrix(
        (np.ones(len(cols), dtype=np.float32), cols, indptr),
        shape=(len(rows), len(tids.vocab)),
    )
    return TokenCounts(m, tids.vocab)


class PoolIndex:
    """Nearest rows of a fixed pool (the sampled entries' vectors), looked for within the
    pool's group nearest the query (KMeans groups of about POOL_GROUP rows), as the fit
    looks for nearest entries above a few thousand: all pairs against a 50,000-row pool
    would cost a million chunk rows 50,000 products and a partial sort each."""

    def __init__(self, pool: Any, random_state: int) -> None:
        import numpy as np

        from .partition import one_start_centroids

        groups = max(1, len(pool) // POOL_GROUP)
        self.centres = one_start_centroids(pool, groups, random_state)
        of = self._group(pool)
        self.members = [np.flatnonzero(of == g) for g in range(len(self.centres))]

    def _group(self, x: Any) -> Any:
        import numpy as np

        out = np.empty(len(x), dtype=np.int64)
        for start in range(0, len(x), 8192):
            out[start : start + 8192] = (x[start : start + 8192] @ self.centres.T).argmax(axis=1)
        return out

    def __call__(self, queries: Any, pool: Any, m: int) -> tuple[Any, Any]:
        """As :func:`.neighbours.nearest_in`; -1 where a group has fewer than ``m`` rows."""
        import numpy as np

        from .neighbours import nearest_in

        idx = np.full((len(queries), m), -1, dtype=np.int64)
        sim = np.zeros((len(queries), m), dtype=np.float32)
        of = self._group(queries)
        for g, members in enumerate(self.members):
            asked = np.flatnonzero(of == g)
            if not len(asked) or not len(members):
                continue
            top, val = nearest_in(queries[asked], pool[members], m)
            idx[asked, : top.shape[1]] = members[top]
            sim[asked, : top.shape[1]] = val
        return idx, sim


def fit_sampled(
    model: TopicModel,
    tids: TokenIds,
    *,
    size: int = SAMPLE_SIZE,
    pinned: Groups,
    held: Groups,
    hidden: Sequence[Sequence[int]],
    context: Groups,
    progress: Progress | None = None,
) -> TopicModel:
    """Fit ``model`` on a sample of the entries ``tids`` (with every entry of the
    ``pinned``, ``held``, ``hidden`` and ``context`` groups), then place the others:
    those of a hidden subject as the fit placed its own (:func:`spread`)."""
    import numpy as np

    from .holding import hidden_subjects

    groups = [*pinned.values(), *held.values(), *hidden, *context.values()]
    rows = sample_rows(len(tids), size, model.random_state, groups)
    held_rows = _within(held, rows)
    hidden_rows = [_at(g, rows) for g in hidden]
    model.fit(
        None,
        tokens=counts_of(tids, rows),
        pinned=_within(pinned, rows),
        held=held_rows,
        hidden=hidden_rows,
        context=_within(context, rows),
        progress=progress,
    )
    subjects = None
    if model.embedding_ is not None and any(len(g) for g in hidden_rows):
        # the hidden subjects the fit kept out (:func:`.holding.hidden_subjects`)
        x = model.embedding_.astype(np.float64)
        subjects = unit_rows(hidden_subjects(x, hidden_rows, held_rows).sums)
    spread(model, tids, rows, progress, subjects)
    return model


def continue_sampled(
    fit: Callable[[TokenCounts, Start, Groups, Groups, Groups], Continued | None],
    model: TopicModel,
    tids: TokenIds,
    start: Start,
    fitted: Any,
    *,
    size: int = SAMPLE_SIZE,
    held: Groups,
    context: Groups,
    hidden: Groups | None = None,
    progress: Progress | None = None,
) -> Continued | None:
    """Continue the saved model on the entries it was fitted on (``fitted``, indices; at
    most ``size`` of them), a sample of the entries in no topic yet at the same rate, and
    every held or hidden entry (and every entry of a topic hidden since):
    ``fit(tokens, start, held, context, hidden)`` is :func:`.continuing.continue_fit` on
    those; then place the rest (the other entries in topics among them) with the
    continued model, new ones nearer a hidden topic than any topic as :func:`spread`
    says. None when ``fit`` gives up."""
    import numpy as np

    from .continuing import Start, _mapped

    n = len(tids)
    fitted = np.asarray(fitted, dtype=np.int64)
    rng = np.random.default_rng(model.random_state)
    if len(fitted) > size:  # a model fitted on every entry, before the store grew
        fitted = np.sort(rng.choice(fitted, size, replace=False))
    # the entries in no topic yet, sampled at the rate the saved model's entries were
    others = np.setdiff1d(np.flatnonzero(start.labels < 0), fitted)
    rate = len(fitted) / max(n, 1)
    drawn = rng.choice(others, size=round(rate * len(others)), replace=False)
    hidden = hidden or {}
    groups = [*held.values(), *context.values(), *hidden.values(), start.dissolve]
    extra = [np.asarray(g, dtype=np.int64) for g in groups]
    rows = np.unique(np.concatenate([fitted, drawn.astype(np.int64), *extra]))
    sub = Start(
        start.labels[rows],
        start.anchors,
        start.pinned,
        start.cohesion,
        grow=start.grow,
        dissolve=[int(i) for i in _at(start.dissolve, rows)],
    )
    continued = fit(
        counts_of(tids, rows),
        sub,
        _within(held, rows),
        _within(context, rows),
        _within(hidden, rows),
    )
    if continued is None:
        return None
    # the hidden topics' centres, which new entries nearer them than any topic are of
    ghosts = [g for g in [sub.dissolve, *_within(hidden, rows).values()] if len(g)]
    subjects = None
    if ghosts and model.embedding_ is not None:
        means = np.vstack([model.embedding_[g].astype(np.float64).mean(axis=0) for g in ghosts])
        subjects = unit_rows(means)
    spread(model, tids, rows, progress, subjects, settled=start.labels >= 0)
    # what changed, over every entry (the fit counted its sample's)
    old = start.labels >= 0
    k0 = len(start.anchors)
    changes = continued.changes
    changes.old = int(old.sum())
    changes.placed = int((~old).sum()) - len(start.dissolve)
    now = _mapped(model.labels_, continued.origin, k0)
    changes.moved = int((old & (start.labels != now)).sum())
    return continued


def spread(
    model: TopicModel,
    tids: TokenIds,
    rows: Any,
    progress: Progress | None,
    subjects: Any = None,
    settled: Any = None,
) -> None:
    """A model fitted on the entries ``rows`` of ``tids`` made a fit of them all: every
    other entry placed, CHUNK at a time, and the per-entry results set for every entry.
    One nearer a hidden topic's centre (``subjects``: (m, d) unit rows) than its topic's
    is of the hidden subject, as the fit's guests are (unless ``settled``, (n,): an entry
    a continued fit keeps in its topic): they go to the nearest topic with room, none
    taking more of the subject's entries than it has of its own, each staying where it
    is while there is room (:func:`.holding.fill`)."""
    import time

    import numpy as np

    began = time.perf_counter()
    n = len(tids)
    rows = np.asarray(rows, dtype=np.int64)
    at = rows.tolist()
    labels = np.empty(n, dtype=np.int64)
    scores = np.empty(n, dtype=np.float64)
    terms: list[list[str]] = [[] for _ in range(n)]
    similar: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    also: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    labels[rows] = model.labels_
    scores[rows] = model.scores_
    for i, r in enumerate(at):
        terms[r] = model.terms_[i]
        similar[r] = [(at[j], v) for j, v in model.similar_[i]]
        also[r] = model.also_[i]
    rest = np.setdiff1d(np.arange(n, dtype=np.int64), rows)
    index = None
    if model.embedding_ is not None and len(model.embedding_):
        index = PoolIndex(model.embedding_.astype(np.float32), model.random_state)
    guests = np.zeros(n, dtype=bool)  # the entries of a hidden subject
    if getattr(model, "guests_", None) is not None:
        guests[rows] = model.guests_
    inside = np.zeros(n, dtype=bool)
    inside[rows] = True
    found, sims = [], []  # the guests, and their cosines to each topic's centre

    def keep(part: Any, placed: Placement) -> None:
        labels[part] = placed.labels
        scores[part] = placed.scores
        for i, r in enumerate(part.tolist()):
            terms[r] = placed.terms[i]
            also[r] = placed.also[i]
            if not inside[r]:  # a fitted entry keeps the similar entries the fit found
                similar[r] = [(at[j], v) for j, v in placed.similar[i]]

    def chunks(which: Any, topics: Any = None) -> Iterator[tuple[Any, Placement]]:
        """The entries ``which`` placed CHUNK at a time (in ``topics``, one each, if given)."""
        for start in range(0, len(which), CHUNK):
            part = which[start : start + CHUNK]
            chosen = None if topics is None else topics[start : start + CHUNK]
            tokens = counts_of(tids, part)
            yield part, model.place(None, tokens=tokens, neighbours=index, topics=chosen)

    for done, (part, placed) in enumerate(chunks(rest)):
        keep(part, placed)
        if subjects is not None and len(subjects):
            near = (placed.vectors @ subjects.T).max(axis=1) > np.asarray(placed.scores)
            if settled is not None:
                near &= ~settled[part]
            guests[part[near]] = True
            found.append(part[near])
            sims.append(placed.vectors[near] @ model.cluster_centers_.T)
        if progress:
            progress(Stage.ASSIGN, 0.85 + 0.05 * min(1.0, (done + 1) * CHUNK / len(rest)))
    if guests.any():
        # the fit placed its guests by the room its sample's entries gave (every hidden
        # entry is sampled): all guests are placed again by every entry's room
        for part, placed in chunks(rows[guests[rows]]):
            found.append(part)
            sims.append(placed.vectors @ model.cluster_centers_.T)
        every = np.concatenate(found)
        room = np.bincount(labels[~guests], minlength=model.n_topics_)
        chosen = fill(np.vstack(sims), room, labels[every])
        moved = chosen != labels[every]
        # a guest sent past its nearest topic, or moved, is placed again in the one it
        # goes to (its score, terms and "also" topics as that topic's entry)
        for part, placed in chunks(every[moved], topics=chosen[moved]):
            keep(part, placed)
    model.labels_ = labels
    model.scores_ = scores
    model.terms_ = terms
    model.similar_ = similar
    model.also_ = also
    model.fitted_rows_ = rows
    model.stage_seconds_[Stage.ASSIGN] = time.perf_counter() - began


def _at(group: Sequence[int], rows: Any) -> Any:
    """Indices of entries (all in ``rows``) as positions in ``rows``."""
    import numpy as np

    return np.searchsorted(rows, np.asarray(group, dtype=np.int64))


def _within(groups: Groups, rows: Any) -> dict[Hashable, Any]:
    return {key: _at(g, rows).tolist() for key, g in groups.items()}
