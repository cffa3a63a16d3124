"""Feeds read from bytes: RSS 0.9x/1.0/2.0 and Atom 0.3/1.0 through feedparser, JSON Feed
1.0/1.1 by its own small reader, into :class:`FeedEntry` values ready for the store.

Nothing here touches the network, the file system or the database. feedparser gets the bytes
(in a stream, never as a string it could take for a URL or a file name), the response headers
and the final URL as ``content-location``; its own sanitiser is off, as every HTML value goes
through :mod:`.html_text` (nh3) instead. Before feedparser sees a document, its entity
declarations are removed, so no entity is ever expanded (no billion laughs, no quadratic
blow-up, no external entity read from disk), and a document too large to parse in a few
seconds is cut to its first entries.

Dates are read here, not by feedparser, which misreads some silently (``CST`` as US Central,
``2024年5月1日`` as 1 December, a Unix time as a 2017 date, an unknown zone as UTC): a date
that cannot be read for certain is ``None``, and the caller uses the time it first saw the
entry.
"""

from __future__ import annotations

import codecs
import datetime as _dt
import hashlib
import html as _html
import io
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import feedparser
import orjson

from .html_text import (
    html_to_text,
    sanitize_html,
    terminal_line,
    terminal_safe,
    text_of_sanitized,
)
from .models import Problem
from .text import detect_language

SUMMARY_CHARS = 600  # a summary's length at most, in characters
TITLE_CHARS = 120  # a title derived from the content, at most
KEY_CHARS = 512  # a longer id or link is kept as its hash
MAX_PROBLEMS = 50  # problems listed for one document at most
FUTURE_SLACK = _dt.timedelta(days=1)  # a date further ahead than this is not believed
EARLIEST = _dt.datetime(1970, 1, 2, tzinfo=_dt.UTC)  # the epoch itself is a missing date
UTC = _dt.UTC


@dataclass(frozen=True, slots=True)
class FeedEntry:
    """One entry of a feed, every text field plain and terminal-safe but ``content_html``."""

    key: str  # identity inside its feed: guid/id, else link, else "sha256:<hex>"
    title: str  # plain text, never empty
    summary: str  # plain text, at most SUMMARY_CHARS
    content_text: str  # the whole content as terminal text
    content_html: str  # the whole content as sanitised HTML ('' when the feed had none)
    url: str | None  # absolute, http or https
    author: str
    published: _dt.datetime | None  # aware, UTC; None when no date can be read for certain
    line: int  # the entry's line in the document, 0 when unknown


@dataclass(frozen=True, slots=True)
class ParsedFeed:
    kind: str  # "rss", "atom" or "json"
    title: str
    link: str | None  # the site's home page
    entries: list[FeedEntry]
    problems: list[Problem] = field(default_factory=list)


class NotAFeed(ValueError):
    """The bytes are no feed; the message says what they are ("an HTML page", "empty", ...)."""


# --- sniffing -------------------------------------------------------------------------------

_WIDE_MARKS: tuple[tuple[bytes, str, bytes], ...] = (
    # (how the document starts, its codec, the byte-order mark to write back)
    (codecs.BOM_UTF32_BE, "utf-32-be", codecs.BOM_UTF32_BE),
    (codecs.BOM_UTF32_LE, "utf-32-le", codecs.BOM_UTF32_LE),
    (codecs.BOM_UTF16_BE, "utf-16-be", codecs.BOM_UTF16_BE),
    (codecs.BOM_UTF16_LE, "utf-16-le", codecs.BOM_UTF16_LE),
    (b"\x00\x00\x00<", "utf-32-be", b""),
    (b"<\x00\x00\x00", "utf-32-le", b""),
    (b"\x00<\x00?", "utf-16-be", b""),
    (b"<\x00?\x00", "utf-16-le", b""),
    (b"\x4c\x6f\xa7\x94", "cp037", b""),  # "<?xm" in EBCDIC
)


def _wide_codec(data: bytes) -> tuple[str, bytes] | None:
    """The codec of a document not ASCII-compatible (UTF-16, UTF-32, EBCDIC) and its BOM."""
    for start, codec, bom in _WIDE_MARKS:
        if data.startswith(start):
            return codec, bom
    return None


def _view(data: bytes) -> str:
    """``data`` as text to look at (not to parse): its own wide codec, else UTF-8 with
    replacement characters (element names are ASCII in every other encoding)."""
    wide = _wide_codec(data)
    if wide:
        return data[len(wide[1]) :].decode(wide[0], "replace")
    return data.decode("utf-8", "replace").removeprefix("\ufeff")


# The prolog before the root element: the XML declaration, comments, processing instructions.
_PROLOG_ITEM = re.compile(r"\s+|<\?.*?\?>|<!--.*?-->", re.DOTALL)
_ROOT = re.compile(r"<([A-Za-z_][\w.:-]*)")
# (an unclosed comment or CDATA section runs to the end: a search that fails on each of many
# unclosed ones would scan the rest of the document each time)
_DOCTYPE_TOKEN = re.compile(
    r"\"[^\"]*\"?|'[^']*'?|<!--.*?(?:-->|$)|[^\"'<>\[\]]+|[<>\[\]]", re.DOTALL
)
_HTML_TITLE = re.compile(r"<title[^>]{0,200}>(.{0,300}?)</title", re.IGNORECASE | re.DOTALL)


