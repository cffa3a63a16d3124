"""Feeds in the reader, driven with Pilot against a real HTTP server on localhost
(tests/feed_server.py): the refresh key (keys answer while it waits on the network), the
toasts, new entries marked new, the entry pane's whole content, the feeds screen, and the
schedule with its back-off. Hostile feed text never reaches the screen as markup or
escape codes."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from feed_server import Exchange, FeedServer, Reply
from helpers import background_done, screen_lines, wait_until
from textual.pilot import Pilot
from textual.widgets import Input, OptionList
from topiclens.feeds.schedule import interval_minutes
from topiclens.store import Store
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.screens import ConfirmScreen, FeedInputScreen, FeedsScreen
from topiclens.tui.widgets import KeyFooter
from topiclens.tui.widgets.detail_pane import LAYOUT_CHARS
from topiclens.tui.widgets.entry_list import NEW_MARK

SIZE = (120, 34)
HOSTILE_TITLE = "[bold red]boom[/] \x1b[2J\x1b]0;pwned\x07 KV cache eviction"
HOSTILE_MARKUP = "[bold red]boom[/]"

Scenario = Callable[[TopicLensApp, MainScreen, Pilot[None]], Awaitable[None]]


def json_feed(title: str, items: list[dict[str, object]]) -> bytes:
    """A JSON Feed 1.1 (it carries escape characters that XML cannot)."""
    feed = {"version": "https://jsonfeed.org/version/1.1", "title": title, "items": items}
    return json.dumps(feed).encode()


def item(n: int, title: str, html: str, author: str = "Woosuk") -> dict[str, object]:
    return {
        "id": f"post-{n}",
        "url": f"https://blog.example.org/post-{n}",
        "title": title,
        "content_html": html,
        "date_published": f"2026-11-{n + 1:02d}T08:00:00Z",
        "authors": [{"name": author}],
    }


KV_POSTS = [
    item(0, "Paged attention: the KV cache in blocks", "<p>KV cache blocks of 16 tokens.</p>"),
    item(1, "Prefix caching reuses KV cache blocks", "<p>Shared prompts reuse the KV cache.</p>"),
    item(
        2,
        HOSTILE_TITLE,
        "<p>[link=file:///etc/passwd]click[/link] \x1b[31mred\x1b[0m KV cache</p>"
        "<script>alert('x')</script>",
        author="[i]Mallory[/i]\x1b[5m",
    ),
]


@pytest.fixture
def server() -> Iterator[FeedServer]:
    with FeedServer() as s:
        yield s


@pytest.fixture
def home(bundled_home: Path) -> Path:
    """The bundled corpus grouped into topics (with its saved model, so new entries are
    placed, not re-clustered)."""
    return bundled_home


def play(home: Path, scenario: Scenario, *, feed_check: float = 3600.0) -> None:
    async def go() -> None:
        with Store.open_dir(home) as store:
            app = TopicLensApp(
                store,
                keymap_file=home / "no-keymap.toml",
                cluster=False,
                poll_interval=60.0,
                feed_check=feed_check,
            )
            async with app.run_test(size=SIZE) as pilot:
                await background_done(app)
                await pilot.pause()
                screen = app.screen
                assert isinstance(screen, MainScreen)
                await scenario(app, screen, pilot)

    asyncio.run(go())


def subscribe(home: Path, *urls: str) -> list[int]:
    with Store.open_dir(home) as store:
        return [store.add_feed(url)[0].id for url in urls]


def toasts(app: TopicLensApp) -> list[tuple[str, str]]:
    return [(str(n.message), n.severity) for n in app._notifications]


def row_text(s: MainScreen, entry_id: str) -> str:
    """The entry list's row of ``entry_id`` as drawn."""
    rows = s.entry_list.rows
    index = next(i for i, r in enumerate(rows) if r[0] == entry_id)
    strip = s.entry_list.render_list_line(index, 80, False)
    return "".join(seg.text for seg in strip)


async def refreshed(pilot: Pilot[None], s: MainScreen) -> None:
    await wait_until(pilot, lambda: not s.fetching_feeds, "the refresh to end", timeout=60)
    await background_done(pilot.app)
    await pilot.pause()


# --- the refresh key -------------------------------------------------------------------


