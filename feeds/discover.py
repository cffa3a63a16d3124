"""Finding the feeds an HTML page names: ``<link rel="alternate" type="application/rss+xml"
href="...">`` and its Atom and JSON Feed kin, as absolute URLs in document order.

The page comes from anyone, so it is read by a small tokenizer that follows the HTML
standard's rules for what it needs (tags and their attributes, comments, bogus comments,
elements whose content is text) and runs in one pass: every search starts where the last
one ended, so no page can make it slow, and nothing in a page makes it raise. The standard
library's ``html.parser`` was not enough here: it rescans the rest of the page each time a
construct is left open, and a 200 KB page of ``<svg><link "<x y=">`` took it over a minute
(Python 3.11.7), besides raising on ``<![``.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Iterator
from html import unescape
from urllib.parse import urljoin, urlsplit

FEED_TYPES = frozenset(
    {
        "application/rss+xml",
        "application/atom+xml",
        "application/feed+json",
        "application/json",
    }
)
# A <meta charset> (or http-equiv content="...; charset=") near the start says how to decode.
_META_CHARSET = re.compile(
    rb"<meta[^>]{0,512}?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]{1,40})", re.IGNORECASE
)
# Elements whose content is text up to their end tag: a <link> written there is no link.
_RAW_TEXT = frozenset(
    {"script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes"}
)
_RAW_TEXT_END = {
    name: re.compile(f"</{name}(?=[\t\n\f\r />])", re.IGNORECASE) for name in _RAW_TEXT
}
_ASCII_SPACE = "\t\n\f\r "
# What a browser strips from both ends of a URL: C0 controls and space.
_C0_AND_SPACE = "".join(map(chr, range(0x21)))
# The tokenizer's pieces, each anchored where the last one stopped.
_TAG_NAME = re.compile(r"[A-Za-z][^\t\n\f\r />]*")
_ATTR_NAME = re.compile(r"[^\t\n\f\r />][^\t\n\f\r /=>]*")
_UNQUOTED = re.compile(r"[^\t\n\f\r >]*")
_SPACE = re.compile(r"[\t\n\f\r ]*")
_SPACE_OR_SLASH = re.compile(r"[\t\n\f\r /]*")
_COMMENT_END = re.compile("--!?>")


def feed_links(html: bytes, base_url: str) -> list[tuple[str, str]]:
    """``(absolute URL, media type)`` of each feed the page names, in document order, each
    URL once. URLs resolve against the first ``<base href>`` when the page has one (wherever
    it stands, as in a browser), else ``base_url``. Only http(s) feeds are returned (and
    ``file`` ones when the page itself is a file)."""
    base_href: str | None = None
    links: list[tuple[str, str]] = []
    for tag, attrs in _start_tags(_decode(html)):
        href = attrs.get("href")
        if href is None:
            continue
        if tag == "base":
            if base_href is None:
                base_href = href
        elif tag == "link":
            rel = attrs.get("rel", "").lower().split()
            media = attrs.get("type", "").split(";", 1)[0].strip(_ASCII_SPACE).lower()
            if "alternate" in rel and media in FEED_TYPES:
                links.append((href, media))
    base = base_url
    if base_href is not None:
        base = _resolve(base_url, base_href) or base_url
    allowed = {"http", "https"}
    if _scheme(base_url) == "file":
        allowed.add("file")
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for href, media in links:
        url = _resolve(base, href)
        if url is None or _scheme(url) not in allowed or url in seen:
            continue
        seen.add(url)
        found.append((url, media))
    return found


def _start_tags(text: str) -> Iterator[tuple[str, dict[str, str]]]:
    """Every start tag in ``text`` as (lower-case name, attributes), in document order,
    the way an HTML tokenizer sees them: not those inside comments, bogus comments
    (``<!DOCTYPE>``, ``<?xml?>``, ``<![if]>``) or the content of script, style, title and
    the like. An attribute repeated keeps its first value; values have their character
    references decoded. A tag the text ends inside of is dropped, as in a browser."""
    pos = 0
    end = len(text)
    while (lt := text.find("<", pos)) >= 0 and lt + 1 < end:
        after = text[lt + 1]
        if after.isascii() and after.isalpha():
            tag = _tag(text, lt + 1)
            if tag is None:
                return
            name, attrs, pos = tag
            yield name, attrs
            if name in _RAW_TEXT:
                # The content runs to "</name" followed by a space, "/" or ">", or to the end.
                found = _RAW_TEXT_END[name].search(text, pos)
                if found is None:
                    return
                pos = found.start()
            elif name == "plaintext":
                return  # everything after <plaintext> is text
        elif after == "/" and text[lt + 2 : lt + 3].isascii() and text[lt + 2 : lt + 3].isalpha():
            # An end tag is tokenized like a start tag (its attributes may quote a ">").
            tag = _tag(text, lt + 2)
            if tag is None:
                return
            pos = tag[2]
        elif text.startswith("<!--", lt):
            # "<!-->" and "<!--->" are whole (empty) comments, else the first "-->" or "--!>"
            # ends one, and a comment never closed runs to the end.
            if text.startswith(">", lt + 4):
                pos = lt + 5
            elif text.startswith("->", lt + 4):
                pos = lt + 6
            elif closed := _COMMENT_END.search(text, lt + 4):
                pos = closed.end()
            else:
                return
        elif text.startswith("<![CDATA[", lt):
            # In SVG and MathML this is text to "]]>"; elsewhere HTML reads a bogus comment
            # to the next ">". Taking it as text to "]]>" finds no link in either.
            closed_at = text.find("]]>", lt + 9)
            if closed_at < 0:
                return
            pos = closed_at + 3
        elif after in "!?/":
            # Bogus comments (<!DOCTYPE ...>, <?xml ...?>, <![if ...]>, "</" and no letter)
            # run to the next ">"; "</>" is dropped the same way.
            gt = text.find(">", lt + 2)
            if gt < 0:
                return
            pos = gt + 1
        else:
            pos = lt + 1  # a "<" that opens nothing is text


def _tag(text: str, start: int) -> tuple[str, dict[str, str], int] | None:
    """The tag whose name starts at ``start`` (a letter): (lower-case name, attributes,
    where it ends), or None when the text ends inside it."""
    end = len(text)
    pos = _skip(_TAG_NAME, text, start)
    name = text[start:pos].lower()
    attrs: dict[str, str] = {}
    while True:
        # "/" between attributes (as in "<link ... />") is skipped, as in HTML.
        pos = _skip(_SPACE_OR_SLASH, text, pos)
        if pos >= end:
            return None
        if text[pos] == ">":
            return name, attrs, pos + 1
        named = _skip(_ATTR_NAME, text, pos)
        attr = text[pos:named].lower()
        pos = _skip(_SPACE, text, named)
        value = ""
        if text.startswith("=", pos):
            pos = _skip(_SPACE, text, pos + 1)
            if pos >= end:
                return None
            quote = text[pos]
            if quote in "\"'":
                closing = text.find(quote, pos + 1)
                if closing < 0:
                    return None
                value = text[pos + 1 : closing]
                pos = closing + 1
            else:
                unquoted = _skip(_UNQUOTED, text, pos)
                value = text[pos:unquoted]
                pos = unquoted
        attrs.setdefault(attr, unescape(value))


def _skip(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where a run of ``pattern`` starting at ``pos`` ends (``pos`` if there is none)."""
    run = pattern.match(text, pos)
    return run.end() if run else pos


