"""JSON Lines: one object a line with ``title`` and ``summary`` (and optional ``source``,
``date``, ``category``, ``comment``, ``url``, ``id``; other fields kept as metadata)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from . import jsonvalues
from .models import Entry, ParseResult, Problem
from .reading import Line, line_problem
from .text import detect_language, entry_id, parse_date, preview

Item = Entry | Problem  # what a parser gives for each entry it reads
JSONL_TEXT = ("title", "summary", "comment", "source", "date", "category", "url")
JSONL_KNOWN = (*JSONL_TEXT, "id")


def is_object(text: str) -> bool:
    """Whether ``text`` parses as one JSON object."""
    try:
        return isinstance(orjson.loads(text), dict)
    except orjson.JSONDecodeError:
        return False


def entry_from_object(
    obj: dict[str, Any], origin: str, line: int, fmt: str = "jsonl"
) -> Entry | str:
    """An entry from one JSON object, or a string saying what is wrong with it."""
    try:
        fields = {key: jsonvalues.text(obj, key).strip() for key in JSONL_TEXT}
    except jsonvalues.Invalid as exc:
        return exc.message
    title, summary, comment = fields["title"], fields["summary"], fields["comment"]
    missing = [key for key in ("title", "summary") if not fields[key]]
    if missing:
        return f"missing {' and '.join(repr(m) for m in missing)}"
    date: str | None = None
    raw_date = fields["date"]
    if raw_date:
        date = parse_date(raw_date[:10])
        if date is None:
            return f"invalid date {preview(raw_date)!r} (expected YYYY-MM-DD or YYYY/MM/DD)"
    extra = {k: v for k, v in obj.items() if k not in JSONL_KNOWN}
    if obj.get("id") is not None:
        extra["id"] = obj["id"]
    return Entry(
        id=entry_id(title, summary, comment),
        title=title,
        summary=summary,
        comment=comment,
        source=fields["source"],
        category=fields["category"],
        date=date,
        url=fields["url"] or None,
        lang=detect_language(f"{title} {summary} {comment}"),
        format=fmt,
        origin_file=origin,
        origin_line=line,
        extra=extra,
    )


def parse_jsonl(lines: list[Line], display: str, origin: str, bad: set[int]) -> ParseResult:
    result = ParseResult(display, "jsonl")
    for item in jsonl_items(lines, display, origin, bad):
        if isinstance(item, Entry):
            result.entries.append(item)
        else:
            result.problems.append(item)
    return result


def jsonl_items(lines: Iterable[Line], display: str, origin: str, bad: set[int]) -> Iterator[Item]:
    """The entry or the problem of each line, a line at a time."""
    for number, text in lines:
        if not text.strip():
            continue
        if number in bad:
            yield line_problem(display, number, text)
            continue
        try:
            obj = jsonvalues.loads(text)
        except jsonvalues.Invalid as exc:
            yield Problem(display, number, exc.message)
            continue
        if not isinstance(obj, dict):
            yield Problem(display, number, f"expected a JSON object, got {jsonvalues.kind(obj)}")
            continue
        entry = entry_from_object(obj, origin, number)
        yield Problem(display, number, entry) if isinstance(entry, str) else entry
