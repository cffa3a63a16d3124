"""The reader's refresh in a child process (tui/feed_process.py), against a real HTTP server
on localhost: what reaches the reader's thread, and how often."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from feed_server import FeedServer, Reply
from helpers import KV, rss
from topiclens.feeds.refresh import FAILED, RefreshProgress
from topiclens.store import Store
from topiclens.tui.feed_process import refresh_in_process

pytestmark = pytest.mark.slow  # a child process and HTTP


@pytest.fixture
def server() -> Iterator[FeedServer]:
    with FeedServer() as s:
        yield s


def subscribed(server: FeedServer, home: Path, count: int) -> Path:
    """A store subscribed to ``count`` feeds of this server that answer 404 (nothing to
    place: the child's progress is one step per feed) and one that works."""
    with Store.open_dir(home) as store:
        for n in range(count):
            server.route(f"/gone{n}.xml", Reply(404, b"no such feed"))
            store.add_feed(server.url(f"/gone{n}.xml"))
        server.route("/kv.xml", Reply(200, rss("KV Blog", KV)))
        store.add_feed(server.url("/kv.xml"))
        return store.path


@pytest.mark.parametrize(("every", "expected"), [(0.0, 7), (3600.0, 3)])
def test_progress_reaches_the_reader_at_most_so_often_and_always_at_the_end(
    server: FeedServer, tmp_path: Path, every: float, expected: int
):
    path = subscribed(server, tmp_path / "store", 5)
    steps: list[RefreshProgress] = []
    summary = refresh_in_process(
        path, None, progress=steps.append, cancelled=lambda: False, every=every
    )
    assert summary.new == 2 and [r.outcome for r in summary.feeds].count(FAILED) == 5
    # every feed's step and the placing's, or the first feed's, the last's and the placing's
    assert len(steps) == expected
    assert (steps[0].done, steps[0].total) == (1, 6)
    assert steps[-1].placing and not steps[-2].placing
    assert (steps[-2].done, steps[-2].total) == (6, 6)
    with Store(path) as store:
        assert store.count_entries() == 2


def test_the_refresh_runs_at_the_lowest_priority(server: FeedServer, tmp_path: Path):
    """The child (and the parse workers it starts) yields every core to the reader: a key
    waiting for one is served first."""
    path = subscribed(server, tmp_path / "store", 2)
    seen: list[int] = []

    def progress(step: RefreshProgress) -> None:  # (the child is running)
        children = [c for c in multiprocessing.active_children() if c.name == "topiclens-refresh"]
        seen.extend(os.getpriority(os.PRIO_PROCESS, c.pid) for c in children if c.pid)

    refresh_in_process(path, None, progress=progress, cancelled=lambda: False, every=0.0)
    assert seen and set(seen) == {19}
