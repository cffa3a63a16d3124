"""feedparser with the cached URL join and the shallow copy of content parameters that
store/feed_parse.py gives it reads every feed as feedparser alone does: the same entries,
problems and errors on feedparser's own test suite and on every feed in tests/data."""

from __future__ import annotations

import copy
from pathlib import Path

import feedparser.mixin
import feedparser.urls
import feedparser.util
import pytest
from helpers import DATA, feedparser_result
from helpers import parse_test_feed as read
from topiclens.store import feed_parse
from topiclens.store.feed_parse import ParsedFeed


def test_feedparser_is_given_the_cached_join():
    assert feedparser.mixin.make_safe_absolute_uri is feed_parse._absolute_uri
    base = "http://example.org/blog/"
    assert feed_parse._absolute_uri(base, base) == feedparser.urls.make_safe_absolute_uri(
        base, base
    )
    assert feed_parse._absolute_uri(base, "javascript:alert(1)") == ""
    long = base + "x" * 3000  # not kept, but joined all the same
    assert feed_parse._absolute_uri(long, "../a") == feedparser.urls.make_safe_absolute_uri(
        long, "../a"
    )


def _suite_feeds() -> list[Path]:
    """Every feed file of feedparser's own test suite, in a set order."""
    paths = sorted(
        p for p in DATA.glob("feed*/**/*") if p.is_file() and p.suffix not in (".md", "")
    )
    assert len(paths) > 2000
    return paths


@pytest.mark.slow
def test_every_test_feed_reads_the_same_with_feedparsers_own_join(
    monkeypatch: pytest.MonkeyPatch,
):
    paths = _suite_feeds()
    cached = [read(p) for p in paths]
    monkeypatch.setattr(
        feedparser.mixin, "make_safe_absolute_uri", feedparser.urls.make_safe_absolute_uri
    )
    plain = [read(p) for p in paths]
    differ = [p.name for p, a, b in zip(paths, cached, plain, strict=True) if a != b]
    assert differ == []
    assert sum(len(r.entries) for r in cached if isinstance(r, ParsedFeed)) > 500


def test_content_parameters_are_copied_whole_and_apart():
    assert feedparser.mixin.copy.deepcopy is feed_parse._copied_params
    params = feedparser.util.FeedParserDict(type="text/html", language=None, base="http://a/")
    copied = feed_parse._copied_params(params)
    assert copied == params and copied is not params
    assert type(copied) is type(params)
    nested = feedparser.util.FeedParserDict(type="text/html", extra=["a list"])
    deep = feed_parse._copied_params(nested)
    assert deep == nested and deep["extra"] is not nested["extra"]  # deep where not all immutable


def _raw(path: Path) -> tuple[object, object] | str:
    """feedparser's own result for the file (its entries and feed), as parse_feed calls it."""
    result = feedparser_result(path)
    return result if isinstance(result, str) else (result.entries, result.feed)


@pytest.mark.slow
def test_every_test_feed_reads_the_same_with_feedparsers_own_deep_copy(
    monkeypatch: pytest.MonkeyPatch,
):
    paths = _suite_feeds()
    shallow = [(_raw(p), read(p)) for p in paths]
    monkeypatch.setattr(feedparser.mixin, "copy", copy)
    deep = [(_raw(p), read(p)) for p in paths]
    differ = [p.name for p, a, b in zip(paths, shallow, deep, strict=True) if a != b]
    assert differ == []
    assert sum(len(r[0][0]) for r in shallow if isinstance(r[0], tuple)) > 500
