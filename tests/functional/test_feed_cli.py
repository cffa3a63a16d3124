"""``topiclens feed ...``, ``topiclens refresh`` and feeds in imports and exports, from the
command line, against a real HTTP server on localhost."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pytest
from feed_server import FeedServer, Reply
from helpers import DATA, KV, ROOT, SPEC, Conditional, rss
from topiclens.store import Store

# slow as a whole: every test talks HTTP to a real server on localhost (tests/feed_server.py)
pytestmark = pytest.mark.slow

FEEDS = DATA / "feeds"
Cli = Callable[..., tuple[int, str, str]]

# What a terminal would act on: C0 controls but tab and newline, DEL, C1 controls, and
# the bidi overrides and isolates (shown as <U+202E>, never sent raw).
TERMINAL_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def server() -> Iterator[FeedServer]:
    with FeedServer() as s:
        yield s


def feeds_json(cli: Cli) -> list[dict]:
    status, out, _ = cli("feed", "list", "--json")
    assert status == 0
    return orjson.loads(out)


# --- feed add ------------------------------------------------------------------------------


def test_feed_add_subscribes_and_fetches_at_once(cli: Cli, server: FeedServer):
    server.route("/kv.xml", Reply(200, rss("KV Blog", KV)))
    status, out, err = cli("feed", "add", server.url("/kv.xml"), "--folder", "infra")
    assert status == 0 and err == ""
    assert out.splitlines()[0] == f"subscribed to feed 1: KV Blog <{server.url('/kv.xml')}>"
    assert out.splitlines()[1].startswith("2 entries, 2 new")
    (feed,) = feeds_json(cli)
    assert {k: feed[k] for k in ("id", "url", "title", "status", "error", "entries", "unread")} == {
        "id": 1,
        "url": server.url("/kv.xml"),
        "title": "KV Blog",
        "status": "ok",
        "error": None,
        "entries": 2,
        "unread": 2,
    }
    assert feed["folder"] == "infra" and feed["last_checked"] == feed["last_ok"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", feed["last_checked"])
    # added again: said, nothing fetched
    status, out, _ = cli("feed", "add", server.url("/kv.xml"))
    assert status == 0 and out.startswith("already subscribed as feed 1")
    assert len(server.requests) == 1


def test_feed_add_follows_a_page_to_the_feed_it_names(cli: Cli, server: FeedServer):
    page = (
        b'<!DOCTYPE html><html><head><title>Blog</title><link rel="alternate" '
        b'type="application/rss+xml" href="/feed.xml"></head><body>hi</body></html>'
    )
    server.route("/", Reply(200, page, [("Content-Type", "text/html")]))
    server.route("/feed.xml", Reply(200, rss("KV Blog", KV)))
    status, out, _ = cli("feed", "add", server.url("/"), "--name", "Mine")
    assert status == 0 and f"<{server.url('/feed.xml')}>" in out
    (feed,) = feeds_json(cli)
    assert (feed["url"], feed["title"], feed["entries"]) == (server.url("/feed.xml"), "Mine", 2)


@pytest.mark.parametrize(
    ("path", "reply", "says"),
    [
        ("/page", Reply(200, b"<!DOCTYPE html><html><title>Home</title></html>"), "HTML page"),
        ("/missing", Reply(404), "404"),
        ("/empty", Reply(200, b""), "empty"),
    ],
)
def test_feed_add_of_no_feed_says_what_it_got_in_one_line_and_stores_nothing(
    cli: Cli, server: FeedServer, path: str, reply: Reply, says: str
):
    server.route(path, reply)
    status, out, err = cli("feed", "add", server.url(path))
    assert status == 1 and out == ""
    assert len(err.splitlines()) == 1 and says in err and server.url(path) in err
    assert feeds_json(cli) == []
    assert cli("entries", "--json")[1].count('"id"') == 0


@pytest.mark.parametrize(
    ("url", "says"), [("ftp://example.org/feed.xml", "not ftp"), ("no-such-file.xml", "not a URL")]
)
def test_feed_add_takes_http_https_and_file_only(cli: Cli, url: str, says: str):
    status, _, err = cli("feed", "add", url)
    assert status == 1 and says in err and len(err.splitlines()) == 1
    assert feeds_json(cli) == []


def test_a_first_entry_is_stored_whether_or_not_it_can_be_grouped_yet(cli: Cli, server: FeedServer):
    """A store's very first entry: the grouping may refuse so little text (then the entry
    waits in no topic, and the command says why); the subscription and the entry stay."""
    server.route("/one.xml", Reply(200, rss("One", [("1", "Only post", "Just one.")])))
    status, out, err = cli("feed", "add", server.url("/one.xml"))
    assert status == 0 and err == ""
    assert out.splitlines()[1].startswith("1 entry, 1 new: 1 in ")
    (row,) = orjson.loads(cli("entries", "--json")[1])["entries"]
    assert row["feed"] == 1
    if row["topic"] is None:
        assert "1 in no topic yet" in out and "not grouped into topics yet" in out


def test_feed_add_of_a_file(cli: Cli):
    status, out, _ = cli("feed", "add", str(FEEDS / "jsonfeed-1.1.json"))
    assert status == 0 and "file://" in out
    assert feeds_json(cli)[0]["entries"] == 3


# --- rename, remove --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", "  ", "two\nlines", "x" * 201])
def test_feed_rename_refuses_a_name_that_is_not_one_bounded_line(
    cli: Cli, server: FeedServer, name: str
):
    server.route("/kv.xml", Reply(200, rss("KV Blog", KV)))
    cli("feed", "add", server.url("/kv.xml"))
    status, _, err = cli("feed", "rename", "1", name)
    assert status == 2 and err.startswith("topiclens: a feed's name")
    assert feeds_json(cli)[0]["title"] == "KV Blog"


def test_feed_rename_and_remove(cli: Cli, server: FeedServer):
    server.route("/kv.xml", Reply(200, rss("KV Blog", KV)))
    cli("feed", "add", server.url("/kv.xml"))
    assert cli("feed", "rename", "1", "vLLM notes")[:2] == (0, "feed 1 is now called vLLM notes\n")
    rows = orjson.loads(cli("entries", "--json")[1])["entries"]
    assert {e["source"] for e in rows} == {"vLLM notes"}
    assert cli("feed", "rename", "9", "x")[0] == 1
    status, out, _ = cli("feed", "remove", "1")
    assert status == 0 and out == "unsubscribed from feed 1 (vLLM notes); its 2 entries stay\n"
    assert feeds_json(cli) == []
    rows = orjson.loads(cli("entries", "--json")[1])["entries"]
    assert len(rows) == 2 and {e["feed"] for e in rows} == {1}
    assert cli("feed", "remove", "1")[0] == 1


# --- refresh ---------------------------------------------------------------------------------


def subscribe_only(cli: Cli, folder: Path, urls: list[str]) -> None:
    """Subscribe without fetching, as an OPML import does."""
    outlines = "".join(f'<outline type="rss" text="" xmlUrl="{u}"/>' for u in urls)
    path = folder / "subscriptions.opml"
    path.write_text(f'<?xml version="1.0"?><opml version="2.0"><body>{outlines}</body></opml>')
    assert cli("feed", "import", str(path))[0] == 0


def test_refresh_says_what_changed_and_exits_1_naming_each_failure(
    cli: Cli, server: FeedServer, tmp_path: Path
):
    server.route("/kv.xml", Conditional(rss("KV Blog", KV)))
    server.route("/spec.xml", Conditional(rss("Spec Blog", SPEC)))
    server.route("/broken.xml", Reply(500))
    subscribe_only(cli, tmp_path, [server.url(p) for p in ("/kv.xml", "/spec.xml", "/broken.xml")])
    status, out, err = cli("refresh")
    assert status == 1
    lines = out.splitlines()
    assert "feed 1 KV Blog: 2 new" in lines and "feed 2 Spec Blog: 1 new" in lines
    assert "3 new entries from 2 feeds; 1 failed" in lines
    (failure,) = err.splitlines()
    assert failure.startswith(f"topiclens: feed 3 {server.url('/broken.xml')}") and "500" in failure
    # only the good ones, by id: all fetched, exit 0; unchanged, said so
    status, out, err = cli("refresh", "1", "2")
    assert (status, err) == (0, "")
    assert out == "no new entries: 2 feeds not modified, nothing downloaded\n"
    assert cli("refresh", "7")[0] == 1


def test_refresh_json(cli: Cli, server: FeedServer, tmp_path: Path):
    server.route("/kv.xml", Reply(200, rss("KV Blog", KV)))
    subscribe_only(cli, tmp_path, [server.url("/kv.xml")])
    status, out, _ = cli("refresh", "--json")
    doc = orjson.loads(out)
    assert status == 0 and (doc["new"], doc["failed"]) == (2, 0)
    (feed,) = doc["feeds"]
    assert (feed["id"], feed["outcome"], feed["new"], feed["status"]) == (1, "changed", 2, 200)
    assert len(feed["new_ids"]) == 2


def test_entries_json_carries_url_and_feed(cli: Cli, server: FeedServer):
    server.route("/kv.xml", Reply(200, rss("KV Blog", KV)))
    cli("feed", "add", server.url("/kv.xml"))
    cli("import", str(ROOT / "assets" / "000_628a9e309749597c.txt"))
    rows = orjson.loads(cli("entries", "--json")[1])["entries"]
    from_feed = [e for e in rows if e["feed"] is not None]
    assert len(from_feed) == 2 and {e["feed"] for e in from_feed} == {1}
    assert {e["url"] for e in from_feed} == {
        "https://blog.example.org/kv-1",
        "https://blog.example.org/kv-2",
    }
    assert all(e["feed"] is None for e in rows if e["format"] == "digest")


# --- OPML --------------------------------------------------------------------------------------

OPML = b"""<?xml version="1.0" encoding="utf-8"?>
<opml version="2.0"><head><title>mine</title></head><body>
  <outline text="AI">
    <outline text="Serving">
      <outline type="rss" text="vLLM" xmlUrl="https://blog.vllm.ai/feed.xml"/>
    </outline>
    <outline type="rss" text="BAIR" xmlUrl="https://bair.berkeley.edu/blog/feed.xml"/>
  </outline>
  <outline type="rss" text="HF" category="/Research/NLP" xmlUrl="https://huggingface.co/blog/feed.xml"/>
  <outline type="rss" text="Top" xmlUrl="https://top.example.org/feed"/>
  <outline type="rss" text="Local" xmlUrl="/etc/passwd"/>
