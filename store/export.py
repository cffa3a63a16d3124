"""Bookmarks that leave: Markdown, JSON, CSV and HTML exports, written atomically.

``render`` builds the whole document in memory (bookmarks are a reader's selection, not the
whole corpus); ``write_atomic`` puts it on disk through a temporary file in the same
directory and a rename, never overwriting without ``force`` and leaving nothing behind when
the path cannot be written. The JSON export is also a backup: ``topiclens import`` reads it
back (see :mod:`topiclens.store.restore`). No Textual here.
"""

from __future__ import annotations

import csv
import datetime as _dt
import errno
import html
import io
import os
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .db import Store
from .models import Bookmark, Entry

FORMATS: tuple[str, ...] = ("md", "json", "csv", "html")
FORMAT_NAMES: dict[str, str] = {"md": "Markdown", "json": "JSON", "csv": "CSV", "html": "HTML"}

# The JSON export's marker: ``topiclens import`` recognises a file by these two keys.
EXPORT_FORMAT = "topiclens-bookmarks"
EXPORT_VERSION = 1

UNSORTED = "Unsorted"  # the group of bookmarks whose entry has no topic (yet)

CSV_COLUMNS: tuple[str, ...] = (
    "topic_id",
    "topic",
    "id",
    "title",
    "summary",
    "comment",
    "note",
    "source",
    "category",
    "date",
    "url",
    "lang",
    "bookmarked_at",
)

# Only these URL schemes become links; anything else (javascript:, data:, file:) is text.
_LINK_SCHEME = re.compile(r"^(?:https?|ftp)://[^\s<>\"'`]+$", re.IGNORECASE)


class ExportError(Exception):
    """An export could not be written; the message is one line naming the path."""


class ExportExists(ExportError):
    """The target file exists and overwriting was not asked for."""


# --- what is exported ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExportItem:
    entry: Entry
    bookmark: Bookmark
    topic_id: int | None
    topic_name: str | None


@dataclass(slots=True)
class ExportGroup:
    topic_id: int | None  # None: the entries have no topic
    name: str
    items: list[ExportItem] = field(default_factory=list)


def collect(store: Store, *, topic_id: int | None = None) -> list[ExportGroup]:
    """Bookmarks grouped by topic, in the reader's topic order (largest first), bookmarks
    without a topic last under "Unsorted"; inside a group, in the order they were made.
    With ``topic_id``, only that topic's bookmarks (ExportError if there is no such topic)."""
    topics = store.topics()
    names = {t.id: t.name for t in topics}
    if topic_id is not None and topic_id not in names:
        raise ExportError(f"no topic with id {topic_id}")
    bookmarks = store.bookmarks()
    entries = {e.id: e for e in store.entries([b.entry_id for b in bookmarks])}
    groups: dict[int | None, ExportGroup] = {
        t.id: ExportGroup(t.id, t.name) for t in topics if topic_id in (None, t.id)
    }
    if topic_id is None:
        groups[None] = ExportGroup(None, UNSORTED)
    assigned = store.bookmark_topic_ids()
    for b in bookmarks:
        entry = entries.get(b.entry_id)
        if entry is None:  # cannot happen with foreign keys on; never export half a record
            continue
        tid = assigned.get(b.entry_id)
        if tid is not None and tid not in names:
            tid = None
        group = groups.get(tid)
        if group is None:
            continue
        group.items.append(ExportItem(entry, b, tid, names.get(tid) if tid is not None else None))
    return [g for g in groups.values() if g.items]


def count(groups: list[ExportGroup]) -> int:
    return sum(len(g.items) for g in groups)


def iso_time(timestamp: float) -> str:
    """A bookmark time for people: UTC, to the second, e.g. ``2026-11-29T15:20:07Z``."""
    moment = _dt.datetime.fromtimestamp(timestamp, _dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def link_url(url: str | None) -> str | None:
    """The URL if it is safe to make a link of (http, https, ftp), else None."""
    return url if url and _LINK_SCHEME.match(url) else None


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _title(store_title: str, topic_name: str | None) -> str:
    return f"{store_title}: {topic_name}" if topic_name else store_title


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.UTC)


# --- JSON --------------------------------------------------------------------------------


def entry_to_json(e: Entry) -> dict[str, Any]:
    """Every field of an entry (the shape of ``topiclens entries --json``)."""
    return e.to_json()