def test_refresh_key_keys_answer_while_it_waits_then_one_toast_says_where(
    home: Path, server: FeedServer
):
    release = threading.Event()

    def slow(exchange: Exchange) -> None:  # the network is slow until the test has typed
        release.wait(30)
        exchange.send(Reply(body=json_feed("vLLM Blog", KV_POSTS)))

    server.route("/kv.json", slow)
    server.route("/broken.xml", Reply(status=500, body=b"oops"))
    subscribe(home, server.url("/kv.json"), server.url("/broken.xml"))

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        first_view = s.state.view
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: server.active >= 1, "the slow feed's request")
        assert s.fetching_feeds and s.query_one(KeyFooter).progress is not None
        # keys answer while the refresh waits on the network
        await pilot.press("j")
        await pilot.pause()
        assert s.state.view != first_view
        await pilot.press("l", "j")
        await pilot.pause()
        assert s.entry_list.cursor == 1 and s.fetching_feeds
        await pilot.press("ctrl+r")  # never two refreshes at once
        assert any("refresh once it ends" in t for t, _ in toasts(app))
        release.set()
        await refreshed(pilot, s)
        assert s.query_one(KeyFooter).progress is None

        with Store.open_dir(home) as store:
            feed_ids = [e.id for e in store.entries() if e.feed_id is not None]
            placed = store.assignments()
        assert len(feed_ids) == 3 and set(s.new) == set(feed_ids)
        assert all(eid in placed for eid in feed_ids)  # placed in topics at once
        arrived = [t for t, sev in toasts(app) if t.startswith("3 new: ")]
        assert len(arrived) == 1 and " in " in arrived[0]
        failed = [t for t, sev in toasts(app) if sev == "error"]
        assert len(failed) == 1 and "1 feed failed" in failed[0] and "500" in failed[0]
        assert "Traceback" not in "".join(t for t, _ in toasts(app))
        # the new entries are in the reloaded topic counts and marked new in their list
        new_id = feed_ids[0]
        s.jump_to_entry(new_id)
        await pilot.pause()
        assert row_text(s, new_id).startswith(NEW_MARK)
        await pilot.press("r")  # read: the mark goes
        await pilot.pause()
        assert not row_text(s, new_id).startswith(NEW_MARK)
        assert not any("another process" in t for t, _ in toasts(app))
        assert len([r for r in server.requests if r.path == "/kv.json"]) == 1

    play(home, scenario)


def test_quitting_during_a_refresh_stops_its_process_and_keeps_the_store(
    home: Path, server: FeedServer
):
    import multiprocessing

    release = threading.Event()

    def stuck(exchange: Exchange) -> None:  # a server that never answers while we quit
        release.wait(30)
        exchange.send(Reply(body=json_feed("vLLM Blog", KV_POSTS)))

    server.route("/kv.json", stuck)
    server.route("/spec.json", Reply(body=json_feed("Spec", [item(7, "Draft models", "")])))
    subscribe(home, server.url("/kv.json"), server.url("/spec.json"))
    workers: list[object] = []

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: server.active >= 1, "the stuck feed's request")
        workers.extend(w for w in app.workers if not w.is_finished)
        await pilot.press("q")

    play(home, scenario)
    assert not release.is_set()
    assert all(w.is_finished for w in workers)  # type: ignore[attr-defined]
    assert not multiprocessing.active_children()  # the refresh's process was stopped
    release.set()
    with Store.open_dir(home) as store:
        stuck_feed = next(f for f in store.feeds() if f.url.endswith("/kv.json"))
        # stopped before that feed's fetch gave up (a refresh let run to its end stores
        # the timeout as the feed's error)
        assert stuck_feed.last_checked is None and stuck_feed.error is None
        assert store.query("PRAGMA integrity_check")[0][0] == "ok"


def test_a_refresh_of_many_feeds_parses_in_worker_processes_from_the_reader(
    home: Path, server: FeedServer
):
    """Enough feeds for the refresh's process pool: its processes start from the reader
    (whose stderr is Textual's, with no file descriptor) and every feed is stored."""
    from topiclens.feeds.refresh import PARALLEL_FEEDS

    urls = []
    for n in range(PARALLEL_FEEDS):
        post = item(n, f"Speculative decoding note {n}", "<p>A draft model proposes tokens.</p>")
        server.route(f"/f{n}.json", Reply(body=json_feed(f"Feed {n}", [post])))
        urls.append(server.url(f"/f{n}.json"))
    subscribe(home, *urls)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+r")
        await refreshed(pilot, s)
        assert not [t for t, sev in toasts(app) if sev == "error"], toasts(app)
        assert len(s.new) == PARALLEL_FEEDS

    play(home, scenario)


