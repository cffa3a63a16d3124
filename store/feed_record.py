"""A feed's record (:class:`Feed`), kept apart from :mod:`.models`, which gives it on first
use: the reader's first frame needs no feed. No ``from __future__ import annotations``:
typing would compile each field's annotation string."""

from typing import NamedTuple


class Feed(NamedTuple):
    """A subscription: where it is fetched from, what the last fetch found, and how many
    of its entries the store holds (``entries``, ``unread``: filled by the listing)."""

    id: int
    url: str  # the current one (a permanent redirect moves it)
    title: str = ""  # the feed's own, from its last fetch
    name: str | None = None  # the user's name for it; None: the title
    folder: str = ""  # "a/b" for nested folders, "" at the top
    site_url: str | None = None  # the site's home page, as the feed names it
    etag: str | None = None
    last_modified: str | None = None
    status: str = "ok"  # one of FEED_STATUSES
    error: str | None = None  # the last fetch's error, one line
    last_checked: float | None = None  # the last fetch, whatever it found
    last_ok: float | None = None  # the last fetch that worked (200 or 304)
    failures: int = 0  # fetches in a row that failed
    retry_until: float | None = None  # the server asked us to wait until then
    added_at: float = 0.0
    removed_at: float | None = None  # unsubscribed (its entries stay)
    entries: int = 0
    unread: int = 0

    @property
    def display_name(self) -> str:
        """What the feed is called: the user's name, else its title, else its URL."""
        return self.name or self.title or self.url
