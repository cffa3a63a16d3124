"""Keeping the reader's place when the store changes under it: the topic list's order
while the reader is open, and the row or topic next to one that left its list. Plain
functions, no Textual."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from topiclens.store import Topic

T = TypeVar("T")


def keep_order(fresh: Sequence[Topic], shown: Sequence[int]) -> list[Topic]:
    """``fresh`` (the store's topics, in its order) in the order of ``shown`` (the ids the
    reader lists now): the topics known already keep their places, whatever their new
    sizes; a new one goes right after the topic the store lists before it (first when
    none does); a topic gone is left out."""
    rank = {topic_id: i for i, topic_id in enumerate(shown)}
    kept = sorted((t for t in fresh if t.id in rank), key=lambda t: rank[t.id])
    for i, topic in enumerate(fresh):
        if topic.id in rank:
            continue
        # the topic before it in the store's order is placed already (known or new)
        at = 0 if i == 0 else next(n for n, t in enumerate(kept) if t.id == fresh[i - 1].id) + 1
        kept.insert(at, topic)
    return kept


def nearest(items: Sequence[T], item: T) -> list[T]:
    """``items`` from ``item`` outwards: itself, those after it, then those before it
    (closest first); empty when ``item`` is not one of them. Where the cursor goes when
    its row or topic leaves a list: the next one, else the one above."""
    if item not in items:
        return []
    at = list(items).index(item)
    return [*items[at:], *reversed(items[:at])]
