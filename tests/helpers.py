"""Plain helpers shared by the test modules: paths, store comparisons, fixed data, and
driving the reader with Pilot. Fixtures live in conftest.py; a test module imports these
with ``from helpers import ...`` (pytest puts tests/ on the import path)."""

from __future__ import annotations

import asyncio
import datetime as dt
import html
import importlib.util
import re
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
import webbrowser
from collections.abc import Awaitable, Callable
from email.utils import format_datetime
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from feed_server import Exchange, Reply
from textual.app import App
from textual.command import CommandList
from textual.pilot import Pilot
from topiclens.store import Entry, Store, Topic
from topiclens.store.importer import bundled_paths, import_bundled, import_file
from topiclens.store.text import entry_id
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.workers import DIALOG

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
ACT = ROOT / "tests" / "workers" / "act.py"  # another topiclens process (see its docstring)
ASSETS = ROOT / "assets"
DIGEST = ASSETS / "000_628a9e309749597c.txt"
LISTING = ASSETS / "002_e2969eaa9c23cb58.txt"

CliResult = tuple[int, str, str]
# the bundled corpus's four entries about the KV cache itself (found by members, not labels)
KV_CACHE = {"f8c07ca7d6cc1cfc", "59af7b28c5a8c150", "65c645ae592e06c1", "09ece52234ba9c09"}


def ok(result: CliResult) -> str:
    """The output of a command that must have succeeded (its stderr shown if it did not)."""
    status, out, err = result
    assert status == 0, err
    return out


# --- the store, compared row for row ------------------------------------------------------


def dump_store(db: Path) -> dict[str, list[tuple]]:
    """Every row of every table, for row-for-row comparisons."""
    conn = sqlite3.connect(db)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}
    finally:
        conn.close()


def dump_data(db: Path) -> dict[str, list[tuple]]:
    """:func:`dump_store` without the reader's place (meta ``reader.state``), which the
    reader writes as it moves: what a session changed in the data itself."""
    dump = dump_store(db)
    dump["meta"] = [row for row in dump.get("meta", []) if row[0] != "reader.state"]
    return dump


