"""The corrections and names a re-cluster keeps.

- :func:`holding` turns the corrections in force into groups of entry indices the fit
  keeps together, dissolves (hidden topics) or reads as context.
- :func:`match_topics` and :func:`carried_ids` give each new topic the id of the old one it
  carries on (the same name the user gave, else the same anchor, else the most shared
  entries), and :func:`settle` the names; :func:`named_topics` and :func:`remember` keep
  the names the user gave in the store's meta, so a name whose topic a re-cluster could
  not keep comes back when one has room for it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from topiclens.store.corrections import NAMED_TOPICS

from .membership import TermIndex
from .token_cache import TokenIds, term_tokens

if TYPE_CHECKING:
    from topiclens.store.db import Store
    from topiclens.store.models import Topic

    from .estimator import TopicModel

MATCH_MIN_JACCARD = 0.2  # an old topic's id passes to a new one sharing this much


class Holding(NamedTuple):
    """The corrections as a fit takes them: entry indices per topic id."""

    held: dict[int, list[int]]  # topic id -> entries that stay together in it (disjoint)
    hidden: dict[int, list[int]]  # hidden topic id -> its entries (none of them held)
    context: dict[int, list[int]]  # held topic id -> entries that tell its cluster, not held
    names: dict[int, str]  # held topic id -> the name the user gave it
    empty: list[int]  # shaped topics with no entry left (their corrections cannot hold)

    def is_empty(self) -> bool:
        return not self.held and not self.hidden


def holding(store: Store, ids: Sequence[str], tids: TokenIds) -> Holding:
    """The groups a fit of the entries ``ids`` (their tokens ``tids``) keeps: each topic
    the user shaped (merged, split, made from terms, or holding a pinned entry) holds its
    entries together, and each hidden topic names the entries whose cluster goes. A pin
    wins over everything, then the latest correction an entry belongs to (a topic made
    from terms gathers the entries using them now, new ones included). A topic that only
    holds pinned entries (origin "pin") is known by the entries it had when the first was
    pinned: its context."""
    if not store.has_corrections():  # most stores have none: one cheap read
        return Holding({}, {}, {}, {}, [])
    corr = store.corrections()
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
                index = TermIndex.of_entries(tids)
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


class Named(NamedTuple):
    name: str
    entries: list[str]  # the ids of the entries it had when the user named it
    live: bool  # a topic in the store now; else only remembered in the record


class Settled(NamedTuple):
    lost: list[str]  # names with no topic this time, remembered
    gone: list[str]  # names none of whose entries is left, forgotten
    restored: list[str]  # remembered names with a topic again
    remember: dict[int, Named]  # the record to keep: kept and lost


def named_topics(store: Store) -> dict[int, Named]:
    """Every topic the user named, by id: those in the store, then those that lost their
    topic in an earlier re-cluster and wait for room (the record in the store's meta,
    ``{topic id: {"name", "entries"}}``: the store's schema has no place for it). A topic
    stands for the entries it had when named: a small k that once lumped others in with
    it does not change that."""
    known = _known(store)
    named = {}
    unnamed = set()  # topics in the store whose name is the clustering's (an undo unnamed it)
    for t in store.topics():
        if t.user_named:
            was = known.get(t.id)
            same = was is not None and was.name == t.name  # renamed since: its entries now
            named[t.id] = Named(t.name, was.entries if same else store.topic_entry_ids(t.id), True)
        else:
            unnamed.add(t.id)
    for tid, t in known.items():
        if tid not in unnamed:  # a remembered name waits only for a topic it lost
            named.setdefault(tid, t)
    return named


def _known(store: Store) -> dict[int, Named]:
    try:
        raw = json.loads(store.get_meta(NAMED_TOPICS) or "{}")
        return {
            int(tid): Named(str(t["name"]), [str(e) for e in t["entries"]], False)
            for tid, t in raw.items()
        }
    except (ValueError, TypeError, KeyError, AttributeError):  # unreadable: start afresh
        return {}


def settle(named: dict[int, Named], pinned: dict[int, list[int]], ids: list[int]) -> Settled:
    """What became of each name, given the new topics' ``ids`` and the entry indices each
    name was ``pinned`` to (none left: the name is gone)."""
    kept = set(ids)
    out = Settled([], [], [], {})
    for tid, t in named.items():
        if tid in kept:
            out.remember[tid] = t
            if not t.live:
                out.restored.append(t.name)
        elif pinned[tid]:
            out.lost.append(t.name)
            out.remember[tid] = t
        else:
            out.gone.append(t.name)
    return out


def remember(store: Store, named: dict[int, Named]) -> None:
    """Write the record (only when it changed). Written before the topics are replaced, a
    name about to lose its topic is never forgotten, whatever happens between the writes."""
    value = {str(tid): {"name": t.name, "entries": t.entries} for tid, t in named.items()}
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if text != store.get_meta(NAMED_TOPICS):
        store.set_meta(NAMED_TOPICS, text)


def forget_empty(store: Store, topic_ids: Sequence[int]) -> list[str]:
    """The names of the shaped topics ``topic_ids`` no entry is left of; their corrections
    are dropped, but for topics made from terms (an entry using them may come)."""
    if not topic_ids:
        return []
    shaped = store.corrections().topics
    empty = [shaped[t] for t in topic_ids if t in shaped]
    store.forget_corrections([c.topic_id for c in empty if not c.terms])
    return [c.name or c.label or f"topic {c.topic_id}" for c in empty]


class _Matched(NamedTuple):
    ids: list[int]  # each new topic's id
    user_named: list[bool]  # whether it carries on a topic the user named
    names: list[str | None]  # the name the user gave the topic it carries on
    kept: int  # how many kept an old topic's id


def match_topics(
    store: Store,
    members: list[list[str]],
    model: TopicModel,
    named: dict[int, Named],
    given: dict[int, str],
    barred: set[int],
) -> _Matched:
    """An id for each new cluster: the id of the topic a correction holds in it (named as
    ``given``), else of the user-named topic it carries on (in the store, or remembered in
    ``named``; its name wins over an anchor's), else of the old topic it shares an anchor
    or enough entries with (Jaccard >= MATCH_MIN_JACCARD), else a new, never used id. The
    ``barred`` ids (hidden topics) pass to none."""
    anchors: list[str | None] = model.topic_anchors_
    old_topics = {t.id: t for t in store.topics()}
    old_assign = store.assignments()
    old_sizes: dict[int, int] = {}
    for tid in old_assign.values():
        old_sizes[tid] = old_sizes.get(tid, 0) + 1
    ids: list[int | None] = [None] * len(members)
    used: set[int] = set(barred) | {t for t in model.topic_held_ if t is not None}
    for c, tid in enumerate(model.topic_held_):
        if tid is not None:
            ids[c] = tid
    for c, tid in enumerate(model.topic_pinned_):
        if tid is not None and tid in named and tid not in used and ids[c] is None:
            ids[c] = tid
            used.add(tid)
    for c, anchor in enumerate(anchors):
        if anchor is None or ids[c] is not None:
            continue
        for t in old_topics.values():
            if t.anchor == anchor and t.id not in used:
                ids[c] = t.id
                used.add(t.id)
                break
    pairs = []
    for c, ents in enumerate(members):
        if ids[c] is not None:
            continue
        overlap: dict[int, int] = {}
        for eid in ents:
            tid = old_assign.get(eid)
            if tid is not None and tid not in used:
                overlap[tid] = overlap.get(tid, 0) + 1
        for tid, n in overlap.items():
            jaccard = n / (len(ents) + old_sizes.get(tid, 0) - n)
            if jaccard >= MATCH_MIN_JACCARD:
                pairs.append((jaccard, n, c, tid))
    for _, _, c, tid in sorted(pairs, key=lambda p: (-p[0], -p[1], p[2], p[3])):
        if ids[c] is None and tid not in used:
            ids[c] = tid
            used.add(tid)
    return _settle_ids(store, ids, old_topics, named, given, barred)


def carried_ids(
    store: Store,
    model: TopicModel,
    carried: list[int | None],
    named: dict[int, Named],
    given: dict[int, str],
    barred: set[int],
) -> _Matched:
    """An id for each topic of a continued fit: the id of the topic a correction holds
    in it, else of the topic it carries on (``carried``), else a new one."""
    ids: list[int | None] = list(model.topic_held_)
    used = set(barred) | {t for t in ids if t is not None}
    for c, tid in enumerate(carried):
        if ids[c] is None and tid is not None and tid not in used:
            ids[c] = tid
            used.add(tid)
    old_topics = {t.id: t for t in store.topics()}
    return _settle_ids(store, ids, old_topics, named, given, barred)


def _settle_ids(
    store: Store,
    ids: list[int | None],
    old_topics: dict[int, Topic],
    named: dict[int, Named],
    given: dict[int, str],
    barred: set[int],
) -> _Matched:
    """New, never used ids where ``ids`` has none, and each topic's given name."""
    high = max(
        [
            0,
            *old_topics,
            *named,
            *barred,
            *given,
            int(store.get_meta("clustering.max_topic_id") or 0),
        ]
    )
    final: list[int] = []
    for i in ids:
        if i is None:
            high += 1
            i = high
        final.append(i)
    store.set_meta("clustering.max_topic_id", str(high))
    names = [given.get(i) if i in given else named[i].name if i in named else None for i in ids]
    user = [name is not None for name in names]
    return _Matched(final, user, names, sum(1 for i in ids if i is not None))
