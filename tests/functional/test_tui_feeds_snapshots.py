"""Snapshots of the feeds in the reader at 80x24, on fixed topics (not the clustering's)
and fixed feeds: the feeds screen, and the entry pane showing a feed entry's content.

Update after a deliberate change of look with ``pytest tests/functional/test_tui_feeds_snapshots.py
--snapshot-update`` and look at the SVGs in tests/functional/__snapshots__/ before
committing them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import KEYMAP, before
from textual.pilot import Pilot
from topiclens.feeds.refresh import refresh
from topiclens.store import Store
from topiclens.store.feeds import FeedCheck
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen

SIZE = (80, 24)
CHECKED = 1796112000.0  # 2026-12-01 08:00 UTC: every check at a fixed time
POST = (
    "<p>Paged attention keeps the <b>KV cache</b> in blocks of 16 tokens, so a request"
    " wastes at most one block.</p><ul><li>[red]not markup[/red]</li>"
    "<li>prefix blocks are shared</li></ul><pre>block_size = 16\nnum_blocks = 4096</pre>"
    "<script>alert('x')</script>"
)


@pytest.fixture
def feeds_app(reader_store: Path, tmp_path: Path):
    """Two feeds: one fetched (from a file: no network, no port in the snapshot) and
    moved to its public URL, one that failed; the fetched feed's post in topic 1."""
    feed = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "vLLM Blog",
        "items": [
            {
                "id": "paged",
                "url": "https://blog.vllm.ai/2026/11/30/paged.html",
                "title": "Paged attention, [b]explained[/b]",
                "content_html": POST,
                "date_published": "2026-11-30T08:00:00Z",
                "authors": [{"name": "Woosuk Kwon"}],
            }
        ],
    }
    path = tmp_path / "vllm.json"
    path.write_text(json.dumps(feed), encoding="utf-8")
    with Store(reader_store) as store:
        vllm, _ = store.add_feed(path.as_uri())
        busy, _ = store.add_feed("https://semianalysis.example/feed")
        refresh(store, [vllm.id], place=False)
        moved = "https://blog.vllm.ai/feed.json"
        store.record_feed_check(vllm.id, FeedCheck(CHECKED, True, moved_to=moved))
        failed = FeedCheck(CHECKED, False, error="HTTP 503 Service Unavailable")
        store.record_feed_check(busy.id, failed)
        entry_id = store.unassigned_ids()[0]
        store.add_assignments({entry_id: (store.topics()[0].id, 0.5, ["kv cache"])})
        app = TopicLensApp(store, keymap_file=KEYMAP, cluster=False, poll_interval=3600)
        app.feed_entry = entry_id  # type: ignore[attr-defined]
        yield app


def test_feeds_screen_80x24(snap_compare, feeds_app: TopicLensApp):
    assert snap_compare(feeds_app, terminal_size=SIZE, run_before=before("F"))


def test_feed_entry_pane_80x24(snap_compare, feeds_app: TopicLensApp):
    async def show(pilot: Pilot[None]) -> None:
        await before()(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen)
        screen.jump_to_entry(pilot.app.feed_entry)  # type: ignore[attr-defined]
        await before("v")(pilot)  # the entry alone: its content shows

    assert snap_compare(feeds_app, terminal_size=SIZE, run_before=show)
