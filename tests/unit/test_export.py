"""Bookmark export: every format read back with a real parser and compared field by field
with the store; grouping by topic; atomic, never-clobbering writes; the command line."""

from __future__ import annotations

import csv
import io
import os
import re
import sqlite3
import stat
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import DIGEST, ROOT, make_entry, seed
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from topiclens.store import Entry, Store
from topiclens.store.export import (
    CSV_COLUMNS,
    EXPORT_FORMAT,
    EXPORT_VERSION,
    FORMATS,
    UNSORTED,
    ExportError,
    ExportExists,
    build,
    collect,
    default_filename,
    export_bookmarks,
    iso_time,
    json_bytes,
    md_escape_line,
    render,
    write_atomic,
)
from topiclens.store.importer import import_file
from topiclens.store.text import entry_id
from topiclens.text import terminal_line, terminal_text


@pytest.fixture
def seeded_dir(data_dir: Path) -> Path:
    with Store.open_dir(data_dir) as s:
        seed(s)
    return data_dir


@pytest.fixture
def store(tmp_path: Path):
    with Store.open_dir(tmp_path / "d") as s:
        seed(s)
        yield s


def expected(store: Store) -> list[dict[str, Any]]:
    """What every export must hold, straight from the store, in export order."""
    names = {t.id: t.name for t in store.topics()}
    rows = []
    for b in store.bookmarks():
        found = store.assignment(b.entry_id)
        tid = found[0] if found else None
        rows.append(
            {
                "entry": store.entry(b.entry_id),
                "bookmark": b,
                "topic_id": tid,
                "topic": names[tid] if tid is not None else UNSORTED,
            }
        )
    order = [t.id for t in store.topics()] + [None]
    return sorted(rows, key=lambda r: order.index(r["topic_id"]))


def lines_of(text: str) -> str:
    """A multi-line value as Markdown and HTML show it: its non-blank lines, each as a
    terminal may show it."""
    return "\n".join(line for line in map(terminal_line, text.splitlines()) if line)


def one_line(text: str) -> str:
    return terminal_line(text)


