"""An entry's whole content (feed entries have one; entries from digests do not), kept in
``entry_content`` beside the entry, so the rows every list reads stay small.

What is stored, and why:

- ``text``: the content as terminal text (paragraphs, lists, code blocks, numbered link
  references), for the entry pane and the Markdown and JSON exports: read often, so kept
  plain;
- ``html``: the content as sanitised HTML, zlib-compressed, for the HTML export alone
  (read rarely; HTML compresses about four to one); NULL when the source gave none;
- ``hash``: of both, so a refresh sees whether an entry changed without reading them.

Each is bounded: text past :data:`MAX_TEXT_CHARS` is cut with a line saying so, and HTML
past :data:`MAX_HTML_CHARS` is not kept (the HTML export then shows the text), so one
huge post cannot swell the store or cost the reader a frame.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Mapping, Sequence

from .connection import Database
from .models import Content

MAX_TEXT_CHARS = 200_000  # about 60 printed pages: longer posts are cut, saying so
MAX_HTML_CHARS = 1_000_000  # cutting HTML would break it: past this it is not kept

PUT = "INSERT OR REPLACE INTO entry_content(entry_id, text, html, hash) VALUES (?, ?, ?, ?)"


def bounded(content: Content) -> Content:
    """``content`` within the limits above."""
    text, html = content
    if len(text) > MAX_TEXT_CHARS:
        more = len(text) - MAX_TEXT_CHARS
        text = text[:MAX_TEXT_CHARS].rstrip() + f"\n\n[… cut here: {more:,} more characters]"
    if len(html) > MAX_HTML_CHARS:
        html = ""
    return Content(text, html)


def content_hash(content: Content) -> str:
    import hashlib  # here, not at the top: the reader's start hashes nothing

    payload = content.text + "\x1f" + content.html
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# (text, html compressed or None, hash): an ``entry_content`` row without its entry's id
Stored = tuple[str, bytes | None, str]


def stored(content: Content) -> Stored:
    """What :func:`row` keeps of ``content`` (bounded first): pure work on the content
    alone, so a refresh does it where the feed is parsed."""
    content = bounded(content)
    html = zlib.compress(content.html.encode("utf-8", "surrogatepass"), 6) if content.html else None
    return content.text, html, content_hash(content)


def row(entry_id: str, content: Content) -> tuple[str, str, bytes | None, str]:
    """The ``entry_content`` row of ``content`` (bounded first)."""
    return entry_id, *stored(content)


def put(conn: sqlite3.Connection, rows: Sequence[tuple[str, str, bytes | None, str]]) -> None:
    """Write :func:`row` rows inside the caller's transaction."""
    conn.executemany(PUT, rows)


def put_many(conn: sqlite3.Connection, contents: Mapping[str, Content]) -> None:
    put(conn, [row(eid, c) for eid, c in contents.items() if c.text or c.html])


def _content(text: str, html: bytes | None) -> Content:
    if not html:
        return Content(text, "")
    try:
        return Content(text, zlib.decompress(html).decode("utf-8", "surrogatepass"))
    except (zlib.error, UnicodeDecodeError):  # a damaged blob: the text still shows
        return Content(text, "")


def one(db: Database, entry_id: str) -> Content | None:
    rows = db.query("SELECT text, html FROM entry_content WHERE entry_id = ?", (entry_id,))
    return _content(*rows[0]) if rows else None


def many(db: Database, ids: Sequence[str]) -> dict[str, Content]:
    """Entry id -> content, for those of ``ids`` that have one."""
    found: dict[str, Content] = {}
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        for eid, text, html in db.query(
            f"SELECT entry_id, text, html FROM entry_content WHERE entry_id IN ({marks})", chunk
        ):
            found[eid] = _content(text, html)
    return found
