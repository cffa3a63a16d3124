"""feedparser made to do less of what topiclens throws away or does again, each change giving
the same results (tests/unit/test_feedparser_speedups.py reads every test feed both ways):
its SAX reader buffers text (:mod:`.feed_expat`), its dates are read only when asked for,
its link joins are cached, its content parameters are looked up as a plain dict, and its
cp1252 table is read without an exception per character. Imported by :mod:`.feed_parse`,
which makes its own changes of the same kind.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import feedparser.api
import feedparser.datetimes
import feedparser.html
import feedparser.mixin
import feedparser.namespaces._base
import feedparser.urls
from feedparser.util import FeedParserDict

from .html_render import joins_unchanged

# Strings longer than this together are joined each time, not kept.
CACHED_URI_CHARS = 2048


def cached_join(join: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``join(base, uri)``, a function of its two strings alone, with the answers for the
    last 256 pairs kept (a pair of anything but short strings, or None, is joined each
    time)."""
    cached = lru_cache(maxsize=256)(join)

    def joined(base: Any, uri: Any = None) -> Any:
        if (
            isinstance(base, str)
            and (uri is None or isinstance(uri, str))
            and len(base) + len(uri or "") <= CACHED_URI_CHARS
        ):
            return cached(base, uri)
        return join(base, uri)

    return joined


# feedparser resolves each link and permalink guid against the base URL through
# urllib.parse; a feed's guid is most often its link, joined again. The join is cached
# (tests/unit/test_feedparser_speedups.py reads every test feed both ways).
_cached_urljoin = cached_join(feedparser.urls._urljoin)


def _urljoin(base: Any, uri: Any) -> Any:
    # (most links are absolute URLs of the plainest form, each met once: the join would
    # give them back unchanged, tests/unit/test_parse_worker_same.py)
    if joins_unchanged(base, uri):
        return uri
    return _cached_urljoin(base, uri)


feedparser.mixin._urljoin = _urljoin  # type: ignore[attr-defined]  # (resolve_uri calls it)


# feedparser maps the C1 control characters of every value it reads to the characters
# cp1252 puts there (str.translate with a dict of them). On text that is not all ASCII,
# str.translate looks up each character, and the dict raises KeyError for all but those
# (3 ms for a Chinese feed of the feeds bench). The same table as a tuple over the Basic
# Multilingual Plane, each other character mapped to itself, is read without an exception
# (1.2 ms; about 2 MB); a character past it is missing from it as from the dict, and left
# as it is.
feedparser.mixin._cp1252 = tuple(  # type: ignore[attr-defined]  # (the name pop reads)
    feedparser.html._cp1252.get(c, c) for c in range(0x10000)
)

# feedparser looks up the parameters of the content it is reading (its type, above all)
# for every piece of text and at every element's end, through FeedParserDict's lookup,
# which first tries the names it maps to others. None of those names is ever a content
# parameter, so a plain dict's lookup (the same answer) stands in for it where the name is
# not one of them.
_MAPPED_KEYS = frozenset(FeedParserDict.keymap) | {
    "category",
    "enclosures",
    "license",
    "updated",
    "updated_parsed",
}


class ContentParams(FeedParserDict):
    """feedparser's ``contentparams``, looked up as a plain dict is for names it does not map."""

    def __getitem__(self, key: Any) -> Any:
        if key in _MAPPED_KEYS:
            return FeedParserDict.__getitem__(self, key)
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        if key in _MAPPED_KEYS:
            return FeedParserDict.get(self, key, default)
        return dict.get(self, key, default)


_Mixin = feedparser.mixin._FeedParserMixin
_feedparser_init = _Mixin.__init__
_feedparser_push_content = _Mixin.push_content


def _init(self: Any) -> None:
    _feedparser_init(self)
    self.contentparams = ContentParams(self.contentparams)


def _push_content(self: Any, *args: Any) -> None:
    _feedparser_push_content(self, *args)
    self.contentparams = ContentParams(self.contentparams)


_Mixin.__init__ = _init  # type: ignore[method-assign]
_Mixin.push_content = _push_content  # type: ignore[method-assign]

# feedparser reads every date it meets (trying one format after another), where
# :func:`.feed_dates.read_date` reads the forms feeds use itself and wants feedparser's
# reading only for any other form: feedparser is given a reading made when it is asked for
# (the same reading, tests/unit/test_feedparser_speedups.py).
_feedparser_date = feedparser.datetimes._parse_date


@dataclass(frozen=True, slots=True)
class LaterDate:
    """feedparser's reading of ``text`` (a UTC time tuple, or None), made when called."""

    text: str

    def __call__(self) -> time.struct_time | None:
        return _feedparser_date(self.text)  # type: ignore[no-any-return]


def _later_date(value: Any) -> LaterDate | None:
    return LaterDate(value) if value else None


# (an entry's published, updated, created and expired dates are read there)
feedparser.namespaces._base._parse_date = _later_date  # type: ignore[attr-defined]

# feedparser reads XML through the SAX driver it finds first in this list: expat with its
# character data buffered (:mod:`.feed_expat`: fewer calls, the same pieces of text).
feedparser.api.PREFERRED_XML_PARSERS = ["topiclens.store.feed_expat"]
