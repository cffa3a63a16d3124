"""The panes' lines last shown are kept as Strips too (tui/widgets/line_cache.py,
LineCache's Strips of a look): an entry a refresh updates in place must show its new title
when its topic is switched back to, in every pane, as a redraw from nothing shows it."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from helpers import run, settle
from test_tui_kept_lines import drawn, list_line, texts
from textual.pilot import Pilot
from topiclens.store import Store
from topiclens.store.feed_entries import FeedItem, content_start, entry_id_for, feed_scope
from topiclens.store.feeds import FeedCheck
from topiclens.store.models import Content, Entry
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.model import View

OLD, NEW = "Paged attention, first draft", "Paged attention, as corrected by its feed"


def post(feed_id: int, title: str) -> FeedItem:
    """One feed entry (key "post"), as a refresh makes it, titled ``title``."""
    summary = "KV cache blocks of a fixed size."
    entry = Entry(
        id=entry_id_for(feed_scope(feed_id), "post"),
        title=title,
        summary=summary,
        source="vLLM Blog",
        date="2099-05-01",  # the newest: the first row of its topic
        url="https://blog.example.org/post",
        lang="en",
        format="feed",
        origin_file="https://blog.example.org/feed.xml",
        feed_id=feed_id,
        feed_key="post",
        author="Ada",
        published="2099-05-01T08:00:00Z",
        content_start=content_start(summary, summary),
    )
    return FeedItem(entry, Content(summary, f"<p>{summary}</p>"))


async def frame_now(s: MainScreen, pilot: Pilot[None]) -> None:
    await settle(pilot)
    s._on_timer_update()


def test_an_entry_updated_in_place_shows_its_new_title_when_switched_back_to(
    reader_store: Path,
) -> None:
    with Store(reader_store) as store:
        feed, _ = store.add_feed("https://blog.example.org/feed.xml")
        checked = FeedCheck(time.time(), True, etag='"v1"', title="vLLM Blog", items=[])
        store.record_feed_check(feed.id, replace(checked, items=[post(feed.id, OLD)]))
        entry_id = post(feed.id, OLD).entry.id
        first = store.topics()[0]
        store.add_assignments({entry_id: (first.id, 0.9, [])})

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.topic_list.select_view(View("topic", first.id))
        s.show_view(View("topic", first.id), keep=entry_id, wait=True)
        s.topic_list.focus()
        shown = await drawn(s, pilot)
        assert OLD in list_line(s, entry_id) and any(OLD in line for line in texts(shown))
        # shown again, then another topic while the feed updates the entry (frames drawn
        # through the kept lines, none forgotten: drawn() forgets them)
        for key in ("j", "k", "j"):
            await pilot.press(key)
            await frame_now(s, pilot)
        assert s.state.view != View("topic", first.id)
        with Store(reader_store) as other:
            updated = replace(checked, items=[post(feed.id, NEW)], etag='"v2"')
            assert other.record_feed_check(feed.id, updated).written.updated
        s.poll_store()
        await frame_now(s, pilot)
        await pilot.press("k")  # back: its lines were shown (and kept) with the old title
        shown = await drawn(s, pilot)
        assert s.detail is not None and s.detail.entry.id == entry_id
        assert NEW in list_line(s, entry_id)
        assert any(NEW in line for line in texts(shown))
        assert not any(OLD in line for line in texts(shown))

    run(reader_store, scenario)
