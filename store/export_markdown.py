"""The Markdown export (CommonMark): every value escaped so it shows exactly as written,
after :func:`~topiclens.text.terminal_text` has dropped what a terminal would act on."""

from __future__ import annotations

import re

from topiclens.text import terminal_line

from .export_items import ExportContent, ExportItem, link_url, text_lines, time_text
from .models import Content

_MD_INLINE = re.compile(r"([\\`*_\[\]<~|#])")
_MD_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_MD_LINE_START = re.compile(r"^([-+=>]|\d{1,9}(?=[.)]))")


def md_escape_line(text: str) -> str:
    """One line of plain text as CommonMark inline content that renders as exactly that text
    (no emphasis, links, code, HTML, entities, headings, lists or quotes)."""
    text = _MD_INLINE.sub(r"\\\1", text.strip())
    text = _MD_ENTITY.sub(r"\\&", text)
    match = _MD_LINE_START.match(text)
    if match:
        if match.group(1)[0].isdigit():  # "1." or "1)" starts an ordered list: escape the dot
            end = match.end()
            text = text[:end] + "\\" + text[end:]
        else:
            text = "\\" + text
    return text


_MD_CODE_SAFE = re.compile(r"[A-Za-z0-9_.:-]+")


def _md_code(text: str) -> str:
    """An id as a code span; one that could leave the span (a restored id is not always
    16 hex digits) as escaped text instead."""
    return f"`{text}`" if _MD_CODE_SAFE.fullmatch(text) else _md_line(text)


def md_text(text: str, prefix: str = "") -> str:
    """Plain text, possibly several lines, as CommonMark lines kept apart by hard breaks."""
    return _md_lines(text_lines(text), prefix)


def _md_lines(lines: list[str], prefix: str = "") -> str:
    return "\\\n".join(prefix + md_escape_line(line) for line in lines)


def _md_line(text: str) -> str:
    """One line of data as CommonMark inline text."""
    return md_escape_line(terminal_line(text))


def _md_content(text: str) -> list[str]:
    """A feed entry's whole content as text: its paragraphs apart, each line kept."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    return [md_text(p) for p in paragraphs if text_lines(p)]


def _md_item(i: ExportItem, out: list[str], content: Content | None = None) -> None:
    e = i.entry
    out.append(f"### {_md_line(e.title)}")
    out.append("")
    facts: list[tuple[str, str]] = []
    if e.source:
        facts.append(("Source", _md_line(e.source)))
    if e.author:
        facts.append(("Author", _md_line(e.author)))
    if e.category:
        facts.append(("Category", _md_line(e.category)))
    if e.date:
        facts.append(("Date", _md_line(e.date)))
    url = link_url(e.url)
    if url:
        facts.append(("Link", f"<{url}>"))
    elif e.url:
        facts.append(("Link", _md_line(e.url)))
    facts.append(("Bookmarked", md_escape_line(time_text(i.bookmark.created_at))))
    facts.append(("Id", _md_code(e.id)))
    out.extend(f"- {label}: {value}" for label, value in facts)
    out.append("")
    out.append(md_text(e.summary))
    out.append("")
    if content is not None and content.text.strip():
        out += ["**Full text:**", ""]
        for paragraph in _md_content(content.text):
            out += [paragraph, ""]
    comment, note = text_lines(e.comment), text_lines(i.bookmark.note)
    if comment:
        out.append(_md_lines(comment, prefix="> "))
        out.append("")
    if note:
        out.append("**Note:** " + _md_lines(note))
        out.append("")


def render_markdown(doc: ExportContent) -> bytes:
    out = [f"# {_md_line(doc.title())}", ""]
    noun = "bookmark" if doc.count == 1 else "bookmarks"
    out += [f"{doc.count} {noun}, exported {doc.stamp()}.", ""]
    for g in doc.groups:
        out += [f"## {_md_line(g.name)}", ""]
        for i in g.items:
            _md_item(i, out, doc.contents.get(i.entry.id))
    return ("\n".join(out).rstrip("\n") + "\n").encode("utf-8")