def test_hostile_feed_text_reaches_the_screen_as_written_never_as_markup(
    home: Path, server: FeedServer
):
    server.route("/kv.json", Reply(body=json_feed("[b]Feed[/b]\x1b[31m", KV_POSTS)))
    subscribe(home, server.url("/kv.json"))

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+r")
        await refreshed(pilot, s)
        with Store.open_dir(home) as store:
            hostile = next(e.id for e in store.entries() if "boom" in e.title)
        s.jump_to_entry(hostile)
        await pilot.pause()
        text = s.detail_pane.text
        assert HOSTILE_MARKUP in text and "[link=file:///etc/passwd]click[/link]" in text
        assert "[i]Mallory[/i]" in text and "alert(" not in text
        lines = "\n".join(screen_lines(app))
        assert HOSTILE_MARKUP in lines  # shown as written: no markup read
        assert "\x1b" not in lines and "\x07" not in lines
        await pilot.press("F")
        await wait_until(pilot, lambda: isinstance(app.screen, FeedsScreen), "the feeds screen")
        await pilot.pause()
        lines = "\n".join(screen_lines(app))
        assert "[b]Feed[/b]" in lines and "\x1b" not in lines

    play(home, scenario)


# --- the entry pane --------------------------------------------------------------------


def test_entry_pane_shows_content_author_feed_and_link_and_lays_out_a_long_post_in_pieces(
    home: Path, server: FeedServer, monkeypatch: pytest.MonkeyPatch
):
    # a 1 MB post: the store keeps its first 200,000 characters of text
    paragraph = "<p>Paragraph {}: the KV cache grows with every token.</p>"
    long_html = "".join(paragraph.format(n) for n in range(20000))
    posts = [item(0, "A very long post about the KV cache", long_html)]
    server.route("/long.json", Reply(body=json_feed("Long Reads", posts)))
    subscribe(home, server.url("/long.json"))
    opened: list[str] = []
    monkeypatch.setattr(MainScreen, "open_in_browser", lambda self, url: opened.append(url))

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+r")
        await refreshed(pilot, s)
        with Store.open_dir(home) as store:
            entry = next(e for e in store.entries() if e.feed_id is not None)
            content = store.entry_content(entry.id)
        assert content is not None and len(content.text) > 100_000
        s.jump_to_entry(entry.id)
        await pilot.pause()
        pane = s.detail_pane
        text = pane.text
        assert "by Woosuk" in text and "feed: Long Reads" in text
        assert "https://blog.example.org/post-0" in text and "Paragraph 0:" in text
        # only the start is laid out: a piece, not 200,000 characters
        assert pane.more_to_lay_out and len(text) < 3 * LAYOUT_CHARS
        pane.focus()
        await pilot.press("G")  # the end asked for: the rest is laid out
        await pilot.pause()
        assert not pane.more_to_lay_out and "Paragraph 3000:" in pane.text
        await pilot.press("O")
        await pilot.pause()
        assert opened == ["https://blog.example.org/post-0"]

    play(home, scenario)


# --- the feeds screen ------------------------------------------------------------------


