"""What store/feed_tuning.py changes in how feedparser works, to spend less time, leaves what
it reads the same: its SAX reader buffering text, its dates read when asked for, its URL
joins cached, its content parameters looked up as a plain dict, its cp1252 table as a tuple.
Every feed of feedparser's own test suite and every feed in tests/data reads the same with
feedparser's own ways restored."""

from __future__ import annotations

import datetime as dt
import io
import time
from pathlib import Path

import feedparser.api
import feedparser.datetimes
import feedparser.html
import feedparser.mixin
import feedparser.namespaces._base
import feedparser.urls
import feedparser.util
import pytest
from helpers import DATA, feedparser_result
from helpers import parse_test_feed as read
from topiclens.store import feed_parse, feed_tuning
from topiclens.store.feed_dates import Unreadable, read_date
from topiclens.store.feed_parse import ParsedFeed

UTC = dt.UTC
MIXIN = feedparser.mixin._FeedParserMixin


def raw(path: Path) -> object:
    """feedparser's own result for the file (entries, feed, bozo), as parse_feed calls it."""
    result = feedparser_result(path)
    if isinstance(result, str):
        return result
    error = result.get("bozo_exception")
    return result.entries, result.feed, result.get("version"), repr(error) if error else None


def feeds() -> list[Path]:
    """Every feed file of feedparser's test suite and of tests/data, in a set order."""
    paths = sorted(p for p in DATA.rglob("*") if p.is_file() and p.suffix not in (".md", ""))
    assert len(paths) > 2100
    return paths


def feedparsers_own(monkeypatch: pytest.MonkeyPatch, *which: str) -> None:
    """feedparser's own ways restored: all of them, or those named."""
    own = {
        "reader": (feedparser.api, "PREFERRED_XML_PARSERS", ["drv_libxml2"]),
        "dates": (feedparser.namespaces._base, "_parse_date", feedparser.datetimes._parse_date),
        "join": (feedparser.mixin, "_urljoin", feedparser.urls._urljoin),
        "table": (feedparser.mixin, "_cp1252", feedparser.html._cp1252),
        "init": (MIXIN, "__init__", feed_tuning._feedparser_init),
        "push": (MIXIN, "push_content", feed_tuning._feedparser_push_content),
    }
    for name, (where, attribute, value) in own.items():
        if not which or name in which:
            monkeypatch.setattr(where, attribute, value)


@pytest.mark.slow
def test_every_feed_reads_the_same_with_feedparsers_own_ways(monkeypatch: pytest.MonkeyPatch):
    paths = feeds()
    ours = [read(p) for p in paths]
    feedparsers_own(monkeypatch)
    theirs = [read(p) for p in paths]
    differ = [p.name for p, a, b in zip(paths, ours, theirs, strict=True) if a != b]
    assert differ == []
    assert sum(len(r.entries) for r in ours if isinstance(r, ParsedFeed)) > 500


@pytest.mark.slow
def test_feedparser_gives_the_same_result_with_its_own_reader_join_table_and_dicts(
    monkeypatch: pytest.MonkeyPatch,
):
    # the dates read when asked for are compared through parse_feed, above: here both ways
    # keep feedparser's own, so that its results compare whole
    paths = feeds()
    feedparsers_own(monkeypatch, "dates")
    ours = [raw(p) for p in paths]
    feedparsers_own(monkeypatch)
    theirs = [raw(p) for p in paths]
    differ = [p.name for p, a, b in zip(paths, ours, theirs, strict=True) if a != b]
    assert differ == []


def test_the_sax_reader_buffers_text():
    parser = feedparser.api.xml.sax.make_parser(feedparser.api.PREFERRED_XML_PARSERS)
    seen: list[str] = []

    class Handler(feedparser.api.xml.sax.handler.ContentHandler):
        def characters(self, content: str) -> None:
            seen.append(content)

    parser.setContentHandler(Handler())
    parser.parse(io.BytesIO(b"<a>one\ntwo &lt;p&gt; three<b/>four</a>"))
    assert seen == ["one\ntwo <p> three", "four"]  # (unbuffered: six pieces, then one)


def test_a_date_is_read_by_feedparser_when_asked_for():
    later = feedparser.namespaces._base._parse_date("Wed May  1 10:30:00 2024")
    assert isinstance(later, feed_tuning.LaterDate)
    assert later() == feedparser.datetimes._parse_date("Wed May  1 10:30:00 2024")
    assert feedparser.namespaces._base._parse_date("") is None
    text = "Wed May  1 10:30:00 2024"  # (a form only feedparser reads)
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    assert read_date(text, now=now, fallback=later) == read_date(text, now=now, fallback=later())
    assert read_date(text, now=now, fallback=later) == dt.datetime(2024, 5, 1, 10, 30, tzinfo=UTC)
    with pytest.raises(Unreadable, match="a form not known"):
        read_date("sometime soon", now=now, fallback=feed_tuning.LaterDate("sometime soon"))


def test_a_date_feedparser_cannot_read_is_not_read_at_all():
    calls: list[str] = []

    def counted() -> time.struct_time | None:
        calls.append("asked")
        return None

    assert read_date("2024-05-01T10:30:00Z", fallback=counted) is not None
    assert calls == []  # (read_date's own form: feedparser is never asked)


def test_the_cp1252_table_maps_every_character_as_feedparsers_dict():
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    assert every.translate(feedparser.mixin._cp1252) == every.translate(feedparser.html._cp1252)
    assert "\x80\x9f\x81".translate(feedparser.mixin._cp1252) == "€Ÿ\x81"


def test_content_parameters_are_looked_up_as_feedparser_does():
    values = {"type": "text/html", "language": None, "base": "http://a/", "summary": "s"}
    ours = feed_tuning.ContentParams(values)
    theirs = feedparser.util.FeedParserDict(values)
    for key in [*values, *feedparser.util.FeedParserDict.keymap, "category", "missing"]:
        assert ours.get(key, "default") == theirs.get(key, "default")
        assert (key in ours) == (key in theirs)
    assert ours["type"] == "text/html"
    with pytest.raises(KeyError):
        ours["missing"]
    copied = feed_parse._copied_params(ours)
    assert type(copied) is feedparser.util.FeedParserDict and copied == values
