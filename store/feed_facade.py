"""The store's methods for feeds and entries' contents: :class:`~topiclens.store.Store` is a
:class:`FeedsFacade`, whose methods delegate to :mod:`.feeds` and :mod:`.content` as the
Store's others delegate to the module of their concern (kept apart from ``db.py`` so each
file stays short)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import content as _content
from .connection import Database
from .models import Content

if TYPE_CHECKING:
    from .feed_record import Feed
    from .feeds import FeedCheck, Recorded


class FeedsFacade(Database):
    """Subscriptions, what each fetch found, and the whole content of entries. The feeds'
    modules are imported when first used: the reader's first frame needs none of them."""

    def feeds(self, ids: Sequence[int] | None = None) -> list[Feed]:
        """The subscribed feeds (or those of ``ids`` among them) in the order they were
        added, with their entry and unread counts."""
        from . import feeds as _feeds

        return _feeds.listing(self, ids)

    def feed(self, feed_id: int) -> Feed | None:
        """The feed ``feed_id``, subscribed or removed."""
        from . import feeds as _feeds

        return _feeds.one(self, feed_id)

    def feed_by_url(self, url: str) -> Feed | None:
        """The subscribed feed at ``url``, else the last removed one that was there."""
        from . import feeds as _feeds

        return _feeds.by_url(self, url)

    def add_feed(
        self, url: str, *, name: str | None = None, folder: str = "", title: str = ""
    ) -> tuple[Feed, bool]:
        """Subscribe to ``url`` (taking back the feed that was there, removed or gone);
        returns the feed and whether it was subscribed already. ValueError for a bad
        ``name`` (:func:`.feeds.check_name`)."""
        from . import feeds as _feeds

        return _feeds.add(self, url, name=name, folder=folder, title=title)

    def remove_feed(self, feed_id: int) -> bool:
        """Unsubscribe; every entry of the feed stays. False: no such subscribed feed."""
        from . import feeds as _feeds

        return _feeds.remove(self, feed_id)

    def rename_feed(self, feed_id: int, name: str) -> bool:
        """Give a feed the user's name (ValueError for a bad one); its entries show it as
        their source. False: no such subscribed feed."""
        from . import feeds as _feeds

        return _feeds.rename(self, feed_id, name)

    def record_feed_check(self, feed_id: int, check: FeedCheck) -> Recorded:
        """Store what one fetch of the feed found, with its new and changed entries, in
        one transaction (changed entries are updated in place)."""
        from . import feeds as _feeds

        return _feeds.record(self, feed_id, check)

    def entry_content(self, entry_id: str) -> Content | None:
        """The entry's whole content (None: it has none, as entries from digests)."""
        return _content.one(self, entry_id)

    def entry_contents(self, ids: Sequence[str]) -> dict[str, Content]:
        """Entry id -> whole content, for those of ``ids`` that have one."""
        return _content.many(self, ids)
