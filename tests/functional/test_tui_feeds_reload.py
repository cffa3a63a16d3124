"""The reader after a refresh: the new entries reach the topic counts and the entry list,
and the store is read again in a thread worker, never on the event loop (after a refresh
of many feeds that read takes long enough to land on keys)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from feed_server import FeedServer, Reply
from helpers import background_done, wait_until
from textual.pilot import Pilot
from topiclens.store import Store
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen

SIZE = (120, 34)

POSTS = [
    ("Paged attention: the KV cache in blocks", "KV cache blocks of 16 tokens."),
    ("Prefix caching reuses KV cache blocks", "Shared prompts reuse the KV cache."),
    ("Speculative decoding with a draft model", "A draft model proposes tokens."),
]


def json_feed() -> bytes:
    items = [
        {
            "id": f"post-{n}",
            "url": f"https://blog.example.org/post-{n}",
            "title": title,
            "content_html": f"<p>{text}</p>",
            "date_published": f"2026-11-{n + 1:02d}T08:00:00Z",
        }
        for n, (title, text) in enumerate(POSTS)
    ]
    feed = {"version": "https://jsonfeed.org/version/1.1", "title": "vLLM Blog", "items": items}
    return json.dumps(feed).encode()


@pytest.fixture
def server() -> Iterator[FeedServer]:
    with FeedServer() as s:
        yield s


def test_after_a_refresh_the_new_entries_show_and_the_store_is_read_off_the_event_loop(
    bundled_home: Path, server: FeedServer, monkeypatch: pytest.MonkeyPatch
):
    server.route("/kv.json", Reply(body=json_feed()))
    with Store.open_dir(bundled_home) as store:
        store.add_feed(server.url("/kv.json"))

    # which threads read the topics' unread counts (the reload's first store read)
    readers: list[threading.Thread] = []
    counts = Store.topic_unread_counts

    def recorded(self: Store) -> dict[int, int]:
        readers.append(threading.current_thread())
        return counts(self)

    monkeypatch.setattr(Store, "topic_unread_counts", recorded)

    async def go() -> None:
        with Store.open_dir(bundled_home) as store:
            app = TopicLensApp(
                store,
                keymap_file=bundled_home / "no-keymap.toml",
                cluster=False,
                poll_interval=60.0,
                feed_check=3600.0,
            )
            async with app.run_test(size=SIZE) as pilot:
                await background_done(app)
                await pilot.pause()
                s = app.screen
                assert isinstance(s, MainScreen)
                unread_before = sum(s.unread.values())
                readers.clear()
                await pilot.press("ctrl+r")
                await refreshed(pilot, s)

                # the store was read again, and only off the event loop
                assert readers, "the store was not read again after the refresh"
                assert threading.main_thread() not in readers, readers
                # what the reader shows is the store after the refresh
                new = sorted(s.new)
                assert len(new) == len(POSTS)
                assert sum(s.unread.values()) == unread_before + len(POSTS)
                assert s.known_entries == store.count_entries()
                placed = store.assignments()
                topic_id = placed[new[0]]
                assert s.unread == counts(store)
                s.jump_to_entry(new[0])
                await background_done(app)
                await pilot.pause()
                assert s.state.view is not None and s.state.view.topic_id == topic_id
                assert s.entry_list.current_id == new[0]
                assert s.detail is not None and s.detail.entry.id == new[0]

    asyncio.run(go())


async def refreshed(pilot: Pilot[None], s: MainScreen) -> None:
    await wait_until(pilot, lambda: not s.fetching_feeds, "the refresh to end", timeout=60)
    await background_done(pilot.app)
    await pilot.pause()
