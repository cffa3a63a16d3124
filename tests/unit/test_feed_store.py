"""The store's side of feeds: subscriptions, one transaction per fetch, entries known by
their key in their feed and updated in place, contents kept apart."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from topiclens.store import Store, Topic
from topiclens.store.feed_entries import FeedItem, content_start, entry_id_for, feed_scope
from topiclens.store.feeds import FeedCheck
from topiclens.store.models import Content, Entry


def make_item(
    feed_id: int,
    key: str,
    title: str = "Paged attention",
    summary: str = "KV cache blocks",
    text: str = "The KV cache lives in fixed-size blocks.",
    html: str = "<p>The KV cache lives in fixed-size blocks.</p>",
    *,
    author: str = "Ada",
    url: str | None = None,
    dated: bool = True,
) -> FeedItem:
    """A feed entry as the refresh makes it (store/feed_entries.item), built by hand."""
    entry = Entry(
        id=entry_id_for(feed_scope(feed_id), key),
        title=title,
        summary=summary,
        source="vLLM Blog",
        date="2026-05-01",
        url=url or f"https://blog.example.org/{key}",
        lang="en",
        format="feed",
        origin_file="https://blog.example.org/feed.xml",
        feed_id=feed_id,
        feed_key=key,
        author=author,
        published="2026-05-01T08:00:00Z",
        date_first_seen=not dated,
        content_start=content_start(summary, text),
    )
    return FeedItem(entry, Content(text, html))


def ok(*items: FeedItem, etag: str | None = '"v1"', title: str | None = "vLLM Blog") -> FeedCheck:
    return FeedCheck(time.time(), True, etag=etag, title=title, items=items)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store.open_dir(tmp_path)
    yield s
    s.close()


def test_a_feed_is_added_listed_renamed_and_removed_with_its_entries_kept(store: Store):
    feed, already = store.add_feed("https://blog.example.org/feed.xml", folder="infra/serving")
    assert not already and feed.id >= 1 and feed.status == "ok" and feed.folder == "infra/serving"
    first = store.record_feed_check(feed.id, ok(make_item(feed.id, "a"), make_item(feed.id, "b")))
    assert len(first.written.new) == 2 and first.written.updated == []
    (listed,) = store.feeds()
    assert (listed.entries, listed.unread, listed.title) == (2, 2, "vLLM Blog")
    assert store.rename_feed(feed.id, "  vLLM  ")
    assert store.feed(feed.id).display_name == "vLLM"
    assert {e.source for e in store.entries()} == {"vLLM"}  # the feed's name shows as source
    ids = [e.id for e in store.entries()]
    store.set_bookmark(ids[0], True)
    store.set_read(ids[1])
    assert store.feeds()[0].unread == 1
    assert store.remove_feed(feed.id) and store.feeds() == []
    assert not store.remove_feed(feed.id)  # once
    assert sorted(e.id for e in store.entries()) == sorted(ids)  # every entry stays
    assert store.bookmark_ids() == {ids[0]}
    # adding the URL again takes the same feed back: its entries are known, not new
    again, already = store.add_feed("https://blog.example.org/feed.xml")
    assert again.id == feed.id and not already and again.entries == 2
    written = store.record_feed_check(feed.id, ok(make_item(feed.id, "a"))).written
    assert written.new == [] and written.updated == []


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("   ", "blank"),
        ("two\nlines", "one line"),
        ("para\u2029graph", "one line"),
        ("x" * 201, "at most 200"),
        ("bell\x07", "control"),
    ],
)
def test_a_feeds_name_is_one_bounded_line(store: Store, name: str, why: str):
    feed, _ = store.add_feed("https://blog.example.org/feed.xml")
    with pytest.raises(ValueError, match=why):
        store.rename_feed(feed.id, name)
    with pytest.raises(ValueError, match=why):
        store.add_feed("https://other.example.org/feed.xml", name=name)
    assert store.feed(feed.id).name is None
    assert [f.url for f in store.feeds()] == ["https://blog.example.org/feed.xml"]


def test_the_same_entry_fetched_again_is_not_new(store: Store):
    feed, _ = store.add_feed("https://blog.example.org/feed.xml")
    first = store.record_feed_check(feed.id, ok(make_item(feed.id, "guid-1"))).written
    second = store.record_feed_check(feed.id, ok(make_item(feed.id, "guid-1"))).written
    assert len(first.new) == 1 and second == ([], [])
    assert store.count_entries() == 1


def test_the_same_key_in_two_feeds_is_two_entries(store: Store):
    one, _ = store.add_feed("https://a.example.org/feed.xml")
    two, _ = store.add_feed("https://b.example.org/feed.xml")
    a = store.record_feed_check(one.id, ok(make_item(one.id, "1"))).written.new
    b = store.record_feed_check(two.id, ok(make_item(two.id, "1"))).written.new
    assert len(a) == len(b) == 1 and a != b
    assert {store.entry(a[0]).feed_id, store.entry(b[0]).feed_id} == {one.id, two.id}


def _pin_everything(store: Store, entry_id: str) -> int:
    """Put the entry in a topic, pin it there, bookmark it with a note and read it."""
    from topiclens.clustering.corrections import move_entry

    others = [e.id for e in store.entries() if e.id != entry_id]
    topics = [Topic(1, "KV cache", [("kv", 1.0)], 1), Topic(2, "Serving", [("serve", 1.0)], 1)]
    placed = {entry_id: (1, 0.5, ["kv"])} | {eid: (2, 0.5, []) for eid in others}
    store.replace_topics(topics, placed)
    move_entry(store, entry_id, 1)
    store.set_note(entry_id, "read this again")
    store.set_read(entry_id)
    return 1


def test_a_changed_entry_is_updated_in_place_keeping_what_the_reader_gave_it(store: Store):
    feed, _ = store.add_feed("https://blog.example.org/feed.xml")
    store.record_feed_check(
        feed.id, ok(make_item(feed.id, "post"), make_item(feed.id, "other", title="Other"))
    )
    (eid,) = [e.id for e in store.entries() if e.feed_key == "post"]
    topic = _pin_everything(store, eid)
    store.put_tokens([(eid, "", "v1", ["kv", "cache"])])
    changed = make_item(
        feed.id,
        "post",
        title="Paged attention, revised",
        text="Blocks of 16 tokens.",
        html="<p>Blocks of <b>16</b> tokens.</p>",
    )
    written = store.record_feed_check(feed.id, ok(changed)).written
    assert written.new == [] and written.updated == [eid]
    entry = store.entry(eid)
    assert entry.title == "Paged attention, revised" and store.count_entries() == 2
    assert store.entry_content(eid) == Content(
        "Blocks of 16 tokens.", "<p>Blocks of <b>16</b> tokens.</p>"
    )
    # its read state, bookmark, note, topic and pin are all kept
    assert eid in store.read_ids()
    assert store.bookmark(eid) is not None and store.note(eid) == "read this again"
    assert store.assignment(eid).topic_id == topic
    assert store.corrections().pins == {eid: topic}
    # the topic list shows the new title, and its cached tokens (of the old text) are gone
    assert (eid, "Paged attention, revised") in [r[:2] for r in store.topic_rows(topic)]
    assert [row for row in store.iter_cached_tokens("v1") if row[0] == eid] == []
    # fetched again unchanged: nothing more happens
    assert store.record_feed_check(feed.id, ok(changed)).written == ([], [])


@pytest.mark.parametrize(
    "change",
    [
        {"summary": "A new summary"},
        {"text": "Other text"},
        {"html": "<p>Other markup</p>"},
        {"author": "Grace"},
        {"url": "https://blog.example.org/moved"},
    ],
)
def test_each_field_that_changes_updates_the_entry(store: Store, change: dict[str, str]):
    feed, _ = store.add_feed("https://blog.example.org/feed.xml")
    (eid,) = store.record_feed_check(feed.id, ok(make_item(feed.id, "k"))).written.new
    written = store.record_feed_check(feed.id, ok(make_item(feed.id, "k", **change))).written
    assert written.updated == [eid]


def test_an_undated_entry_keeps_the_time_first_seen_until_its_feed_dates_it(store: Store):
    feed, _ = store.add_feed("https://blog.example.org/feed.xml")
    seen = make_item(feed.id, "k", dated=False)
    seen.entry.date, seen.entry.published = "2026-06-01", "2026-06-01T10:00:00Z"
    (eid,) = store.record_feed_check(feed.id, ok(seen)).written.new
    assert store.entry(eid).date_first_seen
    store.record_feed_check(feed.id, ok(make_item(feed.id, "k")))
    entry = store.entry(eid)
    assert not entry.date_first_seen and entry.published == "2026-05-01T08:00:00Z"


def test_a_failed_fetch_keeps_entries_and_validators_and_stores_its_error(store: Store):
    feed, _ = store.add_feed("https://blog.example.org/feed.xml")
    store.record_feed_check(feed.id, ok(make_item(feed.id, "k"), etag='"abc"'))
    before = store.feed(feed.id)
    later = time.time() + 5
    store.record_feed_check(
        feed.id, FeedCheck(later, False, error="HTTP 500 Internal Server Error")
    )
    after = store.feed(feed.id)
    assert (after.status, after.error, after.failures) == (
        "error",
        "HTTP 500 Internal Server Error",
        1,
    )
    assert after.etag == '"abc"' and after.last_ok == before.last_ok and after.last_checked == later
    assert store.count_entries() == 1
    # a 304 clears the error and stores its validators
    store.record_feed_check(feed.id, FeedCheck(later + 1, True, etag='"def"', last_modified="x"))
    again = store.feed(feed.id)
    assert (again.status, again.error, again.failures) == ("ok", None, 0)
    assert (again.etag, again.last_modified, again.last_ok) == ('"def"', "x", later + 1)


def test_a_gone_feed_is_marked_gone_until_added_again(store: Store):
    feed, _ = store.add_feed("https://blog.example.org/feed.xml")
    store.record_feed_check(
        feed.id, FeedCheck(time.time(), False, error="HTTP 410 Gone", gone=True)
    )
    assert store.feed(feed.id).status == "gone"
    again, already = store.add_feed("https://blog.example.org/feed.xml")
    assert again.id == feed.id and not already and again.status == "ok"


def test_a_permanent_move_changes_the_url_unless_another_feed_has_it(store: Store):
    one, _ = store.add_feed("https://a.example.org/feed.xml")
    two, _ = store.add_feed("https://b.example.org/feed.xml")
    moved = FeedCheck(time.time(), True, moved_to="https://a.example.org/new.xml")
    assert store.record_feed_check(one.id, moved).moved
    assert store.feed(one.id).url == "https://a.example.org/new.xml"
    clash = FeedCheck(time.time(), True, moved_to="https://a.example.org/new.xml")
    assert not store.record_feed_check(two.id, clash).moved
    assert store.feed(two.id).url == "https://b.example.org/feed.xml"


def test_one_fetch_is_one_transaction(store: Store):
    """A write that fails half-way (here at the second entry's insert, after the first entry
    and the feed's validators were changed) leaves the feed and its entries as they were."""
    feed, _ = store.add_feed("https://blog.example.org/feed.xml")
    store.record_feed_check(feed.id, ok(make_item(feed.id, "a")))
    before = (store.feed(feed.id), [(e.id, e.title) for e in store.entries()])
    with sqlite3.connect(store.path) as db:
        db.execute(
            "CREATE TRIGGER fail_b BEFORE INSERT ON entries WHEN NEW.url LIKE '%/b'"
            " BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END"
        )
    with pytest.raises(sqlite3.DatabaseError):
        store.record_feed_check(
            feed.id,
            ok(make_item(feed.id, "a", title="Changed"), make_item(feed.id, "b"), etag='"v2"'),
        )
    assert (store.feed(feed.id), [(e.id, e.title) for e in store.entries()]) == before


def test_contents_are_bounded_compressed_and_deleted_with_their_entry(store: Store):
    from topiclens.store.content import MAX_HTML_CHARS, MAX_TEXT_CHARS

    feed, _ = store.add_feed("https://blog.example.org/feed.xml")
    huge = make_item(feed.id, "huge", text="w " * MAX_TEXT_CHARS, html="<p>x</p>" * MAX_HTML_CHARS)
    (eid,) = store.record_feed_check(feed.id, ok(huge)).written.new
    content = store.entry_content(eid)
    assert content.html == "" and len(content.text) < MAX_TEXT_CHARS + 100
    assert content.text.endswith("more characters]")
    small = make_item(feed.id, "small", html="<p>" + "kv cache " * 2000 + "</p>")
    (small_id,) = store.record_feed_check(feed.id, ok(small)).written.new
    (stored,) = store.query(
        "SELECT length(html) FROM entry_content WHERE entry_id = ?", (small_id,)
    )
    assert stored[0] < len(small.content.html) / 10  # compressed
    deleted = store.delete_entry(small_id)
    assert store.entry_content(small_id) is None
    store.restore_entry(deleted)
    assert store.entry_content(small_id) == small.content


def test_clustering_reads_the_start_of_the_content_but_never_the_feed(store: Store):
    feed, _ = store.add_feed("https://blog.example.org/feed.xml", name="Speculative Feed")
    item = make_item(
        feed.id,
        "k",
        title="Notes",
        summary="Short.",
        text="Short. Draft models propose tokens the target verifies. " + "filler " * 400,
    )
    (eid,) = store.record_feed_check(feed.id, ok(item)).written.new
    ((_, text),) = store.entry_texts([eid])
    assert text.startswith("Notes\nShort.\nDraft models propose tokens the target verifies.")
    assert "Speculative Feed" not in text and "Ada" not in text
    assert len(text) < 1100  # the start of the content, not the whole of it
