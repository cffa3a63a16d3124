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

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from topiclens.text import cell_width

from .models import SOURCE_FORMATS, Entry, ParseResult, Problem
from .parse_jsonl import is_object, parse_jsonl
from .reading import BOM as BOM  # (the byte-order mark, here since the first version)
from .reading import (
    STDIN,
    STDIN_NAME,
    Line,
    line_problem,
    read_source,
    source_name,
    split_lines,
)
from .text import (
    derive_title,
    detect_language,
    entry_id,
    has_surrogates,
    parse_date,
    preview,
)

# The input formats by name: ``--format`` offers these (detection picks one otherwise).
FORMATS = SOURCE_FORMATS
NOISE_WORDS = ("评论", "点赞", "收藏")
_NOISE_PREFIX = re.compile(rf"^(?:{'|'.join(NOISE_WORDS)})+\s*")
_DATEISH = re.compile(r"^\d{2,4}[/-]\d{1,2}(?:[/-]\d{1,4})?$")
_SENTENCE_PUNCT = re.compile(r"[，。；！？、：]")
_JSON_KEY = re.compile(r'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:')  # how a JSON object's line begins
HEADER_MAX_CELLS = 100
# derive_title reads at most the first three clauses and keeps at most TITLE_MAX_CHARS: the
# first 2,000 characters give the same title, and a megabyte-long summary is not read whole
TITLE_FROM_CHARS = 2000


def parse_header(text: str) -> tuple[str, str, str | None] | str:
    """A digest header as (category, source, date), or a string saying why it is not one."""
    line = text.strip()
    if not line:
        return "empty line"
    if has_surrogates(line):
        return "not valid UTF-8"
    if "\x00" in line:
        return "binary data (NUL byte)"
    # (the length test first: it spares measuring a megabyte-long line cell by cell)
    too_long = len(line) > 4 * HEADER_MAX_CELLS or cell_width(line) > HEADER_MAX_CELLS
    if too_long or _SENTENCE_PUNCT.search(line):
        return "a paragraph, not a header"
    tokens = line.split()
    date: str | None = None
    if _DATEISH.match(tokens[-1]):
        date = parse_date(tokens[-1])
        if date is None:
            return f"invalid date {tokens[-1]!r} (expected YYYY/MM/DD)"
        tokens = tokens[:-1]
    if len(tokens) < 2:
        return "a header needs a category and a source"
    return tokens[0], " ".join(tokens[1:]), date


def _unstorable(text: str) -> bool:
    return "\x00" in text or has_surrogates(text)


def _is_header(text: str) -> bool:
    return not isinstance(parse_header(text), str)


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
    headers = sum(1 for text in candidates if _is_header(text))
    rhythm = _is_header(body[0]) and headers >= 0.6 * len(candidates)
    # a digest's summary and comment lines are not headers (the parser rejects an entry
    # whose are); when they all pass as headers too, the file is a listing of short lines
    others = [text for k, text in enumerate(sample) if k % 3 and not _unstorable(text)]
    plain = sum(1 for text in others if not _is_header(text))
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
    bad = {number for number, text in head if _unstorable(text)}
    return 3 * len(_parse_digest(head, "", "", bad).entries) / len(body)


# --- digest --------------------------------------------------------------------------


