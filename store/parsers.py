"""Parsers for the input formats, detected from content, never from the file name.

- digest: lines in threes, a header ``CATEGORY SOURCE [YYYY/MM/DD]``, a summary, a comment;
- listing: a title line and a summary line, with page noise ("评论", "点赞", "收藏") removed;
- JSON Lines: one object a line with ``title`` and ``summary``;
- feed: an RSS, Atom or JSON Feed document (:mod:`.feed_entries`, read from its bytes,
  whose encoding it declares).

Every parser returns what it could read plus one :class:`Problem` per thing it could not,
each naming the file and line. None of them raises on bad content.
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from .models import SOURCE_FORMATS, Entry, ParseResult, Problem
from .parse_jsonl import Item, is_object, jsonl_items, parse_jsonl
from .parse_text import (
    digest_items,
    is_header,
    listing_items,
    parse_digest,
    parse_listing,
    unstorable,
)
from .reading import (
    STDIN,
    STDIN_NAME,
    Line,
    Source,
    open_source,
    read_source,
    source_name,
    split_lines,
)

# The input formats by name: ``--format`` offers these (detection picks one otherwise).
FORMATS = SOURCE_FORMATS
_JSON_KEY = re.compile(r'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:')  # how a JSON object's line begins


# --- reading -------------------------------------------------------------------------


def read_lines(path: Path, display: str) -> tuple[list[Line], list[Problem], set[int]]:
    """The file's lines, problems that stop it from being read at all, and the numbers of
    lines that cannot be stored (entries touching them are rejected)."""
    data = read_source(path, display)
    if isinstance(data, Problem):
        return [], [data], set()
    return split_lines(data, display)


def detect_format(lines: Sequence[Line]) -> str:
    """``digest``, ``listing``, ``jsonl`` or ``empty``, from the content alone."""
    return choose_format(lines)[0]


def choose_format(lines: Sequence[Line]) -> tuple[str, str | None]:
    """The format of ``lines`` and, when another one was plausible, a note saying which
    was chosen and how to force the other."""
    body = [text for _, text in lines if text.strip()]
    if not body:
        return "empty", None
    objects = sum(1 for text in body[:30] if text.lstrip().startswith("{"))
    keyed = sum(1 for text in body[:30] if _JSON_KEY.match(text))
    # JSON Lines: half the lines look like objects and one really is (even when a stray
    # line comes first), or half begin as an object's first key does ({"title": ...),
    # which no digest or listing line does: a file of JSON Lines that all fail is read as
    # one, so each line's problem is said; a listing title that merely starts with "{"
    # is no JSON
    head = len(body[:30])
    if objects >= 0.5 * head and (keyed >= 0.5 * head or any(map(is_object, body[:30]))):
        return "jsonl", None
    sample = body[:90]
    candidates = sample[0::3]
    headers = sum(1 for text in candidates if is_header(text))
    rhythm = is_header(body[0]) and headers >= 0.6 * len(candidates)
    # a digest's summary and comment lines are not headers (the parser rejects an entry
    # whose are); when they all pass as headers too, the file is a listing of short lines
    others = [text for k, text in enumerate(sample) if k % 3 and not unstorable(text)]
    plain = sum(1 for text in others if not is_header(text))
    if rhythm and plain >= 0.5 * len(others):
        return "digest", None
    if _digest_share(lines) >= 0.8:
        # a digest with a stray or missing line: the every-third-line rhythm is broken
        # after it, but read as a digest it still accounts for nearly every line (a
        # listing, whose summaries are sentences, for 75% at the very most)
        return "digest", None
    if rhythm:
        return "listing", (
            "read as a listing (a title line, then a summary line): its lines would also "
            "pass as digest headers; use --format digest if it is a digest"
        )
    return "listing", None


def _digest_share(lines: Sequence[Line], sample: int = 300) -> float:
    """The share of the first ``sample`` non-blank lines that, read as a digest, make
    entries."""
    body = [line for line in lines if line[1].strip()][:sample]
    head = list(lines[: body[-1][0]])  # whole lines up to the last sampled: numbers hold
    bad = {number for number, text in head if unstorable(text)}
    return 3 * len(parse_digest(head, "", "", bad).entries) / len(body)


Parser = Callable[[list[Line], str, str, set[int]], ParseResult]
PARSERS: dict[str, Parser] = {
    "digest": parse_digest,
    "listing": parse_listing,
    "jsonl": parse_jsonl,
}
# the same, a line at a time: what a file of any size is read with
ItemParser = Callable[[Iterable[Line], str, str, set[int]], Iterator[Item]]
ITEM_PARSERS: dict[str, ItemParser] = {
    "digest": digest_items,
    "listing": listing_items,
    "jsonl": jsonl_items,
}


def parse_lines(
    lines: list[Line], display: str, origin: str, bad: set[int], fmt: str | None = None
) -> ParseResult:
    """Parse ``lines`` as ``fmt`` (one of :data:`FORMATS`), or as the detected format."""
    note = None
    if fmt is None:
        fmt, note = choose_format(lines)
        if fmt == "empty":
            problem = Problem(display, 0, "empty file: no entries")
            return ParseResult(display, fmt, problems=[problem])
    elif fmt not in PARSERS:
        raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    result = PARSERS[fmt](lines, display, origin, bad)
    if note:
        result.notes.append(Problem(display, 0, note))
    return result


FEED_SNIFF_BYTES = 65536  # enough of a file's head to tell a feed, past a long DOCTYPE
_XML_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*<(?:\?xml|!DOCTYPE)", re.IGNORECASE)


def _is_feed(data: bytes) -> bool:
    """A feed, or an XML document at least (read as a feed, it says what it is): never
    a listing of lines of markup."""
    from .feed_parse import looks_like_feed

    return looks_like_feed(data[:FEED_SNIFF_BYTES]) or _XML_START.match(data) is not None


# entries parsed and committed at a time: memory stays flat (about 360 MB at this size),
# and 1,000,000 entries import faster than in one transaction (docs/performance.md)
BATCH_ENTRIES = 50_000
DETECT_LINES = 300  # the non-blank lines :func:`choose_format` reads at most


def parse_source(
    source: Source, display: str, origin: str, fmt: str | None = None, batch: int | None = None
) -> Iterator[ParseResult]:
    """Parse an opened input, ``batch`` entries at a time (each result holds the problems
    found since the last). A feed is a document, read whole; a file of lines is read a
    line at a time, each line up to the import limit, so memory does not grow with the
    file. What makes an input unreadable as a whole (UTF-16, GBK, binary) is told from
    its head. Never raises on bad content. ``batch``: :data:`BATCH_ENTRIES` by default."""
    batch = BATCH_ENTRIES if batch is None else batch
    if fmt == "feed" or (fmt is None and _is_feed(source.head)):
        import time

        from .feed_entries import parse_feed_file

        data = source.whole()
        if isinstance(data, Problem):
            yield ParseResult(display, "unreadable", problems=[data])
        else:
            yield parse_feed_file(data, display, origin, time.time())
        return
    if fmt is not None and fmt not in ITEM_PARSERS:
        raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    head = source.head
    if not source.complete:  # whole lines only (all of it when it holds no line end)
        head = head[: head.rfind(b"\n") + 1] or head
    problems = split_lines(head, display, whole=source.complete)[1]
    if problems:
        yield ParseResult(display, "unreadable", problems=problems)
        return
    bad: set[int] = set()

    def marked(lines: Iterable[Line]) -> Iterator[Line]:
        for number, text in lines:
            if unstorable(text):
                bad.add(number)  # before the parser sees the line
            yield number, text

    stream = marked(source.lines())
    note = None
    if fmt is None:
        first: list[Line] = []
        body = 0
        for line in stream:
            first.append(line)
            body += bool(line[1].strip())
            if body >= DETECT_LINES:
                break
        fmt, note = choose_format(first)
        if fmt == "empty":
            empty = Problem(display, 0, "empty file: no entries")
            yield ParseResult(display, fmt, problems=[empty])
            return
        stream = itertools.chain(first, stream)
    result = ParseResult(display, fmt)
    if note:
        result.notes.append(Problem(display, 0, note))
    for item in ITEM_PARSERS[fmt](stream, display, origin, bad):
        if isinstance(item, Entry):
            result.entries.append(item)
            if len(result.entries) >= batch:
                yield result
                result = ParseResult(display, fmt)
        else:
            result.problems.append(item)
    yield result


def merged(results: Iterable[ParseResult]) -> ParseResult:
    """One result holding every batch of ``results`` (at least one)."""
    parts = iter(results)
    whole = next(parts)
    for part in parts:
        whole.entries.extend(part.entries)
        whole.problems.extend(part.problems)
        whole.notes.extend(part.notes)
        whole.contents.update(part.contents)
    return whole


def parse_bytes(data: bytes, display: str, origin: str, fmt: str | None = None) -> ParseResult:
    """Parse an input already read whole. Never raises on bad content."""
    return merged(parse_source(Source(io.BytesIO(data), display), display, origin, fmt))


def parse_file(
    path: str | Path,
    display: str | None = None,
    origin: str | None = None,
    fmt: str | None = None,
) -> ParseResult:
    """Parse one file of any supported format, read once. Never raises on bad content."""
    if display is None:
        display = STDIN_NAME if str(path) == STDIN else str(path)
    if origin is None:
        origin = source_name(path, display)
    with open_source(path, display) as source:
        if isinstance(source, Problem):
            return ParseResult(display, "unreadable", problems=[source])
        return merged(parse_source(source, display, origin, fmt))
