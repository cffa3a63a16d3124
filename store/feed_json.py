"""JSON Feed 1.0 and 1.1, read by hand: every field's type checked, a wrong one reported and
dropped, relative URLs resolved against the feed's own URL, its home page or the fetch URL."""

from __future__ import annotations

import codecs
import datetime as _dt
import re
from collections.abc import Callable
from typing import Any

import orjson

from .feed_xml import wide_codec
from .html_text import terminal_line
from .models import Problem
from .parsed_feed import (
    MAX_ENTRIES,
    EntryReader,
    NotAFeed,
    ParsedFeed,
    RawEntry,
    capped,
    http_url,
    is_chinese,
    joined_url,
    one_line,
    site_name,
)

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


def parse_json_feed(body: bytes, url: str, path: str, now: _dt.datetime) -> ParsedFeed:
    wide = wide_codec(body)
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
    feed_url = http_url(top.text("feed_url"), url)
    home = http_url(top.text("home_page_url"), url)
    base = feed_url or home or url
    feed_authors = top.authors()
    raws: list[RawEntry] = []
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
        link = joined_url(fields.text("url"), base) or joined_url(fields.text("external_url"), base)
        dates = [(fields.text(name), None) for name in ("date_published", "date_modified")]
        raws.append(
            RawEntry(
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
    reader = EntryReader(path, is_chinese(doc.get("language"), texts), now)
    entries = reader.entries(raws)
    return ParsedFeed(
        kind="json",
        title=one_line(terminal_line(title), 300) or site_name(url),
        link=home,
        entries=entries,
        problems=capped(problems + reader.problems, path),
    )
