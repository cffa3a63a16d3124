"""Feeds read from bytes: RSS 0.9x/1.0/2.0 and Atom 0.3/1.0 through feedparser, JSON Feed
1.0/1.1 by its own small reader, into :class:`FeedEntry` values ready for the store.

Nothing here touches the network, the file system or the database. feedparser gets the bytes
(in a stream, never as a string it could take for a URL or a file name), the response headers
and the final URL as ``content-location``; its own sanitiser is off, as every HTML value goes
through :mod:`.html_text` (nh3) instead. Before feedparser sees a document, its entity
declarations are removed, so no entity is ever expanded (no billion laughs, no quadratic
blow-up, no external entity read from disk), and a document too large to parse in a few
seconds is cut to its first entries.

The parts: :mod:`.feed_xml` looks at the bytes before feedparser does, :mod:`.feed_json`
reads JSON Feed, :mod:`.parsed_feed` makes entries of what either read, and
:mod:`.feed_dates` reads dates, not feedparser, which misreads some silently: a date that
cannot be read for certain is ``None``, and the caller uses the time it first saw the entry.
"""

from __future__ import annotations

import copy
import datetime as _dt
import html as _html
import io
import re
import types
from collections.abc import Iterator, Mapping
from typing import Any

import feedparser
import feedparser.mixin
from feedparser.urls import make_safe_absolute_uri
from feedparser.util import FeedParserDict

from .feed_dates import DateFallback, Unreadable, read_date
from .feed_json import parse_json_feed
from .feed_tuning import ContentParams, cached_join
from .feed_xml import (
    MAX_ELEMENTS,
    entry_lines,
    is_feed_root,
    looks_like_feed,
    prepare,
    root_element,
    skip_prolog,
    text_view,
    wide_codec,
)
from .html_text import html_to_text, terminal_line
from .models import Problem
from .parsed_feed import (
    MAX_ENTRIES,
    MAX_PROBLEMS,
    SUMMARY_CHARS,
    EntryReader,
    FeedEntry,
    NotAFeed,
    ParsedFeed,
    RawEntry,
    capped,
    http_url,
    is_chinese,
    one_line,
    site_name,
)

__all__ = [
    "MAX_ELEMENTS",
    "MAX_ENTRIES",
    "MAX_PROBLEMS",
    "SUMMARY_CHARS",
    "FeedEntry",
    "NotAFeed",
    "ParsedFeed",
    "Unreadable",
    "looks_like_feed",
    "parse_feed",
    "read_date",
]

UTC = _dt.UTC
_HTML_TITLE = re.compile(r"<title[^>]{0,200}>(.{0,300}?)</title", re.IGNORECASE | re.DOTALL)


# --- RSS and Atom ---------------------------------------------------------------------------

# feedparser makes the base URL absolute again at every element it reads, joining it with
# itself through urllib.parse: a sixth of its time on a long feed. The join is a function
# of the two strings alone, so feedparser is given a cached one (the same results: a test
# reads feedparser's whole test suite both ways).
_absolute_uri = cached_join(make_safe_absolute_uri)
feedparser.mixin.make_safe_absolute_uri = _absolute_uri  # (where the per-element call is)


# feedparser deep-copies the parameters of every content element it reads (its type,
# language and base URL: strings) into the entry: a tenth to a fifth of its time (measured
# on the feeds bench's 200 feeds, alternated, at a load of 3 to 10). A copy
# of a dict of strings is the same whether deep or not, so it is made shallow where every
# value is immutable, and deep as before where one is not (a test reads feedparser's whole
# test suite both ways).
_IMMUTABLE = (str, int, float, bool, type(None))


def _copied_params(params: Any) -> Any:
    # (the copy kept in the entry is feedparser's own dict, not the one it reads faster)
    kind = FeedParserDict if type(params) is ContentParams else type(params)
    if not all(isinstance(v, _IMMUTABLE) for v in params.values()):
        return copy.deepcopy(params if kind is type(params) else kind(params))
    if FeedParserDict.keymap.keys().isdisjoint(params):  # (no name set would be mapped)
        return kind(params)
    fresh = kind()
    for key, value in params.items():  # (one by one, as deepcopy sets them)
        fresh[key] = value
    return fresh


