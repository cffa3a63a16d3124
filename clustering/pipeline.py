"""The clustering over a store: glue between the store and :class:`TopicModel`.

- :func:`cluster_store` re-clusters every entry: tokens from the store's cache, a
  ``TopicModel`` fit, each new topic matched to the old one it carries on (same user name,
  else same anchor, else most shared entries), so a topic keeps its id and a name the
  user gave it; then topics, assignments, similar entries and the saved model are
  written in one transaction.
- :func:`assign_new` puts freshly imported entries into their nearest topic at once,
  with the saved model (``TopicModel.place``).
- :func:`ensure_topics` is the first start: bundled corpus, then topics.

The user's corrections and names carry over every re-cluster (:mod:`.keeping`):
:func:`.keeping.holding` turns the corrections in force into groups of entries the fit
keeps together (or dissolves), and the names the user gave are remembered in the store's
meta (:func:`.keeping.named_topics`), so a name whose topic a re-cluster could not keep
comes back when one has room for it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .anchors import load_anchors
from .continuing import Start, continue_fit
from .keeping import (
    Holding,
    Named,
    carried_ids,
    forget_empty,
    holding,
    match_topics,
    named_topics,
    remember,
    settle,
)
from .membership import TermIndex
from .partition import MAX_SHARE
from .report import ClusterReport
from .saved import Saved, SavedModels, saved_bytes, saved_model
from .scale import Sampling
from .stages import Progress, Stage
from .token_cache import (
    TokenIds,
    entry_token_ids,
    term_tokens,
    tokenized_anchors,
)

if TYPE_CHECKING:
    from topiclens.store.db import Store

    from .estimator import TopicModel


CLUSTER_ATTEMPTS = 3  # a re-cluster starts again when corrections came while it ran


def cluster_store(
    store: Store,
    *,
    k: int | None = None,
    anchors_path: Path | None = None,
    random_state: int = 0,
    progress: Progress | None = None,
    fresh: bool = False,
    sampling: Sampling | None = None,
) -> ClusterReport:
    """Re-cluster every entry in the store and write topics, assignments (with score and
    the terms tying each entry to its topic), similar entries and the fitted model.

    The re-cluster continues the saved model (:mod:`.continuing`: entries stay in their
    topics, new ones join the nearest or form new topics) when there is one made with
    the same k and anchors that still fits the entries; ``fresh`` starts over.

    A correction made (or undone, or restored) while it runs is never lost: the result is
    written only if the corrections are still those it read, else it starts again with
    them (:class:`~topiclens.store.correction_log.CorrectionsChanged` after
    CLUSTER_ATTEMPTS tries).

    Above ``sampling.above`` entries (None: :class:`.scale.Sampling`'s defaults) the fit
    runs on a sample and places the other entries (:mod:`.scale`)."""
    from topiclens.store.correction_log import CorrectionsChanged

    for attempt in range(CLUSTER_ATTEMPTS):
        try:
            return _cluster_once(
                store, k, anchors_path, random_state, progress, fresh, sampling or Sampling()
            )
        except CorrectionsChanged:
            if attempt == CLUSTER_ATTEMPTS - 1:
                raise CorrectionsChanged(
                    f"corrections were made {CLUSTER_ATTEMPTS} times while the topics were "
                    "grouped, so they were left as they are: run topiclens cluster again"
                ) from None
    raise AssertionError("unreachable")


def _cluster_once(
    store: Store,
    k: int | None,
    anchors_path: Path | None,
    random_state: int,
    progress: Progress | None,
    fresh: bool,
    sampling: Sampling,
) -> ClusterReport:
    """One try of :func:`cluster_store`."""
    from topiclens.store.correction_log import CorrectionsChanged
    from topiclens.store.correction_log import state as corrections_state
    from topiclens.store.models import Topic

    from .estimator import TopicModel
    from .tokenize import tokenizer_version

    report = ClusterReport()
    t0 = time.perf_counter()
    corrections = store.read(corrections_state)  # what the fit holds; checked as it writes

    def say(stage: Stage, fraction: float) -> None:
        if progress:
            progress(stage, fraction)

    # a hidden topic's anchor seeds and names no other topic
    hidden_labels = (
        {c.label for c in store.corrections().hidden()} if store.has_corrections() else set()
    )
    anchors = [a for a in load_anchors(anchors_path) if a.name not in hidden_labels]
    say(Stage.TOKENIZE, 0.0)
    ids = store.entry_ids()
    report.entries = len(ids)
    if not ids:
        raise ValueError("the store has no entries to cluster; import some first")
    tids, report.tokenized = entry_token_ids(
        store, ids, progress=lambda f: say(Stage.TOKENIZE, 0.5 * f)
    )
    report.cached = len(ids) - report.tokenized
    model = TopicModel(
        "auto" if k is None else k,
        anchors=tokenized_anchors(store, anchors),
        # a k the user typed is the k they get: the cap only shapes an automatic k
        max_share=MAX_SHARE if k is None else None,
        random_state=random_state,
    )
    saved = None if fresh else _continuable(store, model, hidden_labels)
    # the texts only feed the bigram features, on corpora small enough for them
    wanted = saved.model.bigrams_ if saved is not None else model.needs_texts(len(ids))
    big = sampling.applies(len(ids))  # fitted on a sample, which reads no text
    texts = [text for _, text in store.entry_texts(ids)] if wanted and not big else None
    report.seconds[Stage.TOKENIZE] = time.perf_counter() - t0

    # the user's corrections hold their topics; the names the user gave seed theirs
    held = holding(store, ids, tids)
    position = {eid: i for i, eid in enumerate(ids)}
    every_name = named_topics(store)
    shaped = {*held.held, *held.hidden, *held.empty}  # the corrections speak for these
    named = {t: v for t, v in every_name.items() if t not in shaped}
    pinned = {tid: [position[e] for e in t.entries if e in position] for tid, t in named.items()}
    continued = None
    if saved is not None:
        start = _start(store, ids, saved.entry_ids, named, model, set(held.hidden), grow=k is None)
        if big:
            continued = _continue_sampled(
                model, saved, tids, start.start, position, held, sampling.size, progress
            )
        else:
            continued = continue_fit(
                model,
                saved.model,
                texts,
                tids.counts(),
                start.start,
                held=held.held,
                context=held.context,
                hidden=held.hidden,
                progress=progress,
            )
        report.changes = (
            continued.changes.line()
            if continued is not None
            else "started over: the saved model no longer fits the entries (too many new "
            "ones, or too many words it never saw)"
        )
    if continued is None and big:
        from .scale import fit_sampled

        fit_sampled(
            model,
            tids,
            size=sampling.size,
            pinned=pinned,
            held=held.held,
            hidden=list(held.hidden.values()),
            context=held.context,
            progress=progress,
        )
    elif continued is None:
        if texts is None and model.needs_texts(len(ids)):
            texts = [text for _, text in store.entry_texts(ids)]
        model.fit(
            texts,
            tokens=tids.counts(),
            pinned=pinned,
            held=held.held,
            hidden=list(held.hidden.values()),
            context=held.context,
            progress=progress,
        )
    report.seconds.update(model.stage_seconds_)
    t1 = time.perf_counter()
    labels = model.labels_.tolist()
    members: list[list[str]] = [[] for _ in range(model.n_topics_)]
    for eid, c in zip(ids, labels, strict=True):
        members[c].append(eid)
    given = {tid: v.name for tid, v in every_name.items() if tid in held.held} | held.names
    barred = set(held.hidden) | set(held.empty)
    if continued is None:
        matched = match_topics(store, members, model, named, given, barred)
    else:
        carried = [None if o is None else start.ids[o] for o in continued.origin]
        matched = carried_ids(store, model, carried, named, given, barred)
    report.kept_ids = matched.kept
    settled = settle(named, pinned, matched.ids)
    report.named = len(named)
    report.held, report.hidden = len(held.held), len(held.hidden)
    if held.empty:  # its own change to the corrections is not one made meanwhile
        if store.read(corrections_state) != corrections:
            raise CorrectionsChanged("corrections were made while the topics were grouped")
        report.empty_names = forget_empty(store, held.empty)
        corrections = store.read(corrections_state)
    report.lost_names, report.gone_names = settled.lost, settled.gone
    report.restored_names = settled.restored
    remember(store, settled.remember)  # before the topics are replaced: no name forgotten
    report.asked_k, report.split = k, model.n_split_
    report.largest_share = max(map(len, members)) / len(ids)
    topics = [
        Topic(
            id=matched.ids[c],
            name=matched.names[c] or model.topic_names_[c],
            keywords=[(w, round(v, 6)) for w, v in model.keywords_[c]],
            size=len(members[c]),
            user_named=matched.user_named[c],
            anchor=model.topic_anchors_[c],
            cohesion=model.cohesion_[c],
            mixed=model.mixed_[c],
        )
        for c in range(model.n_topics_)
    ]
    assignments = {
        eid: (matched.ids[c], s, t)
        for eid, c, s, t in zip(ids, labels, model.scores_.tolist(), model.terms_, strict=True)
    }
    similar = {
        eid: [(ids[j], s) for j, s in near] for eid, near in zip(ids, model.similar_, strict=True)
    }
    also = [
        (eid, matched.ids[c], score)
        for eid, rows in zip(ids, model.also_, strict=True)
        for c, score in rows
    ]
    say(Stage.STORE, 0.95)
    # topics and the model that places new entries land in one transaction
    saved_blob = (tokenizer_version(), saved_bytes(model, matched.ids, ids, model.fitted_rows_))
    store.replace_topics(
        topics, assignments, similar, model=saved_blob, also=also, corrections=corrections
    )
    # entries imported while the model was fitting (another process) join the new topics
    assign_new(store, store.unassigned_ids())
    report.seconds[Stage.STORE] = time.perf_counter() - t1
    report.topics = model.n_topics_
    report.seconds["total"] = time.perf_counter() - t0
    say(Stage.DONE, 1.0)
    return report


# -continuing the saved model ----------------------------------------------------------


class _Begun(NamedTuple):
    start: Start
    ids: list[int]  # the store's id of each of the start's topics


def _continuable(store: Store, model: TopicModel, hidden: set[str]) -> Saved | None:
    """The saved model when a re-cluster can continue it: made by this tokenizer, with
    the k (asked, or automatic) and the anchors of ``model`` (those of ``hidden`` topics
    aside)."""
    from .tokenize import tokenizer_version

    found = store.topic_model()
    saved = saved_model(store)
    if found is None or saved is None or found[0] != tokenizer_version():
        return None
    old = saved.model
    same_anchors = [(a.name, tuple(a.terms)) for a in old.anchors if a.name not in hidden] == [
        (a.name, tuple(a.terms)) for a in model.anchors
    ]
    if old.n_topics != model.n_topics or not same_anchors or not store.topics():
        return None
    return saved


def _start(
    store: Store,
    ids: Sequence[str],
    fitted: Sequence[str],
    named: dict[int, Named],
    model: TopicModel,
    hidden: set[int],
    *,
    grow: bool,
) -> _Begun:
    """The topics in the store as a continued fit's start: each entry's topic index (-1:
    an entry the saved model was not ``fitted`` on, placed since or in no topic), and each
    topic's anchor, cohesion and whether the user named it."""
    import numpy as np

    every = store.topics()
    topics = [t for t in every if t.id not in hidden]  # (hidden by a restore since)
    index = {t.id: c for c, t in enumerate(topics)}
    assigned = store.assignments()
    known = set(fitted)
    labels = np.asarray(
        [index.get(assigned.get(e, -1), -1) if e in known else -1 for e in ids], dtype=np.int64
    )
    dissolve = [i for i, e in enumerate(ids) if assigned.get(e) in hidden]
    anchors = {a.name for a in model.anchors}
    start = Start(
        labels,
        [t.anchor if t.anchor in anchors else None for t in topics],
        [t.id if t.id in named else None for t in topics],
        [1.0 if t.cohesion is None else float(t.cohesion) for t in topics],
        grow=grow,
        dissolve=dissolve,
    )
    return _Begun(start, [t.id for t in topics])


def _continue_sampled(
    model: TopicModel,
    saved: Saved,
    tids: TokenIds,
    start: Start,
    position: dict[str, int],
    held: Holding,
    size: int,
    progress: Progress | None,
) -> Any:
    """:func:`.scale.continue_sampled` of the ``saved`` model: continued on the entries
    whose vectors it keeps (at most a sample's worth) and a sample of the others."""
    import numpy as np

    from .scale import continue_sampled

    kept = saved.entry_ids if saved.rows is None else [saved.entry_ids[r] for r in saved.rows]
    fitted = np.asarray([position[e] for e in kept if e in position], dtype=np.int64)
    return continue_sampled(
        lambda tokens, begun, held_rows, context_rows, hidden_rows: continue_fit(
            model,
            saved.model,
            None,
            tokens,
            begun,
            held=held_rows,
            context=context_rows,
            hidden=hidden_rows,
            progress=progress,
        ),
        model,
        tids,
        start,
        fitted,
        size=size,
        held=held.held,
        context=held.context,
        hidden=held.hidden,
        progress=progress,
    )


ASSIGN_ATTEMPTS = 5  # each retry follows a re-cluster that landed meanwhile; 5 in a row is absurd


def assign_new(
    store: Store,
    entry_ids: Sequence[str],
    models: SavedModels | None = None,
    bigrams: Mapping[str, bytes] | None = None,
    tokens: Mapping[str, bytes] | None = None,
) -> int:
    """Put entries into their nearest existing topic now, without a re-cluster (the
    topics stay as they are; run :func:`cluster_store` to rethink them). Entries already
    in a topic are left alone. Returns how many were assigned.

    A re-cluster in another process can replace the topics between reading the saved
    model and writing: the store then refuses those rows inside its write transaction,
    and they are placed again with the model the re-cluster saved. ``models`` reads the
    saved model (default: a :class:`.saved.SavedModels` of its own). ``bigrams`` holds
    entries' bigram features made already (:func:`.token_cache.encode` d), by id;
    ``tokens`` their token ids as caching them gave them (:meth:`Store.put_tokens`), by
    id, so they are not read back from the cache."""
    todo_ids = list(dict.fromkeys(entry_ids))
    models = models or SavedModels()
    placed = 0
    for _ in range(ASSIGN_ATTEMPTS):
        if not todo_ids:
            break
        saved = models(store)
        if saved is None:
            break
        written, todo_ids = _place(store, saved, todo_ids, bigrams or {}, tokens or {})
        placed += written
    return placed


def _place(
    store: Store,
    saved: Saved,
    entry_ids: list[str],
    bigrams: Mapping[str, bytes],
    tokens: Mapping[str, bytes],
) -> tuple[int, list[str]]:
    """Place the unassigned ones of ``entry_ids`` with ``saved``; returns how many were
    written and the ids the store refused because their topic is gone."""
    from topiclens.store.entries import unassigned_texts
    from topiclens.store.similar_rows import stored_rows
    from topiclens.store.topics import Similar

    # (id, text) only: what placing reads of an entry; its text only to make its bigram
    # features where they are not made already
    known = bigrams if saved.model.bigrams_ else set(entry_ids)
    todo = unassigned_texts(store, entry_ids, known)
    # only topics that still exist (a topic can be gone since the model was saved)
    live = {t.id for t in store.topics()}
    alive = [tid in live for tid in saved.topic_ids]
    if not todo or not any(alive):
        return 0, []
    todo_ids = [eid for eid, _ in todo]
    tids, _ = entry_token_ids(store, todo_ids, known=tokens)
    # counted straight from the cached token ids, without a string per token
    counts = tids.counts()
    made = [bigrams.get(eid) for eid in todo_ids]  # (encoded: placing reads them so)
    texts = [text for _, text in todo]
    placed = saved.model.place(texts, tokens=counts, among=alive, bigrams=made)
    out = {
        eid: (saved.topic_ids[c], score, terms)
        for eid, c, score, terms in zip(
            todo_ids, placed.labels.tolist(), placed.scores, placed.terms, strict=True
        )
    }
    # a topic made from terms gathers the new entries that use them (the latest made wins)
    if store.has_corrections():
        shaped = sorted(store.corrections().topics.values(), key=lambda c: c.made_at)
        index = TermIndex.with_model(saved.model, tids.docs())
        for c in shaped:
            if c.terms and not c.hidden and c.topic_id in live:
                for i in index.central(term_tokens(store, c.terms)):
                    out[todo_ids[i]] = (c.topic_id, out[todo_ids[i]][1], [])
    # (packed as the store keeps them, a batch at once)
    packed = stored_rows(saved.embedded_id, *placed.near)
    similar: Similar = dict(zip(todo_ids, packed, strict=True))
    also = [
        (eid, saved.topic_ids[c], score)
        for eid, rows in zip(todo_ids, placed.also, strict=True)
        for c, score in rows
    ]
    refused = store.add_assignments(out, similar, also=also)
    return len(out) - len(refused), refused


def ensure_topics(store: Store, progress: Progress | None = None) -> bool:
    """On a first start: an empty store gets the bundled corpus; entries without topics
    get clustered; entries left out of existing topics join their nearest one (or, when
    the saved model cannot be read, every entry is clustered again). Returns True if it
    did any of that."""
    from topiclens.store.importer import ensure_corpus

    did = False
    if store.count_entries() == 0:
        if progress:
            progress(Stage.IMPORT, 0.0)
        did = ensure_corpus(store) is not None
    if store.count_entries() == 0:
        return did
    if not store.topics():
        cluster_store(store, progress=progress)
        return True
    missing = store.unassigned_ids()
    if missing:
        if progress:
            progress(Stage.ASSIGN, 0.5)
        if assign_new(store, missing):
            did = True
        elif saved_model(store) is None:
            cluster_store(store, progress=progress)
            did = True
    return did
