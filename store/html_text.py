"""HTML from feeds made safe: readable terminal text (:func:`html_to_text`) and HTML safe to
embed in the HTML export (:func:`sanitize_html`).

Both go through nh3 (the Rust ammonia sanitiser) with an allow-list, never through
hand-written filtering. Its output is well-formed HTML with every attribute double-quoted, so
the text renderer reads it with one exact regular expression instead of a second parser.
Both are linear in their input: html5ever (nh3's parser) is quadratic in the depth of nested
block elements, so tags nested deeper than :data:`MAX_DEPTH` are dropped first (their text
kept), and input beyond :data:`MAX_HTML_CHARS` is cut with a note saying so.
"""

from __future__ import annotations

import html as _html
import re
from functools import lru_cache
from itertools import accumulate
from urllib.parse import urlsplit

import nh3

# Deeper nesting than this is never real writing; it only costs html5ever quadratic time.
MAX_DEPTH = 128
# One entry's HTML read at most (in characters), data: URLs aside: some 50 pages of text, far
# past any real article, and a few tenths of a second of work.
MAX_HTML_CHARS = 1_000_000
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_KEPT_SCHEMES = LINK_SCHEMES | {""}  # "" for a relative URL

# Text a terminal acts on or that reorders what is shown: escape sequences (CSI, OSC, DCS and
# the rest, 7-bit and 8-bit) as a whole, then every C0/C1 control but newline, DEL, bidi
# controls, other invisible format characters but ZWJ/ZWNJ, and lone surrogates.
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"  # CSI
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC...
    r"|\x1b[ -/]*[0-~]?"  # other ESC sequences
)
_CONTROLS = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\u00ad\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u2028\u2029"
    "\u2060-\u2064\u206a-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f\ud800-\udfff]"
)
# What the HTML export keeps: newline and tab (code in <pre>), no other control.
_HTML_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def terminal_safe(text: str) -> str:
    """``text`` with nothing a terminal acts on: escape sequences and every control character
    but newline removed (tabs become spaces), bidi controls and invisible format characters
    removed."""
    if "\t" in text:
        text = text.expandtabs(4)
    return _CONTROLS.sub("", _strip_escapes(text))


def _strip_escapes(text: str) -> str:
    """``text`` without terminal escape sequences, each removed whole (not only its ESC)."""
    if "\x1b" in text or "\x9b" in text or "\x90" in text or "\x9d" in text:
        return _ESCAPES.sub("", text)
    return text


def terminal_line(text: str) -> str:
    """:func:`terminal_safe` on one line: every run of white space becomes one space."""
    return " ".join(terminal_safe(text).split())


# --- bounding the input ---------------------------------------------------------------------

# Start and end tags of the elements that nest: void elements and those the parser closes by
# itself (p, li, td, ...) never deepen the tree, so they are not counted. Matched in lower case
# on a lowered copy: the case-insensitive pattern is five times slower.
_NESTING = (
    "a|abbr|address|article|aside|b|bdi|bdo|blockquote|center|cite|code|dd|del|details|dfn|"
    "dialog|dir|div|dl|em|fieldset|figcaption|figure|font|footer|form|h[1-6]|header|hgroup|i|"
    "ins|kbd|main|mark|menu|nav|nobr|ol|pre|q|s|samp|section|small|span|strike|strong|sub|"
    "summary|sup|table|tt|u|ul|var"
)
_NESTING_TAG = re.compile(rf"<(/?)(?:{_NESTING})(?=[\s/>])")
_STEP = {"": 1, "/": -1}
# data: URLs (inline images) are dropped anyway: removed before the length is measured, so a
# pasted screenshot does not push the article's text past the cut.
_DATA_URL = re.compile(
    r"""(?i:\b(?:src|href)\s*=\s*)(?:"\s*data:[^"]*"?|'\s*data:[^']*'?|data:[^\s>]*)"""
)


