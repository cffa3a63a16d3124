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

from .html_render import (
    LINK_SCHEMES,
    render,
    strip_escapes,
    terminal_line,
    terminal_safe,
    url_scheme,
)

__all__ = ["html_to_text", "sanitize_html", "terminal_line", "terminal_safe", "text_of_sanitized"]

# Deeper nesting than this is never real writing; it only costs html5ever quadratic time.
MAX_DEPTH = 128
# One entry's HTML read at most (in characters), data: URLs aside: some 50 pages of text, far
# past any real article, and a few tenths of a second of work.
MAX_HTML_CHARS = 1_000_000
_KEPT_SCHEMES = LINK_SCHEMES | {""}  # "" for a relative URL

# What the HTML export keeps: newline and tab (code in <pre>), no other control.
_HTML_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


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
    if html.count("<") <= MAX_DEPTH:  # (too few tags to nest that deep: nothing to look at)
        return html
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
    if url and (not value.strip() or url_scheme(value) not in _KEPT_SCHEMES):
        return None
    return value


def _base(base_url: str | None) -> str | None:
    """``base_url`` when relative links can be resolved against it (http or https)."""
    if base_url and url_scheme(base_url) in ("http", "https"):
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
    clean = _HTML_CONTROLS.sub("", strip_escapes(clean))
    if cut:
        clean += f"\n<p><em>{_html.escape(_cut_note(cut))}</em></p>"
    return clean


# What nh3 changes in text that holds no tag or entity: line endings, NUL, a byte order
# mark, lone surrogates. Text without any of these comes out of it as it went in ("<",
# ">", "&" and no-break spaces escaped, which the renderer reads back), so it is rendered
# without the sanitiser (tests/unit/test_html_text.py compares the two on any text).
_NOT_JUST_TEXT = re.compile("[<&\r\x00\ufeff\ud800-\udfff]")


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
    if _NOT_JUST_TEXT.search(bounded):
        bounded = _cleaner(_base(base_url), True).clean(bounded)
    text = render(bounded, plain)
    return f"{text}\n\n{_cut_note(cut)}" if cut else text


def text_of_sanitized(clean: str, *, plain: bool = False) -> str:
    """:func:`html_to_text` of what :func:`sanitize_html` returned, without cleaning it again
    (it is nh3's output already, its links absolute)."""
    return render(clean, plain) if clean else ""