def _skip_prolog(text: str, pos: int = 0) -> int:
    while match := _PROLOG_ITEM.match(text, pos):
        if match.end() == pos:
            break
        pos = match.end()
    return pos


def _doctype_end(text: str, start: int) -> tuple[int, bool]:
    """Where the DOCTYPE at ``start`` ends, and whether it has an internal subset (``[...]``).
    Quoted strings and comments are skipped whole, so a "]" or ">" inside them is no end."""
    inside = has_subset = False
    for match in _DOCTYPE_TOKEN.finditer(text, start + 9):
        token = match.group()
        if token == "[":
            inside = has_subset = True
        elif token == "]":
            inside = False
        elif token == ">" and not inside:
            return match.end(), has_subset
    return len(text), has_subset


def _root(text: str) -> tuple[str, int]:
    """The root element's name (or "" when the document has none) and where it starts."""
    pos = _skip_prolog(text)
    if text.startswith("<!DOCTYPE", pos) or text[pos : pos + 9].upper() == "<!DOCTYPE":
        pos = _skip_prolog(text, _doctype_end(text, pos)[0])
    match = _ROOT.match(text, pos)
    return (match.group(1), pos) if match else ("", pos)


_FEED_ROOTS = frozenset({"rss", "feed", "rdf", "channel"})


def _is_feed_root(name: str) -> bool:
    return name.rsplit(":", 1)[-1].lower() in _FEED_ROOTS


def looks_like_feed(head: bytes) -> bool:
    """Whether ``head`` (the first few kilobytes of a file) starts a feed: XML whose root
    element is ``rss``, ``feed``, ``rdf:RDF`` or ``channel``, or JSON naming a JSON Feed
    version. Cheap: nothing is parsed."""
    text = _view(head[:65536]).lstrip()
    if text.startswith("{"):
        return "jsonfeed.org/version/" in text
    name, _ = _root(text)
    if name.rsplit(":", 1)[-1].lower() == "rdf":
        return "rss" in text.lower()
    return bool(name) and _is_feed_root(name)


# --- defusing and bounding XML -------------------------------------------------------------

# feedparser spends about 20 µs on each element: a 16 MiB document of tiny elements would
# hold a refresh for minutes. Past these bounds only the first entries are read.
MAX_ENTRIES = 1000
MAX_ELEMENTS = 200_000

_CDATA_OR_COMMENT = re.compile(r"<!\[CDATA\[.*?(?:\]\]>|$)|<!--.*?(?:-->|$)", re.DOTALL)
_ENTRY_TAG = re.compile(r"<(?:[\w.-]+:)?(?:item|entry)[\s>/]")
_ENTRY_END = re.compile(r"</(?:[\w.-]+:)?(?:item|entry)\s*>")
_FIRST_ELEMENT = re.compile(r"<\w")  # where feedparser takes a document's head to end
_XML_DECLARATION = re.compile(r"<\?xml[^>]*\?>")


def _prepare(body: bytes) -> tuple[bytes, list[tuple[int, str]]]:
    """``body`` as feedparser may read it, with what was changed (line, note): entity
    declarations removed (:func:`_without_entity_declarations`) and the entries past
    :data:`MAX_ENTRIES` or :data:`MAX_ELEMENTS` left out (:func:`_bounded_entries`). The
    bytes come back unchanged (the same object) when nothing needed doing."""
    wide = _wide_codec(body)
    # (counting "item" anywhere overcounts the entries: when even that is small, all is well)
    entries = body.count(b"item") + body.count(b"entry")
    small = body.count(b"<") <= MAX_ELEMENTS and entries <= MAX_ENTRIES
    if wide is None and b"<!DOCTYPE" not in body and b"<!ENTITY" not in body and small:
        return body, []
    if wide:
        codec, bom = wide
        text = body[len(bom) :].decode(codec, "replace")
    else:
        text = body.decode("latin-1")  # byte for byte: nothing else changes
    notes: list[tuple[int, str]] = []
    text, line = _without_entity_declarations(text)
    if line:
        notes.append((line, "entity declarations: removed, not expanded"))
    text, note = _bounded_entries(text)
    if note:
        notes.append((0, note))
    if not notes:
        return body, []
    if wide:
        return wide[1] + text.encode(wide[0], "replace"), notes
    return text.encode("latin-1"), notes


