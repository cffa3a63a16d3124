"""Store.entry_marks reads in one query what the detail pane used to ask four methods for:
it answers as they do, for every entry of a clustered store and whatever marks it has."""

from __future__ import annotations

from pathlib import Path

from topiclens.store import Store
from topiclens.store.detail_reads import EntryMarks


def separately(store: Store, entry_id: str) -> EntryMarks:
    return EntryMarks(
        store.assignment(entry_id),
        store.similar(entry_id),
        store.bookmark(entry_id),
        store.note(entry_id),
    )


def test_entry_marks_answer_as_the_four_reads(bundled_home: Path) -> None:
    with Store.open_dir(bundled_home) as store:
        ids = store.entry_ids()
        both, note_only, flag_only, unplaced = ids[:4]
        store.set_note(both, "a note, bookmarked")
        store.set_note(note_only, "a note kept after the bookmark went")
        store.set_bookmark(note_only, False)
        store.set_bookmark(flag_only, True)
        with store.write() as conn:
            conn.execute("DELETE FROM topic_assignments WHERE entry_id = ?", (unplaced,))

        assert store.bookmark(both) is not None and store.note(both)
        assert store.bookmark(note_only) is None and store.note(note_only)
        assert store.bookmark(flag_only) is not None and store.note(flag_only) == ""
        assert store.assignment(unplaced) is None
        assert any(store.similar(eid) for eid in ids)  # similar entries are there to read
        for eid in [*ids, "no-such-entry"]:
            assert store.entry_marks(eid) == separately(store, eid), eid
