"""Parsers for the three input formats, detected from content, never from the file name.

- digest: lines in threes, a header ``CATEGORY SOURCE [YYYY/MM/DD]``, a summary, a comment;
- listing: a title line and a summary line, with page noise ("评论", "点赞", "收藏") removed;
- JSON Lines: one object a line with ``title`` and ``summary``.

Every parser returns what it could read plus one :class:`Problem` per thing it could not,
each naming the file and line. None of them raises on bad content.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from .models import Entry, ParseResult, Problem
from .text import cell_width, derive_title, detect_language, entry_id, fit_cells

Line = tuple[int, str]  # (1-based line number, text without line end)

BOM = b"\xef\xbb\xbf"
NOISE_WORDS = ("评论", "点赞", "收藏")
_NOISE_PREFIX = re.compile(rf"^(?:{'|'.join(NOISE_WORDS)})+\s*")
_DATE = re.compile(r"^(\d{4})[/-](\d{1,2})[/-](\d{1,2})$")
_DATEISH = re.compile(r"^\d{2,4}[/-]\d{1,2}(?:[/-]\d{1,4})?$")
_SENTENCE_PUNCT = re.compile(r"[，。；！？、：]")
HEADER_MAX_CELLS = 100
# derive_title reads at most the first three clauses and keeps 56 cells: the first 2,000
# characters give the same title, and a megabyte-long summary is not measured whole
TITLE_FROM_CHARS = 2000
JSONL_KNOWN = ("title", "summary", "comment", "source", "date", "category", "url", "id")


def _preview(text: str, width: int = 40) -> str:
    return fit_cells(text.strip()[: 4 * width], width)  # a huge line is not measured whole


def parse_date(text: str) -> str | None:
    """``YYYY/MM/DD`` or ``YYYY-MM-DD`` as ISO ``YYYY-MM-DD``; None if not a real date."""
    match = _DATE.match(text.strip())
    if not match:
        return None
    try:
        return _dt.date(*(int(g) for g in match.groups())).isoformat()
    except ValueError:
        return None


def parse_header(text: str) -> tuple[str, str, str | None] | str:
    """A digest header as (category, source, date), or a string saying why it is not one."""
    line = text.strip()
    if not line:
        return "empty line"
    if _has_surrogates(line):
        return "not valid UTF-8"
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


_SURROGATE = re.compile("[\udc80-\udcff]")  # bytes that were not UTF-8 (surrogateescape)


def _has_surrogates(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def _is_header(text: str) -> bool:
    return not isinstance(parse_header(text), str)


# --- reading -------------------------------------------------------------------------


def read_lines(path: Path, display: str) -> tuple[list[Line], list[Problem], set[int]]:
    """The file's lines, problems that stop it from being read at all, and the numbers of
    lines that are not valid UTF-8 (entries touching them are rejected)."""
    if not path.exists():
        return [], [Problem(display, 0, "no such file")], set()
    if path.is_dir():
        return [], [Problem(display, 0, "is a directory; name the files inside it")], set()
    try:
        data = path.read_bytes()
    except OSError as exc:
        return [], [Problem(display, 0, f"cannot read: {exc.strerror or exc}")], set()
    if data.startswith(BOM):
        data = data[len(BOM) :]
    if not data.strip():
        return [], [Problem(display, 0, "empty file: no entries")], set()
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        return [], [Problem(display, line, "binary data (NUL byte): not a text file")], set()
    text = data.decode("utf-8", errors="surrogateescape")
    lines: list[Line] = []
    bad: set[int] = set()
    for number, raw in enumerate(text.split("\n"), start=1):
        raw = raw.rstrip("\r")
        if _has_surrogates(raw):
            bad.add(number)
        lines.append((number, raw))
    return lines, [], bad


def _encoding_problem(display: str, line: int, raw: str) -> Problem:
    blob = raw.encode("utf-8", errors="surrogateescape")
    hint = ""
    try:
        blob.decode("gb18030")
        hint = "; it reads as GBK/GB18030: convert with `iconv -f GB18030 -t UTF-8`"
    except UnicodeDecodeError:
        pass
    return Problem(display, line, f"not valid UTF-8{hint}")


def detect_format(lines: Sequence[Line]) -> str:
    body = [text for _, text in lines if text.strip()]
    if not body:
        return "empty"
    objects = sum(1 for text in body[:30] if text.lstrip().startswith("{"))
    if body[0].lstrip().startswith("{") or objects >= 0.5 * len(body[:30]):
        return "jsonl"  # (even when a stray line comes first)
    candidates = body[0:90:3]
    headers = sum(1 for text in candidates if _is_header(text))
    if _is_header(body[0]) and headers >= 0.6 * len(candidates):
        return "digest"
    if _digest_share(lines) >= 0.8:
        # a digest with a stray or missing line: the every-third-line rhythm is broken
        # after it, but read as a digest it still accounts for nearly every line (a
        # listing, whose summaries are sentences, for 75% at the very most)
        return "digest"
    return "listing"


def _digest_share(lines: Sequence[Line], sample: int = 300) -> float:
    """The share of the first ``sample`` non-blank lines that, read as a digest, make
    entries."""
    body = [line for line in lines if line[1].strip()][:sample]
    head = list(lines[: body[-1][0]])  # whole lines up to the last sampled: numbers hold
    bad = {number for number, text in head if _has_surrogates(text)}
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
                _encoding_problem(display, number, text)
                if number in bad
                else Problem(
                    display,
                    number,
                    f"expected a header 'CATEGORY SOURCE [YYYY/MM/DD]' but found "
                    f"{_preview(text)!r} ({header}); entry skipped",
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
            result.problems.append(
                Problem(display, number, f"truncated entry: header without its {missing}")
            )
            break
        touched = [n for n in (number, body[0][0], body[1][0]) if n in bad]
        if touched:
            result.problems.append(_encoding_problem(display, touched[0], lines[touched[0] - 1][1]))
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
                Problem(
                    display, t_line, f"truncated entry: title {_preview(title)!r} has no summary"
                )
            )
            break
        s_line, summary = pair[0]
        touched = [n for n in (t_line, s_line) if n in bad]
        if touched:
            result.problems.append(_encoding_problem(display, touched[0], lines[touched[0] - 1][1]))
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


# --- JSON Lines ----------------------------------------------------------------------


def _text_field(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    if value is None:
        return ""
    return value.strip() if isinstance(value, str) else str(value)


def entry_from_object(
    obj: dict[str, Any], origin: str, line: int, fmt: str = "jsonl"
) -> Entry | str:
    """An entry from one JSON object, or a string saying what is wrong with it."""
    title, summary = _text_field(obj, "title"), _text_field(obj, "summary")
    missing = [key for key, value in (("title", title), ("summary", summary)) if not value]
    if missing:
        return f"missing {' and '.join(repr(m) for m in missing)}"
    date: str | None = None
    raw_date = _text_field(obj, "date")
    if raw_date:
        date = parse_date(raw_date[:10])
        if date is None:
            return f"invalid date {raw_date!r} (expected YYYY-MM-DD or YYYY/MM/DD)"
    comment = _text_field(obj, "comment")
    extra = {k: v for k, v in obj.items() if k not in JSONL_KNOWN}
    if obj.get("id") is not None:
        extra["id"] = obj["id"]
    return Entry(
        id=entry_id(title, summary, comment),
        title=title,
        summary=summary,
        comment=comment,
        source=_text_field(obj, "source"),
        category=_text_field(obj, "category"),
        date=date,
        url=_text_field(obj, "url") or None,
        lang=detect_language(f"{title} {summary} {comment}"),
        format=fmt,
        origin_file=origin,
        origin_line=line,
        extra=extra,
    )


def _parse_jsonl(lines: list[Line], display: str, origin: str, bad: set[int]) -> ParseResult:
    result = ParseResult(display, "jsonl")
    for number, text in lines:
        if not text.strip():
            continue
        if number in bad:
            result.problems.append(_encoding_problem(display, number, text))
            continue
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            result.problems.append(Problem(display, number, f"malformed JSON: {exc}"))
            continue
        if not isinstance(obj, dict):
            kind = type(obj).__name__
            result.problems.append(Problem(display, number, f"expected a JSON object, got {kind}"))
            continue
        entry = entry_from_object(obj, origin, number)
        if isinstance(entry, str):
            result.problems.append(Problem(display, number, entry))
        else:
            result.entries.append(entry)
    return result


Parser = Callable[[list[Line], str, str, set[int]], ParseResult]
PARSERS: dict[str, Parser] = {
    "digest": _parse_digest,
    "listing": _parse_listing,
    "jsonl": _parse_jsonl,
}


def parse_lines(lines: list[Line], display: str, origin: str, bad: set[int]) -> ParseResult:
    fmt = detect_format(lines)
    if fmt == "empty":
        return ParseResult(display, fmt, problems=[Problem(display, 0, "empty file: no entries")])
    return PARSERS[fmt](lines, display, origin, bad)


def parse_file(
    path: str | Path, display: str | None = None, origin: str | None = None
) -> ParseResult:
    """Parse one file of any supported format. Never raises on bad content."""
    path = Path(path)
    display = display if display is not None else str(path)
    origin = origin if origin is not None else str(path.resolve())
    lines, problems, bad = read_lines(path, display)
    if problems:
        return ParseResult(display, "unreadable", problems=problems)
    return parse_lines(lines, display, origin, bad)