def _without_entity_declarations(text: str) -> tuple[str, int]:
    """``text`` without entity declarations, with the line of the first one (0 when there was
    none). When the head of the document (before its first element, as feedparser sees it)
    holds a DOCTYPE with an internal subset or an ``<!ENTITY``, everything in it but the XML
    declaration goes, its lines kept as newlines: feedparser carries "safe" entities found
    there into a DOCTYPE of its own, where a 20 kB one used 500 times is 10 MB of text.

    A DOCTYPE without a subset stays: expat never loads an external DTD here."""
    bom = 3 if text.startswith("\xef\xbb\xbf") else 1 if text.startswith("\ufeff") else 0
    first = _FIRST_ELEMENT.search(text, bom)
    head_end = first.start() if first else len(text)
    start = _skip_prolog(text, bom)
    has_subset = False
    if text.startswith("<!DOCTYPE", start):
        end, has_subset = _doctype_end(text, start)
        if has_subset:  # (an entity's value may hold "<b", which is no element)
            head_end = max(head_end, end)
    head = text[:head_end]
    if not has_subset and "<!ENTITY" not in head:
        return text, 0
    where = min(i for i in (head.find("<!DOCTYPE"), head.find("<!ENTITY")) if i >= 0)
    declaration = _XML_DECLARATION.match(text, bom)
    keep = min(declaration.end() if declaration else bom, where)
    line = text.count("\n", 0, where) + 1
    return text[:keep] + "\n" * text.count("\n", keep, head_end) + text[head_end:], line


def _elements(text: str) -> int:
    """How many elements start in ``text`` (CDATA and comments already blanked)."""
    return text.count("<") - text.count("</") - text.count("<!") - text.count("<?")


def _bounded_entries(text: str) -> tuple[str, str]:
    """``text`` holding at most :data:`MAX_ENTRIES` entries and :data:`MAX_ELEMENTS` elements:
    the first entries, then the document's tail after its last entry (the closing tags, and
    whatever follows the entries). With a note when entries were left out.

    Raises :class:`NotAFeed` when even the first entry, or a document without entries, holds
    more elements than that."""
    # CDATA sections and comments blanked, same length, so offsets stay those of ``text``
    masked = _CDATA_OR_COMMENT.sub(lambda m: " " * len(m.group()), text)
    starts = [m.start() for m in _ENTRY_TAG.finditer(masked)]
    header = _elements(masked[: starts[0]] if starts else masked)
    if header > MAX_ELEMENTS:
        raise NotAFeed(f"XML with more than {MAX_ELEMENTS:,} elements outside its entries")
    total, kept = header, 0
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(masked)
        count = _elements(masked[start:end])
        if i >= MAX_ENTRIES or total + count > MAX_ELEMENTS:
            break
        total, kept = total + count, i + 1
    if kept == len(starts):
        return text, ""
    if kept == 0:
        raise NotAFeed(f"a feed whose first entry holds more than {MAX_ELEMENTS:,} XML elements")
    last = None
    for last in _ENTRY_END.finditer(masked, starts[-1]):  # noqa: B007 (the last one is wanted)
        pass
    tail = last.end() if last else len(text)
    note = (
        f"{len(starts):,} entries: only the first {kept:,} are read (at most "
        f"{MAX_ENTRIES:,} entries and {MAX_ELEMENTS:,} XML elements)"
    )
    return text[: starts[kept]] + text[tail:], note


# --- dates ----------------------------------------------------------------------------------

# Zone names read the same everywhere. CST is not among them: US Central in RFC 822, China
# Standard Time in a Chinese feed, Cuba elsewhere. BST, IST and the like are ambiguous too.
_ZONES: dict[str, int] = {
    "UT": 0, "UTC": 0, "GMT": 0, "Z": 0, "WET": 0,
    "EST": -300, "EDT": -240, "CDT": -300, "MST": -420, "MDT": -360, "PST": -480, "PDT": -420,
    "CET": 60, "CEST": 120, "MET": 60, "MEST": 120, "WEST": 60, "EET": 120, "EEST": 180,
    "MSK": 180, "HKT": 480, "SGT": 480, "JST": 540, "KST": 540,
    "AEST": 600, "AEDT": 660, "NZST": 720, "NZDT": 780,
    "北京时间": 480,
}  # fmt: skip
_CHINA = 480
_MONTHS = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
)}  # fmt: skip
_ZONE = r"(?P<zone>(?:GMT|UTC|UT)?[+-]\d{1,2}(?::?\d{2})?|[A-Za-z]{1,5}|北京时间)?"
_TIME = r"(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,]\d+)?)?"
_NUMERIC = re.compile(
    rf"^(?P<y>\d{{4}})[-/.](?P<mo>\d{{1,2}})[-/.](?P<d>\d{{1,2}})(?:(?:T|\s+){_TIME})?\s*{_ZONE}$",
    re.IGNORECASE,
)
_RFC822 = re.compile(
    rf"^(?:[A-Za-z]{{2,9}}\.?,?\s*)?(?P<d>\d{{1,2}})[\s-]+(?P<mon>[A-Za-z]{{3,9}})\.?[\s-]+"
    rf"(?P<y>\d{{2,4}})(?:\s+{_TIME})?\s*{_ZONE}$"
)
_CHINESE = re.compile(
    r"^(?P<y>\d{4})\s*年\s*(?P<mo>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]"
    r"(?:\s*(?P<half>上午|下午|晚上|凌晨|中午)?\s*(?P<h>\d{1,2})\s*(?:[:：]|时|點|点)\s*"
    r"(?P<mi>\d{1,2})?\s*分?(?:\s*[:：]?\s*(?P<s>\d{1,2})\s*秒?)?)?\s*" + _ZONE + "$"
)
_EPOCH = re.compile(r"^\d{9,13}(?:\.\d+)?$")
_COMMENT = re.compile(r"\s*\([^)]*\)\s*$")  # "+0800 (CST)": RFC 822's trailing comment
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
_ZONE_WORD = re.compile(r"\b[A-Za-z]{2,5}$")


