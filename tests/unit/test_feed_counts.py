"""One feed read by id (the entry pane's feed name) carries the same entry and unread
counts as the listing of every feed, counted over its own entries only."""

from __future__ import annotations

from pathlib import Path

from test_feed_store import make_item, ok
from topiclens.store import Store


def test_one_feed_counts_its_own_entries_as_the_listing_does(tmp_path: Path) -> None:
    with Store.open_dir(tmp_path) as store:
        first, _ = store.add_feed("https://a.example.org/feed.xml")
        second, _ = store.add_feed("https://b.example.org/feed.xml")
        empty, _ = store.add_feed("https://c.example.org/feed.xml")
        store.record_feed_check(first.id, ok(*(make_item(first.id, k) for k in "abc")))
        store.record_feed_check(second.id, ok(make_item(second.id, "x")))
        read = next(e.id for e in store.entries() if e.feed_id == first.id)
        store.set_read(read)
        listed = {f.id: (f.entries, f.unread) for f in store.feeds()}
        assert listed == {first.id: (3, 2), second.id: (1, 1), empty.id: (0, 0)}
        for feed_id, counts in listed.items():
            one = store.feed(feed_id)
            assert one is not None and (one.entries, one.unread) == counts
        assert store.feed(999) is None
