"""Names the user gave: which entries each stands for, and the ones a re-cluster could not
keep, remembered until one has room for them.

The record lives in the store's meta (plain key and value; the store's schema has no place
for it): ``{topic id: {"name", "entries"}}`` for every topic the user named.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from topiclens.store.db import Store

NAMED_TOPICS = "clustering.named_topics"  # the store meta key of the record


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
    topic in an earlier re-cluster and wait for room. A topic stands for the entries it
    had when named: a small k that once lumped others in with it does not change that."""
    known = _known(store)
    named = {}
    for t in store.topics():
        if t.user_named:
            was = known.get(t.id)
            same = was is not None and was.name == t.name  # renamed since: its entries now
            named[t.id] = Named(t.name, was.entries if same else store.topic_entry_ids(t.id), True)
    for tid, t in known.items():
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