class Unreadable(ValueError):
    """A date that is there but cannot be read for certain; the message says why."""


def _offset(zone: str | None, chinese: bool, naive: int) -> int:
    """Minutes east of UTC for ``zone`` as written; ``naive`` when there is none."""
    if not zone:
        return naive
    upper = zone.upper()
    if upper in _ZONES:
        return _ZONES[upper]
    if upper == "CST":
        if chinese:
            return _CHINA
        raise Unreadable("the zone CST is ambiguous (US Central, China or Cuba)")
    match = re.fullmatch(r"(?:GMT|UTC|UT)?([+-])(\d{1,2})(?::?(\d{2}))?", upper)
    if match:
        hours, minutes = int(match.group(2)), int(match.group(3) or 0)
        if hours > 14 or minutes > 59:
            raise Unreadable(f"the zone {zone!r} is no UTC offset")
        return (hours * 60 + minutes) * (1 if match.group(1) == "+" else -1)
    raise Unreadable(f"the zone {zone!r} is unknown or ambiguous")


def _build(parts: dict[str, str | None], month: int, offset: int) -> _dt.datetime:
    year = int(parts["y"] or 0)
    if year < 100:  # RFC 822's two-digit years
        year += 2000 if year < 50 else 1900
    hour = int(parts.get("h") or 0)
    half = parts.get("half")
    if half in ("下午", "晚上") and hour < 12:
        hour += 12
    elif half == "凌晨" and hour == 12:
        hour = 0
    try:
        local = _dt.datetime(
            year,
            month,
            int(parts["d"] or 0),
            hour,
            int(parts.get("mi") or 0),
            min(int(parts.get("s") or 0), 59),  # a leap second is read as :59
            tzinfo=_dt.timezone(_dt.timedelta(minutes=offset)),
        )
    except ValueError as error:
        raise Unreadable(f"no such date ({error})") from None
    return local.astimezone(UTC)


def read_date(
    text: str,
    *,
    chinese: bool = False,
    now: _dt.datetime | None = None,
    fallback: time.struct_time | None = None,
) -> _dt.datetime | None:
    """The moment ``text`` names, in UTC; None when there is no text. Raises
    :class:`Unreadable` (saying why) when the text cannot be read for certain.

    - RFC 822 and ISO 8601 / RFC 3339 dates, ``2024/05/01 10:30`` too; a time without a zone
      is China time (+08:00) in a ``chinese`` feed and UTC elsewhere; a date without a time is
      that day at 00:00 UTC, so it stays that day.
    - Zone names only where they are unambiguous; ``CST`` is China Standard Time in a
      ``chinese`` feed and unreadable elsewhere.
    - Chinese dates (``2024年5月1日``, ``2024年5月1日 10:30``, ``下午3点``) are China time.
    - A number is a Unix time in seconds or milliseconds when it falls between 1970 and now.
    - ``fallback`` (feedparser's own reading) is taken for any other format when the text is
      not Chinese, ends in no unknown zone and names the year feedparser read.
    - Dates before 1970-01-02 (the epoch, a missing date) and more than a day in the future
      (a wrong clock, a zone misread, a post scheduled ahead) are unreadable.
    """
    now = now or _dt.datetime.now(UTC)
    text = " ".join(text.split())
    if not text:
        return None
    text = _COMMENT.sub("", text)
    naive = _CHINA if chinese else 0
    when: _dt.datetime | None = None
    if _EPOCH.match(text):
        seconds = float(text)
        if seconds >= 1e11:  # milliseconds
            seconds /= 1000
        when = _dt.datetime.fromtimestamp(seconds, UTC)
        if not EARLIEST <= when <= now + FUTURE_SLACK:
            raise Unreadable(f"the number {text} is no plausible Unix time")
    elif re.fullmatch(r"\d{8}", text):
        parts = {"y": text[:4], "d": text[6:]}
        when = _build(parts, int(text[4:6]), 0)
    elif match := _CHINESE.match(text):
        parts = match.groupdict()
        offset = _offset(parts["zone"], True, _CHINA if parts["h"] else 0)
        when = _build(parts, int(parts["mo"]), offset)
    elif match := _NUMERIC.match(text):
        parts = match.groupdict()
        offset = _offset(parts["zone"], chinese, naive if parts["h"] else 0)
        when = _build(parts, int(parts["mo"]), offset)
    elif match := _RFC822.match(text):
        parts = match.groupdict()
        month = _MONTHS.get(parts["mon"][:3].lower())
        if month is None:
            raise Unreadable(f"no month named {parts['mon']!r}")
        when = _build(parts, month, _offset(parts["zone"], chinese, naive if parts["h"] else 0))
    elif _HAN.search(text):
        raise Unreadable("a Chinese date in a form not known")
    elif fallback is not None:
        zone = _ZONE_WORD.search(text)
        if zone and zone.group().upper() not in _ZONES and not _MONTHS.get(zone.group()[:3]):
            raise Unreadable(f"the zone {zone.group()!r} is unknown or ambiguous")
        if str(fallback.tm_year) not in text:
            raise Unreadable("a form not known")
        when = _dt.datetime(*fallback[:6], tzinfo=UTC)
    else:
        raise Unreadable("a form not known")
    if when < EARLIEST:
        raise Unreadable("before 1970 (a missing date)")
    if when > now + FUTURE_SLACK:
        raise Unreadable("in the future")
    return when