def _render_json(groups: list[ExportGroup], topic_name: str | None) -> bytes:
    from .. import __version__

    items = [item for g in groups for item in g.items]
    doc = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": _now().strftime("%Y-%m-%dT%H:%M:%SZ"),
        "generator": f"topiclens {__version__}",
        "topic_filter": topic_name,
        "count": len(items),
        "bookmarks": [
            {
                "entry": entry_to_json(i.entry),
                "topic": None if i.topic_id is None else {"id": i.topic_id, "name": i.topic_name},
                "bookmarked_at": i.bookmark.created_at,
                "bookmarked": iso_time(i.bookmark.created_at),
                "note": i.bookmark.note,
            }
            for i in items
        ],
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"


# --- CSV ---------------------------------------------------------------------------------


def _render_csv(groups: list[ExportGroup], topic_name: str | None) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")  # RFC 4180: CRLF, quotes as needed
    writer.writerow(CSV_COLUMNS)
    for g in groups:
        for i in g.items:
            e = i.entry
            writer.writerow(
                (
                    "" if i.topic_id is None else i.topic_id,
                    g.name,
                    e.id,
                    e.title,
                    e.summary,
                    e.comment,
                    i.bookmark.note,
                    e.source,
                    e.category,
                    e.date or "",
                    e.url or "",
                    e.lang,
                    iso_time(i.bookmark.created_at),
                )
            )
    # A byte order mark so spreadsheet programs read the file as UTF-8 (Chinese intact).
    return buffer.getvalue().encode("utf-8-sig")


# --- Markdown ----------------------------------------------------------------------------

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


def md_text(text: str, prefix: str = "") -> str:
    """Plain text, possibly several lines, as CommonMark lines kept apart by hard breaks."""
    return "\\\n".join(prefix + md_escape_line(line) for line in _lines(text))


def _md_item(i: ExportItem, out: list[str]) -> None:
    e = i.entry
    out.append(f"### {md_escape_line(_one_line(e.title))}")
    out.append("")
    facts: list[tuple[str, str]] = []
    if e.source:
        facts.append(("Source", md_escape_line(_one_line(e.source))))
    if e.category:
        facts.append(("Category", md_escape_line(_one_line(e.category))))
    if e.date:
        facts.append(("Date", e.date))
    url = link_url(e.url)
    if url:
        facts.append(("Link", f"<{url}>"))
    elif e.url:
        facts.append(("Link", md_escape_line(_one_line(e.url))))
    facts.append(("Bookmarked", iso_time(i.bookmark.created_at)))
    facts.append(("Id", f"`{e.id}`"))
    out.extend(f"- {label}: {value}" for label, value in facts)
    out.append("")
    out.append(md_text(e.summary))
    out.append("")
    if _lines(e.comment):
        out.append(md_text(e.comment, prefix="> "))
        out.append("")
    if _lines(i.bookmark.note):
        out.append("**Note:** " + md_text(i.bookmark.note))
        out.append("")


def _render_md(groups: list[ExportGroup], topic_name: str | None) -> bytes:
    total = count(groups)
    out = [f"# {md_escape_line(_title('topiclens bookmarks', topic_name))}", ""]
    noun = "bookmark" if total == 1 else "bookmarks"
    out += [f"{total} {noun}, exported {_now().strftime('%Y-%m-%d %H:%M')} UTC.", ""]
    for g in groups:
        out += [f"## {md_escape_line(_one_line(g.name))}", ""]
        for i in g.items:
            _md_item(i, out)
    return ("\n".join(out).rstrip("\n") + "\n").encode("utf-8")


# --- HTML --------------------------------------------------------------------------------