def _parse_digest(lines: list[Line], display: str, origin: str, bad: set[int]) -> ParseResult:
    result = ParseResult(display, "digest")
    items = [(n, t) for n, t in lines if t.strip()]
    i = 0
    while i < len(items):
        number, text = items[i]
        header = parse_header(text)
        if isinstance(header, str):
            result.problems.append(
                line_problem(display, number, text)
                if number in bad
                else Problem(
                    display,
                    number,
                    f"expected a header 'CATEGORY SOURCE [YYYY/MM/DD]' but found "
                    f"{preview(text)!r} ({header}); entry skipped",
                )
            )
            i += 1
            while i < len(items) and not _is_header(items[i][1]):
                i += 1
            continue
        body = items[i + 1 : i + 3]
        # a header among the next two lines first: at the end of a file, "header, header"
        # is two incomplete entries, not one header whose summary is a header
        offset = next((k for k, b in enumerate(body) if _is_header(b[1])), None)
        if offset is not None:
            misplaced = body[offset]
            result.problems.append(
                Problem(
                    display,
                    misplaced[0],
                    "expected a summary or comment but found a header line; "
                    f"the entry at line {number} is incomplete and was skipped",
                )
            )
            i += 1 + offset
            continue
        if len(body) < 2:
            missing = "summary and comment" if not body else "curator's comment"
            touched = [n for n, t in body if n in bad]
            result.problems.append(
                line_problem(display, touched[0], lines[touched[0] - 1][1])
                if touched
                else Problem(display, number, f"truncated entry: header without its {missing}")
            )
            break
        touched = [n for n in (number, body[0][0], body[1][0]) if n in bad]
        if touched:
            result.problems.append(line_problem(display, touched[0], lines[touched[0] - 1][1]))
            i += 3
            continue
        category, source, date = header
        summary, comment = body[0][1].strip(), body[1][1].strip()
        result.entries.append(
            Entry(
                id=entry_id("", summary, comment),
                title=derive_title(summary[:TITLE_FROM_CHARS]),
                summary=summary,
                comment=comment,
                source=source,
                category=category,
                date=date,
                lang=detect_language(summary + comment),
                format="digest",
                origin_file=origin,
                origin_line=number,
                title_given=False,
            )
        )
        i += 3
    return result


# --- listing -------------------------------------------------------------------------


def _parse_listing(lines: list[Line], display: str, origin: str, bad: set[int]) -> ParseResult:
    result = ParseResult(display, "listing")
    cleaned: list[Line] = []
    after_noise = False
    for number, text in lines:
        stripped = text.strip()
        if not stripped:
            continue
        if stripped in NOISE_WORDS:
            after_noise = True
            continue
        if after_noise:
            # page noise glued to the next title: "收藏拆分式 LLM 推理服务" is a title
            stripped = _NOISE_PREFIX.sub("", stripped) or stripped
        after_noise = False
        cleaned.append((number, stripped))
    for k in range(0, len(cleaned), 2):
        (t_line, title), pair = cleaned[k], cleaned[k + 1 : k + 2]
        if not pair:
            result.problems.append(
                line_problem(display, t_line, lines[t_line - 1][1])
                if t_line in bad
                else Problem(
                    display, t_line, f"truncated entry: title {preview(title)!r} has no summary"
                )
            )
            break
        s_line, summary = pair[0]
        touched = [n for n in (t_line, s_line) if n in bad]
        if touched:
            result.problems.append(line_problem(display, touched[0], lines[touched[0] - 1][1]))
            continue
        result.entries.append(
            Entry(
                id=entry_id(title, summary),
                title=title,
                summary=summary,
                lang=detect_language(title + " " + summary),
                format="listing",
                origin_file=origin,
                origin_line=t_line,
            )
        )
    return result


Parser = Callable[[list[Line], str, str, set[int]], ParseResult]
PARSERS: dict[str, Parser] = {
    "digest": _parse_digest,
    "listing": _parse_listing,
    "jsonl": parse_jsonl,
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


def parse_bytes(data: bytes, display: str, origin: str, fmt: str | None = None) -> ParseResult:
    """Parse an input already read whole. Never raises on bad content."""
    if fmt == "feed" or (fmt is None and _is_feed(data)):
        import time

        from .feed_entries import parse_feed_file

        return parse_feed_file(data, display, origin, time.time())
    lines, problems, bad = split_lines(data, display)
    if problems:
        return ParseResult(display, "unreadable", problems=problems)
    return parse_lines(lines, display, origin, bad, fmt)


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
    data = read_source(path, display)
    if isinstance(data, Problem):
        return ParseResult(display, "unreadable", problems=[data])
    return parse_bytes(data, display, origin, fmt)