# --- entries --------------------------------------------------------------------------------


def _http_url(url: Any, base: str | None = None) -> str | None:
    """``url`` made absolute against ``base``, when it is http or https; else None."""
    if not isinstance(url, str):
        return None
    url = url.strip()
    if not url:
        return None
    if base:
        try:
            url = urljoin(base, url)
        except ValueError:
            return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    if any(ch in url for ch in "\x00\n\r\t\x1b") or len(url) > 4096:
        return None
    return url


def _joined(url: str, base: str) -> str | None:
    """``url`` resolved against ``base``, whatever its scheme; None when empty or unreadable."""
    if not url.strip():
        return None
    try:
        return urljoin(base, url.strip())
    except ValueError:
        return None


def _cut(text: str, limit: int) -> str:
    """``text`` on one line, terminal-safe, at most ``limit`` characters, cut at a word where
    there is one."""
    text = terminal_line(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 2 // 3:
        cut = cut[:space]
    return cut.rstrip(" ,，、;；:：") + "…"


_SENTENCE_END = re.compile(r"(?<=[.!?])\s|(?<=[。！？])")


def _derived_title(text: str) -> str:
    """A title from the start of an entry's text: its first sentence, cut to TITLE_CHARS."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    sentence = _SENTENCE_END.split(first.strip(), maxsplit=1)[0]
    return _cut(sentence or first, TITLE_CHARS)


def _plain_html(text: str) -> str:
    """Plain text as HTML: paragraphs at blank lines, line breaks kept."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "\n".join(
        "<p>" + _html.escape(terminal_safe(p), quote=False).replace("\n", "<br>\n") + "</p>"
        for p in paragraphs
    )


def _summary_of(clean_html: str, limit: int) -> str:
    """The start of sanitised HTML as one line of text, without rendering all of it."""
    window = 4 * limit + 4096
    while True:
        head = clean_html
        if len(clean_html) > window:
            tag = clean_html.rfind("<", 0, window)  # cut before a tag, not inside one
            head = clean_html[: tag if tag > 0 else window]
        text = text_of_sanitized(head, plain=True)
        if len(text) > limit or len(head) == len(clean_html) or window > 1 << 22:
            return _cut(text, limit)
        window *= 4


@dataclass(slots=True)
class _Raw:
    """What an entry says before it is made safe: each value as the feed gave it."""

    ids: list[str]
    link: str | None
    title: str
    title_is_html: bool
    summary: str
    summary_is_html: bool
    content: str
    content_is_html: bool
    base: str | None  # what relative links in the content resolve against
    author: str
    dates: list[tuple[str, time.struct_time | None]]
    line: int


class _Reader:
    """Turns :class:`_Raw` entries into :class:`FeedEntry` values, keeping the problems."""

    def __init__(self, path: str, chinese: bool, now: _dt.datetime) -> None:
        self.path = path
        self.chinese = chinese
        self.now = now
        self.problems: list[Problem] = []
        self.date_troubles: dict[str, tuple[str, int, int]] = {}  # why -> (text, line, count)

    def problem(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.path, line, message))

    def date(self, raw: _Raw) -> _dt.datetime | None:
        for text, fallback in raw.dates:
            try:
                when = read_date(text, chinese=self.chinese, now=self.now, fallback=fallback)
            except Unreadable as why:
                first, line, count = self.date_troubles.get(str(why), (text, raw.line, 0))
                self.date_troubles[str(why)] = (first, line, count + 1)
                continue
            if when is not None:
                return when
        return None

    def entry(self, raw: _Raw, *, link_is_key: bool = True) -> FeedEntry | None:
        if raw.content_is_html:
            content_html = sanitize_html(raw.content, raw.base)
            content_text = text_of_sanitized(content_html)
        else:
            content_text = terminal_safe(raw.content).strip()
            content_html = _plain_html(raw.content)
        if raw.summary.strip():
            if raw.summary_is_html:
                summary = _cut(html_to_text(raw.summary, raw.base, plain=True), SUMMARY_CHARS)
            else:
                summary = _cut(terminal_safe(raw.summary), SUMMARY_CHARS)
        else:
            summary = _summary_of(content_html, SUMMARY_CHARS)
        if raw.title_is_html:
            title = terminal_line(html_to_text(raw.title, raw.base, plain=True))
        else:
            title = terminal_line(raw.title)
        url = _http_url(raw.link)
        title = _cut(title, 1000) or _derived_title(summary or content_text) or url or ""
        key = next((i.strip() for i in raw.ids if i.strip()), "")
        if not key and link_is_key and raw.link:
            key = raw.link.strip()
        if not key:
            if not (title or content_text):
                self.problem(raw.line, "an entry with no id, link, title or content: skipped")
                return None
            key = _hash_key(title, content_text)
        elif len(key) > KEY_CHARS or terminal_line(key) != key:
            key = _hash_key(key)
        return FeedEntry(
            key=key,
            title=title or "(untitled)",
            summary=summary,
            content_text=content_text,
            content_html=content_html,
            url=url,
            author=_cut(terminal_line(raw.author), 200),
            published=self.date(raw),
            line=raw.line,
        )

    def entries(self, raws: list[_Raw]) -> list[FeedEntry]:
        """Every entry once. A repeated id keeps the first: feeds list newest first, so the
        first is the copy the feed shows on top. A link that entries without an id share is
        no identity (some feeds link every item to their home page): those entries are told
        apart by their content."""
        id_less = Counter(r.link for r in raws if r.link and not any(i.strip() for i in r.ids))
        shared = {link for link, count in id_less.items() if count > 1}
        for link in shared:
            line = next(r.line for r in raws if r.link == link)
            self.problem(
                line,
                f"{id_less[link]} entries without an id share the link {_cut(link, 80)}: "
                "told apart by their content",
            )
        seen: dict[str, int] = {}
        out: list[FeedEntry] = []
        for raw in raws:
            entry = self.entry(raw, link_is_key=raw.link not in shared)
            if entry is None:
                continue
            if entry.key in seen:
                self.problem(
                    raw.line,
                    f"the id {_cut(entry.key, 80)!r} repeats that of an earlier entry"
                    + (f" (line {seen[entry.key]})" if seen[entry.key] else "")
                    + ": the first kept",
                )
                continue
            seen[entry.key] = raw.line
            out.append(entry)
        for why, (text, line, count) in self.date_troubles.items():
            times = f" ({count} entries)" if count > 1 else ""
            self.problem(
                line, f"date {_cut(text, 60)!r}: {why}{times}; the time first seen is used"
            )
        return out


