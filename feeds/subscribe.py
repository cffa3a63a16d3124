"""Subscribing: adding a feed (fetched at once), and the list in and out as OPML.

:func:`subscribe` takes a feed's URL, or a page that names its feed in
``<link rel="alternate">`` (it subscribes to the feed named). A URL that is neither
stores nothing and says in one line what it returned. ``http``, ``https`` and ``file``
only (a path to a file on disk is taken as its ``file`` URL).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from topiclens.store.feed_entries import not_a_feed
from topiclens.store.models import Feed, Problem

from .fetch import Fetched, Limits, fetch_sync
from .refresh import RefreshSummary, parsed_check, place_new, store_check

if TYPE_CHECKING:
    from topiclens.store import Store

SCHEMES = ("http", "https", "file")


@dataclass(slots=True)
class Subscribed:
    """What :func:`subscribe` did: the feed (None when nothing was stored, ``error``
    saying why), whether it was subscribed already (then nothing was fetched), the page
    the feed was found on, and the first fetch's summary."""

    feed: Feed | None = None
    already: bool = False
    found_on: str | None = None
    error: str | None = None
    summary: RefreshSummary | None = None


def as_url(text: str) -> str | Problem:
    """``text`` as a feed URL: an http, https or file URL, or a path to a file on disk
    (as its file URL); a Problem saying why not."""
    text = text.strip()
    scheme = urlsplit(text).scheme.lower()
    if scheme in SCHEMES:
        return text
    path = Path(text).expanduser()
    if (not scheme or len(scheme) == 1) and path.is_file():  # (C: is a drive, not a scheme)
        return path.resolve().as_uri()
    if not scheme:
        return Problem(text, 0, "not a URL: give an http, https or file URL (or a file's path)")
    return Problem(text, 0, f"a feed's URL is http, https or file, not {scheme}")


def subscribe(
    store: Store,
    url: str,
    *,
    name: str | None = None,
    folder: str = "",
    limits: Limits | None = None,
    place: bool = True,
) -> Subscribed:
    """Subscribe to the feed at ``url`` (or the one the page at ``url`` names) and fetch
    it at once, its entries placed into their topics. ValueError for a bad ``name``."""
    from topiclens.store.feed_parse import NotAFeed, parse_feed

    if name is not None:
        from topiclens.store.feeds import check_name

        name = check_name(name)
    target = as_url(url)
    if isinstance(target, Problem):
        return Subscribed(error=f"{target.path}: {target.message}")
    if (known := _subscribed(store, target)) is not None:
        return _already(store, known, name)
    limits = limits or Limits()
    fetched = fetch_sync(target, None, limits)
    if not fetched.ok:
        return Subscribed(error=f"{target}: {_failure(fetched)}")
    found_on = None
    try:
        parsed = parse_feed(fetched.body or b"", url=fetched.url, headers=fetched.headers)
    except NotAFeed as exc:
        from .discover import feed_links

        links = feed_links(fetched.body or b"", fetched.url)
        if not links:
            return Subscribed(error=f"{target}: {not_a_feed(exc)}, and it names no feed")
        found_on, page = target, fetched.url
        target = links[0][0]
        if (known := _subscribed(store, target)) is not None:
            return _already(store, known, name, found_on)
        fetched = fetch_sync(target, None, limits)
        if not fetched.ok:
            return Subscribed(error=f"{page} names the feed {target}: {_failure(fetched)}")
        try:
            parsed = parse_feed(fetched.body or b"", url=fetched.url, headers=fetched.headers)
        except NotAFeed as exc:
            return Subscribed(error=f"{page} names the feed {target}, but it is {exc}")
    feed, _ = store.add_feed(fetched.moved_to or target, name=name, folder=folder)
    result = store_check(store, feed, fetched, parsed_check(feed, fetched, parsed, time.time()))
    summary = RefreshSummary([result])
    if place and result.new_ids:
        place_new(store, summary)
    return Subscribed(store.feed(feed.id), False, found_on, None, summary)


def _subscribed(store: Store, url: str) -> Feed | None:
    feed = store.feed_by_url(url)
    if feed is None or feed.removed_at is not None or feed.status == "gone":
        return None
    return feed


def _already(store: Store, feed: Feed, name: str | None, found_on: str | None = None) -> Subscribed:
    if name is not None and name != feed.name:
        store.rename_feed(feed.id, name)
    return Subscribed(store.feed(feed.id), True, found_on)


def _failure(fetched: Fetched) -> str:
    if fetched.ok:
        return "no body"
    return fetched.error or f"HTTP {fetched.status}"


# --- OPML ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Imported:
    """What an OPML import did: feeds newly subscribed, feeds already subscribed, and the
    problems of the file (each naming its line)."""

    added: list[Feed]
    known: list[Feed]
    problems: list[Problem]


def import_opml(store: Store, data: bytes, path: str) -> Imported:
    """Subscribe to every feed of an OPML document (nothing is fetched: the next refresh
    fetches them), each in its folder (nested outlines and ``category`` joined by "/");
    the outline's title is the feed's until its own arrives. Outlines whose URL is not
    an http, https or file URL are refused, each with its line."""
    from topiclens.store.opml import read_opml

    outlines, problems = read_opml(data, path)
    added: list[Feed] = []
    known: list[Feed] = []
    for o in outlines:
        url = o.url.strip()
        scheme = urlsplit(url).scheme.lower()
        if scheme not in SCHEMES:  # (a bare path is refused: a file would name a local file)
            why = f"not a feed URL (http, https or file, not {scheme or 'a path'})"
            problems.append(Problem(path, o.line, f"{url[:200]}: {why}"))
            continue
        if (feed := _subscribed(store, url)) is not None:
            known.append(feed)
            continue
        feed, already = store.add_feed(url, folder=o.folder, title=o.title)
        (known if already else added).append(feed)
    return Imported(added, known, problems)


def export_opml(store: Store, feeds: Sequence[Feed] | None = None) -> bytes:
    """The subscribed feeds as OPML 2.0 (each under its folder, titled as it is called),
    which :func:`import_opml` reads back to the same list."""
    from topiclens.store.opml import OutlineFeed, write_opml

    chosen = store.feeds() if feeds is None else feeds
    return write_opml([OutlineFeed(f.url, f.display_name, f.folder, 0) for f in chosen])
