"""The store's plain records (store/models.py: Entry, ParseResult, ImportReport) behave as
the dataclasses they replaced: equal by value, unhashable, fresh defaults, shown with their
fields, copied with changes, pickled whole."""

from __future__ import annotations

import pickle

import pytest
from topiclens.store.models import Entry, ImportReport, ParseResult, Problem


def entry(**changes: object) -> Entry:
    return Entry("00000000000000aa", "A title", "a summary", source="S", **changes)  # type: ignore[arg-type]


def test_equal_by_value_and_not_hashable() -> None:
    assert entry() == entry()
    assert entry() != entry(comment="other")
    assert entry() != ("00000000000000aa", "A title", "a summary")
    with pytest.raises(TypeError):
        hash(entry())


def test_defaults_are_fresh_for_each_record() -> None:
    first, second = entry(), entry()
    first.extra["k"] = 1
    assert second.extra == {}
    report = ImportReport()
    report.add(ImportReport(new=2, problems=[Problem("f", 1, "bad")], new_ids=["x"]))
    assert (report.new, report.problems, report.new_ids) == (2, [Problem("f", 1, "bad")], ["x"])
    assert ImportReport().problems == [] and ParseResult("f", "jsonl").entries == []


def test_repr_replace_and_pickle() -> None:
    e = entry(url="https://example.org/a")
    assert "title='A title'" in repr(e) and repr(e).startswith("Entry(")
    changed = e.replace(feed_id=3, content_start="more")
    assert (changed.feed_id, changed.content_start, changed.title) == (3, "more", "A title")
    assert e.feed_id is None  # the original is left as it was
    assert pickle.loads(pickle.dumps(e)) == e
    result = ParseResult("f", "jsonl", entries=[e])
    assert pickle.loads(pickle.dumps(result)) == result


def test_a_record_that_extends_another_is_equal_and_shown_by_every_field() -> None:
    from topiclens.store.restore import RestoreReport

    one, other = RestoreReport(new=1), RestoreReport(new=2)
    assert one != other  # a field of the report it extends tells them apart
    other.new = 1
    assert one == other
    other.bookmarks_restored = 1
    assert one != other
    assert repr(one).startswith("RestoreReport(known=0, new=1,") and "bookmarks_restored=0" in repr(
        one
    )
    entry_copy = entry().replace(comment="c")
    assert type(entry_copy) is Entry and entry_copy.comment == "c"