def _flatten(html: str) -> str:
    """``html`` with the start and end tags nested deeper than :data:`MAX_DEPTH` removed (their
    text stays). The count is of tags as written, an upper bound of the depth html5ever
    builds; most documents never reach the limit and come back untouched."""
    low = html.lower()
    if len(low) != len(html):  # a few characters grow when lowered: keep offsets exact
        low = "".join(ch.lower() if ch.isascii() else ch for ch in html)
    marks = _NESTING_TAG.findall(low)
    if len(marks) <= MAX_DEPTH or max(accumulate(map(_STEP.__getitem__, marks))) <= MAX_DEPTH:
        return html
    out: list[str] = []
    last = depth = dropped = 0
    for match in _NESTING_TAG.finditer(low):
        if match.group(1):  # an end tag
            if not dropped:
                depth = max(depth - 1, 0)
                continue
            dropped -= 1
        elif depth < MAX_DEPTH:
            depth += 1
            continue
        else:
            dropped += 1
        close = html.find(">", match.end())
        out.append(html[last : match.start()])
        last = close + 1 if close >= 0 else len(html)
    out.append(html[last:])
    return "".join(out)


def _bounded(html: str) -> tuple[str, int]:
    """``html`` without data: URLs, cut to :data:`MAX_HTML_CHARS` (before a tag where there is
    one near the cut) and flattened; with the number of characters cut."""
    if "data:" in html:
        html = _DATA_URL.sub("", html)
    cut = 0
    if len(html) > MAX_HTML_CHARS:
        end = html.rfind("<", MAX_HTML_CHARS - 10_000, MAX_HTML_CHARS)
        end = end if end > 0 else MAX_HTML_CHARS
        cut = len(html) - end
        html = html[:end]
    return _flatten(html), cut


def _cut_note(cut: int) -> str:
    return f"[content cut here: {cut:,} more characters of HTML not shown]"


# --- the sanitiser --------------------------------------------------------------------------