def csv_value(text: str) -> str:
    """A value as a CSV cell holds it: safe for a terminal, and never a formula."""
    text = terminal_text(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


# --- grouping ------------------------------------------------------------------------------


def test_groups_follow_topics_then_unsorted(store: Store):
    groups = collect(store)
    assert [(g.topic_id, g.name, len(g.items)) for g in groups] == [
        (8, "KV cache", 2),
        (3, "Speculative <decoding> & *drafts*", 2),
        (None, UNSORTED, 1),
    ]
    assert [i.bookmark for g in groups for i in g.items] == [r["bookmark"] for r in expected(store)]


def test_before_clustering_everything_is_unsorted(tmp_path: Path):
    with Store.open_dir(tmp_path / "d") as s:
        import_file(s, DIGEST)
        ids = [e.id for e in s.entries()[:3]]
        for i in ids:
            s.toggle_bookmark(i)
        groups = collect(s)
        assert [(g.topic_id, g.name) for g in groups] == [(None, UNSORTED)]
        assert [i.entry.id for i in groups[0].items] == [b.entry_id for b in s.bookmarks()]
        doc = orjson.loads(render(s, "json"))
        assert [b["topic"] for b in doc["bookmarks"]] == [None, None, None]


def test_topic_filter(store: Store):
    groups = collect(store, topic_id=3)
    assert [g.topic_id for g in groups] == [3]
    doc = orjson.loads(render(store, "json", topic_id=3))
    assert doc["topic_filter"] == "Speculative <decoding> & *drafts*"
    assert {b["topic"]["id"] for b in doc["bookmarks"]} == {3}
    assert len(doc["bookmarks"]) == 2
    with pytest.raises(ExportError, match="no topic with id 99"):
        render(store, "md", topic_id=99)


def test_no_bookmarks_still_gives_valid_documents(tmp_path: Path):
    with Store.open_dir(tmp_path / "d") as s:
        assert orjson.loads(render(s, "json"))["bookmarks"] == []
        rows = list(csv.reader(io.StringIO(render(s, "csv").decode("utf-8-sig"))))
        assert rows == [list(CSV_COLUMNS)]
        assert "No bookmarks yet" in render(s, "html").decode()
        assert render(s, "md").decode().startswith("# topiclens bookmarks\n")


def test_unknown_format(store: Store):
    with pytest.raises(ExportError, match="unknown export format 'pdf'"):
        render(store, "pdf")


def test_default_filename():
    import datetime as dt

    today = dt.date.today().isoformat()
    assert [default_filename(f.name) for f in FORMATS] == [
        f"topiclens-bookmarks-{today}.{f}" for f in ("md", "json", "csv", "html")
    ]


# --- JSON ----------------------------------------------------------------------------------


def test_json_holds_every_field(store: Store):
    doc = orjson.loads(render(store, "json"))
    assert doc["format"] == EXPORT_FORMAT and doc["version"] == EXPORT_VERSION
    want = expected(store)
    assert doc["count"] == len(want) == len(doc["bookmarks"]) == 5
    for got, row in zip(doc["bookmarks"], want, strict=True):
        e: Entry = row["entry"]
        assert got["entry"] == {
            "id": e.id,
            "title": e.title,
            "title_given": e.title_given,
            "summary": e.summary,
            "comment": e.comment,
            "source": e.source,
            "category": e.category,
            "date": e.date,
            "url": e.url,
            "lang": e.lang,
            "format": e.format,
            "origin": {"file": e.origin_file, "line": e.origin_line},
            "extra": e.extra,
            # (digest entries: no feed, key, author, time or content)
            "feed": None,
            "feed_key": None,
            "author": "",
            "published": None,
            "date_first_seen": False,
        }
        tid = row["topic_id"]
        assert got["topic"] == (None if tid is None else {"id": tid, "name": row["topic"]})
        assert got["bookmarked_at"] == row["bookmark"].created_at  # exact, not rounded
        assert got["bookmarked"] == iso_time(row["bookmark"].created_at)
        assert got["note"] == row["bookmark"].note


# --- CSV -----------------------------------------------------------------------------------


def test_csv_is_rfc4180_utf8_with_bom(store: Store):
    data = render(store, "csv")
    assert data.startswith(b"\xef\xbb\xbf")  # spreadsheets then read UTF-8, Chinese intact
    text = data.decode("utf-8-sig")
    assert text.endswith("\r\n")
    # every record ends with CRLF; bare LF appears only inside quoted fields
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows = list(reader)
    assert rows[0] == list(CSV_COLUMNS)
    want = expected(store)
    assert len(rows) == 1 + len(want)
    for got, row in zip(rows[1:], want, strict=True):
        e: Entry = row["entry"]
        record = dict(zip(CSV_COLUMNS, got, strict=True))
        assert record == {
            "topic_id": "" if row["topic_id"] is None else str(row["topic_id"]),
            "topic": row["topic"],
            "id": e.id,
            "title": e.title,
            "summary": e.summary,
            "comment": e.comment,
            "note": row["bookmark"].note,
            "source": e.source,
            "category": e.category,
            "date": e.date or "",
            "url": e.url or "",
            "lang": e.lang,
            "bookmarked_at": iso_time(row["bookmark"].created_at),
        }
    assert "知乎专栏" in text and "中文笔记：稍后细读" in text


# --- Markdown ------------------------------------------------------------------------------


def _inline(token: Any, allowed: frozenset[str] = frozenset({"text", "hardbreak"})) -> str:
    """The text of an inline token; fails on any markup the exporter did not intend."""
    out = []
    for child in token.children:
        assert child.type in allowed, (child.type, token.content)
        if child.type in ("softbreak", "hardbreak"):
            out.append("\n")
        elif child.type in ("text", "code_inline"):
            out.append(child.content)
    return "".join(out)


MD = MarkdownIt("commonmark")


def parse_markdown(data: bytes) -> tuple[str, list[dict[str, Any]]]:
    tokens = MD.parse(data.decode("utf-8"))
    title = ""
    group = None
    records: list[dict[str, Any]] = []
    in_quote = False
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            text = _inline(tokens[i + 1])
            if tok.tag == "h1":
                title = text
            elif tok.tag == "h2":
                group = text
            else:
                assert tok.tag == "h3"
                records.append({"group": group, "title": text, "facts": {}})
            i += 3
            continue
        if tok.type == "blockquote_open":
            in_quote = True
        elif tok.type == "blockquote_close":
            in_quote = False
        elif tok.type == "bullet_list_open":
            while tokens[i].type != "bullet_list_close":
                if tokens[i].type == "inline":
                    allowed = frozenset({"text", "code_inline", "link_open", "link_close"})
                    label, _, value = _inline(tokens[i], allowed).partition(": ")
                    records[-1]["facts"][label] = value
                    links = [c for c in tokens[i].children if c.type == "link_open"]
                    if links:
                        records[-1]["href"] = links[0].attrs["href"]
                i += 1
            continue
        elif tok.type == "inline" and records:
            children = [c for c in tok.children if c.type != "text" or c.content]
            if in_quote:
                records[-1]["comment"] = _inline(tok)
            elif children[0].type == "strong_open":
                assert children[1].content == "Note:" and children[2].type == "strong_close"
                rest = type(tok)(type="inline", tag="", nesting=0, children=children[3:])
                records[-1]["note"] = _inline(rest).removeprefix(" ")
            else:
                assert "summary" not in records[-1]
                records[-1]["summary"] = _inline(tok)
        i += 1
    return title, records


def test_markdown_parses_back_to_every_field(store: Store):
    title, records = parse_markdown(render(store, "md"))
    assert title == "topiclens bookmarks"
    want = expected(store)
    assert len(records) == len(want)
    for got, row in zip(records, want, strict=True):
        e: Entry = row["entry"]
        b = row["bookmark"]
        assert got["group"] == row["topic"]
        assert got["title"] == one_line(e.title)
        facts = {"Bookmarked": iso_time(b.created_at), "Id": e.id}
        if e.source:
            facts["Source"] = one_line(e.source)
        if e.category:
            facts["Category"] = e.category
        if e.date:
            facts["Date"] = e.date
        # only a web URL becomes a link (shown and followed as a CommonMark parser
        # normalises it); javascript: stays text
        linked = bool(e.url and e.url.startswith("https:"))
        if e.url:
            facts["Link"] = MD.normalizeLinkText(e.url) if linked else e.url
        assert got["facts"] == facts
        if linked:
            assert got["href"] == MD.normalizeLink(e.url)
        else:
            assert "href" not in got
        assert got["summary"] == lines_of(e.summary)
        assert got.get("comment", "") == lines_of(e.comment)
        assert got.get("note", "") == lines_of(b.note)


def test_markdown_topic_filter_title(store: Store):
    title, records = parse_markdown(render(store, "md", topic_id=3))
    assert title == "topiclens bookmarks: Speculative <decoding> & *drafts*"
    assert {r["group"] for r in records} == {"Speculative <decoding> & *drafts*"}


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from([*"ab1 .)#*_-+=>!<&;[]()`\\|~:/'\"{}", "投", "机"]),
        min_size=1,
        max_size=30,
    ).filter(lambda s: s.strip())
)
def test_markdown_escape_is_exact(text: str):
    tokens = MarkdownIt("commonmark").parse(md_escape_line(text) + "\n")
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"]
    assert _inline(tokens[1], frozenset({"text"})) == text.strip()


