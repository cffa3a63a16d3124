"""Refreshing feeds against a real HTTP server on localhost (tests/feed_server.py): what goes
over the wire, every status code, updates in place, one bad feed among good ones, and
new entries placed into their topics at once."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from email.utils import format_datetime
from pathlib import Path

import pytest
from feed_server import Exchange, FeedServer, Reply
from helpers import KV, LAST_MODIFIED, SPEC, Conditional, rss, utc
from topiclens.feeds.refresh import (
    CHANGED,
    FAILED,
    NOT_MODIFIED,
    PARALLEL_FEEDS,
    SKIPPED,
    UNCHANGED,
    refresh,
)
from topiclens.feeds.schedule import due_feeds, next_due
from topiclens.feeds.subscribe import subscribe
from topiclens.store import Store
from topiclens.store.feeds import FeedCheck

# slow as a whole: every test talks HTTP to a real server on localhost (tests/feed_server.py)
pytestmark = pytest.mark.slow


@pytest.fixture
def server() -> Iterator[FeedServer]:
    with FeedServer() as s:
        yield s


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open_dir(tmp_path / "store") as s:
        yield s


def hits(server: FeedServer, path: str) -> list[dict[str, str]]:
    return [r.headers for r in server.requests if r.path == path]


def by_id(summary, feed_id: int):  # type: ignore[no-untyped-def]
    return next(r for r in summary.feeds if r.feed_id == feed_id)


def test_a_second_refresh_sends_the_validators_gets_304_and_stores_nothing(
    server: FeedServer, store: Store
):
    server.route("/kv.xml", Conditional(rss("KV Blog", KV)))
    server.route("/spec.xml", Conditional(rss("Spec Blog", SPEC), etag='W/"s1"'))
    kv, _ = store.add_feed(server.url("/kv.xml"))
    spec, _ = store.add_feed(server.url("/spec.xml"))
    first = refresh(store, place=False)
    assert (first.new, by_id(first, kv.id).new, by_id(first, spec.id).new) == (3, 2, 1)
    assert {r.outcome for r in first.feeds} == {CHANGED}
    # the first request sent no validators, and named topiclens and its version
    first_request = hits(server, "/kv.xml")[0]
    assert "if-none-match" not in first_request and "if-modified-since" not in first_request
    assert first_request["user-agent"].startswith("topiclens/")
    before = store.query("SELECT id, title, imported_at FROM entries ORDER BY id")
    second = refresh(store, place=False)
    # sent back exactly as received, weak ETag included
    assert hits(server, "/kv.xml")[1]["if-none-match"] == '"v1"'
    assert hits(server, "/kv.xml")[1]["if-modified-since"] == LAST_MODIFIED
    assert hits(server, "/spec.xml")[1]["if-none-match"] == 'W/"s1"'
    assert {r.outcome for r in second.feeds} == {NOT_MODIFIED} and second.new == 0
    assert store.query("SELECT id, title, imported_at FROM entries ORDER BY id") == before
    assert second.line() == "no new entries: 2 feeds not modified, nothing downloaded"
    assert first.line() == "3 new entries from 2 feeds"


def test_a_refresh_of_unchanged_feeds_loads_no_parser_and_no_clustering(
    server: FeedServer, tmp_path: Path
):
    """What a refresh that finds nothing new costs: no feed parser, HTML sanitiser,
    tokenizer or clustering library is even imported (checked in a fresh process)."""
    server.route("/kv.xml", Conditional(rss("KV Blog", KV)))
    home = tmp_path / "store"
    with Store.open_dir(home) as store:
        store.add_feed(server.url("/kv.xml"))
        assert refresh(store, place=False).new == 2
    heavy = {"feedparser", "nh3", "jieba", "sklearn", "scipy", "numpy"}
    code = (
        "import sys\n"
        "from topiclens.feeds.refresh import refresh\n"
        "from topiclens.store import Store\n"
        f"with Store.open_dir({str(home)!r}) as store:\n"
        "    said = refresh(store).line()\n"
        f"print(said, sorted({{m.split('.')[0] for m in sys.modules}} & {heavy!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "no new entries: 1 feed not modified, nothing downloaded []"


def test_validators_of_a_304_replace_the_stored_ones(server: FeedServer, store: Store):
    answers = iter(
        [
            Reply(200, rss("KV", KV), [("ETag", '"v1"')]),
            Reply(304, headers=[("ETag", '"v2"'), ("Last-Modified", LAST_MODIFIED)]),
            Reply(304),
        ]
    )
    server.route("/feed.xml", lambda ex: ex.send(next(answers)))
    feed, _ = store.add_feed(server.url("/feed.xml"))
    for _ in range(3):
        refresh(store, place=False)
    sent = hits(server, "/feed.xml")
    assert [h.get("if-none-match") for h in sent] == [None, '"v1"', '"v2"']
    assert sent[2]["if-modified-since"] == LAST_MODIFIED
    # a 304 without validators forgets none
    assert (store.feed(feed.id).etag, store.feed(feed.id).last_modified) == ('"v2"', LAST_MODIFIED)


@pytest.mark.parametrize(
    ("status", "moves"), [(301, True), (308, True), (302, False), (307, False)]
)
def test_permanent_redirects_move_the_feed_and_temporary_ones_do_not(
    server: FeedServer, store: Store, status: int, moves: bool
):
    server.route("/old.xml", Reply(status, headers=[("Location", server.url("/new.xml"))]))
    server.route("/new.xml", Reply(200, rss("KV", KV)))
    feed, _ = store.add_feed(server.url("/old.xml"))
    result = by_id(refresh(store, place=False), feed.id)
    assert result.new == 2
    assert store.feed(feed.id).url == server.url("/new.xml" if moves else "/old.xml")
    assert result.moved_to == (server.url("/new.xml") if moves else None)


def test_a_gone_feed_is_marked_and_not_fetched_again_until_added_again(
    server: FeedServer, store: Store
):
    server.route("/gone.xml", Reply(410))
    server.route("/kv.xml", Reply(200, rss("KV", KV)))
    gone, _ = store.add_feed(server.url("/gone.xml"))
    store.add_feed(server.url("/kv.xml"))
    first = refresh(store, place=False)
    assert by_id(first, gone.id).outcome == FAILED and store.feed(gone.id).status == "gone"
    second = refresh(store, place=False)
    assert by_id(second, gone.id).outcome == SKIPPED and "gone" in by_id(second, gone.id).error
    assert len(hits(server, "/gone.xml")) == 1 and len(hits(server, "/kv.xml")) == 2
    assert gone.id not in {f.id for f in due_feeds(store, time.time() + 10**6)}
    server.route("/gone.xml", Reply(200, rss("Back", SPEC)))
    added = subscribe(store, server.url("/gone.xml"), place=False)
    assert added.feed.id == gone.id and added.feed.status == "ok" and added.feed.entries == 1


@pytest.mark.parametrize(("status", "form"), [(429, "seconds"), (503, "date")])
def test_retry_after_holds_that_feed_alone(
    server: FeedServer, store: Store, status: int, form: str
):
    in_two_minutes = format_datetime(utc(int(time.time()) + 120), usegmt=True)
    retry_after = "120" if form == "seconds" else in_two_minutes
    server.route("/busy.xml", Reply(status, headers=[("Retry-After", retry_after)]))
    server.route("/kv.xml", Reply(200, rss("KV", KV)))
    busy, _ = store.add_feed(server.url("/busy.xml"))
    store.add_feed(server.url("/kv.xml"))
    first = refresh(store, place=False)
    result = by_id(first, busy.id)
    assert result.outcome == FAILED and result.retry_until is not None
    assert 60 < result.retry_until - time.time() <= 121
    assert first.new == 2 and len(first.failed) == 1
    second = refresh(store, place=False)
    assert by_id(second, busy.id).outcome == SKIPPED
    assert "Retry-After" in by_id(second, busy.id).error
    assert len(hits(server, "/busy.xml")) == 1 and len(hits(server, "/kv.xml")) == 2
    # the schedule waits as long: not due before the time the server gave
    assert busy.id not in {f.id for f in due_feeds(store, time.time() + 30, interval=1)}
    assert busy.id in {f.id for f in due_feeds(store, time.time() + 130, interval=1)}


def test_one_bad_feed_among_good_ones_keeps_its_entries_and_gets_its_error(
    server: FeedServer, store: Store
):
    server.route("/kv.xml", Reply(200, rss("KV", KV)))
    server.route("/spec.xml", Reply(200, rss("Spec", SPEC)))
    server.route("/page.html", Reply(200, b"<!DOCTYPE html><html><title>Home</title></html>"))
    kv, _ = store.add_feed(server.url("/kv.xml"))
    spec, _ = store.add_feed(server.url("/spec.xml"))
    page, _ = store.add_feed(server.url("/page.html"))
    refresh(store, place=False)
    assert store.feed(page.id).status == "error" and "not a feed" in store.feed(page.id).error
    server.route("/kv.xml", Reply(500))
    second = refresh(store, place=False)
    assert by_id(second, kv.id).outcome == FAILED and "500" in by_id(second, kv.id).error
    assert by_id(second, spec.id).outcome == UNCHANGED  # downloaded, nothing new
    failed = store.feed(kv.id)
    assert (failed.status, failed.entries, failed.failures) == ("error", 2, 1)
    assert by_id(second, page.id).outcome == FAILED  # the page is still no feed
    assert second.line() == "no new entries; 2 failed"


def test_a_changed_entry_is_updated_in_place_over_the_wire(server: FeedServer, store: Store):
    server.route("/kv.xml", Conditional(rss("KV", KV)))
    feed, _ = store.add_feed(server.url("/kv.xml"))
    refresh(store, place=False)
    (eid,) = [e.id for e in store.entries() if e.feed_key.endswith("kv-1")]
    store.set_read(eid)
    store.set_note(eid, "mine")
    changed = [("kv-1", "Paged attention, revised", "Now with FP8 KV cache."), KV[1]]
    server.route("/kv.xml", Conditional(rss("KV", changed), etag='"v2"'))
    result = by_id(refresh(store, place=False), feed.id)
    assert (result.outcome, result.new, result.updated) == (CHANGED, 0, 1)
    entry = store.entry(eid)
    assert entry.title == "Paged attention, revised" and store.count_entries() == 2
    assert eid in store.read_ids() and store.note(eid) == "mine" and store.bookmark(eid)
    assert "FP8" in store.entry_content(eid).text


def test_new_entries_join_their_topics_at_once_without_a_re_cluster(
    server: FeedServer, bundled_home: Path
):
    with Store.open_dir(bundled_home) as store:
        topics_before = {t.id for t in store.topics()}
        model_before = store.topic_model()
        server.route("/kv.xml", Reply(200, rss("KV Blog", KV + SPEC)))
        store.add_feed(server.url("/kv.xml"))
        progress = []
        summary = refresh(store, progress=progress.append)
        assert summary.new == 3 and store.count_unassigned() == 0
        placed = store.assignments()
        assert all(eid in placed for eid in summary.new_ids)
        assert sum(t.count for t in summary.topics) == 3
        names = {t.id: t.name for t in store.topics()}
        assert all(t.name == names[t.topic_id] for t in summary.topics)
        # the topics and the model that placed them are those of before: no re-cluster
        assert {t.id for t in store.topics()} == topics_before
        assert store.topic_model() == model_before
        # one report per finished feed, then the placing
        assert [(p.done, p.total, p.placing) for p in progress] == [(1, 1, False), (1, 1, True)]
        assert summary.toast().startswith("3 new: ")


def test_new_entries_are_placed_while_later_feeds_download_as_they_are_at_the_end(
    server: FeedServer, bundled_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from topiclens.clustering import pipeline
    from topiclens.clustering.saved import SavedModels
    from topiclens.feeds import refresh as refreshing

    at_the_end = tmp_path / "placed-at-the-end"
    shutil.copytree(bundled_home, at_the_end)
    placed_early = threading.Event()
    assign_new = pipeline.assign_new

    def watched(store: Store, ids: list[str], *models: SavedModels) -> int:
        placed = assign_new(store, ids, *models)
        if placed and threading.current_thread().name == "topiclens-placing":
            placed_early.set()
        return placed

    def held(exchange: Exchange) -> None:  # answers once the other feed's entries are placed
        placed_early.wait(30)
        exchange.send(Reply(200, rss("Speculative Blog", SPEC)))

    monkeypatch.setattr(pipeline, "assign_new", watched)
    server.route("/kv.xml", Reply(200, rss("KV Blog", KV)))
    server.route("/spec.xml", held)
    placements = []
    for home, batch in ((bundled_home, 1), (at_the_end, 10**9)):
        monkeypatch.setattr(refreshing, "PLACE_BATCH", batch)
        with Store.open_dir(home) as store:
            store.add_feed(server.url("/kv.xml"))
            store.add_feed(server.url("/spec.xml"))
            summary = refresh(store)
            assert placed_early.is_set()  # (the first time by the placing thread)
            assert summary.new == 3 and store.count_unassigned() == 0
            placed = store.assignments()
            placements.append(({eid: placed[eid] for eid in summary.new_ids}, summary.toast()))
    assert placements[0] == placements[1]


def test_the_schedule_backs_off_on_errors(server: FeedServer, store: Store):
    server.route("/bad.xml", Reply(500))
    bad, _ = store.add_feed(server.url("/bad.xml"))
    assert [f.id for f in due_feeds(store)] == [bad.id]  # never fetched: due now
    for _ in range(3):
        refresh(store, place=False)
    now = time.time()
    assert store.feed(bad.id).failures == 3
    # three failures in a row: the interval doubled three times
    assert due_feeds(store, now + 7 * 60, interval=60) == []
    assert [f.id for f in due_feeds(store, now + 9 * 60, interval=60)] == [bad.id]
    assert next_due(store, interval=60) == pytest.approx(store.feed(bad.id).last_checked + 480)


def test_many_feeds_are_parsed_in_worker_processes_and_all_stored(server: FeedServer, store: Store):
    from topiclens.feeds.refresh import PARALLEL_FEEDS

    count = PARALLEL_FEEDS + 2
    for n in range(count):
        items = [(f"f{n}-{k}", f"Post {k} of feed {n}", "KV cache blocks.") for k in range(3)]
        server.route(f"/f{n}.xml", Reply(200, rss(f"Feed {n}", items)))
        store.add_feed(server.url(f"/f{n}.xml"))
    server.route("/f0.xml", Reply(200, b"<!DOCTYPE html><p>moved</p>"))  # one fails, alone
    summary = refresh(store, place=False)
    assert summary.new == 3 * (count - 1) and store.count_entries() == 3 * (count - 1)
    assert [r.feed_id for r in summary.failed] == [1]
    assert {f.entries for f in store.feeds()[1:]} == {3}


@pytest.mark.parametrize("count", [1, PARALLEL_FEEDS])
def test_new_entries_arrive_with_their_tokens_cached(server: FeedServer, store: Store, count: int):
    """The parsing tokenizes (in the worker processes when there are many feeds), so
    placing the new entries has nothing left to tokenize."""
    from topiclens.clustering.token_cache import entry_token_ids
    from topiclens.clustering.tokenize import default_tokenizer

    for n in range(count):
        items = [*KV, (f"zh-{n}", "投机解码：草稿模型", "草稿模型提出多个词元，目标模型一次验证。")]
        server.route(f"/t{n}.xml", Reply(200, rss(f"Feed {n}", items)))
        store.add_feed(server.url(f"/t{n}.xml"))
    summary = refresh(store, place=False)
    assert summary.new == 3 * count
    tids, tokenized_now = entry_token_ids(store, summary.new_ids)
    assert tokenized_now == 0
    tk = default_tokenizer()
    assert tids.docs() == [tk(text) for _, text in store.entry_texts(summary.new_ids)]
    # the Chinese entries went through jieba there (目标 and 验证 are its words)
    assert {"speculative decoding", "目标", "验证"} <= set(tids.docs()[-1])


def test_a_tokenizer_failure_costs_the_feed_none_of_its_entries(
    server: FeedServer, store: Store, monkeypatch: pytest.MonkeyPatch
):
    from topiclens.clustering import token_cache
    from topiclens.clustering.tokenize import Tokenizer

    def broken(self, text):  # type: ignore[no-untyped-def]
        raise RuntimeError("a tokenizer bug")

    monkeypatch.setattr(Tokenizer, "tokens_and_bigrams", broken)
    server.route("/kv.xml", Reply(200, rss("KV Blog", KV)))
    store.add_feed(server.url("/kv.xml"))
    summary = refresh(store, place=False)  # one feed: parsed in this process
    assert summary.new == 2 and not summary.failed and store.count_entries() == 2
    monkeypatch.undo()
    _, tokenized_now = token_cache.entry_token_ids(store, summary.new_ids)
    assert tokenized_now == 2  # no tokens were cached: placing makes them


def test_the_schedule_interval_is_the_users_within_bounds(store: Store):
    from topiclens.feeds.schedule import interval_minutes, set_interval_minutes

    assert interval_minutes(store) == 60
    feed, _ = store.add_feed("https://blog.example.org/feed.xml")
    store.record_feed_check(feed.id, FeedCheck(time.time(), True))
    checked = store.feed(feed.id).last_checked
    assert due_feeds(store, checked + 59 * 60) == []
    assert [f.id for f in due_feeds(store, checked + 61 * 60)] == [feed.id]
    set_interval_minutes(store, 15)
    assert [f.id for f in due_feeds(store, checked + 16 * 60)] == [feed.id]
    for wrong in (4, 7 * 24 * 60 + 1):
        with pytest.raises(ValueError, match="refresh interval"):
            set_interval_minutes(store, wrong)
    assert interval_minutes(store) == 15
    store.remove_feed(feed.id)
    assert next_due(store) is None