</body></opml>
"""


def _listing(cli: Cli) -> list[tuple[str, str, str]]:
    return sorted((f["url"], f["title"], f["folder"]) for f in feeds_json(cli))


def test_opml_import_keeps_folders_and_export_reads_back_to_the_same_list(
    cli: Cli, tmp_path: Path, data_dir: Path
):
    source = tmp_path / "in.opml"
    source.write_bytes(OPML)
    status, out, err = cli("feed", "import", str(source))
    assert status == 1  # one outline refused, with its line
    assert "4 feeds subscribed, 0 already subscribed, 1 refused" in out
    assert f"{source}:" in err and "/etc/passwd" in err
    first = _listing(cli)
    assert first == [
        ("https://bair.berkeley.edu/blog/feed.xml", "BAIR", "AI"),
        ("https://blog.vllm.ai/feed.xml", "vLLM", "AI/Serving"),
        ("https://huggingface.co/blog/feed.xml", "HF", "Research/NLP"),
        ("https://top.example.org/feed", "Top", ""),
    ]
    out_path = tmp_path / "out.opml"
    assert cli("feed", "export", "-o", str(out_path))[0] == 0
    assert cli("feed", "export", "-o", str(out_path))[0] == 1  # not replaced without --force
    assert b'version="2.0"' in out_path.read_bytes()
    # imported again: nothing new; into another store: the same list
    assert "0 feeds subscribed, 4 already subscribed" in cli("feed", "import", str(out_path))[1]
    other = tmp_path / "other"
    from topiclens.cli import main

    assert main(["--data-dir", str(other), "feed", "import", str(out_path)]) == 0
    with Store.open_dir(other) as store:
        assert sorted((f.url, f.display_name, f.folder) for f in store.feeds()) == first


def test_the_bundled_example_opml_imports(cli: Cli):
    status, out, _ = cli("feed", "import", str(ROOT / "assets" / "ai-infra-feeds.opml"))
    assert status == 0 and "7 feeds subscribed" in out
    urls = {f["url"] for f in feeds_json(cli)}
    assert "https://blog.vllm.ai/feed.xml" in urls and any("rsshub" in u for u in urls)


# --- import of a feed file -----------------------------------------------------------------------


def test_a_feed_file_imports_like_the_other_formats(cli: Cli):
    path = str(FEEDS / "wordpress-rss2.xml")
    status, out, _ = cli("import", path)
    assert (status, out) == (0, f"{path}: 3 new, 0 already known, 0 rejected\n")
    assert cli("import", path)[1] == f"{path}: 0 new, 3 already known, 0 rejected\n"
    assert cli("import", "--format", "feed", str(FEEDS / "jsonfeed-1.1.json"))[0] == 0
    rows = orjson.loads(cli("entries", "--json")[1])["entries"]
    assert len(rows) == 6 and {e["format"] for e in rows} == {"feed"}
    assert all(e["feed"] is None for e in rows)  # from files: no feed


# --- hostile content ------------------------------------------------------------------------------


def test_hostile_feeds_reach_neither_the_terminal_nor_the_html_export(
    cli: Cli, server: FeedServer, data_dir: Path, tmp_path: Path
):
    printed = []
    for name in ("hostile-escapes.xml", "hostile-bidi-atom.xml", "hostile-scripts.xml"):
        server.route(f"/{name}", Reply(200, (FEEDS / name).read_bytes()))
        printed.append(cli("feed", "add", server.url(f"/{name}")))
    server.route("/hostile-escapes.xml", Reply(500, reason=b"Bad \x1b[2J\x07 things"))
    printed += [cli("refresh"), cli("feed", "list"), cli("entries"), cli("topics")]
    for _, out, err in printed:
        assert TERMINAL_CONTROLS.search(out + err) is None, (out + err)[:400]
    assert "fdp.exe and" in printed[-2][1]  # the title shows, its overrides never obeyed
    with Store.open_dir(data_dir) as store:
        for e in store.entries():
            store.set_bookmark(e.id, True)
    page = tmp_path / "b.html"
    assert cli("export", "--format", "html", "-o", str(page))[0] == 0
    text = page.read_text("utf-8")
    assert "Before the tricks." in text and "After the tricks." in text and "svg label" not in text
    lowered = text.lower()
    for bad in ("<script", "<iframe", "<object", "<embed", "<form", "javascript:", "vbscript:"):
        assert bad not in lowered, bad
    assert re.search(r"<[^>]+\son\w+\s*=", text) is None  # no event attribute anywhere
    assert "data:text/html" not in lowered
    assert TERMINAL_CONTROLS.search(text) is None
    markdown = cli("export", "--format", "md", "-o", "-")[1]
    assert "Before the tricks." in markdown and "alert(" not in markdown
    assert TERMINAL_CONTROLS.search(markdown) is None


# --- a JSON backup keeps feed entries ---------------------------------------------------------


def test_a_json_backup_restores_feed_entries_with_their_content_and_feed(
    cli: Cli, server: FeedServer, data_dir: Path, tmp_path: Path
):
    server.route("/kv.xml", Conditional(rss("KV Blog", KV)))
    cli("feed", "add", server.url("/kv.xml"))
    with Store.open_dir(data_dir) as store:
        (kept,) = [e for e in store.entries() if e.feed_key.endswith("kv-1")]
        store.set_note(kept.id, "a note")
        before = store.entry_content(kept.id)
    backup = tmp_path / "backup.json"
    assert cli("export", "--format", "json", "-o", str(backup))[0] == 0
    (item,) = orjson.loads(backup.read_bytes())["bookmarks"]
    assert item["entry"]["content"] == before.text and item["entry"]["feed_url"] == server.url(
        "/kv.xml"
    )
    from topiclens.cli import main

    fresh = tmp_path / "fresh"
    assert main(["--data-dir", str(fresh), "import", str(backup)]) == 0
    with Store.open_dir(fresh) as store:
        restored = store.entry(kept.id)
        assert restored is not None and store.note(kept.id) == "a note"
        assert (restored.feed_key, restored.author, restored.published) == (
            kept.feed_key,
            kept.author,
            kept.published,
        )
        assert store.entry_content(kept.id) == before
        assert store.feeds() == []  # its feed is remembered, not subscribed
        assert store.feed(restored.feed_id).url == server.url("/kv.xml")
    # subscribing to that URL there finds the restored entry: one new, not two
    assert main(["--data-dir", str(fresh), "feed", "add", server.url("/kv.xml")]) == 0
    with Store.open_dir(fresh) as store:
        assert store.count_entries() == 2 and store.feeds()[0].id == restored.feed_id


# --- feedparser's own test feeds -------------------------------------------------------------

SCRIPTED = re.compile(r"<script|<iframe|<object|<embed|javascript:|vbscript:", re.IGNORECASE)
EVENT_ATTRIBUTE = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


def test_every_feedparser_test_feed_imports_without_a_traceback_and_no_script_survives(
    cli: Cli, data_dir: Path, tmp_path: Path
):
    """feedparser's own suite (encodings, entities, sanitising, ill-formed documents) through
    ``topiclens import``: each file is read or refused with its problems, none raises, and
    nothing scripted reaches the store, the terminal or the HTML export."""
    corpus = DATA / "feedparser-tests"
    paths = sorted(str(p) for p in corpus.rglob("*") if p.suffix in (".xml", ".json"))
    assert len(paths) > 2000
    status, out, err = cli("import", *paths)  # an exception would fail the test here
    assert status in (0, 1) and "Traceback" not in out + err
    assert len(out.splitlines()) == len(paths) + 1  # a line per file, then the total
    assert TERMINAL_CONTROLS.search(out + err) is None
    with Store.open_dir(data_dir) as store:
        entries = store.entries()
        assert len(entries) > 500
        contents = store.entry_contents([e.id for e in entries])
        for e in entries:
            for text in (e.title, e.summary, e.author, e.source, e.content_start):
                assert not SCRIPTED.search(text), (e.origin_file, text[:200])
            content = contents.get(e.id)
            if content is not None:
                assert not SCRIPTED.search(content.text), (e.origin_file, content.text[:200])
                assert not SCRIPTED.search(content.html), (e.origin_file, content.html[:200])
                assert not EVENT_ATTRIBUTE.search(content.html), (e.origin_file, content.html)
            store.set_bookmark(e.id, True)
    page = tmp_path / "all.html"
    assert cli("export", "--format", "html", "-o", str(page))[0] == 0
    text = page.read_text("utf-8")
    assert not SCRIPTED.search(text) and not EVENT_ATTRIBUTE.search(text)