# --- HTML ----------------------------------------------------------------------------------


class ExportPage(HTMLParser):
    """Collects what an HTML export says, and every tag and attribute it uses."""

    FIELDS = frozenset(
        {"source", "category", "date", "url", "bookmarked", "summary", "comment", "note"}
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str | None]] = []
        self.groups: list[tuple[str, str]] = []
        self.records: list[dict[str, Any]] = []
        self.stack: list[str | None] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(tag, k, v) for k, v in attrs]
        a = dict(attrs)
        if tag == "br":
            self.text.append("\n")
            return
        if tag in ("meta", "link", "img", "input", "hr"):
            return
        if tag == "section":
            self.groups.append((a.get("data-topic-id") or "", ""))
        if tag == "article":
            self.records.append({"id": a["data-id"], "group": self.groups[-1]})
        if tag == "a" and self.stack and self.stack[-1] == "title":
            self.records[-1]["href"] = a["href"]
        field = None
        classes = set((a.get("class") or "").split())
        if tag in ("h2", "h3"):
            field = {"h2": "group", "h3": "title"}[tag]
        elif self.records and classes & self.FIELDS and tag != "time":
            field = (classes & self.FIELDS).pop()
        self.stack.append(field)
        if field:
            self.text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "br":
            return
        field = self.stack.pop()
        if not field:
            return
        value = "".join(self.text)
        if field == "group":
            self.groups[-1] = (self.groups[-1][0], value)
        elif field == "note":
            self.records[-1]["note"] = value.removeprefix("Note: ")
        elif field == "bookmarked":
            self.records[-1]["bookmarked"] = value.removeprefix("bookmarked ")
        else:
            self.records[-1][field] = value

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_is_self_contained_and_holds_every_field(store: Store):
    page = ExportPage()
    page.feed(render(store, "html").decode("utf-8"))
    page.close()
    assert "script" not in page.tags and "iframe" not in page.tags and "img" not in page.tags
    assert "link" not in page.tags  # no external stylesheet
    urls = {r["entry"].url for r in expected(store)}
    for tag, name, value in page.attrs:
        assert name != "src" and not name.startswith("on"), (tag, name)
        if name == "href":
            assert value.startswith("#") or value in urls, value
            assert not value.startswith("javascript:")
    want = expected(store)
    assert len(page.records) == len(want)
    for got, row in zip(page.records, want, strict=True):
        e: Entry = row["entry"]
        b = row["bookmark"]
        tid = "" if row["topic_id"] is None else str(row["topic_id"])
        assert got["group"] == (tid, row["topic"])
        assert got["id"] == e.id
        assert got["title"] == one_line(e.title)
        assert got["summary"] == lines_of(e.summary)
        assert got.get("comment", "") == lines_of(e.comment)
        assert got.get("note", "") == lines_of(b.note)
        assert got.get("source", "") == one_line(e.source)
        assert got.get("category", "") == e.category
        assert got.get("date") == e.date
        assert got["bookmarked"] == iso_time(b.created_at)
        if e.url and e.url.startswith("https:"):
            assert got["href"] == e.url and "url" not in got
        else:
            assert "href" not in got and got.get("url") == e.url


