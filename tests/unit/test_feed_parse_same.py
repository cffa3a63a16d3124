"""feedparser with what store/feed_parse.py gives it (the cached URL join, and the quicker
copies and lookups of store/feed_speedups.py) reads every feed as feedparser alone does: the
same entries, problems and errors on feedparser's own test suite and on every feed in
tests/data."""

from __future__ import annotations

import copy
import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

import feedparser.api
import feedparser.mixin
import feedparser.urls
import pytest
from feedparser.util import FeedParserDict
from helpers import DATA
from topiclens.store import feed_parse, feed_speedups
from topiclens.store.feed_parse import NotAFeed, ParsedFeed, parse_feed

HEADER = re.compile(rb"^Header:\s*([A-Za-z-]+):\s*(.*?)\s*$", re.MULTILINE)
NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def read(path: Path) -> ParsedFeed | str:
    """The file as parse_feed reads it (with the headers its leading comment names, as
    feedparser's harness sends them), or the NotAFeed it raises."""
    data = path.read_bytes()
    headers = {k.decode().lower(): v.decode("latin-1") for k, v in HEADER.findall(data[:4096])}
    url = headers.pop("content-location", "http://127.0.0.1:9/feeds/" + path.name)
    try:
        return parse_feed(data, url=url, path=path.name, headers=headers, now=NOW)
    except NotAFeed as exc:
        return f"NotAFeed: {exc}"


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


@pytest.fixture
def feedparser_alone() -> Iterator[None]:
    """feedparser's own helpers while the test runs, ours again after it."""
    feed_speedups.uninstall()
    try:
        yield
    finally:
        feed_speedups.install()


def test_feedparser_is_given_the_buffered_expat_reader():
    import xml.sax

    parser = xml.sax.make_parser(feedparser.api.PREFERRED_XML_PARSERS)
    assert isinstance(parser, feed_speedups._BufferedExpatParser)
    parser.reset()
    assert parser._parser.buffer_text


def test_the_quicker_copy_is_deepcopy(feedparser_alone: None):
    plain = FeedParserDict(type="text/html", language=None, base="http://a/", base64=False)
    mapped = FeedParserDict()
    dict.__setitem__(mapped, "description", "kept under its own name by dict, mapped by copy")
    holds_a_list = FeedParserDict(value=["a"], type="text/plain")
    for value in (plain, mapped, holds_a_list, FeedParserDict()):
        expected = copy.deepcopy(value)
        got = feed_speedups._deepcopy(value)
        assert got == expected and type(got) is type(expected)
        assert list(dict.items(got)) == list(dict.items(expected))
        assert got is not value
    nested = feed_speedups._deepcopy(holds_a_list)
    assert nested["value"] is not holds_a_list["value"]  # (not plain: deepcopy's own copy)


def test_the_quicker_lookups_answer_as_feedparsers(feedparser_alone: None):
    d = FeedParserDict(
        title="t",
        summary="s",
        published="p",
        published_parsed="pp",
        links=[{"rel": "enclosure", "href": "e"}, {"rel": "license", "href": "l"}],
        tags=[{"term": "c"}],
    )
    keys = ["title", "summary", "description", "guid", "id", "updated", "updated_parsed",
            "date", "category", "enclosures", "license", "missing", "channel", 3, None]  # fmt: skip
    expected = {}
    for key in keys:
        try:
            expected[key] = ("item", d[key])
        except KeyError:
            expected[key] = ("missing", None)
    gets = {key: d.get(key, "default") for key in keys}
    contains = {key: key in d for key in keys}
    feed_speedups.install()
    for key in keys:
        try:
            got = ("item", d[key])
        except KeyError:
            got = ("missing", None)
        assert got == expected[key], key
        assert d.get(key, "default") == gets[key], key
        assert (key in d) == contains[key], key


@pytest.mark.slow
def test_every_test_feed_reads_the_same_with_feedparsers_own_helpers(
    monkeypatch: pytest.MonkeyPatch,
):
    paths = sorted(
        p for p in DATA.glob("feed*/**/*") if p.is_file() and p.suffix not in (".md", "")
    )
    assert len(paths) > 2000
    cached = [read(p) for p in paths]
    monkeypatch.setattr(
        feedparser.mixin, "make_safe_absolute_uri", feedparser.urls.make_safe_absolute_uri
    )
    feed_speedups.uninstall()
    try:
        plain = [read(p) for p in paths]
    finally:
        feed_speedups.install()
    differ = [p.name for p, a, b in zip(paths, cached, plain, strict=True) if a != b]
    assert differ == []
    assert sum(len(r.entries) for r in cached if isinstance(r, ParsedFeed)) > 500