def _capped(problems: list[Problem], path: str) -> list[Problem]:
    """At most :data:`MAX_PROBLEMS` problems, then one saying how many more there were."""
    if len(problems) <= MAX_PROBLEMS:
        return problems
    more = len(problems) - MAX_PROBLEMS
    return [*problems[:MAX_PROBLEMS], Problem(path, 0, f"{more:,} more problems not listed")]


def _hash_key(*parts: str) -> str:
    payload = "\x1f".join(" ".join(part.split()) for part in parts)
    return "sha256:" + hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


def _is_chinese(language: Any, texts: list[str]) -> bool:
    """Whether a feed is Chinese: its language says zh, or its titles are Chinese."""
    if isinstance(language, str) and language.strip().lower().startswith("zh"):
        return True
    return detect_language(" ".join(texts)[:20_000]) in ("zh", "mixed")


# --- RSS and Atom ---------------------------------------------------------------------------

_ENTRY_START = re.compile(
    r"<!\[CDATA\[.*?(?:\]\]>|$)|<!--.*?(?:-->|$)|<(?:[\w.-]+:)?(item|entry)[\s>/]", re.DOTALL
)


def _entry_lines(text: str) -> list[int]:
    """The line of each ``<item>`` or ``<entry>`` start tag, in document order."""
    lines: list[int] = []
    line, last = 1, 0
    for match in _ENTRY_START.finditer(text):
        if match.group(1):
            line += text.count("\n", last, match.start())
            last = match.start()
            lines.append(line)
    return lines


def _is_html_type(detail: Any) -> bool:
    kind = (detail or {}).get("type") or "text/html"
    return "html" in kind or "xml" in kind


def _content(entry: Any) -> tuple[str, bool, str | None]:
    """An entry's content: the first HTML value of ``content`` (else its first value), with
    whether it is HTML and its base URL."""
    values = [c for c in entry.get("content") or [] if isinstance(c.get("value"), str)]
    if not values:
        return "", True, None
    chosen = next((c for c in values if _is_html_type(c)), values[0])
    return chosen["value"], _is_html_type(chosen), chosen.get("base")


def _xml_raws(result: Any, url: str, lines: list[int]) -> Iterator[_Raw]:
    entries = result.entries
    aligned = len(lines) == len(entries)
    for i, entry in enumerate(entries):
        content, content_is_html, content_base = _content(entry)
        summary = entry.get("summary") or ""
        summary_detail = entry.get("summary_detail")
        if summary_detail is None or summary == content:  # feedparser's copy of the content
            summary = ""
        title_detail = entry.get("title_detail") or {}
        if not content and summary:
            # RSS puts whole posts in <description>: it is the content, and the summary is
            # its start
            content, content_is_html = summary, _is_html_type(summary_detail)
            content_base, summary = (summary_detail or {}).get("base"), ""
        author_detail = entry.get("author_detail") or {}
        author = author_detail.get("name") or entry.get("author") or ""
        # (dict.get: feedparser's own get answers "updated" with "published")
        dates: list[tuple[str, time.struct_time | None]] = []
        for name in ("published", "updated", "created"):
            text = dict.get(entry, name)
            if isinstance(text, str) and text.strip() and text not in (d[0] for d in dates):
                dates.append((text, dict.get(entry, f"{name}_parsed")))
        yield _Raw(
            ids=[entry["id"]] if isinstance(entry.get("id"), str) else [],
            link=entry.get("link") if isinstance(entry.get("link"), str) else None,
            title=entry.get("title") or "",
            title_is_html="html" in (title_detail.get("type") or ""),
            summary=summary,
            summary_is_html=_is_html_type(summary_detail),
            content=content,
            content_is_html=content_is_html,
            base=content_base or url,
            author=author if isinstance(author, str) else "",
            dates=dates,
            line=lines[i] if aligned else 0,
        )