# --- writing safely ------------------------------------------------------------------------


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def test_write_atomic_refuses_to_overwrite(tmp_path: Path):
    target = tmp_path / "out.md"
    target.write_bytes(b"precious")
    with pytest.raises(ExportExists, match="already exists; pass --force"):
        write_atomic(target, b"new")
    assert target.read_bytes() == b"precious"
    assert leftovers(tmp_path) == ["out.md"]
    assert write_atomic(target, b"new", force=True) == target
    assert target.read_bytes() == b"new"
    assert leftovers(tmp_path) == ["out.md"]


def test_write_atomic_keeps_mode_of_replaced_file(tmp_path: Path):
    target = tmp_path / "out.csv"
    write_atomic(target, b"a")
    assert target.stat().st_mode & 0o777 == 0o644
    target.chmod(0o600)
    write_atomic(target, b"b", force=True)
    assert target.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("missing/out.md", "the folder .* does not exist"),
        ("a-file/out.md", "is not a folder"),
        ("a-dir", "is a directory"),
    ],
)
def test_write_atomic_unwritable_path(tmp_path: Path, where: str, message: str):
    (tmp_path / "a-file").write_bytes(b"x")
    (tmp_path / "a-dir").mkdir()
    with pytest.raises(ExportError, match=message):
        write_atomic(tmp_path / where, b"data")
    assert leftovers(tmp_path) == ["a-dir", "a-file"]
    assert leftovers(tmp_path / "a-dir") == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc (Linux)")
