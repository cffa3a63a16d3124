"""What the detail pane shows about one entry, read from the store."""

from __future__ import annotations

from topiclens.store import Store, Topic

from .model import Detail


def load_detail(
    store: Store, entry_id: str, topics: list[Topic], read: frozenset[str]
) -> Detail | None:
    """The entry ``entry_id`` with its topic, the other topics it is also in, similar
    entries, bookmark and read state (None when the store has no such entry)."""
    entry = store.entry(entry_id)
    if entry is None:
        return None
    topic, score, terms = None, 0.0, []
    assignment = store.assignment(entry_id)
    if assignment is not None:
        topic_id, score, terms = assignment
        topic = next((t for t in topics if t.id == topic_id), None)
    similar = store.similar(entry_id)
    muted = store.muted_among([s for s, _ in similar])  # hidden everywhere but a search
    similar = [(s, score) for s, score in similar if s not in muted]
    rows = {r[0]: r for r in store.entry_rows([s for s, _ in similar])}
    content, feed_name = "", ""
    if entry.feed_id is not None:
        found = store.entry_content(entry_id)
        content = found.text if found is not None else ""
        feed = store.feed(entry.feed_id)
        feed_name = feed.display_name if feed is not None else ""
    return Detail(
        entry=entry,
        topic=topic,
        score=score,
        terms=list(terms),
        also=store.also_topics(entry_id),
        similar=[(rows[s], score) for s, score in similar if s in rows],
        bookmark=store.bookmark(entry_id),
        read=entry_id in read,
        note=store.note(entry_id),
        content=content,
        feed=feed_name,
    )