def test_feeds_screen_adds_renames_refreshes_and_removes_a_feed(home: Path, server: FeedServer):
    server.route("/kv.json", Reply(body=json_feed("vLLM Blog", KV_POSTS[:2])))
    server.route("/gone.xml", Reply(status=410))
    server.route("/new.json", Reply(body=json_feed("SemiAnalysis", [item(5, "HBM supply", "")])))
    subscribe(home, server.url("/kv.json"), server.url("/gone.xml"))

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+r")
        await refreshed(pilot, s)
        await pilot.press("F")
        await wait_until(pilot, lambda: isinstance(app.screen, FeedsScreen), "the feeds screen")
        screen = app.screen
        assert isinstance(screen, FeedsScreen)
        options = screen.query_one(OptionList)
        assert options.option_count == 2
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(2)]
        assert prompts[0].startswith("ok") and "2 unread of 2" in prompts[0]
        assert prompts[1].startswith("gone") and "410" in prompts[1]
        await pilot.press("j")
        assert options.highlighted == 1
        await pilot.press("k")
        assert options.highlighted == 0

        # add: a URL dialog; a bad URL says why and stays
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, FeedInputScreen), "the dialog")
        await pilot.press(*"ftp://x", "enter")
        assert isinstance(app.screen, FeedInputScreen)
        app.screen.query_one(Input).value = server.url("/new.json")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is screen, "the dialog to close")
        await refreshed(pilot, s)
        assert options.option_count == 3
        assert any(t.startswith("SemiAnalysis: 1 new") for t, _ in toasts(app))

        # rename the first
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, FeedInputScreen), "the dialog")
        app.screen.query_one(Input).value = "vLLM"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is screen, "the dialog to close")
        with Store.open_dir(home) as store:
            assert store.feeds()[0].name == "vLLM"
        assert "vLLM" in str(options.get_option_at_index(0).prompt)

        # refresh one: only that feed is asked again
        asked = len(server.requests)
        await pilot.press("R")
        await refreshed(pilot, s)
        assert [r.path for r in server.requests[asked:]] == ["/kv.json"]

        # remove asks first; the entries stay
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is screen, "the question to close")
        assert options.option_count == 2
        with Store.open_dir(home) as store:
            assert sum(1 for e in store.entries() if e.source == "vLLM") == 2
        # the schedule's interval: checked, then kept in the store
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, FeedInputScreen), "the dialog")
        app.screen.query_one(Input).value = "2"
        await pilot.press("enter")
        assert isinstance(app.screen, FeedInputScreen)  # under 5 minutes: refused
        app.screen.query_one(Input).value = "30"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is screen, "the dialog to close")
        with Store.open_dir(home) as store:
            assert interval_minutes(store) == 30
        await pilot.press("q")
        await wait_until(pilot, lambda: app.screen is s, "the feeds screen to close")

    play(home, scenario)


# --- the schedule ----------------------------------------------------------------------


def test_schedule_refreshes_due_feeds_and_backs_off_on_retry_after(
    home: Path, server: FeedServer, monkeypatch: pytest.MonkeyPatch
):
    server.route("/kv.json", Reply(body=json_feed("vLLM Blog", KV_POSTS[:2])))
    server.route("/busy.xml", Reply(status=503, headers=[("Retry-After", "3600")]))
    subscribe(home, server.url("/kv.json"), server.url("/busy.xml"))
    ticks: list[int] = []
    tick = MainScreen.refresh_due_feeds

    def counted(self: MainScreen) -> None:
        ticks.append(1)
        tick(self)

    monkeypatch.setattr(MainScreen, "refresh_due_feeds", counted)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        # no key pressed: the schedule finds both feeds due (never checked)
        await wait_until(pilot, lambda: len(server.requests) >= 2, "the scheduled refresh")
        await refreshed(pilot, s)
        assert sorted(r.path for r in server.requests) == ["/busy.xml", "/kv.json"]
        assert any(t.startswith("2 new") for t, _ in toasts(app))
        assert len(s.new) == 2
        # later ticks: the good feed is not due for an hour, the busy one waits as asked
        seen = len(ticks)
        await wait_until(pilot, lambda: len(ticks) >= seen + 5, "five more ticks")
        await refreshed(pilot, s)
        assert len(server.requests) == 2
        with Store.open_dir(home) as store:
            busy = next(f for f in store.feeds() if f.url.endswith("/busy.xml"))
        assert busy.retry_until is not None and busy.status == "error"

    play(home, scenario, feed_check=0.1)


# --- the commands' declarations ---------------------------------------------------------


def test_feed_commands_are_declared_once_with_keys_no_other_binding_takes():
    from topiclens.tui.commands import ALL, BY_ID, FEEDS, SCREEN_BINDING_IDS

    assert BY_ID["refresh-feeds"].keys == "ctrl+r" and BY_ID["feeds"].keys == "F"
    assert {c.id for c in ALL if c.section == FEEDS} == {"refresh-feeds", "feeds"}
    keys = [k for c in ALL for k in c.keys.split(",")]
    assert keys.count("ctrl+r") == 1 and keys.count("F") == 1
    assert hasattr(MainScreen, "action_refresh_feeds") and hasattr(MainScreen, "action_feeds")
    for screen in (FeedsScreen, FeedInputScreen):
        for binding in screen.BINDINGS:
            assert binding.id in SCREEN_BINDING_IDS, binding.id  # type: ignore[union-attr]
    assert any(b.id == "add-feed" for b in FeedsScreen.BINDINGS)  # type: ignore[union-attr]
