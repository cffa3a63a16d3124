"""What a parse worker of a refresh makes of a feed (:func:`parse_fetched`: the store's
entries, their contents as stored, the tokens and bigram features) is the same with its
fast paths as with the plain ways they stand for: every feed of feedparser's test suite
and of tests/data, and feeds shaped as the feeds bench writes them, read both ways.

The fast paths: the text renderer passing over white space alone between blocks, a plain
``http(s)://`` link's scheme read without urlsplit, an absolute link of the plainest form
taken as it is where feedparser and :func:`http_url` would join it with its base (the
join gives it back unchanged), the tokenizer trying only the branch of the surface
pattern for the character found where a concept's form can start, patterns that open with
a class of characters where they opened with a repeat or a look-ahead (the regex engine
skips to a first character), and the boilerplate pattern passed over for a text holding
none of its first characters.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import feedparser.mixin
import feedparser.urls
import pytest
from helpers import DATA, FEED_HEADER, ROOT
from hypothesis import example, given, settings
from hypothesis import strategies as st
from topiclens.clustering import tokenize
from topiclens.clustering.tokenize import HAN, Tokenizer, default_tokenizer, surface_pattern
from topiclens.feeds.fetch import Fetched, Validators
from topiclens.feeds.refresh import parse_fetched
from topiclens.store import feed_entries, feed_tuning, html_render, html_text, parsed_feed
from topiclens.store import text as store_text
from topiclens.store.html_render import _SPACE, joins_unchanged, split_scheme, url_scheme
from topiclens.store.models import Feed

NOW = 1764547200.0


def worker_result(path: Path, url: str | None = None) -> Any:
    """What the parse worker makes of the file, served with the headers its leading
    comment names (as feedparser's harness sends them)."""
    data = path.read_bytes()
    headers = {k.decode().lower(): v.decode("latin-1") for k, v in FEED_HEADER.findall(data[:4096])}
    url = url or headers.pop("content-location", "http://127.0.0.1:9/feeds/" + path.name)
    headers.setdefault("content-type", "application/xml")
    fetched = Fetched(url, url, None, 200, data, headers, Validators(None, None), None, None)
    parsed = parse_fetched(Feed(1, url), fetched, NOW)
    return parsed.check, parsed.tokens, parsed.bigrams, parsed.tokenizer


def _plain_write(self: Any, text: str) -> None:
    """The renderer's running text, white space collapsed by the substitution alone."""
    text = _SPACE.sub(" ", text)
    if text[0] == " ":
        self.space = True
    trailing = text[-1] == " "
    text = text.strip(" ")
    if not text:
        return
    if self.pending:
        self.flush_break()
    if self.at_line_start:
        self.open_line()
    if self.space:
        self.parts.append(" ")
    self.parts.append(text)
    self.space = trailing


def _plain_scheme(url: str) -> str:
    return split_scheme(url.strip())


@functools.cache
def _surface_pattern_of(tokenizer: Tokenizer) -> re.Pattern[str]:
    return surface_pattern(tokenizer.vocab.surfaces)


def _plain_spans(self: Tokenizer, folded: str) -> Iterator[tuple[int, int]]:
    return (m.span() for m in _surface_pattern_of(self).finditer(folded))


def plain_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fast path above replaced by the plain way it stands for."""
    monkeypatch.setattr(html_render._Renderer, "write", _plain_write)
    monkeypatch.setattr(html_render, "url_scheme", _plain_scheme)
    monkeypatch.setattr(html_text, "url_scheme", _plain_scheme)
    monkeypatch.setattr(Tokenizer, "concept_spans", _plain_spans)
    monkeypatch.setattr(feedparser.mixin, "_urljoin", feed_tuning._cached_urljoin)
    monkeypatch.setattr(parsed_feed, "joins_unchanged", lambda base, url: False)
    monkeypatch.setattr(tokenize, "_HAN_RUN", re.compile(rf"[{HAN}]{{2,}}"))
    plain_pieces = rf"[{HAN}]+|(?<![a-z0-9])[a-z][a-z0-9]*(?:[-_.+][a-z0-9]+)*"
    monkeypatch.setattr(tokenize, "_PIECE_TEXTS", re.compile(plain_pieces))
    monkeypatch.setattr(default_tokenizer().vocab, "boilerplate_starts", None)
    monkeypatch.setattr(
        feed_entries, "without_link_marks", lambda text: re.sub(r" ?\[\d+\]", "", text)
    )
    monkeypatch.setattr(store_text, "_CJK_RUN", f"[{HAN}]+")


def bench_feeds(folder: Path, count: int, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """``count`` feeds of 50 entries as bench/bench_feeds.py writes them."""
    spec = importlib.util.spec_from_file_location("bench_feeds", ROOT / "bench" / "bench_feeds.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_feeds", module)  # (its dataclasses look it up)
    spec.loader.exec_module(module)
    names = module.write_feeds(folder, count, 50)
    return [folder / name for name in names]


def test_bench_shaped_feeds_give_the_same_entries_and_tokens_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # (RSS with content:encoded, Atom, Chinese among them)
    paths = bench_feeds(tmp_path, 6, monkeypatch)
    ours = [worker_result(p, "http://127.0.0.1:9/" + p.name) for p in paths]
    plain_ways(monkeypatch)
    theirs = [worker_result(p, "http://127.0.0.1:9/" + p.name) for p in paths]
    assert ours == theirs
    assert sum(len(check.items) for check, *_ in ours) == 300
    assert all(tokens for _, tokens, _, _ in ours)
    assert any(re.search("[\u4e00-\u9fff]", it.entry.title) for c, *_ in ours for it in c.items)


@pytest.mark.slow
def test_every_test_feed_gives_the_same_entries_and_tokens_both_ways(
    monkeypatch: pytest.MonkeyPatch,
):
    paths = sorted(p for p in DATA.rglob("*") if p.is_file() and p.suffix not in (".md", ""))
    assert len(paths) > 2100
    ours = [worker_result(p) for p in paths]
    plain_ways(monkeypatch)
    theirs = [worker_result(p) for p in paths]
    differ = [p.name for p, a, b in zip(paths, ours, theirs, strict=True) if a != b]
    assert differ == []
    assert sum(len(check.items) for check, *_ in ours) > 500


_URL_PIECES = st.sampled_from(
    ["http", "https", "HTTP", "://", ":", "//", "/", "[", "]", "::1", "é", "ｅ", "\t", "\n",
     " ", "\x00", "\x1f", "a", "example.org", "?q=1", "#x", "@", "%2f", "javascript:", "mailto:"]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(_URL_PIECES, max_size=8).map("".join))
def test_a_links_scheme_is_read_as_urlsplit_reads_it(url: str):
    assert url_scheme(url) == _plain_scheme(url)


def test_a_links_scheme_where_the_fast_path_must_not_answer():
    for url in ["https://[::1", "https://a]", "http://ex\u00e4mple.org", " HTTPS://a", "http:/a"]:
        assert url_scheme(url) == _plain_scheme(url), url
    assert url_scheme("https://[::1") == ""  # (urlsplit refuses a broken IPv6 host)
    assert url_scheme("  https://example.org/a b") == "https"


_LINK_PIECES = st.sampled_from(
    ["https://", "http://", "HTTP://", "example.org", "a-b.c", ":8080", ":", "/", "//", "/a",
     "/..", "/./", "?", "?q=1&r=2", "#", "#x", ";p", "%2f", "[", "]", "é", " ", "\t", "\n",
     "@", "..", "~", "mailto:", "javascript:", ""]
)  # fmt: skip
_BASES = ["", "http://example.org/blog/", "https://a.b/c?d#e", "file:///tmp/f.xml", "http://[::1/"]


@settings(max_examples=1000, deadline=None)
@example("https://example.org/a?", "http://example.org/blog/")
@example("https://example.org/a#x", "http://[::1/")
@given(st.lists(_LINK_PIECES, max_size=8).map("".join), st.sampled_from(_BASES))
def test_a_link_taken_as_it_is_is_what_the_joins_give(url: str, base: str):
    if joins_unchanged(base, url):
        assert feedparser.urls._urljoin(base, url) == url
        assert parsed_feed.http_url(url, base or None) == url
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(parsed_feed, "joins_unchanged", lambda base, url: False)
            assert parsed_feed.http_url(url, base or None) == url


def test_links_the_joins_would_change_are_joined():
    base = "http://example.org/blog/"
    assert joins_unchanged(base, "https://example.org/posts/1#details")
    changed = ["https://example.org/a?", "https://example.org/a#", "https://x/a/../b;p",
               "HTTPS://example.org/", "https://exämple.org/", "/a", "https:///a"]  # fmt: skip
    for url in changed:
        assert not joins_unchanged(base, url), url
    assert not joins_unchanged("http://[::1/", "https://example.org/")  # (the join fails)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([" ", "  ", "[", "]", "1", "23", "a", "\n", "[]"]), max_size=12))
def test_link_references_are_removed_as_the_plain_pattern_removes_them(pieces: list[str]):
    text = "".join(pieces)
    assert feed_entries.without_link_marks(text) == re.sub(r" ?\[\d+\]", "", text)
