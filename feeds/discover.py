"""Finding the feeds an HTML page names: ``<link rel="alternate" type="application/rss+xml"
href="...">`` and its Atom and JSON Feed kin, as absolute URLs in document order.

The page comes from anyone, so the parser is the standard library's tolerant ``html.parser``
(no network, no entities from outside), shielded from the inputs that make it slow or raise.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from html.parser import HTMLParser
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
_RAW_TEXT = frozenset({"title", "textarea", "xmp", "iframe", "noembed", "noframes"})
_COMMENT_END = re.compile("--!?>")
_ASCII_SPACE = "\t\n\f\r "
# What a browser strips from both ends of a URL: C0 controls and space.
_C0_AND_SPACE = "".join(map(chr, range(0x21)))


def feed_links(html: bytes, base_url: str) -> list[tuple[str, str]]:
    """``(absolute URL, media type)`` of each feed the page names, in document order, each
    URL once. URLs resolve against ``<base href>`` when the page has one, else ``base_url``.
    Only http(s) feeds are returned (and ``file`` ones when the page itself is a file)."""
    text = _without_comments(_decode(html))
    # html.parser rescans to the end of the text for every construct left open there, which
    # makes a page of unterminated "<!" or "<a '" quadratic: nothing after the last '>' can
    # be a tag anyway.
    text = text[: text.rfind(">") + 1]
    # "<![" outside SVG and MathML is a bogus comment to the next '>' in HTML, and it makes
    # html.parser raise: spelled "<! [" it is parsed as that bogus comment.
    text = text.replace("<![", "<! [")
    parser = _LinkParser()
    try:
        parser.feed(text)
        parser.close()
    except Exception:  # html.parser still asserts on some markup: keep the links found
        pass
    base = base_url
    if parser.base is not None:
        resolved = _resolve(base_url, parser.base)
        if resolved is not None:
            base = resolved
    allowed = {"http", "https"}
    if _scheme(base_url) == "file":
        allowed.add("file")
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for href, media in parser.links:
        url = _resolve(base, href)
        if url is None or _scheme(url) not in allowed or url in seen:
            continue
        seen.add(url)
        found.append((url, media))
    return found


class _LinkParser(HTMLParser):
    """Collects the first ``<base href>`` and every feed ``<link>`` (href and type)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.base: str | None = None
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _RAW_TEXT:
            # Their content is text up to their end tag in HTML (html.parser knows this of
            # script and style only), so a <link> written there is no link.
            self.set_cdata_mode(tag)
            return
        if tag not in ("link", "base"):
            return
        values: dict[str, str] = {}
        for name, value in attrs:
            # The first of a repeated attribute counts, as in a browser.
            values.setdefault(name, value or "")
        href = values.get("href")
        if href is None:
            return
        if tag == "base":
            if self.base is None:
                self.base = href
            return
        rel = values.get("rel", "").lower().split()
        media = values.get("type", "").split(";", 1)[0].strip(_ASCII_SPACE).lower()
        if "alternate" in rel and media in FEED_TYPES:
            self.links.append((href, media))

    handle_startendtag = handle_starttag


def _without_comments(text: str) -> str:
    """``text`` with each comment replaced by a space, in one pass. html.parser searches to
    the end for the close of every comment left open, so a page of "<!--" is quadratic
    there; here each search starts where the last one ended. The space keeps the text on
    either side from joining into a new "<!--"."""
    kept: list[str] = []
    pos = 0
    while (start := text.find("<!--", pos)) >= 0:
        kept.append(text[pos:start])
        kept.append(" ")
        # As in HTML: "<!-->" and "<!--->" are whole (empty) comments, else the first "-->"
        # or "--!>" ends it, and a comment never closed runs to the end.
        if text.startswith(">", start + 4):
            pos = start + 5
        elif text.startswith("->", start + 4):
            pos = start + 6
        elif end := _COMMENT_END.search(text, start + 4):
            pos = end.end()
        else:
            return "".join(kept)
    kept.append(text[pos:])
    return "".join(kept)


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