def _message(error: Any) -> str:
    """An error's message, without the "<unknown>:8:15:" a SAX error starts with."""
    get = getattr(error, "getMessage", None)
    return str(get() if callable(get) else error)


def _sax_line(error: Any, shift: int) -> int:
    """The line of a SAX error in the document as given (``shift`` lines were added)."""
    try:
        return max(int(error.getLineNumber()) - shift, 0)
    except (AttributeError, TypeError, ValueError):
        return 0


def _parse_xml(
    body: bytes, url: str, path: str, headers: Mapping[str, str] | None, now: _dt.datetime
) -> ParsedFeed:
    view = _view(body[:65536])
    root, _ = _root(view)
    if root.lower() == "html" or view.lstrip()[:15].lower().startswith("<!doctype html"):
        title = _HTML_TITLE.search(view)
        named = f" ({_cut(terminal_line(_html.unescape(title.group(1))), 60)!r})" if title else ""
        raise NotAFeed(f"an HTML page{named}, not a feed")
    body, notes = _prepare(body)
    problems = [Problem(path, line, note) for line, note in notes]
    sent = {k.lower(): v for k, v in (headers or {}).items() if isinstance(v, str)}
    sent["content-location"] = url
    # without a content type feedparser reads a document as Latin-1; XML defaults to UTF-8
    sent.setdefault("content-type", "application/xml")
    result = feedparser.parse(
        io.BytesIO(body),
        response_headers=sent,
        sanitize_html=False,
        resolve_relative_uris=False,
    )
    version = result.get("version") or ""
    # feedparser writes an XML declaration on a line of its own where there is none
    shift = 0 if view.startswith("<?xml") else 1
    if not version and not result.entries and not (_is_feed_root(root) and result.feed):
        _not_a_feed(view, root, result.get("bozo_exception"), shift)
    if result.get("bozo"):
        error = result.get("bozo_exception")
        name = type(error).__name__
        if name == "CharacterEncodingOverride":
            problems.append(Problem(path, 0, _cut(_message(error), 200)))
        elif name != "NonXMLContentType":  # (a server's wrong media type is no flaw of the feed)
            why = f"ill-formed XML ({_cut(_message(error), 100)}): read leniently"
            problems.append(Problem(path, _sax_line(error, shift), why))
    feed = result.feed
    kind = "atom" if version.startswith("atom") or root.lower() == "feed" else "rss"
    lines = _entry_lines(_view(body))
    titles = [feed.get("title") or ""] + [e.get("title") or "" for e in result.entries[:30]]
    language = feed.get("language") or sent.get("content-language")
    reader = _Reader(path, _is_chinese(language, titles), now)
    entries = reader.entries(list(_xml_raws(result, url, lines)))
    title_detail = feed.get("title_detail") or {}
    title = feed.get("title") or ""
    if "html" in (title_detail.get("type") or ""):
        title = html_to_text(title, url, plain=True)
    return ParsedFeed(
        kind=kind,
        title=_cut(terminal_line(title), 300) or _site_name(url),
        link=_http_url(feed.get("link"), url),
        entries=entries,
        problems=_capped(problems + reader.problems, path),
    )


def _not_a_feed(view: str, root: str, error: Any, shift: int) -> None:
    """Raise :class:`NotAFeed` saying what the document is."""
    if root and not _is_feed_root(root):
        raise NotAFeed(f"XML whose root element is <{_cut(root, 40)}>, not RSS or Atom")
    if error is not None and root:
        line = _sax_line(error, shift)
        at = f", line {line}" if line else ""
        raise NotAFeed(f"XML that could not be read ({_cut(_message(error), 100)}{at})")
    rest = terminal_line(view[_skip_prolog(view) :][:200])
    if not rest:
        raise NotAFeed("empty (no element, only a prolog or comments)")
    raise NotAFeed(f"not a feed: it starts with {_cut(rest, 40)!r}")


