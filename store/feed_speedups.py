"""Quicker equivalents of three of feedparser's own helpers, given to it at import.

feedparser spends most of a long feed's time in Python work per element and per piece of
text, and three of its helpers do more of it than what they compute needs:

- at the end of every content element (a title, a summary, a content) it copies the
  element's parameters with ``copy.deepcopy``; they are a :class:`FeedParserDict` of
  strings, flags and ``None``, which a plain item-by-item copy reproduces;
- every ``entry["title"]``, ``entry.get("link")`` or ``"id" in entry`` goes through
  ``FeedParserDict.__getitem__``, which compares the key with five special names and
  looks it up in the key map before the dictionary itself; for a key that is neither
  special nor mapped, it ends in the dictionary's own lookup, and so do ``get`` and
  ``in``;
- its XML parser (expat, through ``xml.sax``) hands it the text of an element a line at a
  time, each piece through three Python calls; buffered (expat's ``buffer_text``), the
  same text comes in a few pieces, which feedparser joins as it joins the lines.

Each gives the same values as feedparser's own (``tests/unit/test_feed_parse_same.py``
reads feedparser's whole test suite with and without them); anything else goes to
feedparser's code.
"""

from __future__ import annotations

import copy as _copy
from types import SimpleNamespace
from typing import Any
from xml.sax.expatreader import ExpatParser

import feedparser.api
import feedparser.mixin
from feedparser.util import FeedParserDict

_ATOMIC = (str, int, float, bool, type(None))  # (bool is an int; listed for the reader)


def _deepcopy(value: Any, memo: Any = None) -> Any:
    """``copy.deepcopy``; a FeedParserDict of plain values is copied as deepcopy does
    (each item set through ``__setitem__``, so through its key map), without its
    machinery."""
    if (
        type(value) is FeedParserDict
        and not value.__dict__
        and all(type(v) in _ATOMIC for v in value.values())
    ):
        out = FeedParserDict()
        for key, item in value.items():
            out[key] = item
        return out
    return _copy.deepcopy(value, memo)


# what feedparser.mixin calls ``copy``: the module itself but for deepcopy
_COPY = SimpleNamespace(**{**vars(_copy), "deepcopy": _deepcopy})

_SPECIAL_KEYS = frozenset({"category", "enclosures", "license", "updated", "updated_parsed"})
_ORIGINAL = {name: FeedParserDict.__dict__[name] for name in ("__getitem__", "get", "__contains__")}
_KEYMAP = FeedParserDict.keymap


def _getitem(self: FeedParserDict, key: Any) -> Any:
    """``FeedParserDict.__getitem__``: a key neither special nor in the key map is the
    dictionary's own (feedparser's code ends in the same lookup for it)."""
    if key in _SPECIAL_KEYS or key in _KEYMAP:
        return _ORIGINAL["__getitem__"](self, key)
    return dict.__getitem__(self, key)


def _get(self: FeedParserDict, key: Any, default: Any = None) -> Any:
    """``FeedParserDict.get``, as :func:`_getitem`."""
    if key in _SPECIAL_KEYS or key in _KEYMAP:
        return _ORIGINAL["get"](self, key, default)
    return dict.get(self, key, default)


def _contains(self: FeedParserDict, key: Any) -> bool:
    """``key in`` a FeedParserDict, as :func:`_getitem`."""
    if key in _SPECIAL_KEYS or key in _KEYMAP:
        return _ORIGINAL["__contains__"](self, key)  # type: ignore[no-any-return]
    return dict.__contains__(self, key)


class _BufferedExpatParser(ExpatParser):
    """xml.sax's expat reader with expat's text buffering on."""

    def reset(self) -> None:
        super().reset()
        self._parser.buffer_text = True


def create_parser(*args: Any, **kwargs: Any) -> ExpatParser:
    """The SAX driver's entry point: what feedparser asks xml.sax for, by module name."""
    return _BufferedExpatParser(*args, **kwargs)


_ORIGINAL_PARSERS = feedparser.api.PREFERRED_XML_PARSERS


def install() -> None:
    """Give feedparser the quicker helpers."""
    feedparser.api.PREFERRED_XML_PARSERS = [__name__]
    feedparser.mixin.copy = _COPY  # type: ignore[attr-defined]
    for name, quick in (("__getitem__", _getitem), ("get", _get), ("__contains__", _contains)):
        setattr(FeedParserDict, name, quick)


def uninstall() -> None:
    """feedparser's own helpers again (for the test that compares both)."""
    feedparser.api.PREFERRED_XML_PARSERS = _ORIGINAL_PARSERS
    feedparser.mixin.copy = _copy  # type: ignore[attr-defined]
    for name, original in _ORIGINAL.items():
        setattr(FeedParserDict, name, original)