def test_write_atomic_into_a_directory_even_root_cannot_write(tmp_path: Path):
    # /proc refuses new files to everyone, root included
    with pytest.raises(ExportError, match=r"^/proc/out\.md: cannot write: "):
        write_atomic(Path("/proc/out.md"), b"data")
    assert not Path("/proc/out.md").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_write_atomic_read_only_directory(tmp_path: Path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(ExportError, match="cannot write: Permission denied"):
            write_atomic(locked / "out.md", b"data")
        assert leftovers(locked) == []
    finally:
        locked.chmod(0o755)


def test_write_atomic_failure_midway_leaves_nothing(tmp_path: Path, monkeypatch):
    import errno

    target = tmp_path / "out.json"
    target.write_bytes(b"old")

    def full_disk(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(ExportError, match="no space left on the device"):
        write_atomic(target, b"new", force=True)
    assert target.read_bytes() == b"old"
    assert leftovers(tmp_path) == ["out.json"]
    with pytest.raises(ExportError):
        write_atomic(tmp_path / "fresh.json", b"new")
    assert leftovers(tmp_path) == ["out.json"]


def test_export_bookmarks_writes_what_render_gives(store: Store, tmp_path: Path):
    for fmt in (f.name for f in FORMATS):
        path = tmp_path / default_filename(fmt)
        before = render(store, fmt)
        assert export_bookmarks(store, fmt, path) == path
        after = render(store, fmt)
        # the documents say when they were made: the file is one of the two renders
        assert path.read_bytes() in (before, after)
    with pytest.raises(ExportExists):
        export_bookmarks(store, "md", tmp_path / default_filename("md"))
    assert export_bookmarks(store, "md", tmp_path / default_filename("md"), force=True)


_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\n\t"),
    min_size=0,
    max_size=40,
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(title=_TEXT, summary=_TEXT, comment=_TEXT, note=_TEXT, source=_TEXT)
def test_any_text_survives_every_format(
    title: str, summary: str, comment: str, note: str, source: str
):
    import tempfile

    title, summary = title.strip() or "t", summary.strip() or "s"
    e = Entry(entry_id(title, summary, comment), title, summary, comment, source=source)
    with tempfile.TemporaryDirectory() as tmp, Store.open_dir(tmp) as s:
        s.add_entries([e])
        s.set_bookmark(e.id, True, note)
        b = s.bookmarks()[0]
        row = dict(
            zip(
                CSV_COLUMNS,
                list(csv.reader(io.StringIO(render(s, "csv").decode("utf-8-sig"), newline="")))[1],
                strict=True,
            )
        )
        assert (row["title"], row["summary"], row["comment"], row["note"], row["source"]) == (
            csv_value(title),
            csv_value(summary),
            csv_value(comment),
            csv_value(note),
            csv_value(source),
        )
        got = orjson.loads(render(s, "json"))["bookmarks"][0]
        assert (got["entry"]["title"], got["entry"]["summary"], got["note"]) == (
            title,
            summary,
            note,
        )
        _, records = parse_markdown(render(s, "md"))
        page = ExportPage()
        page.feed(render(s, "html").decode("utf-8"))
        for rec in (records[0], page.records[0]):
            assert rec["title"] == one_line(title)
            assert rec.get("summary", "") == lines_of(summary)  # "\xad" alone shows nothing
            assert rec.get("comment", "") == lines_of(comment)
            assert rec.get("note", "") == lines_of(b.note)
        assert page.records[0].get("source", "") == one_line(source)
        assert records[0]["facts"].get("Source", "") == one_line(source)


# --- one registry of formats ------------------------------------------------------------------


def test_the_registry_is_where_formats_come_from(capsys):
    from topiclens.cli import main

    names = [f.name for f in FORMATS]
    assert len(set(names)) == len(names) and names[0] == "md"
    for f in FORMATS:
        assert f.extension.startswith(".") and default_filename(f.name).endswith(f.extension)
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"{{{','.join(names)}}}" in help_text  # the choices, in registry order
    for f in FORMATS:
        assert f"{f.name}: {f.label}" in help_text


def test_docs_list_exactly_the_registered_formats():
    doc = (ROOT / "docs" / "export.md").read_text()
    listed = re.search(r"`--format ([a-z|\\]+)`", doc)
    assert listed is not None
    assert listed.group(1).split("\\|") == [f.name for f in FORMATS]
    for f in FORMATS:
        assert f"- **{f.label}**" in doc


# --- hostile values -------------------------------------------------------------------------


def _one_bookmark(s: Store, **fields: Any) -> Entry:
    spec = {
        "title": "t",
        "summary": "s",
        "comment": "",
        "source": "",
        "category": "",
        "date": None,
        "url": None,
        "note": "",
    }
    spec.update(fields)
    e = make_entry(spec, 0)
    s.add_entries([e])
    s.set_bookmark(e.id, True, spec["note"] or None)
    return e


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t"])
def test_csv_cells_are_never_formulas(tmp_path: Path, start: str):
    formula = f'{start}HYPERLINK("http://evil")'
    with Store.open_dir(tmp_path / "d") as s:
        _one_bookmark(
            s, title=formula, summary=formula, comment=formula, source=formula, note=formula
        )
        text = render(s, "csv").decode("utf-8-sig")
    row = dict(zip(CSV_COLUMNS, list(csv.reader(io.StringIO(text, newline="")))[1], strict=True))
    for column in ("title", "summary", "comment", "source", "note"):
        assert row[column] == "'" + formula, column


def test_markdown_and_csv_drop_what_a_terminal_acts_on(tmp_path: Path):
    evil = "a\x1b]52;c;cHduZWQ=\x07b\x9b2J\u202ec"
    with Store.open_dir(tmp_path / "d") as s:
        _one_bookmark(s, title=evil, summary=evil, comment=evil, source=evil, note=evil, date=evil)
        for fmt in ("md", "csv", "html"):
            text = render(s, fmt).decode("utf-8-sig")
            shown = text.replace("\r\n", "\n")  # CSV's own record ends
            assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", shown), fmt
            assert "<U+202E>" in text or "&lt;U+202E&gt;" in text, fmt
        doc = orjson.loads(render(s, "json"))
    assert doc["bookmarks"][0]["entry"]["title"] == evil  # the backup keeps every byte


def test_a_restored_id_cannot_leave_its_code_span(tmp_path: Path):
    with Store.open_dir(tmp_path / "d") as s:
        e = _one_bookmark(s)
        s.add_entries([Entry("x`<img src=x>`", "t2", "s2")])
        s.set_bookmark("x`<img src=x>`", True)
        _, records = parse_markdown(render(s, "md"))
    assert {r["facts"]["Id"] for r in records} == {e.id, "x`<img src=x>`"}


def _set_bookmark_time(store_dir: Path, when: float) -> None:
    conn = sqlite3.connect(store_dir / "topiclens.db")
    with conn:
        conn.execute("UPDATE bookmarks SET created_at = ?", (when,))
    conn.close()


@pytest.mark.parametrize("when", [1764500000000.0, 1e300, -1e300])
def test_a_time_out_of_range_never_stops_an_export(tmp_path: Path, when: float):
    home = tmp_path / "d"
    with Store.open_dir(home) as s:
        _one_bookmark(s)
    _set_bookmark_time(home, when)
    with Store.open_dir(home) as s:
        for f in FORMATS:
            doc = build(s, f.name)
            assert doc.count == 1 and str(when) in doc.data.decode("utf-8-sig"), f.name
            assert len(doc.problems) == 1 and "out of range" in doc.problems[0]
        backup = orjson.loads(render(s, "json"))["bookmarks"][0]
    assert backup["bookmarked_at"] == when  # exactly as stored


def test_cli_reports_a_time_out_of_range_and_exports(cli, data_dir: Path, tmp_path: Path):
    with Store.open_dir(data_dir) as s:
        _one_bookmark(s)
    _set_bookmark_time(data_dir, 1764500000000)
    status, out, err = cli("export", "-o", str(tmp_path / "b.md"))
    assert status == 0 and "wrote 1 bookmark as Markdown" in out
    assert err.count("\n") == 1 and "warning" in err and "1764500000000" in err


# --- where an export may be written ------------------------------------------------------------


@pytest.mark.parametrize("force", [False, True])
def test_only_a_regular_file_is_ever_replaced(tmp_path: Path, force: bool):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    precious = tmp_path / "precious.md"
    precious.write_bytes(b"precious")
    link = tmp_path / "link.md"
    link.symlink_to(precious)
    folder = tmp_path / "folder"
    folder.mkdir()
    for target, kind in (
        (fifo, "named pipe"),
        (link, "symbolic link"),
        (folder, "is a directory"),
    ):
        with pytest.raises(ExportError, match=kind) as refused:
            write_atomic(target, b"new", force=force)
        assert not isinstance(refused.value, ExportExists)  # --force would not help
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink()
    assert precious.read_bytes() == b"precious"
    assert leftovers(tmp_path) == ["fifo", "folder", "link.md", "precious.md"]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_is_never_replaced_even_by_root(tmp_path: Path):
    device = tmp_path / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null of our own
    with pytest.raises(ExportError, match="is a device"):
        write_atomic(device, b"new", force=True)
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_cli_refuses_a_fifo_with_force_in_one_line(cli, seeded_dir: Path, tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    status, out, err = cli("export", "-o", str(fifo), "--force")
    assert status == 1 and out == "" and err.count("\n") == 1
    assert "named pipe" in err and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_special_mode_bits_are_never_copied(tmp_path: Path):
    target = tmp_path / "out.md"
    target.write_bytes(b"old")
    target.chmod(0o6755 if os.geteuid() == 0 else 0o2755)  # setuid only root may set
    write_atomic(target, b"new", force=True)
    assert stat.S_IMODE(target.stat().st_mode) == 0o755


@pytest.mark.parametrize("name", ["-", "/dev/stdout"])
def test_cli_writes_standard_output(cli, seeded_dir: Path, name: str):
    status, out, err = cli("export", "--format", "json", "-o", name)
    assert status == 0 and err == ""
    assert orjson.loads(out.encode("utf-8"))["count"] == 5


@pytest.mark.slow
def test_a_killed_export_leaves_a_temporary_that_the_next_one_removes(tmp_path: Path):
    target = tmp_path / "out.json"
    code = (
        "import os, signal; from pathlib import Path\n"
        "from topiclens.store.export import write_atomic\n"
        "def held(fd):  # the bytes are in the temporary file: say so, and wait to be killed\n"
        "    print('writing', flush=True)\n"
        "    signal.pause()\n"
        "os.fsync = held\n"
        f"write_atomic(Path({str(target)!r}), b'half')\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "writing\n"
    finally:
        child.kill()
        child.communicate()
    stale = leftovers(tmp_path)
    assert len(stale) == 1 and stale[0].startswith(".out.json.") and not target.exists()
    host, _pid, rest = stale[0].removeprefix(".out.json.topiclens.").split(".", 2)
    other = tmp_path / f".out.json.topiclens.{host}.{os.getpid()}.{rest}"  # a live writer's
    other.write_bytes(b"busy")
    write_atomic(target, b"whole")
    assert target.read_bytes() == b"whole"
    assert leftovers(tmp_path) == sorted([other.name, "out.json"])


@pytest.mark.slow
def test_json_escapes_every_character_a_terminal_acts_on_and_reads_back_exactly():
    every = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    acted_on = "".join(ch for ch in every if ch not in "\n\t" and terminal_text(ch) != ch)
    data = json_bytes({"text": acted_on})
    assert orjson.loads(data) == {"text": acted_on}
    assert all(terminal_text(ch) == ch for ch in data.decode("utf-8"))