def _site_name(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    name = parts.netloc or parts.path.rsplit("/", 1)[-1]
    return terminal_line(name)


# --- JSON Feed ------------------------------------------------------------------------------

_JSON_FEED_VERSION = re.compile(r"^https?://jsonfeed\.org/version/\d+(?:\.\d+)?/?$")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


class _JsonFields:
    """Typed reads from one JSON object, each wrong type a problem (and the value dropped)."""

    def __init__(self, obj: dict[str, Any], where: str, report: Callable[[str], None]) -> None:
        self.obj = obj
        self.where = where
        self.report = report

    def text(self, name: str) -> str:
        value = self.obj.get(name)
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        self.report(f"{self.where}'{name}' must be a string, not {_kind(value)}: ignored")
        return ""

    def authors(self) -> str:
        names: list[str] = []
        authors = self.obj.get("authors")
        if authors is None and "author" in self.obj:
            authors = [self.obj["author"]]  # JSON Feed 1.0
        if authors is None:
            return ""
        if not isinstance(authors, list):
            self.report(f"{self.where}'authors' must be a list, not {_kind(authors)}: ignored")
            return ""
        for author in authors:
            if isinstance(author, dict) and isinstance(author.get("name"), str):
                names.append(author["name"])
            elif author is not None and not isinstance(author, dict):
                self.report(
                    f"{self.where}an author must be an object, not {_kind(author)}: ignored"
                )
        return ", ".join(n.strip() for n in names if n.strip())


def _parse_json(body: bytes, url: str, path: str, now: _dt.datetime) -> ParsedFeed:
    wide = _wide_codec(body)
    data = body[len(wide[1]) :].decode(wide[0], "replace").encode() if wide else body
    try:
        doc = orjson.loads(data.removeprefix(codecs.BOM_UTF8))
    except orjson.JSONDecodeError as error:
        raise NotAFeed(f"JSON that could not be read: {error.msg} (line {error.lineno})") from None
    if not isinstance(doc, dict):
        raise NotAFeed(f"JSON holding {_kind(doc)}, not a JSON Feed")
    problems: list[Problem] = []
    version = doc.get("version")
    items = doc.get("items")
    if not (isinstance(version, str) and _JSON_FEED_VERSION.match(version.strip())):
        if not isinstance(items, list):
            raise NotAFeed(
                'JSON, but not a JSON Feed (no "version" naming jsonfeed.org, no "items" list)'
            )
        problems.append(Problem(path, 0, 'no "version" naming jsonfeed.org: read as JSON Feed'))
    if not isinstance(items, list):
        problems.append(Problem(path, 0, f"'items' must be a list, not {_kind(items)}"))
        items = []
    if len(items) > MAX_ENTRIES:
        problems.append(
            Problem(path, 0, f"{len(items):,} items: only the first {MAX_ENTRIES:,} are read")
        )
        items = items[:MAX_ENTRIES]

    def report(message: str) -> None:
        problems.append(Problem(path, 0, message))

    top = _JsonFields(doc, "", report)
    feed_url = _http_url(top.text("feed_url"), url)
    home = _http_url(top.text("home_page_url"), url)
    base = feed_url or home or url
    feed_authors = top.authors()
    raws: list[_Raw] = []
    for number, item in enumerate(items, 1):
        where = f"item {number}: "
        if not isinstance(item, dict):
            report(f"{where}must be an object, not {_kind(item)}: skipped")
            continue
        fields = _JsonFields(item, where, report)
        raw_id = item.get("id")
        if isinstance(raw_id, (int, float)) and not isinstance(raw_id, bool):
            raw_id = str(raw_id)  # JSON Feed 1.0 publishers wrote numbers
        elif raw_id is not None and not isinstance(raw_id, str):
            report(f"{where}'id' must be a string, not {_kind(raw_id)}: ignored")
            raw_id = None
        content_html, content_text = fields.text("content_html"), fields.text("content_text")
        link = _joined(fields.text("url"), base) or _joined(fields.text("external_url"), base)
        dates = [(fields.text(name), None) for name in ("date_published", "date_modified")]
        raws.append(
            _Raw(
                ids=[raw_id] if raw_id else [],
                link=link,
                title=fields.text("title"),
                title_is_html=False,
                summary=fields.text("summary"),
                summary_is_html=False,
                content=content_html or content_text,
                content_is_html=bool(content_html),
                base=base,
                author=fields.authors() or feed_authors,
                dates=[d for d in dates if d[0].strip()],
                line=0,
            )
        )
    title = top.text("title")
    texts = [title] + [r.title or r.summary[:200] for r in raws[:30]]
    reader = _Reader(path, _is_chinese(doc.get("language"), texts), now)
    entries = reader.entries(raws)
    return ParsedFeed(
        kind="json",
        title=_cut(terminal_line(title), 300) or _site_name(url),
        link=home,
        entries=entries,
        problems=_capped(problems + reader.problems, path),
    )


# --- the entry point ------------------------------------------------------------------------


def parse_feed(
    body: bytes,
    *,
    url: str,
    path: str = "",
    headers: Mapping[str, str] | None = None,
    now: _dt.datetime | None = None,
) -> ParsedFeed:
    """The feed in ``body``: RSS 0.9x/1.0/2.0 or Atom 0.3/1.0 through feedparser, JSON Feed
    1.0/1.1 by its own reader. ``url`` is where the bytes came from (the final URL after
    redirects, or a ``file:`` URL): relative links resolve against it. ``path`` names the
    source in problems (default: ``url``); ``headers`` are the response's (their charset and
    content type count); ``now`` is the time dates are checked against (default: now).

    Raises :class:`NotAFeed` when the bytes are none of these feeds. Never expands an entity
    declared in the document, never reads a local file, never touches the network."""
    path = path or url
    now = now or _dt.datetime.now(UTC)
    if not body or not body.strip():
        raise NotAFeed("empty" if not body else "empty (only white space)")
    start = _view(body[:1024]).lstrip()
    if start.startswith(("{", "[")):
        return _parse_json(body, url, path, now)
    if not start.startswith("<") and b"\x00" in body[:1024] and _wide_codec(body) is None:
        raise NotAFeed("binary data, not a feed")
    return _parse_xml(body, url, path, headers, now)
