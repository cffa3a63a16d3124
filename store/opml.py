"""OPML subscription lists: read from bytes (never a URL or a file name) with expat, where a
document that declares an entity is refused, and written as OPML 2.0 that reads back the same.

Folders are kept: an outline's folder is the path of the outlines it is nested in, joined with
"/"; an outline at the top takes its first ``category`` instead (OPML 2.0's "/a/b" form).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit
from xml.parsers import expat
from xml.sax.saxutils import quoteattr

from .html_text import terminal_line
from .models import Problem

FEED_SCHEMES = ("http", "https")
MAX_PROBLEMS = 50  # problems listed for one document at most


@dataclass(frozen=True, slots=True)
class OutlineFeed:
    url: str
    title: str
    folder: str  # nested outline folders (or the category) joined with "/", "" at the top
    line: int


class _Refused(Exception):
    """The document declares an entity: nothing in it is read."""


# Encodings expat reads itself; any other is decoded by Python first.
_EXPAT_ENCODINGS = frozenset({"utf-8", "utf8", "utf-16", "utf16", "us-ascii", "ascii"})
_DECLARED = re.compile(rb"""^(\s*<\?xml[^>]*?encoding\s*=\s*)(["'])([A-Za-z0-9._:-]+)\2""")
# Characters XML 1.0 cannot hold, even as references.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _for_expat(data: bytes) -> bytes:
    """``data`` in an encoding expat reads: a document declaring another one (GBK, Big5,
    Windows-1252, ...) is decoded by Python and handed over as UTF-8, its lines unchanged."""
    match = _DECLARED.match(data)
    if not match:
        return data
    name = match.group(3).decode("ascii").lower()
    if name in _EXPAT_ENCODINGS or data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data
    try:
        codec = codecs.lookup("gb18030" if name in ("gb2312", "gbk") else name).name
        text = data.decode(codec, "replace")
    except LookupError:
        return data  # expat names the unknown encoding
    declaration = match.group(1) + b'"utf-8"'
    return declaration + text.encode("utf-8")[len(match.group(0)) :]


def _attribute(attrs: dict[str, str], name: str) -> str:
    """An attribute by name, its case ignored (exporters write xmlUrl, xmlurl and XMLURL)."""
    if name in attrs:
        return attrs[name]
    lower = name.lower()
    return next((v for k, v in attrs.items() if k.lower() == lower), "")


def _scheme(url: str) -> str:
    try:
        return urlsplit(url).scheme.lower()
    except ValueError:  # (an unclosed "[" in the host, a port that is no number)
        return ""


def _folder_name(text: str) -> str:
    return terminal_line(text).strip("/ ").replace("\n", " ")


class _Reader:
    """expat's handlers: the feeds of the outlines as they open, the folders they sit in."""

    def __init__(self, parser: Any, path: str) -> None:
        self.parser = parser
        self.path = path
        self.feeds: list[OutlineFeed] = []
        self.problems: list[Problem] = []
        self.seen: dict[str, int] = {}
        self.stack: list[str | None] = []  # per open outline: its folder name, None for a feed
        self.elements: list[str] = []
        self.root = ""

    def problem(self, message: str, line: int | None = None) -> None:
        where = self.parser.CurrentLineNumber if line is None else line
        self.problems.append(Problem(self.path, where, message))

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if not self.elements:
            self.root = name
        self.elements.append(name)
        if name != "outline" or self.root.lower() != "opml":
            return
        line = self.parser.CurrentLineNumber
        url = _attribute(attrs, "xmlUrl").strip()
        kind = _attribute(attrs, "type").strip().lower()
        if not url and kind in ("rss", "atom", "feed", "json"):
            url = _attribute(attrs, "url").strip()
        label = _attribute(attrs, "title") or _attribute(attrs, "text")
        if not url:
            if kind in ("rss", "atom"):
                self.problem(f"an outline of type {kind} without an xmlUrl: skipped", line)
                self.stack.append(None)
            else:  # a folder (one without a name adds no level)
                self.stack.append(_folder_name(label) or None)
            return
        self.stack.append(None)
        if _scheme(url) not in FEED_SCHEMES or terminal_line(url) != url:
            shown = terminal_line(url)[:80]
            self.problem(f"{shown!r} is no http or https URL: skipped", line)
            return
        if url in self.seen:
            self.problem(f"{url[:80]} is listed already at line {self.seen[url]}: skipped", line)
            return
        self.seen[url] = line
        folders = [f for f in self.stack[:-1] if f]
        if not folders:
            category = _attribute(attrs, "category").split(",")[0]
            folders = [p for p in (_folder_name(c) for c in category.split("/")) if p]
        self.feeds.append(
            OutlineFeed(url=url, title=terminal_line(label), folder="/".join(folders), line=line)
        )

    def end(self, name: str) -> None:
        if self.elements:
            self.elements.pop()
        if name == "outline" and self.root.lower() == "opml" and self.stack:
            self.stack.pop()


def _refuse(*_args: object) -> None:
    raise _Refused


def read_opml(data: bytes, path: str = "") -> tuple[list[OutlineFeed], list[Problem]]:
    """The feeds an OPML document lists, in document order, with the problems found (each
    naming its line). Never raises on bad input: ill-formed XML keeps the feeds before the
    error; a document declaring an entity is refused whole (no entity is ever expanded, no
    external one read); only http and https feeds are taken; a URL listed twice is kept once.

    ``data`` must be bytes: a string is refused rather than taken for a URL or a file name."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"read_opml reads bytes, not {type(data).__name__}")
    data = bytes(data)
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.EntityDeclHandler = _refuse
    parser.UnparsedEntityDeclHandler = _refuse
    parser.ExternalEntityRefHandler = _refuse
    reader = _Reader(parser, path)
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    if not data.strip():
        return [], [Problem(path, 0, "empty: no OPML")]
    try:
        parser.Parse(_for_expat(data), True)
    except _Refused:
        return [], [
            Problem(
                path,
                parser.CurrentLineNumber,
                "declares an entity: not read (entities in OPML are never expanded)",
            )
        ]
    except expat.ExpatError as error:
        reason = expat.errors.messages.get(error.code, str(error))
        reader.problem(
            f"ill-formed XML ({reason}): the outlines after it are not read", error.lineno
        )
    if reader.root and reader.root.lower() != "opml":
        return [], [Problem(path, 1, f"not OPML: the root element is <{reader.root[:40]}>")]
    problems = reader.problems
    if len(problems) > MAX_PROBLEMS:
        more = Problem(path, 0, f"{len(problems) - MAX_PROBLEMS:,} more problems not listed")
        problems = [*problems[:MAX_PROBLEMS], more]
    return reader.feeds, problems


# --- writing --------------------------------------------------------------------------------


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("", terminal_line(text))


def _folder_parts(folder: str) -> list[str]:
    return [part for part in (_folder_name(p) for p in folder.split("/")) if part]


def write_opml(feeds: Sequence[OutlineFeed], title: str = "topiclens subscriptions") -> bytes:
    """OPML 2.0 listing ``feeds`` in their order, each folder an outline holding its feeds:
    :func:`read_opml` reads it back to the same URLs, titles and folders, in the same order."""
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<opml version="2.0">',
        "  <head>",
        f"    <title>{_escape(_xml_text(title))}</title>",
        "  </head>",
        "  <body>",
    ]
    open_folders: list[str] = []
    for feed in feeds:
        parts = _folder_parts(feed.folder)
        common = 0
        while common < min(len(parts), len(open_folders)) and parts[common] == open_folders[common]:
            common += 1
        while len(open_folders) > common:
            open_folders.pop()
            out.append("    " + "  " * len(open_folders) + "</outline>")
        for part in parts[common:]:
            name = quoteattr(_xml_text(part))
            out.append("    " + "  " * len(open_folders) + f"<outline text={name} title={name}>")
            open_folders.append(part)
        label = quoteattr(_xml_text(feed.title))
        out.append(
            "    " + "  " * len(open_folders) + f'<outline type="rss" text={label} '
            f"title={label} xmlUrl={quoteattr(_xml_text(feed.url))}/>"
        )
    while open_folders:
        open_folders.pop()
        out.append("    " + "  " * len(open_folders) + "</outline>")
    out += ["  </body>", "</opml>", ""]
    return "\n".join(out).encode("utf-8")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