def integrity(db: Path) -> str:
    """``PRAGMA integrity_check`` of the store file, through a fresh connection."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def bundled() -> list[Path]:
    """The bundled corpus files, in import order."""
    return [p for _, p in bundled_paths()]


# --- made-up digest entries in any number, for tests that need a large or a fresh file;
# each is unique (its index is in the summary and the comment): n import as n new ones

GENERATED_TOPICS = (
    "KV 缓存压缩",
    "MoE 内核",
    "投机解码",
    "NVLink 互连",
    "FlashAttention 内核",
    "推理服务调度",
)


def generated_lines(n: int, start: int = 0, tag: str = "Gen") -> list[str]:
    """The lines of n made-up digest entries, numbered from start."""
    lines: list[str] = []
    for i in range(start, start + n):
        topic = GENERATED_TOPICS[i % len(GENERATED_TOPICS)]
        lines += [
            f"工程实践 {tag} Blog 2026/{i % 12 + 1:02d}/{i % 28 + 1:02d}",
            f"文章介绍第 {i} 种{topic}方法，给出在 H100 上的测量与对比，并讨论部署时的取舍。",
            f"推荐收录：第 {i} 篇（{tag}）的数据可信，适合做推理系统的工程师。",
        ]
    return lines


def write_digest(path: Path, n: int, start: int = 0, tag: str = "Gen") -> Path:
    path.write_text("\n".join(generated_lines(n, start, tag)) + "\n", encoding="utf-8")
    return path


# --- the reader's store: fixed topics, the same whatever the clustering does -------------

READER_TOPICS: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    (1, "Speculative decoding 投机解码", ("投机", "speculative", "draft", "eagle")),
    (2, "MoE and GPU kernels", ("moe", "专家", "kernel", "内核", "cuda")),
    (3, "KV cache 缓存", ("kv", "缓存", "cache", "显存")),
    (4, "Serving and inference", ("推理", "serving", "vllm", "sglang")),
    (5, "Everything else", ()),
)


def make_reader_store(data_dir: Path) -> Path:
    """The bundled corpus with topics made by fixed keyword rules (not by clustering), so
    reader tests and snapshots stay the same when the clustering is tuned."""
    with Store.open_dir(data_dir) as store:
        import_bundled(store)
        members: dict[int, list[str]] = {tid: [] for tid, _, _ in READER_TOPICS}
        assignments: dict[str, tuple[int, float, list[str]]] = {}
        for entry in store.entries():
            text = entry.text().lower()
            for tid, _, words in READER_TOPICS:
                hits = [w for w in words if w in text]
                if hits or not words:
                    assignments[entry.id] = (tid, 0.1 * len(hits), hits)
                    members[tid].append(entry.id)
                    break
        similar = {
            eid: [(other, 0.5) for other in ids if other != eid][:3]
            for ids in members.values()
            for eid in ids
        }
        topics = [
            Topic(tid, name, [(w, 1.0) for w in words] or [("misc", 1.0)], len(members[tid]))
            for tid, name, words in READER_TOPICS
        ]
        store.replace_topics(topics, assignments, similar)
        return store.path


# --- SQL that makes a store back into an older schema, for the migrations' tests -----------

# a store of this schema as the schema before its smaller rows left it: its assignments in
# a rowid table, its entries and token cache naming each row's file and tokenizer version in
# full (the last three migrations; the entries' origin_file column comes back last; the
# similar entries stay packed, which the packing migration reads as well as JSON)
BEFORE_SMALLER_ROWS = (
    "CREATE TABLE topic_assignments_rowid (entry_id TEXT PRIMARY KEY REFERENCES entries(id) "
    "ON DELETE CASCADE, topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE, "
    "score REAL NOT NULL DEFAULT 0, terms TEXT NOT NULL DEFAULT '[]', "
    "similar TEXT NOT NULL DEFAULT '[]');"
    "INSERT INTO topic_assignments_rowid SELECT * FROM topic_assignments;"
    "DROP TABLE topic_assignments;"
    "ALTER TABLE topic_assignments_rowid RENAME TO topic_assignments;"
    "CREATE INDEX topic_assignments_topic_entry ON topic_assignments(topic_id, entry_id);"
    "ALTER TABLE entries ADD COLUMN origin_file TEXT NOT NULL DEFAULT '';"
    "UPDATE entries SET origin_file = "
    "coalesce((SELECT path FROM origin_files WHERE id = origin_id), '');"
    "ALTER TABLE entries DROP COLUMN origin_id; DROP TABLE origin_files;"
    "CREATE TABLE token_cache_named (entry_id TEXT PRIMARY KEY REFERENCES entries(id) "
    "ON DELETE CASCADE, content_hash TEXT NOT NULL, tokenizer_version TEXT NOT NULL, "
    "tokens BLOB NOT NULL);"
    "INSERT INTO token_cache_named(rowid, entry_id, content_hash, tokenizer_version, tokens) "
    "SELECT c.rowid, c.entry_id, c.content_hash, v.version, c.tokens FROM token_cache c "
    "JOIN token_versions v ON v.id = c.version_id ORDER BY c.rowid;"
    "DROP TABLE token_cache; ALTER TABLE token_cache_named RENAME TO token_cache;"
    "DROP TABLE token_versions;"
)
# ... and without its topics' counts of also rows
WITHOUT_ALSO_SIZES = BEFORE_SMALLER_ROWS + (
    "DROP TRIGGER topic_also_counted; DROP TRIGGER topic_also_uncounted;"
    "DROP TRIGGER topic_also_recounted; ALTER TABLE topics DROP COLUMN also_size;"
)
# ... and back into schema 9: no feeds (11), and no trash, bookmark topics, read marks,
# saved searches or mute rules (10)
SCHEMA_9 = (
    WITHOUT_ALSO_SIZES + "DROP TABLE entry_content; DROP INDEX entries_feed_key; DROP TABLE feeds;"
    + "".join(
        f"ALTER TABLE entries DROP COLUMN {column};"
        for column in (
            "feed_id", "feed_key", "author", "published", "date_first_seen", "content_start"
        )
    )
    + "DROP TRIGGER IF EXISTS entries_muted; DROP TRIGGER IF EXISTS entries_muted_again;"
    + "DROP TRIGGER IF EXISTS entries_unmuted; DROP TABLE muted_entries; DROP TABLE mute_rules;"
    + "DROP TABLE saved_searches; DROP TABLE read_marks; DROP TABLE trash;"
    + "ALTER TABLE bookmarks DROP COLUMN topic_id;"
)  # fmt: skip
# ... and back into schema 8: no corrections
SCHEMA_8 = (
    SCHEMA_9 + "DROP TABLE correction_log; DROP TABLE entry_pins; DROP TABLE topic_corrections;"
)
# ... and back into schema 7: notes inside the bookmark rows
SCHEMA_7 = (
    SCHEMA_8 + "ALTER TABLE bookmarks ADD COLUMN note TEXT NOT NULL DEFAULT '';"
    "UPDATE bookmarks SET note = coalesce("
    "(SELECT note FROM notes n WHERE n.entry_id = bookmarks.entry_id), '');"
    "DROP TABLE notes;"
)
# ... and back into schema 6: no cohesion, no mixed mark, no also rows
SCHEMA_6 = (
    SCHEMA_7 + "DROP TABLE topic_also_list; DROP TABLE topic_also;"
    "ALTER TABLE topics DROP COLUMN cohesion; ALTER TABLE topics DROP COLUMN mixed;"
)
# ... and back into schema 4: similar entries in their own table, no topic lists
SCHEMA_4 = (
    SCHEMA_6 + "CREATE TABLE similar (entry_id TEXT NOT NULL, other_id TEXT NOT NULL,"
    " rank INTEGER NOT NULL, score REAL NOT NULL, PRIMARY KEY (entry_id, rank));"
    "ALTER TABLE topic_assignments DROP COLUMN similar; DROP TABLE topic_list;"
)


# --- bookmarks with text that breaks naive exporters ----------------------------------------

# Entries written to break naive exporters: Markdown, HTML and CSV syntax, Chinese, several
# lines, a javascript: URL, empty optional fields, extra metadata.
TRICKY: list[dict[str, Any]] = [
    {
        "title": "# Not a heading *nor emphasis* [nor](a link) <b>nor HTML</b> &amp; `code`",
        "summary": "1. not a list\n- nor this\n> nor a quote\n=== nor a setext line ===\n"
        "<script>alert(1)</script> \\ back\\slash _under_ ~strike~ | pipe",
        "comment": "Quotes \"double\" and 'single', commas, and a line break\nsecond line",
        "source": 'Blog, with "quotes"',
        "category": "工程实践",
        "date": "2026-03-04",
        "url": "https://example.com/a?b=1&c=%3C2%3E&q=投机",
        "note": "my *note* with <tags>\n+ plus line\n2) paren",
    },
    {
        "title": "投机解码：草稿模型与验证，一次讲清",
        "summary": "文章介绍投机解码（speculative decoding）的原理，"
        "比较 EAGLE-3 与 Medusa；吞吐提升 2.1×。",
        "comment": "推荐收录，数据翔实。",
        "source": "知乎专栏",
        "category": "论文解读",
        "date": None,
        "url": "javascript:alert(document.cookie)",
        "note": "",
    },
    {
        "title": "KV cache offload to CPU memory",
        "summary": "How vLLM offloads KV blocks; =cmd|' /C calc'!A0 looks like a formula.",
        "comment": "",
        "source": "",
        "category": "",
        "date": "2025-12-31",
        "url": None,
        "note": "中文笔记：稍后细读",
        "extra": {"id": 7, "tags": ["kv", "offload"]},
    },
]


def make_entry(spec: dict[str, Any], n: int) -> Entry:
    return Entry(
        id=entry_id(spec["title"], spec["summary"], spec["comment"]),
        title=spec["title"],
        summary=spec["summary"],
        comment=spec["comment"],
        source=spec["source"],
        category=spec["category"],
        date=spec["date"],
        url=spec["url"],
        lang="en",
        format="jsonl",
        origin_file="/tmp/tricky.jsonl",
        origin_line=n + 1,
        extra=spec.get("extra", {}),
    )


def seed(s: Store) -> None:
    """The bundled digest plus the tricky entries; 5 bookmarks (3 tricky, 2 digest), two
    topics holding some of them, one bookmarked entry left without a topic."""
    import_file(s, DIGEST)
    tricky = [make_entry(spec, n) for n, spec in enumerate(TRICKY)]
    s.add_entries(tricky)
    digest_ids = [e.id for e in s.entries() if e.format == "digest"]
    for e, spec in zip(tricky, TRICKY, strict=True):
        s.set_bookmark(e.id, True, spec["note"] or None)
    s.set_bookmark(digest_ids[0], True)
    s.set_bookmark(digest_ids[1], True, "a digest note")
    topics = [
        Topic(3, "Speculative <decoding> & *drafts*", [("draft", 1.0)], 2),
        Topic(8, "KV cache", [("kv", 1.0)], 3),
    ]
    assignments = {
        tricky[0].id: (3, 0.7, ["draft"]),
        tricky[1].id: (3, 0.6, ["draft"]),
        tricky[2].id: (8, 0.9, ["kv"]),
        digest_ids[0]: (8, 0.2, ["kv"]),
        digest_ids[2]: (8, 0.1, ["kv"]),  # in a topic but not bookmarked
    }
    s.replace_topics(topics, assignments)


# --- the hostile files of tests/data/hostile, and the script that writes them -------------

HOSTILE_FILES = DATA / "hostile"


def _make_corpus() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_corpus", HOSTILE_FILES / "make_corpus.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOSTILE_CORPUS = _make_corpus()


# --- what a terminal or a browser would act on -----------------------------------------------

CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
FORBIDDEN_TAGS = {"script", "style", "iframe", "object", "embed", "form", "input", "button",
                  "textarea", "select", "svg", "math", "base", "meta", "link", "frame",
                  "frameset", "applet", "noscript", "template"}  # fmt: skip
URL_ATTRIBUTES = {"href", "src", "cite", "action", "formaction", "data", "poster", "srcset"}


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in FORBIDDEN_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name in ("style", "srcdoc", "formaction"):
                self.found.append(f"{tag}[{name}]")
            if name in URL_ATTRIBUTES and value is not None:
                scheme = re.sub(r"[\x00-\x20]", "", value).split(":", 1)
                if len(scheme) == 2 and scheme[0].lower() not in ("http", "https", "mailto"):
                    self.found.append(f"{tag}[{name}={value[:40]}]")
                elif len(scheme) == 1:
                    self.found.append(f"{tag}[{name}] relative: {value[:40]}")

    handle_startendtag = handle_starttag


def unsafe_html_parts(html: str) -> list[str]:
    """What in ``html`` could run or load something unwanted in a browser: forbidden tags,
    event and style attributes, URL attributes that are relative or not http/https/mailto."""
    collector = _Collector()
    collector.feed(html)
    collector.close()
    return collector.found


# --- feeds, as a server on localhost serves them (tests/feed_server.py) ----------------------

LAST_MODIFIED = "Wed, 01 May 2024 08:00:00 GMT"


def rss(title: str, items: list[tuple[str, str, str]]) -> bytes:
    """An RSS 2.0 document: (guid, title, body) per item, newest first."""
    parts = []
    for n, (guid, item_title, body) in enumerate(items):
        when = format_datetime(utc(1714550400 - 3600 * n))
        parts.append(
            f"<item><title>{html.escape(item_title)}</title><guid>{guid}</guid>"
            f"<link>https://blog.example.org/{guid}</link><pubDate>{when}</pubDate>"
            f"<description>{html.escape(body)}</description></item>"
        )
    return (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
        f"<title>{html.escape(title)}</title><link>https://blog.example.org/</link>"
        + "".join(parts)
        + "</channel></rss>"
    ).encode()


def utc(stamp: int) -> dt.datetime:
    """The moment of a Unix time, in UTC."""
    return dt.datetime.fromtimestamp(stamp, dt.UTC)


KV = [
    ("kv-1", "Paged attention and the KV cache", "KV cache blocks of 16 tokens cut waste."),
    ("kv-2", "Prefix caching in vLLM", "Requests sharing a prompt reuse the KV cache blocks."),
]
SPEC = [("sd-1", "Speculative decoding on a budget", "A draft model proposes tokens to verify.")]


class Conditional:
    """A feed that answers with its validators, and 304 to a request that sends them."""

    def __init__(self, body: bytes, etag: str = '"v1"', last_modified: str = LAST_MODIFIED):
        self.body, self.etag, self.last_modified = body, etag, last_modified

    def __call__(self, ex: Exchange) -> None:
        validators = [("ETag", self.etag), ("Last-Modified", self.last_modified)]
        if ex.request.headers.get("if-none-match") == self.etag:
            ex.send(Reply(304, headers=validators))
        else:
            ex.send(Reply(200, self.body, [("Content-Type", "application/rss+xml"), *validators]))


# --- the trusted-topics view of the reader's store ----------------------------------------

# all below the clear bar (0.6) but the unmeasured one, so the list reads largest first
TRUST_COHESION = {1: 0.58, 2: 0.12, 3: 0.55, 4: 0.41, 5: None}
MIXED_NAME = "Mixed: moe, kernel, cuda"


def make_trust_store(path: Path) -> None:
    """The reader fixture's topics as a clustering that measures them leaves them: the
    largest (MoE and GPU kernels) found mixed and named so, a cohesion for the others (one
    not measured), and each entry also listed under the other topics whose words it uses."""
    words = {tid: w for tid, _, w in READER_TOPICS}
    with Store(path) as store:
        assigned: dict[str, tuple[int, float, list[str]]] = {}
        also: list[tuple[str, int, float]] = []
        for entry in store.entries():
            found = store.assignment(entry.id)
            assert found is not None
            assigned[entry.id] = (found.topic_id, found.score, found.terms)
            text = entry.text().lower()
            for tid, w in words.items():
                hits = [x for x in w if x in text]
                if hits and tid != found.topic_id:
                    also.append((entry.id, tid, 0.1 * len(hits)))
        topics = [
            t._replace(name=MIXED_NAME, mixed=True, cohesion=0.12)
            if t.id == 2
            else t._replace(cohesion=TRUST_COHESION[t.id])
            for t in store.topics()
        ]
        store.replace_topics(topics, assigned, also=also)


# --- text that a terminal would act on, in every field and topic name --------------------

HOSTILE = (
    "clipboard \x1b]52;c;cHduZWQ=\x07 set",
    "window \x1b]0;pwned\x07 title",
    "screen \x1b[2J cleared",
    "c1 \x9b31m csi and \x85 next line",
    "bidi \u202eoverride\u202c here",
    "isolate \u2066inside\u2069 here",
    "closing [/] tag",
    "[@click=app.quit]click me[/]",
    "[b]bold[/b] KV cache [WIP]",
    "tab\tand\nnewline \x00 nul \x7f del",
)
TOPIC_NAMES = ("C++ [/draft]", "[@click=app.quit]quit[/]", "KV cache [WIP] \x1b]0;t\x07\u202e")


# --- driving the reader ----------------------------------------------------------------------

SIZE = (120, 34)

Scenario = Callable[[TopicLensApp, MainScreen, Pilot[None]], Awaitable[None]]


def run(
    store_path: Path,
    scenario: Scenario,
    *,
    keymap: Path | None = None,
    size: tuple[int, int] = SIZE,
    poll_interval: float = 60.0,
) -> None:
    """Open the reader on ``store_path`` at a fixed size and play ``scenario``."""

    async def go() -> None:
        with Store(store_path) as store:
            app = TopicLensApp(
                store,
                keymap_file=keymap or store_path.parent / "no-keymap.toml",
                poll_interval=poll_interval,
            )
            async with app.run_test(size=size) as pilot:
                await settle(pilot)
                screen = app.screen
                assert isinstance(screen, MainScreen)
                await scenario(app, screen, pilot)

    asyncio.run(go())


async def settle(pilot: Pilot[None]) -> None:
    """Wait for the reader's background work (twice: a worker's end may start another)."""
    for _ in range(2):
        await background_done(pilot.app)
        await pilot.pause()


async def wait_until(
    pilot: Pilot[None], condition: Callable[[], object], what: str, timeout: float = 20.0
) -> None:
    """Let the app run until ``condition()`` holds; fail naming ``what`` after ``timeout``
    seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"still waiting after {timeout} s: {what}"
        await pilot.pause(0.02)


