"""Finding the feeds an HTML page names: ``<link rel="alternate" type="application/rss+xml"
href="...">`` and its Atom and JSON Feed kin, as absolute URLs in document order.

The page comes from anyone, so it is read by a small tokenizer that follows the HTML
standard's rules for what it needs (tags and their attributes, comments, bogus comments,
elements whose content is text) and runs in one pass: every search starts where the last
one ended, so its time grows with the page's length alone, and nothing in a page makes it
raise. The standard
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
# Where markup may start: "<" and a letter (a tag), "/" (an end tag), "!" or "?" (comments
# and declarations). Any other "<" is text.
_MARKUP = re.compile(r"<[A-Za-z!?/]")
# A whole tag from its name to its ">", tokenized as the HTML standard does: a value in
# quotes may hold ">" or "<", a value opened by a quote must close, "/" between attributes
# is skipped. Possessive quantifiers never give back, so a tag never closed fails in one
# pass instead of backtracking.
_TAG = re.compile(
    r"""
    ([A-Za-z][^\t\n\f\r />]*+)                  # the name
    (                                           # the attributes:
      (?: [\t\n\f\r /]++                        #   separators
        | [^\t\n\f\r />][^\t\n\f\r /=>]*+       #   a name,
          [\t\n\f\r ]*+
          (?: = [\t\n\f\r ]*+                   #   and its value when "=" follows
              (?: "[^"]*+" | '[^']*+' | (?!["'])[^\t\n\f\r >]*+ )
            | (?!=) )
      )*+
    )
    >
    """,
    re.VERBOSE,
)
# One attribute inside a tag _TAG matched: its name and its value (in double quotes, in
# single quotes or bare).
_ATTRIBUTE = re.compile(
    r"""
    ([^\t\n\f\r />][^\t\n\f\r /=>]*+) [\t\n\f\r ]*+
    (?: = [\t\n\f\r ]*+ (?: "([^"]*+)" | '([^']*+)' | ([^\t\n\f\r >]*+) ) )?
    """,
    re.VERBOSE,
)
_COMMENT_END = re.compile("--!?>")


def feed_links(html: bytes, base_url: str) -> list[tuple[str, str]]:
    """``(absolute URL, media type)`` of each feed the page names, in document order, each
    URL once. URLs resolve against the first ``<base href>`` when the page has one (wherever
    it stands, as in a browser), else ``base_url``. Only http(s) feeds are returned (and
    ``file`` ones when the page itself is a file)."""
    base_href: str | None = None
    links: list[tuple[str, str]] = []
    for tag, attrs in _link_and_base_tags(_decode(html)):
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


def _link_and_base_tags(text: str) -> Iterator[tuple[str, dict[str, str]]]:
    """Every ``<link>`` and ``<base>`` start tag in ``text`` as (name, attributes), in
    document order, the way an HTML tokenizer sees them: not those inside comments, bogus
    comments (``<!DOCTYPE>``, ``<?xml?>``, ``<![if]>``), attribute values, or the content of
    script, style, title and the like. A tag the text ends inside of is dropped, and
    everything after it, as in a browser."""
    pos = 0
    while markup := _MARKUP.search(text, pos):
        lt = markup.start()
        after = text[lt + 1]
        if after.isalpha():
            tag = _TAG.match(text, lt + 1)
            if tag is None:
                return
            pos = tag.end()
            name = tag.group(1).lower()
            if name in ("link", "base"):
                yield name, _attributes(tag.group(2))
            elif name in _RAW_TEXT:
                # The content runs to "</name" followed by a space, "/" or ">", or to the end.
                found = _RAW_TEXT_END[name].search(text, pos)
                if found is None:
                    return
                pos = found.start()
            elif name == "plaintext":
                return  # everything after <plaintext> is text
        elif after == "/" and text[lt + 2 : lt + 3].isascii() and text[lt + 2 : lt + 3].isalpha():
            # An end tag is tokenized like a start tag (its attributes may quote a ">").
            tag = _TAG.match(text, lt + 2)
            if tag is None:
                return
            pos = tag.end()
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
        else:
            # Bogus comments (<!DOCTYPE ...>, <?xml ...?>, <![if ...]>, "</" and no letter)
            # run to the next ">"; "</>" is dropped the same way.
            gt = text.find(">", lt + 2)
            if gt < 0:
                return
            pos = gt + 1


def _attributes(inside: str) -> dict[str, str]:
    """The attributes of a tag (what _TAG matched after its name), names in lower case,
    values with their character references decoded; a repeated one keeps its first value."""
    attrs: dict[str, str] = {}
    for attribute in _ATTRIBUTE.finditer(inside):
        name, double, single, bare = attribute.groups()
        value = double if double is not None else single if single is not None else bare
        attrs.setdefault(name.lower(), unescape(value or ""))
    return attrs


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
