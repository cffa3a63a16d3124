"""When a refresh starts its parse workers: at once for many feeds that cannot answer 304
(their start then runs beside the first downloads), on the first body to parse
otherwise, and never for a refresh that gets only 304s."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from feed_server import Exchange, FeedServer, Reply
from helpers import Conditional, rss
from topiclens.feeds import refresh as refreshing
from topiclens.feeds.refresh import PARALLEL_FEEDS, refresh
from topiclens.store import Store

pytestmark = pytest.mark.slow


@pytest.fixture
def server() -> Iterator[FeedServer]:
    with FeedServer() as s:
        yield s


def _watch_starts(monkeypatch: pytest.MonkeyPatch, slow: float = 0.0) -> threading.Event:
    """An event set when a refresh starts making its parse workers (``slow`` seconds
    before it does)."""
    started = threading.Event()
    start = refreshing._Parsers._start

    def watched(self: refreshing._Parsers) -> None:
        started.set()
        time.sleep(slow)
        start(self)

    monkeypatch.setattr(refreshing._Parsers, "_start", watched)
    return started


def _items(n: int) -> list[tuple[str, str, str]]:
    return [(f"f{n}-{k}", f"Post {k} of feed {n}", "KV cache blocks.") for k in range(2)]


def test_a_first_refresh_of_many_feeds_starts_its_workers_before_any_body_arrives(
    server: FeedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    started = _watch_starts(monkeypatch)
    answered_after_start: list[bool] = []

    def held(n: int):  # type: ignore[no-untyped-def]
        def answer(exchange: Exchange) -> None:  # once the workers are starting, or 10 s
            answered_after_start.append(started.wait(10))
            exchange.send(Reply(200, rss(f"Feed {n}", _items(n))))

        return answer

    with Store.open_dir(tmp_path / "store") as store:
        for n in range(PARALLEL_FEEDS):
            server.route(f"/f{n}.xml", held(n))
            store.add_feed(server.url(f"/f{n}.xml"))
        summary = refresh(store, place=False)
    assert summary.new == 2 * PARALLEL_FEEDS and not summary.failed
    assert answered_after_start and all(answered_after_start)


def test_feeds_that_may_answer_304_start_no_worker_until_a_body_comes(
    server: FeedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    for n in range(PARALLEL_FEEDS):
        server.route(f"/f{n}.xml", Conditional(rss(f"Feed {n}", _items(n))))
    with Store.open_dir(tmp_path / "store") as store:
        for n in range(PARALLEL_FEEDS):
            store.add_feed(server.url(f"/f{n}.xml"))
        assert refresh(store, place=False).new == 2 * PARALLEL_FEEDS  # (validators stored)
        started = _watch_starts(monkeypatch)
        second = refresh(store, place=False)
        assert second.count(refreshing.NOT_MODIFIED) == PARALLEL_FEEDS
        assert not started.is_set()  # every feed answered 304: no worker started
        # one feed changed: its body starts the workers, once it has come
        server.route("/f0.xml", Reply(200, rss("Feed 0", [*_items(0), ("f0-9", "New", "KV.")])))
        third = refresh(store, place=False)
        assert third.new == 1 and started.is_set()


def test_workers_started_early_are_stopped_when_every_feed_fails(
    server: FeedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    started = _watch_starts(monkeypatch, slow=1.0)  # (the failures come first)
    made: list[ProcessPoolExecutor] = []
    stopped: list[ProcessPoolExecutor] = []

    class Pool(ProcessPoolExecutor):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

        def shutdown(self, *args: Any, **kwargs: Any) -> None:
            stopped.append(self)
            super().shutdown(*args, **kwargs)

    monkeypatch.setattr(refreshing, "ProcessPoolExecutor", Pool)
    with Store.open_dir(tmp_path / "store") as store:
        for n in range(PARALLEL_FEEDS):
            server.route(f"/f{n}.xml", Reply(404))
            store.add_feed(server.url(f"/f{n}.xml"))
        summary = refresh(store, place=False)
    assert len(summary.failed) == PARALLEL_FEEDS and started.is_set()
    # the refresh waited for the pool it started, and shut it down before it returned
    assert len(made) == 1 and stopped == made
