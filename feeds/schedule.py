"""When feeds are due: the reader refreshes due feeds on a schedule (every 60 minutes
unless the user sets another interval). A feed that failed waits longer each time (the
interval doubled per failure in a row, at most a day), a feed whose server sent
``Retry-After`` waits at least that long, and a gone feed is never due."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from topiclens.store.models import Feed

if TYPE_CHECKING:
    from topiclens.store import Store

DEFAULT_INTERVAL_MINUTES = 60
MIN_INTERVAL_MINUTES = 5  # more often than this is hammering servers
MAX_INTERVAL_MINUTES = 7 * 24 * 60
MAX_BACKOFF_SECONDS = 24 * 3600
INTERVAL_KEY = "feeds.refresh_minutes"  # in the store's meta table


def interval_minutes(store: Store) -> int:
    """The user's refresh interval (:data:`DEFAULT_INTERVAL_MINUTES` unless set)."""
    stored = store.get_meta(INTERVAL_KEY)
    try:
        minutes = int(stored) if stored is not None else DEFAULT_INTERVAL_MINUTES
    except ValueError:
        return DEFAULT_INTERVAL_MINUTES
    return min(max(minutes, MIN_INTERVAL_MINUTES), MAX_INTERVAL_MINUTES)


def set_interval_minutes(store: Store, minutes: int) -> None:
    """Set the refresh interval; ValueError outside the bounds."""
    if not MIN_INTERVAL_MINUTES <= minutes <= MAX_INTERVAL_MINUTES:
        raise ValueError(
            f"the refresh interval is from {MIN_INTERVAL_MINUTES} to {MAX_INTERVAL_MINUTES} "
            f"minutes, not {minutes}"
        )
    store.set_meta(INTERVAL_KEY, str(minutes))


def due_at(feed: Feed, interval: float) -> float | None:
    """When ``feed`` is next due (seconds since the epoch; 0: now), None: never (gone)."""
    if feed.status == "gone" or feed.removed_at is not None:
        return None
    wait = min(interval * 2 ** min(feed.failures, 16), max(interval, MAX_BACKOFF_SECONDS))
    after_check = (feed.last_checked + wait) if feed.last_checked is not None else 0.0
    return max(after_check, feed.retry_until or 0.0)


def due_feeds(store: Store, now: float | None = None, interval: float | None = None) -> list[Feed]:
    """The subscribed feeds due at ``now``, for :func:`~.refresh.refresh` (``feeds=``);
    ``interval`` in seconds (default: the user's)."""
    now = time.time() if now is None else now
    every = interval if interval is not None else 60.0 * interval_minutes(store)
    return [f for f in store.feeds() if (at := due_at(f, every)) is not None and at <= now]


def next_due(store: Store, interval: float | None = None) -> float | None:
    """When the next feed falls due (None: no feed ever will): the reader's timer."""
    every = interval if interval is not None else 60.0 * interval_minutes(store)
    times = [at for f in store.feeds() if (at := due_at(f, every)) is not None]
    return min(times, default=None)
