"""Terminal text from HTML that nh3 has cleaned, and the one gate text from a feed passes on its
way to a terminal (:func:`terminal_safe`).

nh3's serialiser double-quotes every attribute value and escapes "<" in text, so one regular
expression reads its output exactly; an explicit stack stands for the tree, so no depth of
nesting can exhaust Python's.
"""

from __future__ import annotations

import html as _html
import re
from urllib.parse import urlsplit

LINK_SCHEMES = frozenset({"http", "https", "mailto"})

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


def terminal_safe(text: str) -> str:
    """``text`` with nothing a terminal acts on: escape sequences and every control character
    but newline removed (tabs become spaces), bidi controls and invisible format characters
    removed."""
    if "\t" in text:
        text = text.expandtabs(4)
    text = strip_escapes(text)
    # (every character removed is one str.isprintable refuses, and it is the faster test: a
    # test, tests/unit/test_text_fast_paths.py, checks every code point; a newline, kept,
    # is refused too, so text of several lines is tested without its newlines)
    if text.isprintable() or text.replace("\n", "").isprintable():
        return text
    return _CONTROLS.sub("", text)


def strip_escapes(text: str) -> str:
    """``text`` without terminal escape sequences, each removed whole (not only its ESC)."""
    if "\x1b" in text or "\x9b" in text or "\x90" in text or "\x9d" in text:
        return _ESCAPES.sub("", text)
    return text


def terminal_line(text: str) -> str:
    """:func:`terminal_safe` on one line: every run of white space becomes one space."""
    return " ".join(terminal_safe(text).split())


# An absolute http(s) URL of the plainest form: an ASCII host, then a path, query and
# fragment of unreserved characters, each marker followed by something. urllib's join
# gives such a URL back as it is whatever the base (it parses it and puts it together
# again unchanged), so it needs no join (tests/unit/test_parse_worker_same.py).
_PLAIN_URL = re.compile(
    r"https?://[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::[0-9]+)?(?:/[A-Za-z0-9._~%/-]*)?"
    r"(?:\?[A-Za-z0-9._~%=&/-]+)?(?:#[A-Za-z0-9._~%=&/-]+)?"
)


def joins_unchanged(base: object, url: object) -> bool:
    """Whether urllib's join of ``url`` against ``base`` is ``url`` itself, known without
    joining: ``url`` an absolute http(s) URL of the plainest form, ``base`` a string that
    urlsplit reads (a base it refuses makes the join fail)."""
    if not (isinstance(url, str) and isinstance(base, str) and _PLAIN_URL.fullmatch(url)):
        return False
    try:
        urlsplit(base)  # (urllib keeps what it split: a feed's one base is split once)
    except ValueError:
        return False
    return True


def url_scheme(url: str) -> str:
    """The scheme of ``url`` in lower case ("" for a relative or unreadable URL)."""
    url = url.strip()
    # (most links are plain "http(s)://" in ASCII, without the brackets of an IPv6 host,
    # the one thing urlsplit could refuse in them: their scheme is read without it, the
    # same, tests/unit/test_parse_worker_same.py)
    plain = url.isascii() and "[" not in url and "]" not in url
    if plain and url.startswith(("https://", "http://")):
        return "https" if url[4] == "s" else "http"
    return split_scheme(url)


def split_scheme(url: str) -> str:
    """The scheme of ``url`` as urlsplit reads it, in lower case ("" when it refuses it)."""
    try:
        return urlsplit(url).scheme.lower()
    except ValueError:
        return ""


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
        if not text.strip(" \t\n\r\f"):  # (white space alone, as between blocks: a space owed)
            self.space = True
            return
        # (the substitution replaces every single space too, which costs: it is made only
        # where there is more than a single space to collapse)
        if "  " in text or "\n" in text or "\t" in text or "\r" in text or "\f" in text:
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
            kept = href if href and url_scheme(href) in LINK_SCHEMES else None
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
        body = terminal_safe(body.replace("\u00a0", " "))
        if " \n" in body:  # (each substitution only where it has something to do)
            body = _TRAILING_SPACE.sub("\n", body)
        if "\n\n\n" in body:
            body = _BLANK_LINES.sub("\n\n", body)
        return body.strip("\n").rstrip()


def render(clean: str, plain: bool) -> str:
    """Terminal text of ``clean``, HTML as nh3 writes it (see :func:`.html_text.html_to_text`)."""
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
