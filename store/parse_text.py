"""The two plain-text formats, read a line at a time: a digest (lines in threes: a header
``CATEGORY SOURCE [YYYY/MM/DD]``, a summary, a comment) and a listing (a title line and a
summary line, with page noise removed). Each parser yields an entry or a problem as soon as
its lines are read, so a file of any size is parsed in flat memory."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator

from topiclens.text import cell_width

from .models import Entry, ParseResult, Problem
from .parse_jsonl import Item
from .reading import Line, line_problem
from .text import derive_title, detect_language, entry_id, has_surrogates, parse_date, preview

NOISE_WORDS = ("评论", "点赞", "收藏")
_NOISE_PREFIX = re.compile(rf"^(?:{'|'.join(NOISE_WORDS)})+\s*")
_DATEISH = re.compile(r"^\d{2,4}[/-]\d{1,2}(?:[/-]\d{1,4})?$")
_SENTENCE_PUNCT = re.compile(r"[，。；！？、：]")
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


def unstorable(text: str) -> bool:
    return "\x00" in text or has_surrogates(text)


def is_header(text: str) -> bool:
    return not isinstance(parse_header(text), str)


# --- digest --------------------------------------------------------------------------


def parse_digest(lines: list[Line], display: str, origin: str, bad: set[int]) -> ParseResult:
    return collect(digest_items(lines, display, origin, bad), display, "digest")


def digest_items(lines: Iterable[Line], display: str, origin: str, bad: set[int]) -> Iterator[Item]:
    """The entries and problems of a digest, read a line at a time (three lines ahead)."""
    items = ((n, t) for n, t in lines if t.strip())
    ahead: deque[Line] = deque()

    def fill(count: int) -> None:
        while len(ahead) < count and (line := next(items, None)) is not None:
            ahead.append(line)

    def drop(count: int) -> None:
        for _ in range(count):
            ahead.popleft()

    while True:
        fill(1)
        if not ahead:
            return
        number, text = ahead[0]
        header = parse_header(text)
        if isinstance(header, str):
            yield (
                line_problem(display, number, text)
                if number in bad
                else Problem(
                    display,
                    number,
                    f"expected a header 'CATEGORY SOURCE [YYYY/MM/DD]' but found "
                    f"{preview(text)!r} ({header}); entry skipped",
                )
            )
            drop(1)
            fill(1)
            while ahead and not is_header(ahead[0][1]):
                drop(1)
                fill(1)
            continue
        fill(3)
        body = [ahead[1], ahead[2]] if len(ahead) == 3 else list(ahead)[1:]
        # a header among the next two lines first: at the end of a file, "header, header"
        # is two incomplete entries, not one header whose summary is a header
        offset = next((k for k, b in enumerate(body) if is_header(b[1])), None)
        if offset is not None:
            yield Problem(
                display,
                body[offset][0],
                "expected a summary or comment but found a header line; "
                f"the entry at line {number} is incomplete and was skipped",
            )
            drop(1 + offset)
            continue
        if len(body) < 2:
            missing = "summary and comment" if not body else "curator's comment"
            touched = [(n, t) for n, t in body if n in bad]
            yield (
                line_problem(display, *touched[0])
                if touched
                else Problem(display, number, f"truncated entry: header without its {missing}")
            )
            return
        touched = [(n, t) for n, t in (ahead[0], *body) if n in bad]
        if touched:
            yield line_problem(display, *touched[0])
            drop(3)
            continue
        category, source, date = header
        summary, comment = body[0][1].strip(), body[1][1].strip()
        yield Entry(
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
        drop(3)


# --- listing -------------------------------------------------------------------------


def parse_listing(lines: list[Line], display: str, origin: str, bad: set[int]) -> ParseResult:
    return collect(listing_items(lines, display, origin, bad), display, "listing")


def listing_items(
    lines: Iterable[Line], display: str, origin: str, bad: set[int]
) -> Iterator[Item]:
    """The entries and problems of a listing, read a line at a time."""
    title: tuple[int, str, str] | None = None  # (line, title, the line as read)
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
        if title is None:
            title = (number, stripped, text)
            continue
        (t_line, t_text, t_raw), title = title, None
        touched = [(n, raw) for n, raw in ((t_line, t_raw), (number, text)) if n in bad]
        if touched:
            yield line_problem(display, *touched[0])
            continue
        yield Entry(
            id=entry_id(t_text, stripped),
            title=t_text,
            summary=stripped,
            lang=detect_language(t_text + " " + stripped),
            format="listing",
            origin_file=origin,
            origin_line=t_line,
        )
    if title is not None:
        t_line, t_text, t_raw = title
        yield (
            line_problem(display, t_line, t_raw)
            if t_line in bad
            else Problem(
                display, t_line, f"truncated entry: title {preview(t_text)!r} has no summary"
            )
        )


def collect(items: Iterable[Item], display: str, fmt: str) -> ParseResult:
    """The entries and problems of ``items`` as one result."""
    result = ParseResult(display, fmt)
    for item in items:
        if isinstance(item, Entry):
            result.entries.append(item)
        else:
            result.problems.append(item)
    return result