# Elements whose content goes with them: code, styles, embedded documents, form controls, and
# SVG/MathML (their text is labels and formula fragments, not prose).
_DROP_WITH_CONTENT = frozenset(
    {
        "script",
        "style",
        "template",
        "noscript",
        "iframe",
        "frame",
        "frameset",
        "noframes",
        "noembed",
        "textarea",
        "select",
        "title",
        "head",
        "svg",
        "math",
        "xmp",
        "plaintext",
    }
)
_EXPORT_TAGS = frozenset(nh3.ALLOWED_TAGS) | {"tfoot", "picture"}
_EXPORT_ATTRIBUTES = {
    **{tag: set(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items()},
    "*": {"lang", "title", "dir"},
    "img": {"src", "alt", "width", "height", "title"},
}
# The renderer's own allow-list: only what changes the text's layout or says something.
_TEXT_TAGS = frozenset(
    {
        "a", "abbr", "address", "article", "aside", "b", "blockquote", "br", "caption",
        "center", "cite", "code", "dd", "del", "details", "dfn", "div", "dl", "dt", "em",
        "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header",
        "hgroup", "hr", "i", "img", "ins", "kbd", "li", "main", "mark", "nav", "ol", "p", "pre",
        "q", "s", "samp", "section", "small", "span", "strike", "strong", "sub", "summary",
        "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "tt", "u", "ul", "var",
    }
)  # fmt: skip
_TEXT_ATTRIBUTES = {"a": {"href"}, "img": {"alt"}, "ol": {"start"}}


def _keep_url(tag: str, attribute: str, value: str) -> str | None:
    """nh3's attribute filter, run before nh3 resolves relative URLs: a URL attribute is kept
    when it is relative or http, https or mailto (nh3 checks the scheme again after)."""
    url = attribute in ("href", "src", "cite")
    # (an empty link would resolve to the base: it is no link at all)
    if url and (not value.strip() or _scheme(value) not in _KEPT_SCHEMES):
        return None
    return value


def _scheme(url: str) -> str:
    try:
        return urlsplit(url.strip()).scheme.lower()
    except ValueError:
        return ""


def _base(base_url: str | None) -> str | None:
    """``base_url`` when relative links can be resolved against it (http or https)."""
    if base_url and _scheme(base_url) in ("http", "https"):
        try:
            if urlsplit(base_url).netloc:
                return base_url
        except ValueError:
            return None
    return None


@lru_cache(maxsize=64)
def _cleaner(base: str | None, for_text: bool) -> nh3.Cleaner:
    """One reusable cleaner per base URL: relative links resolved against it, or dropped when
    there is none (a relative link would resolve against wherever the export is opened)."""
    relative = ("rewrite_with_base", base) if base else "deny"
    if for_text:
        return nh3.Cleaner(
            tags=set(_TEXT_TAGS),
            clean_content_tags=set(_DROP_WITH_CONTENT),
            attributes={tag: set(attrs) for tag, attrs in _TEXT_ATTRIBUTES.items()},
            attribute_filter=_keep_url,
            link_rel=None,
            url_schemes=set(LINK_SCHEMES),
            url_relative=relative,
        )
    return nh3.Cleaner(
        tags=set(_EXPORT_TAGS),
        clean_content_tags=set(_DROP_WITH_CONTENT),
        attributes={tag: set(attrs) for tag, attrs in _EXPORT_ATTRIBUTES.items()},
        attribute_filter=_keep_url,
        link_rel="noopener noreferrer",
        url_schemes=set(LINK_SCHEMES),
        url_relative=relative,
    )


def sanitize_html(html: str, base_url: str | None = None) -> str:
    """``html`` safe to embed in the HTML export: an allow-list of tags and attributes, no
    script, style, iframe, object, embed, form, event attribute or link other than http,
    https and mailto (``javascript:``, ``data:``, ``vbscript:``, however obfuscated), relative
    links made absolute against ``base_url`` (dropped without one), no control characters
    but newline and tab."""
    if not html or not html.strip():
        return ""
    bounded, cut = _bounded(html)
    clean = _cleaner(_base(base_url), False).clean(bounded)
    clean = _HTML_CONTROLS.sub("", _strip_escapes(clean))
    if cut:
        clean += f"\n<p><em>{_html.escape(_cut_note(cut))}</em></p>"
    return clean


# --- the text renderer ----------------------------------------------------------------------

# nh3's serialiser double-quotes every attribute value and escapes "<" in text, so every "<"
# starts a tag and this reads its output exactly.
_TOKEN = re.compile(r'<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s"\'>/=]+(?:="[^"]*")?)*)\s*/?>|[^<]+|<')
_ATTRIBUTE = re.compile(r'([^\s"\'>/=]+)(?:="([^"]*)")?')
_SPACE = re.compile(r"[ \t\n\r\f]+")
_BLANK_LINES = re.compile(r"\n{3,}")
_TRAILING_SPACE = re.compile(r" +\n")
# Deeper than this, lists and quotes stop indenting: past it, indents only push text off screen.
MAX_INDENTS = 8

_PARAGRAPH = frozenset(
    {"p", "blockquote", "pre", "table", "dl", "figure", "address", "details", "center"}
    | {"h1", "h2", "h3", "h4", "h5", "h6"}
)
_LINE = frozenset(
    {"div", "section", "article", "header", "footer", "main", "nav", "aside", "hgroup"}
    | {"figcaption", "caption", "summary", "dt", "tr", "tbody", "thead", "tfoot"}
)
_VOID = frozenset(
    {"area", "base", "col", "embed", "input", "link", "meta", "param", "source", "track", "wbr"}
)
_WITH_ATTRIBUTES = frozenset({"a", "img", "ol"})
# The tags that change the layout: every other one (b, em, code, span, ...) leaves no trace.
_STRUCTURE = _PARAGRAPH | _LINE | {"li", "ul", "ol", "dd", "td", "th", "a"}


class _Renderer:
    """Terminal text from cleaned HTML, one token at a time: an explicit stack of open tags and
    of line prefixes (quotes, list and code indents), a pending break between blocks, no
    recursion."""

    def __init__(self, plain: bool) -> None:
        self.parts: list[str] = []
        self.plain = plain  # no link references, heading marks or image markers
        self.links: dict[str, int] = {}
        self.prefixes: list[str] = []
        self.bullet: tuple[int, str] | None = None  # a list marker the next line opens with
        self.pending = 0  # line breaks owed before the next text (2: a blank line)
        self.break_depth = 0  # prefixes open all along since the break was owed
        self.at_line_start = True
        self.space = False  # a collapsed space owed before the next word
        self.pre = 0
        self.cells = 0  # open table cells: inside them breaks are spaces
        self.lists: list[list[int]] = []  # per open list: [next number], or [] for bullets
        self.tables: list[int] = []  # per open table: cells written in its current row
        self.anchors: list[tuple[str | None, int]] = []  # href, len(parts) at the start
        self.stack: list[str] = []  # open tags, closed in order

    # output ---------------------------------------------------------------------------------
    def block(self, newlines: int) -> None:
        """A block starts or ends: ``newlines`` owed before whatever comes next."""
        if self.cells:
            self.space = True
        elif self.parts:
            depth = len(self.prefixes)
            if not self.pending or depth < self.break_depth:
                self.break_depth = depth
            if newlines > self.pending:
                self.pending = newlines

    def newline(self) -> None:
        if self.cells:
            self.space = True
            return
        self.flush_break()
        self.parts.append("\n")
        self.at_line_start = True

    def flush_break(self) -> None:
        if self.pending and self.parts:
            # a blank line inside a quote keeps its "> ", not a new block's marker
            depth = min(self.break_depth, len(self.prefixes))
            blank = "\n" + "".join(self.prefixes[:depth]).rstrip() if self.pending > 1 else ""
            self.parts.append(blank + "\n")
            self.at_line_start = True
        self.pending = 0

    def prefix(self) -> str:
        prefixes = self.prefixes
        if self.bullet:
            where, marker = self.bullet
            if where < len(prefixes):
                prefixes = [*prefixes[:where], marker, *prefixes[where + 1 :]]
        return "".join(prefixes[:MAX_INDENTS])

    def open_line(self) -> None:
        if self.at_line_start:
            self.parts.append(self.prefix())
            self.bullet = None
            self.at_line_start = False
            self.space = False

    def write(self, text: str) -> None:
        """Running text, its white space collapsed as a browser does."""
        text = _SPACE.sub(" ", text)
        if text[0] == " ":
            self.space = True
        trailing = text[-1] == " "
        text = text.strip(" ")
        if not text:
            return
        if self.pending:
            self.flush_break()
        if self.at_line_start:
            self.open_line()
        if self.space:
            self.parts.append(" ")
        self.parts.append(text)
        self.space = trailing

    def write_pre(self, text: str) -> None:
        """Text in a code block: every line break kept, each line under the block's prefix."""
        for i, line in enumerate(text.expandtabs(4).split("\n")):
            if i:
                self.parts.append("\n")
                self.at_line_start = True
            if line:
                self.flush_break()
                self.open_line()
                self.parts.append(line)

    def marker(self, text: str, space_after: bool = False) -> None:
        """A marker such as ``[image: alt]``, ``[3]`` or a cell's ``|``, a space before it."""
        self.flush_break()
        if self.at_line_start:
            self.open_line()
        elif not self.parts[-1].endswith(" "):
            self.parts.append(" ")
        self.parts.append(text)
        self.space = space_after

    # tags -----------------------------------------------------------------------------------
    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if tag == "br":
            self.newline()
        elif tag == "img":
            alt = " ".join(attrs.get("alt", "").split())
            if not self.plain:
                self.marker(f"[image: {alt}]" if alt else "[image]")
        elif tag == "hr":
            self.block(2)
            self.marker("---")
            self.block(2)
        elif tag in _STRUCTURE:
            self.stack.append(tag)
            self.open(tag, attrs)

    def open(self, tag: str, attrs: dict[str, str]) -> None:
        if tag in _PARAGRAPH:
            self.block(2)
            if tag == "blockquote":
                self.prefixes.append("> ")
            elif tag == "pre":
                self.prefixes.append("    ")
                self.pre += 1
            elif tag == "table":
                self.tables.append(0)
            elif tag[0] == "h" and tag[1:].isdigit() and not self.plain:
                self.marker("#" * int(tag[1:]), space_after=True)
        elif tag in _LINE:
            self.block(1)
            if tag == "tr" and self.tables:
                self.tables[-1] = 0
        elif tag == "li":
            self.block(1)
            numbers = self.lists[-1] if self.lists else []
            marker = f"{numbers[0]}. " if numbers else "- "
            if numbers:
                numbers[0] += 1
            self.bullet = (len(self.prefixes), marker)
            self.prefixes.append(" " * len(marker))
        elif tag in ("ul", "ol"):
            self.block(1 if self.lists else 2)
            start = attrs.get("start", "1")
            first = int(start) if start.isdigit() and len(start) < 10 else 1
            self.lists.append([first] if tag == "ol" else [])
        elif tag == "dd":
            self.block(1)
            self.prefixes.append("  ")
        elif tag in ("td", "th"):
            if self.tables:
                if self.tables[-1]:
                    self.marker("|", space_after=True)
                self.tables[-1] += 1
            self.cells += 1
        elif tag == "a":
            href = attrs.get("href")
            kept = href if href and _scheme(href) in LINK_SCHEMES else None
            self.anchors.append((kept, len(self.parts)))

    def end(self, tag: str) -> None:
        if tag in _STRUCTURE and tag in self.stack:
            while self.stack:
                open_tag = self.stack.pop()
                self.close(open_tag)
                if open_tag == tag:
                    break

    def close(self, tag: str) -> None:
        if tag in _PARAGRAPH:
            if tag in ("blockquote", "pre"):
                self.prefixes.pop()
                if tag == "pre":
                    self.pre -= 1
            elif tag == "table":
                self.tables.pop()
            self.block(2)
        elif tag in _LINE:
            self.block(1)
        elif tag in ("li", "dd"):
            self.prefixes.pop()
            self.bullet = None
            self.block(1)
        elif tag in ("ul", "ol"):
            self.lists.pop()
            self.block(1 if self.lists else 2)
        elif tag in ("td", "th"):
            self.cells -= 1
            self.space = True
        elif tag == "a":
            href, begun = self.anchors.pop()
            if href and not self.plain and len(self.parts) > begun:
                self.marker(f"[{self.links.setdefault(href, len(self.links) + 1)}]")

    def text(self, raw: str) -> None:
        text = _html.unescape(raw) if "&" in raw else raw
        if self.pre:
            self.write_pre(text)
        else:
            self.write(text)

    def result(self) -> str:
        body = "".join(self.parts)
        if self.links:
            listed = "\n".join(f"[{n}] {url}" for url, n in self.links.items())
            body = f"{body.rstrip()}\n\nLinks:\n{listed}"
        body = _TRAILING_SPACE.sub("\n", terminal_safe(body.replace("\u00a0", " ")))
        return _BLANK_LINES.sub("\n\n", body).strip("\n").rstrip()


def _render(clean: str, plain: bool) -> str:
    renderer = _Renderer(plain)
    for match in _TOKEN.finditer(clean):
        slash, tag, attributes = match.groups()  # (nh3 writes tag names in lower case)
        if tag is None:
            renderer.text(match.group())
        elif slash:
            renderer.end(tag)
        else:
            attrs = (
                {key.lower(): _html.unescape(value or "") for key, value in
                 _ATTRIBUTE.findall(attributes)}
                if attributes and tag in _WITH_ATTRIBUTES
                else {}
            )  # fmt: skip
            renderer.start(tag, attrs)
    return renderer.result()


def html_to_text(html: str, base_url: str | None = None, *, plain: bool = False) -> str:
    """Readable terminal text of ``html``: paragraphs apart, lists as ``- `` and ``1. ``,
    headings as ``# ``, code blocks indented with their line breaks, quotes as ``> ``, table
    rows as cells between ``|``, images as ``[image: alt]``, links as ``text [1]`` with a
    ``Links:`` list at the end (``plain`` leaves out link references, heading marks and
    images, for a title or a summary).
    No tag, script, style or comment text, entities decoded, and no control character but
    newline (:func:`terminal_safe`). Relative links resolve against ``base_url``."""
    if not html or not html.strip():
        return ""
    bounded, cut = _bounded(html)
    text = _render(_cleaner(_base(base_url), True).clean(bounded), plain)
    return f"{text}\n\n{_cut_note(cut)}" if cut else text


def text_of_sanitized(clean: str, *, plain: bool = False) -> str:
    """:func:`html_to_text` of what :func:`sanitize_html` returned, without cleaning it again
    (it is nh3's output already, its links absolute)."""
    return _render(clean, plain) if clean else ""