def palette_hits(app: App[None]) -> list[str]:
    """The titles the open command palette lists, best first."""
    hits = app.screen.query_one(CommandList)
    return [
        str(hits.get_option_at_index(i).prompt).split("\n")[0] for i in range(hits.option_count)
    ]


async def background_done(app: App[None]) -> None:
    """Wait for every worker but the dialog flows, which wait for the user's answer."""
    work = [w for w in app.workers if w.group != DIALOG]
    if work:  # (an empty list would make Textual wait for every worker)
        await app.workers.wait_for_complete(work)


def screen_lines(app: TopicLensApp) -> list[str]:
    """The text of every cell line of the screen as the terminal gets it (toasts and
    dialogs included), from Textual's compositor: no public API gives the whole screen."""
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


def line_text(widget: object, y: int) -> str:
    return "".join(seg.text for seg in widget.render_line(y))  # type: ignore[attr-defined]


# --- snapshots of the reader ------------------------------------------------------------------

KEYMAP = Path("/home/user/.config/topiclens/keymap.toml")  # shown in help; never read


def before(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run(pilot: Pilot[None]) -> None:
        await background_done(pilot.app)
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await background_done(pilot.app)
        await pilot.pause()
        pilot.app.clear_notifications()
        await pilot.pause()

    return run


def killed_reader(store_path: Path, steps: str) -> str:
    """What the reader printed when, in its own process on ``store_path``, it ran
    ``steps`` (Pilot's code, ``pilot``, ``app`` and ``os`` at hand) and was then killed by
    SIGKILL: no unmount, no quit."""
    body = textwrap.indent(textwrap.dedent(steps).strip(), " " * 8)
    code = f"""
import asyncio, os, signal
from pathlib import Path
from topiclens.store import Store
from topiclens.tui.app import TopicLensApp

async def main():
    store = Store({str(store_path)!r})
    app = TopicLensApp(store, keymap_file=Path("/nonexistent/keymap.toml"), cluster=False)
    async with app.run_test(size=(120, 34)) as pilot:
        await pilot.pause()
{body}
        os.kill(os.getpid(), signal.SIGKILL)
asyncio.run(main())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == -9, done.stderr[-2000:]
    return done.stdout


def set_browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> Path:
    """$BROWSER set to a script named ``name`` (a terminal browser's name makes webbrowser
    treat it as one) that writes its argument to a file, whose path is returned."""
    out = tmp_path / f"{name}-opened.txt"
    script = tmp_path / "bin" / name
    script.parent.mkdir(exist_ok=True)
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{out}"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("BROWSER", str(script))
    # webbrowser reads $BROWSER once per process: make it read this one
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "_browsers", {})
    return out


def feedparser_result(path: Path) -> Any:
    """feedparser's own result for the feed file ``path``, called as ``parse_feed`` calls
    it, or the repr of what it raised."""
    import io

    import feedparser
    from topiclens.store import feed_parse

    body, _ = feed_parse.prepare(path.read_bytes())
    try:
        return feedparser.parse(
            io.BytesIO(body),
            response_headers={"content-type": "application/xml", "content-location": "http://x/"},
            sanitize_html=False,
            resolve_relative_uris=False,
        )
    except Exception as exc:  # (compared as it is raised)
        return repr(exc)


# the headers a test feed of feedparser's suite names in its leading comment
FEED_HEADER = re.compile(rb"^Header:\s*([A-Za-z-]+):\s*(.*?)\s*$", re.MULTILINE)


def parse_test_feed(path: Path) -> Any:
    """The feed file ``path`` as ``parse_feed`` reads it (with the headers its leading comment
    names, as feedparser's harness sends them, at a fixed time), or the NotAFeed it raises."""
    from topiclens.store.feed_parse import NotAFeed, parse_feed

    data = path.read_bytes()
    found = FEED_HEADER.findall(data[:4096])
    headers = {k.decode().lower(): v.decode("latin-1") for k, v in found}
    url = headers.pop("content-location", "http://127.0.0.1:9/feeds/" + path.name)
    now = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    try:
        return parse_feed(data, url=url, path=path.name, headers=headers, now=now)
    except NotAFeed as exc:
        return f"NotAFeed: {exc}"