# (feedparser.mixin copies only content parameters; its module ``copy`` is replaced there alone)
feedparser.mixin.copy = types.SimpleNamespace(deepcopy=_copied_params)  # type: ignore[attr-defined]

# feedparser's own get looks a name up through the names it maps to others first: none of
# those read here is one, so a plain dict's get (the same answer) reads them
_get = dict.get


def _is_html_type(detail: Any) -> bool:
    kind = _get(detail or {}, "type") or "text/html"
    return "html" in kind or "xml" in kind


def _content(entry: Any) -> tuple[str, bool, str | None]:
    """An entry's content: the first HTML value of ``content`` (else its first value), with
    whether it is HTML and its base URL."""
    values = [c for c in _get(entry, "content") or [] if isinstance(_get(c, "value"), str)]
    if not values:
        return "", True, None
    chosen = next((c for c in values if _is_html_type(c)), values[0])
    return chosen["value"], _is_html_type(chosen), _get(chosen, "base")


def _xml_raws(result: Any, url: str, lines: list[int]) -> Iterator[RawEntry]:
    entries = result.entries
    aligned = len(lines) == len(entries)
    for i, entry in enumerate(entries):
        content, content_is_html, content_base = _content(entry)
        summary = _get(entry, "summary") or ""
        summary_detail = _get(entry, "summary_detail")
        if summary_detail is None or summary == content:  # feedparser's copy of the content
            summary = ""
        title_detail = _get(entry, "title_detail") or {}
        if not content and summary:
            # RSS puts whole posts in <description>: it is the content, and the summary is
            # its start
            content, content_is_html = summary, _is_html_type(summary_detail)
            content_base, summary = _get(summary_detail or {}, "base"), ""
        author_detail = _get(entry, "author_detail") or {}
        author = _get(author_detail, "name") or _get(entry, "author") or ""
        # (feedparser's own get would answer "updated" with "published")
        dates: list[tuple[str, DateFallback]] = []
        for name in ("published", "updated", "created"):
            text = _get(entry, name)
            if isinstance(text, str) and text.strip() and text not in (d[0] for d in dates):
                dates.append((text, _get(entry, f"{name}_parsed")))
        ident, link = _get(entry, "id"), _get(entry, "link")
        yield RawEntry(
            ids=[ident] if isinstance(ident, str) else [],
            link=link if isinstance(link, str) else None,
            title=_get(entry, "title") or "",
            title_is_html="html" in (_get(title_detail, "type") or ""),
            summary=summary,
            summary_is_html=_is_html_type(summary_detail),
            content=content,
            content_is_html=content_is_html,
            base=content_base or url,
            author=author if isinstance(author, str) else "",
            dates=dates,
            line=lines[i] if aligned else 0,
        )


def _message(error: Any) -> str:
    """An error's message, without the "<unknown>:8:15:" a SAX error starts with."""
    get = getattr(error, "getMessage", None)
    return str(get() if callable(get) else error)


def _sax_line(error: Any, shift: int) -> int:
    """The line of a SAX error in the document as given (``shift`` lines were added)."""
    try:
        return max(int(error.getLineNumber()) - shift, 0)
    except (AttributeError, TypeError, ValueError):
        return 0


