"""What a parsed feed is (:class:`ParsedFeed` of :class:`FeedEntry` values), and how the entries
any feed format yields are made into them: HTML sanitised and turned into terminal text,
titles and summaries derived where missing, identity keys, dates, one entry for each key."""

from __future__ import annotations

import datetime as _dt
import hashlib
import html as _html
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from .feed_dates import DateFallback, Unreadable, read_date
from .html_render import joins_unchanged
from .html_text import html_to_text, sanitize_html, terminal_line, terminal_safe, text_of_sanitized
from .models import Problem
from .text import detect_language

SUMMARY_CHARS = 600  # a summary's length at most, in characters
TITLE_CHARS = 120  # a title derived from the content, at most
KEY_CHARS = 512  # a longer id or link is kept as its hash
MAX_PROBLEMS = 50  # problems listed for one document at most
MAX_ENTRIES = 1000  # entries read from one document at most
# The HTML of one document's entries made into text at most (in characters): rendering runs
# at about a megabyte a second, so a 16 MiB feed of dense markup would hold a refresh for
# long; past this, the later entries keep their title and summary and their content is cut.
MAX_FEED_HTML_CHARS = 4_000_000
# HTML read for a summary at first (more when it holds too little text): prose is about half
# markup, so this is some 1,500 characters of text.
_SUMMARY_WINDOW = 2 * SUMMARY_CHARS + 2048


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


_NOT_IN_URLS = re.compile(r"[\x00\n\r\t\x1b]")


def http_url(url: Any, base: str | None = None) -> str | None:
    """``url`` made absolute against ``base``, when it is http or https; else None."""
    if not isinstance(url, str):
        return None
    url = url.strip()
    if not url:
        return None
    # (an absolute http(s) URL that no join or split would change, as most links are)
    if len(url) <= 4096 and joins_unchanged(base or "", url):
        return url
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
    if _NOT_IN_URLS.search(url) or len(url) > 4096:
        return None
    return url


def joined_url(url: str, base: str) -> str | None:
    """``url`` resolved against ``base``, whatever its scheme; None when empty or unreadable."""
    if not url.strip():
        return None
    try:
        return urljoin(base, url.strip())
    except ValueError:
        return None


def one_line(text: str, limit: int) -> str:
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
    return one_line(sentence or first, TITLE_CHARS)


