"""The clustering work of the corrections that move many entries at once: splitting a
topic (a :class:`TopicModel` fitted on its entries alone) and finding each entry's
next-best topic when its own is hidden (the saved model's placement among the others)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from .anchors import load_anchors
from .naming import topic_name
from .token_cache import entry_token_ids, entry_tokens, tokenized_anchors

if TYPE_CHECKING:
    from topiclens.store.db import Store
    from topiclens.store.topics import Assignments


class Part(NamedTuple):
    """One part of a split topic."""

    entries: list[str]
    name: str
    keywords: list[tuple[str, float]]
    cohesion: float | None
    scores: dict[str, float]  # entry id -> cosine to the part's centre
    terms: dict[str, list[str]]  # entry id -> the terms tying it to the part


def split_parts(store: Store, entries: Sequence[str], k: int) -> list[Part]:
    """``entries`` clustered into at most ``k`` parts (fewer when fewer differ), largest
    first: a model fitted on them alone, with the anchors, the cap off."""
    from .estimator import TopicModel

    tids, _ = entry_token_ids(store, entries)
    model = TopicModel(
        k, anchors=tokenized_anchors(store, load_anchors()), max_share=None, random_state=0
    )
    model.fit(None, tokens=tids.counts())
    labels = model.labels_.tolist()
    parts = []
    for c in range(model.n_topics_):
        rows = [i for i, label in enumerate(labels) if label == c]
        members = [entries[i] for i in rows]
        parts.append(
            Part(
                members,
                # a part the user asked for is no mixed bag: named from its own keywords
                topic_name(model.keywords_[c] and [w for w, _ in model.keywords_[c]])
                if model.mixed_[c]
                else model.topic_names_[c],
                [(w, round(v, 6)) for w, v in model.keywords_[c]],
                model.cohesion_[c],
                {entries[i]: float(model.scores_[i]) for i in rows},
                {entries[i]: model.terms_[i] for i in rows},
            )
        )
    return sorted(parts, key=lambda p: -len(p.entries))


def next_best(store: Store, entries: Sequence[str], leaving: int) -> Assignments:
    """Where each of ``entries`` goes when topic ``leaving`` is hidden: the topic the
    saved model places it in among the others; without a usable model, the topic most of
    its similar entries are in, else the largest other topic."""
    from .pipeline import _saved_model

    topics = [t for t in store.topics() if t.id != leaving]
    if not entries or not topics:
        return {}
    live = {t.id for t in topics}
    saved = _saved_model(store)
    if saved is not None:
        among = [tid in live for tid in saved.topic_ids]
        if any(among):
            docs, _ = entry_tokens(store, entries)
            texts = [e.text() for e in store.entries(entries)]
            placed = saved.model.place(texts, tokens=docs, among=among)
            return {
                eid: (saved.topic_ids[c], score, terms)
                for eid, c, score, terms in zip(
                    entries, placed.labels.tolist(), placed.scores, placed.terms, strict=True
                )
            }
    assigned = store.assignments()
    largest = max(topics, key=lambda t: t.size).id
    out: Assignments = {}
    for eid in entries:
        near = Counter(assigned.get(other) for other, _ in store.similar(eid))
        best = [t for t, _ in near.most_common() if t in live]
        out[eid] = (best[0] if best else largest, 0.0, [])
    return out
