"""What the reader reads from the store to show it again, read in one go.

After a refresh the store holds thousands of new rows, and reading its topics, counts,
read state and the rows shown takes the event loop 60 to 300 ms: long enough to land on
keys. :func:`read_store` does those reads in a thread worker (on the workers' own
connection), and the screen applies the result on the loop in one cheap step."""

from topiclens.store import Store, Topic
from topiclens.store.models import Record
from topiclens.store.schema import GENERATION

from .details import load_detail
from .model import Detail, Rows, View
from .views import fetch_rows


class StoreRead(Record):
    """The store as a reload shows it."""

    __slots__ = (
        "bookmarks",
        "detail",
        "entries",
        "grouping",
        "read",
        "rows",
        "saved",
        "topics",
        "unread"
    )  # fmt: skip

    def __init__(
        self,
        topics: list[Topic],
        grouping: str | None,
        unread: dict[int, int],
        bookmarks: frozenset[str],
        read: frozenset[str],
        saved: dict[str, str],
        entries: int | None = None,
        rows: tuple[View, Rows] | None = None,
        detail: tuple[str, Detail | None] | None = None,
    ) -> None:
        self.topics = topics  # the visible topics in the store's order (sizes without muted)
        self.grouping = grouping  # the grouping the topics come from
        self.unread = unread  # topic id -> its unread entries
        self.bookmarks = bookmarks
        self.read = read
        self.saved = saved  # saved search name -> its query, in the order saved
        self.entries = entries  # every entry, counted (when asked)
        self.rows = rows  # the rows of the view shown (when asked)
        self.detail = detail  # the entry under the cursor (when asked)


def read_store(
    store: Store,
    *,
    view: View | None = None,
    entry_id: str | None = None,
    count: bool = False,
) -> StoreRead:
    """Everything a reload shows; with ``view`` its rows too (a search's excepted: it
    scans every entry), with ``entry_id`` that entry's detail, with ``count`` the count
    of entries."""
    topics = store.visible_topics()
    read = frozenset(store.read_ids())
    rows = None
    if view is not None and not view.searched:
        rows = (view, fetch_rows(store, view))
    detail = None
    if entry_id is not None:
        detail = (entry_id, load_detail(store, entry_id, topics, read))
    return StoreRead(
        topics=topics,
        grouping=store.get_meta(GENERATION),
        unread=store.topic_unread_counts(),
        bookmarks=frozenset(store.bookmark_ids()),
        read=read,
        saved={s.name: s.query for s in store.saved_searches()},
        entries=store.count_entries() if count else None,
        rows=rows,
        detail=detail,
    )