_CSS = """\
:root { color-scheme: light dark; --fg: #1d2021; --muted: #5c6370; --bg: #fdfdfb;
  --card: #ffffff; --line: #e3e3df; --accent: #1f6feb; --quote: #f3f4f1; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e3; --muted: #9aa0a6;
  --bg: #17181a; --card: #1f2023; --line: #33353a; --accent: #6ea8ff; --quote: #26282c; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); line-height: 1.6;
  font: 16px/1.65 system-ui, -apple-system, "Segoe UI", "PingFang SC", "Hiragino Sans GB",
  "Microsoft YaHei", "Noto Sans CJK SC", sans-serif; }
main { max-width: 46rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
h1 { font-size: 1.7rem; margin: 0 0 .25rem; }
.summary-line, .meta, nav { color: var(--muted); }
nav ul { padding-left: 1.2rem; }
nav a, h3 a { color: var(--accent); text-decoration: none; }
nav a:hover, h3 a:hover { text-decoration: underline; }
h2 { font-size: 1.25rem; margin: 2.5rem 0 1rem; padding-bottom: .3rem;
  border-bottom: 1px solid var(--line); }
article { background: var(--card); border: 1px solid var(--line); border-radius: 8px;
  padding: 1rem 1.2rem; margin: 0 0 1rem; }
h3 { font-size: 1.05rem; margin: 0 0 .3rem; }
.meta { font-size: .85rem; margin: 0 0 .6rem; }
.meta span + span::before { content: " · "; }
p { margin: .5rem 0; }
blockquote { margin: .6rem 0; padding: .4rem .8rem; background: var(--quote);
  border-left: 3px solid var(--line); border-radius: 4px; }
.note { border-left: 3px solid var(--accent); padding-left: .8rem; }
.note b { color: var(--accent); }
code { font-size: .8rem; color: var(--muted); }
"""


def _h(text: str) -> str:
    return html.escape(text, quote=True)


def _h_lines(text: str) -> str:
    return "<br>".join(_h(line) for line in _lines(text))


def _html_item(i: ExportItem, out: list[str]) -> None:
    e = i.entry
    title = _h(_one_line(e.title))
    url = link_url(e.url)
    if url:
        title = f'<a href="{_h(url)}" rel="noopener noreferrer">{title}</a>'
    out.append(f'<article id="e-{_h(e.id)}" data-id="{_h(e.id)}">')
    out.append(f"<h3>{title}</h3>")
    meta = []
    if e.source:
        meta.append(f'<span class="source">{_h(_one_line(e.source))}</span>')
    if e.category:
        meta.append(f'<span class="category">{_h(_one_line(e.category))}</span>')
    if e.date:
        meta.append(f'<span class="date"><time datetime="{_h(e.date)}">{_h(e.date)}</time></span>')
    if e.url and not url:
        meta.append(f'<span class="url">{_h(_one_line(e.url))}</span>')
    stamp = iso_time(i.bookmark.created_at)
    meta.append(
        f'<span class="bookmarked">bookmarked <time datetime="{stamp}">{stamp}</time></span>'
    )
    out.append(f'<p class="meta">{"".join(meta)}</p>')
    out.append(f'<p class="summary">{_h_lines(e.summary)}</p>')
    if _lines(e.comment):
        out.append(f'<blockquote class="comment">{_h_lines(e.comment)}</blockquote>')
    if _lines(i.bookmark.note):
        out.append(f'<p class="note"><b>Note:</b> <span>{_h_lines(i.bookmark.note)}</span></p>')
    out.append(f"<p><code>{_h(e.id)}</code></p>")
    out.append("</article>")


def _render_html(groups: list[ExportGroup], topic_name: str | None) -> bytes:
    total = count(groups)
    title = _title("topiclens bookmarks", topic_name)
    langs = {i.entry.lang for g in groups for i in g.items} or {"en"}
    lang = langs.pop() if len(langs) == 1 and langs <= {"en", "zh"} else "mul"
    noun = "bookmark" if total == 1 else "bookmarks"
    out = [
        "<!DOCTYPE html>",
        f'<html lang="{lang}">',
        "<head>",
        '<meta charset="utf-8">',
        # No network, no scripts: the page may only use its own inline style.
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="topiclens">',
        f"<title>{_h(title)}</title>",
        f"<style>\n{_CSS}</style>",
        "</head>",
        "<body>",
        "<main>",
        f"<h1>{_h(title)}</h1>",
        f'<p class="summary-line">{total} {noun}, exported '
        f"{_now().strftime('%Y-%m-%d %H:%M')} UTC.</p>",
    ]
    if len(groups) > 1:
        out.append('<nav><ul class="toc">')
        for n, g in enumerate(groups):
            out.append(
                f'<li><a href="#topic-{n}">{_h(_one_line(g.name))}</a> ({len(g.items)})</li>'
            )
        out.append("</ul></nav>")
    for n, g in enumerate(groups):
        tid = "" if g.topic_id is None else str(g.topic_id)
        out.append(f'<section id="topic-{n}" data-topic-id="{tid}">')
        out.append(f"<h2>{_h(_one_line(g.name))}</h2>")
        for i in g.items:
            _html_item(i, out)
        out.append("</section>")
    if not groups:
        out.append("<p>No bookmarks yet: press <kbd>b</kbd> in the reader to keep an entry.</p>")
    out += ["</main>", "</body>", "</html>"]
    return ("\n".join(out) + "\n").encode("utf-8")