def _parse_xml(
    body: bytes, url: str, path: str, headers: Mapping[str, str] | None, now: _dt.datetime
) -> ParsedFeed:
    view = text_view(body[:65536])
    root, _ = root_element(view)
    if root.lower() == "html" or view.lstrip()[:15].lower().startswith("<!doctype html"):
        title = _HTML_TITLE.search(view)
        named = f" ({one_line(_html.unescape(title.group(1)), 60)!r})" if title else ""
        raise NotAFeed(f"an HTML page{named}, not a feed")
    body, notes = prepare(body)
    problems = [Problem(path, line, note) for line, note in notes]
    sent = {k.lower(): v for k, v in (headers or {}).items() if isinstance(v, str)}
    sent["content-location"] = url
    # without a content type feedparser reads a document as Latin-1; XML defaults to UTF-8
    sent.setdefault("content-type", "application/xml")
    result = feedparser.parse(
        io.BytesIO(body),
        response_headers=sent,
        sanitize_html=False,
        resolve_relative_uris=False,
    )
    version = result.get("version") or ""
    # feedparser writes an XML declaration on a line of its own where there is none
    shift = 0 if view.startswith("<?xml") else 1
    if not version and not result.entries and not (is_feed_root(root) and result.feed):
        _not_a_feed(view, root, result.get("bozo_exception"), shift)
    if result.get("bozo"):
        error = result.get("bozo_exception")
        name = type(error).__name__
        if name == "CharacterEncodingOverride":
            problems.append(Problem(path, 0, one_line(_message(error), 200)))
        elif name != "NonXMLContentType":  # (a server's wrong media type is no flaw of the feed)
            why = f"ill-formed XML ({one_line(_message(error), 100)}): read leniently"
            problems.append(Problem(path, _sax_line(error, shift), why))
    feed = result.feed
    kind = "atom" if version.startswith("atom") or root.lower() == "feed" else "rss"
    lines = entry_lines(text_view(body))
    titles = [feed.get("title") or ""] + [e.get("title") or "" for e in result.entries[:30]]
    language = feed.get("language") or sent.get("content-language")
    reader = EntryReader(path, is_chinese(language, titles), now)
    entries = reader.entries(list(_xml_raws(result, url, lines)))
    title_detail = feed.get("title_detail") or {}
    title = feed.get("title") or ""
    if "html" in (title_detail.get("type") or ""):
        title = html_to_text(title, url, plain=True)
    return ParsedFeed(
        kind=kind,
        title=one_line(terminal_line(title), 300) or site_name(url),
        link=http_url(feed.get("link"), url),
        entries=entries,
        problems=capped(problems + reader.problems, path),
    )


def _not_a_feed(view: str, root: str, error: Any, shift: int) -> None:
    """Raise :class:`NotAFeed` saying what the document is."""
    if root and not is_feed_root(root):
        raise NotAFeed(f"XML whose root element is <{one_line(root, 40)}>, not RSS or Atom")
    if error is not None and root:
        line = _sax_line(error, shift)
        at = f", line {line}" if line else ""
        raise NotAFeed(f"XML that could not be read ({one_line(_message(error), 100)}{at})")
    rest = terminal_line(view[skip_prolog(view) :][:200])
    if not rest:
        raise NotAFeed("empty (no element, only a prolog or comments)")
    raise NotAFeed(f"not a feed: it starts with {one_line(rest, 40)!r}")


# --- the entry point ------------------------------------------------------------------------


def parse_feed(
    body: bytes,
    *,
    url: str,
    path: str = "",
    headers: Mapping[str, str] | None = None,
    now: _dt.datetime | None = None,
) -> ParsedFeed:
    """The feed in ``body``: RSS 0.9x/1.0/2.0 or Atom 0.3/1.0 through feedparser, JSON Feed
    1.0/1.1 by its own reader. ``url`` is where the bytes came from (the final URL after
    redirects, or a ``file:`` URL): relative links resolve against it. ``path`` names the
    source in problems (default: ``url``); ``headers`` are the response's (their charset and
    content type count); ``now`` is the time dates are checked against (default: now).

    Raises :class:`NotAFeed` when the bytes are none of these feeds. Never expands an entity
    declared in the document, never reads a local file, never touches the network."""
    path = path or url
    now = now or _dt.datetime.now(UTC)
    if not body or not body.strip():
        raise NotAFeed("empty" if not body else "empty (only white space)")
    start = text_view(body[:1024]).lstrip()
    if start.startswith(("{", "[")):
        return parse_json_feed(body, url, path, now)
    if not start.startswith("<") and b"\x00" in body[:1024] and wide_codec(body) is None:
        raise NotAFeed("binary data, not a feed")
    return _parse_xml(body, url, path, headers, now)
