"""What the detail pane shows about one entry, read from the store, and the entries read
so kept while nothing they were read with changed."""

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
    marks = store.entry_marks(entry_id)
    topic, score, terms = None, 0.0, []
    if marks.assignment is not None:
        topic_id, score, terms = marks.assignment
        topic = next((t for t in topics if t.id == topic_id), None)
    similar = marks.similar
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
        bookmark=marks.bookmark,
        read=entry_id in read,
        note=marks.note,
        content=content,
        feed=feed_name,
    )


# entries shown in full kept in memory until the store changes: going back to a topic or
# an entry reads none of its queries again
KEPT_DETAILS = 256


class KeptDetails:
    """Entries read in full by :func:`load_detail`, kept by id while what they were read
    with stays the same: the topics, the read state and the bookmarks (the screen puts a
    new object in their place when one changes). The screen calls :meth:`clear` on any
    other change to the store."""

    def __init__(self, size: int = KEPT_DETAILS) -> None:
        self.size = size
        self._details: dict[str, Detail | None] = {}
        self._read_with: tuple[object, ...] = (None, None, None)

    def clear(self) -> None:
        self._details.clear()

    def get(
        self,
        store: Store,
        entry_id: str,
        topics: list[Topic],
        read: frozenset[str],
        bookmarks: frozenset[str],
    ) -> Detail | None:
        """:func:`load_detail`, kept (the oldest forgotten past ``size``)."""
        seen = (topics, read, bookmarks)
        if any(a is not b for a, b in zip(seen, self._read_with, strict=True)):
            self._details.clear()
            self._read_with = seen
        detail = self._details.get(entry_id)
        if detail is None:
            detail = load_detail(store, entry_id, topics, read)
            if len(self._details) >= self.size:
                del self._details[next(iter(self._details))]  # the oldest
            self._details[entry_id] = detail
        return detail