def _decode(data: bytes) -> str:
    """The page as text: by its byte order mark, else its ``<meta charset>``, else UTF-8."""
    if data.startswith(codecs.BOM_UTF8):
        return data[3:].decode("utf-8", "replace")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", "replace")
    match = _META_CHARSET.search(data[:4096])
    if match:
        name = match.group(1).decode("ascii").lower()
        # A page that says UTF-16 in ASCII is not UTF-16 (the HTML standard reads it as UTF-8).
        if not name.startswith("utf-16"):
            try:
                return data.decode(name, "replace")
            except (LookupError, ValueError, TypeError):
                pass  # an unknown or non-text codec name: fall back to UTF-8
    return data.decode("utf-8", "replace")


def _resolve(base: str, href: str) -> str | None:
    """``href`` made absolute against ``base`` as a browser would (surrounding white space
    dropped, tabs and newlines inside removed), with controls, spaces and invisible format
    characters percent-encoded so the URL is safe to store and show; None if unusable."""
    href = href.strip(_C0_AND_SPACE)
    href = re.sub("[\t\n\r]", "", href)
    if not href:
        return None
    try:
        url = urljoin(base, href)
        urlsplit(url)  # raises on a bracketed host that is not an IP address
    except ValueError:
        return None
    return "".join(_safe_char(ch) for ch in url)


def _safe_char(ch: str) -> str:
    if ch == " " or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs"):
        return "".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))
    return ch


def _scheme(url: str) -> str:
    try:
        return urlsplit(url).scheme.lower()
    except ValueError:
        return ""