def _plain_html(text: str) -> str:
    """Plain text as HTML: paragraphs at blank lines, line breaks kept."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "\n".join(
        "<p>" + _html.escape(terminal_safe(p), quote=False).replace("\n", "<br>\n") + "</p>"
        for p in paragraphs
    )


def _summary_of(clean_html: str, limit: int) -> str:
    """The start of sanitised HTML as one line of text, without rendering all of it."""
    window = _SUMMARY_WINDOW
    while True:
        head = clean_html
        if len(clean_html) > window:
            tag = clean_html.rfind("<", 0, window)  # cut before a tag, not inside one
            head = clean_html[: tag if tag > 0 else window]
        text = text_of_sanitized(head, plain=True)
        if len(text) > limit or len(head) == len(clean_html) or window > 1 << 22:
            return one_line(text, limit)
        window *= 4


@dataclass(slots=True)
class RawEntry:
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
    dates: list[tuple[str, DateFallback]]  # each text, with feedparser's reading of it
    line: int


class EntryReader:
    """Turns :class:`RawEntry` entries into :class:`FeedEntry` values, keeping the problems."""

    def __init__(self, path: str, chinese: bool, now: _dt.datetime) -> None:
        self.path = path
        self.chinese = chinese
        self.now = now
        self.problems: list[Problem] = []
        self.date_troubles: dict[str, tuple[str, int, int]] = {}  # why -> (text, line, count)
        self.html_left = MAX_FEED_HTML_CHARS
        self.cut_contents = 0

    def problem(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.path, line, message))

    def date(self, raw: RawEntry) -> _dt.datetime | None:
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

    def budgeted(self, html: str) -> str:
        """``html``, or as much of it as the document's budget has left, with a note."""
        if len(html) <= self.html_left:
            self.html_left -= len(html)
            return html
        tag = html.rfind("<", 0, self.html_left)  # cut before a tag, not inside one
        end = tag if tag > 0 else self.html_left
        self.html_left, self.cut_contents = 0, self.cut_contents + 1
        note = (
            f"[content cut here: the feed's entries hold more than {MAX_FEED_HTML_CHARS:,} "
            "characters of HTML]"
        )
        return f"{html[:end]}<p>{_html.escape(note)}</p>"

    def entry(self, raw: RawEntry, *, link_is_key: bool = True) -> FeedEntry | None:
        summary_html = ""
        if raw.content_is_html:
            budgeted = self.budgeted(raw.content)
            content_html = sanitize_html(budgeted, raw.base)
            content_text = text_of_sanitized(content_html)
            summary_html = content_html
            if budgeted is not raw.content:  # cut: the summary still says what the entry says
                head = raw.content[:_SUMMARY_WINDOW]
                tag = head.rfind("<")  # cut before a tag, not inside one
                summary_html = sanitize_html(head[:tag] if tag > 0 else head, raw.base)
        else:
            content_text = terminal_safe(raw.content).strip()
            content_html = _plain_html(raw.content)
        if raw.summary.strip():
            if raw.summary_is_html:
                summary = one_line(html_to_text(raw.summary, raw.base, plain=True), SUMMARY_CHARS)
            else:
                summary = one_line(terminal_safe(raw.summary), SUMMARY_CHARS)
        else:
            summary = _summary_of(summary_html or content_html, SUMMARY_CHARS)
        # (one_line makes its text terminal-safe on one line itself)
        title = html_to_text(raw.title, raw.base, plain=True) if raw.title_is_html else raw.title
        url = http_url(raw.link)
        title = one_line(title, 1000) or _derived_title(summary or content_text) or url or ""
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
            author=one_line(raw.author, 200),
            published=self.date(raw),
            line=raw.line,
        )

    def entries(self, raws: list[RawEntry]) -> list[FeedEntry]:
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
                f"{id_less[link]} entries without an id share the link {one_line(link, 80)}: "
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
                    f"the id {one_line(entry.key, 80)!r} repeats that of an earlier entry"
                    + (f" (line {seen[entry.key]})" if seen[entry.key] else "")
                    + ": the first kept",
                )
                continue
            seen[entry.key] = raw.line
            out.append(entry)
        if self.cut_contents:
            self.problem(
                0,
                f"the entries hold more than {MAX_FEED_HTML_CHARS:,} characters of HTML: the "
                f"content of {self.cut_contents:,} is cut (their titles and summaries are kept)",
            )
        for why, (text, line, count) in self.date_troubles.items():
            times = f" ({count} entries)" if count > 1 else ""
            self.problem(
                line, f"date {one_line(text, 60)!r}: {why}{times}; the time first seen is used"
            )
        return out


def capped(problems: list[Problem], path: str) -> list[Problem]:
    """At most :data:`MAX_PROBLEMS` problems, then one saying how many more there were."""
    if len(problems) <= MAX_PROBLEMS:
        return problems
    more = len(problems) - MAX_PROBLEMS
    return [*problems[:MAX_PROBLEMS], Problem(path, 0, f"{more:,} more problems not listed")]


def _hash_key(*parts: str) -> str:
    payload = "\x1f".join(" ".join(part.split()) for part in parts)
    return "sha256:" + hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


def is_chinese(language: Any, texts: list[str]) -> bool:
    """Whether a feed is Chinese: its language says zh, or its titles are Chinese."""
    if isinstance(language, str) and language.strip().lower().startswith("zh"):
        return True
    return detect_language(" ".join(texts)[:20_000]) in ("zh", "mixed")


def site_name(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    name = parts.netloc or parts.path.rsplit("/", 1)[-1]
    return terminal_line(name)