_RENDERERS: dict[str, Callable[[list[ExportGroup], str | None], bytes]] = {
    "md": _render_md,
    "json": _render_json,
    "csv": _render_csv,
    "html": _render_html,
}


def _check_format(fmt: str) -> None:
    if fmt not in _RENDERERS:
        raise ExportError(f"unknown export format {fmt!r} (choose one of {', '.join(FORMATS)})")


def render(store: Store, fmt: str, *, topic_id: int | None = None) -> bytes:
    """The whole export document in ``fmt`` (one of FORMATS), as bytes ready to write."""
    _check_format(fmt)
    groups = collect(store, topic_id=topic_id)
    topic_name = groups[0].name if topic_id is not None and groups else None
    if topic_id is not None and topic_name is None:
        topic = store.topic(topic_id)
        topic_name = topic.name if topic else None
    return _RENDERERS[fmt](groups, topic_name)


def default_filename(fmt: str) -> str:
    """``topiclens-bookmarks-YYYY-MM-DD.<fmt>``, dated today (local time)."""
    _check_format(fmt)
    return f"topiclens-bookmarks-{_dt.date.today().isoformat()}.{fmt}"


# --- writing -----------------------------------------------------------------------------


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno == errno.EROFS:
        return "read-only file system"
    return exc.strerror or str(exc)


def write_atomic(path: Path, data: bytes, *, force: bool = False) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same directory, flushed
    to disk, then renamed into place: a reader of ``path`` sees the old file or the new one,
    never half of one. Raises ExportExists if ``path`` exists and not ``force``, and
    ExportError (one line naming the path) if it cannot be written; then nothing is left
    behind. Returns the final path."""
    path = Path(path).expanduser()
    parent = path.parent
    if path.is_dir():
        raise ExportError(f"{path}: is a directory; name a file to write")
    if path.exists() and not force:
        raise ExportExists(f"{path}: already exists; pass --force to overwrite it")
    if not parent.exists():
        raise ExportError(f"{path}: cannot write: the folder {parent} does not exist")
    if not parent.is_dir():
        raise ExportError(f"{path}: cannot write: {parent} is not a folder")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise ExportError(f"{path}: cannot write: {_reason(exc)}") from exc
    tmp = Path(tmp_name)
    try:
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
            os.chmod(tmp, mode)  # mkstemp makes 0600; an export is an ordinary file
            if force:
                os.replace(tmp, path)
            else:
                _link_no_clobber(tmp, path)
        except FileExistsError as exc:
            raise ExportExists(f"{path}: already exists; pass --force to overwrite it") from exc
        except OSError as exc:
            raise ExportError(f"{path}: cannot write: {_reason(exc)}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(parent)
    return path


def _link_no_clobber(tmp: Path, path: Path) -> None:
    """Put ``tmp`` at ``path`` unless something appeared there meanwhile (a hard link fails
    on an existing name; where links are not supported, check and rename)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:
        if path.exists():
            raise FileExistsError(errno.EEXIST, "exists", str(path)) from None
        os.replace(tmp, path)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def export_bookmarks(
    store: Store,
    fmt: str,
    path: Path | None,
    *,
    topic_id: int | None = None,
    force: bool = False,
) -> Path | None:
    """Render and write an export. ``path`` None writes to standard output and returns None
    (the command line's ``--output -``); otherwise returns the path written."""
    _check_format(fmt)
    if path is not None:
        path = Path(path).expanduser()
        if path.exists() and not force and not path.is_dir():
            raise ExportExists(f"{path}: already exists; pass --force to overwrite it")
    data = render(store, fmt, topic_id=topic_id)
    if path is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return None
    return write_atomic(path, data, force=force)
