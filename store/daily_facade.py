"""The store's methods for daily use: the trash, what deleting would lose, undoing "mark
everything read", entry ids by their start, the river of unread entries, mute rules and
saved searches. :class:`~topiclens.store.Store` is a
:class:`DailyFacade`, whose methods delegate to the module of their concern as the Store's
others do (kept apart from ``db.py`` so each file stays short)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import bookmarks as _bookmarks
from . import entries as _entries
from . import mute as _mute
from . import queries as _queries
from . import saved as _saved
from . import topics as _topics
from .connection import Database
from .detail_reads import EntryMarks, entry_marks
from .models import Topic
from .mute import MuteRule
from .queries import EntryRow
from .saved import SavedSearch

if TYPE_CHECKING:
    from .deleting import Restored, TrashItem


class DailyFacade(Database):
    """The trash, undoing "mark everything read", saved searches, mute rules, the river."""

    def bookmark_from_topics(self) -> dict[str, int]:
        """Bookmarked entry id -> the topic it was bookmarked from, where one was recorded."""
        return _bookmarks.bookmark_topics(self)

    def entry_marks(self, entry_id: str) -> EntryMarks:
        """:meth:`assignment`, :meth:`similar`, :meth:`bookmark` and :meth:`note` of one
        entry in one query (what the reader's detail pane shows beside the entry)."""
        return entry_marks(self, entry_id)

    def bookmark_filed_topics(self) -> dict[str, int]:
        """Bookmarked entry id -> the topic an export files it under: the topic it was
        bookmarked from while the entry is listed there (an "also" topic included), else
        its own topic."""
        return _bookmarks.filed_topics(self)

    def marks(self, entry_id: str) -> _bookmarks.Marks:
        """Whether the entry is bookmarked and whether it has a note: what deleting it
        would take with it (true when either; the reader asks before deleting then)."""
        return _bookmarks.marks(self, entry_id)

    def last_read_mark(self) -> _bookmarks.ReadMark | None:
        """The "mark everything read" :meth:`undo_mark_all_read` would take back: its
        time (compare with :meth:`last_undo`) and how many entries it marked."""
        return _bookmarks.last_read_mark(self)

    def undo_mark_all_read(self) -> int | None:
        """Take the last "mark everything read" back: the entries it marked are unread
        again (those read again since stay read). Returns how many; None: nothing to undo."""
        return _bookmarks.undo_mark_all_read(self)

    def last_undo(self) -> tuple[str, float] | None:
        """What undo would take back first, the later of the two logs: ("mark-read",
        when) for :meth:`undo_mark_all_read`, ("correction", when) for
        :meth:`undo_correction`; None when both are empty."""
        mark = self.last_read_mark()
        rows = self.query("SELECT made_at FROM correction_log ORDER BY id DESC LIMIT 1")
        found = [("mark-read", mark.made_at)] if mark else []
        found += [("correction", float(rows[0][0]))] if rows else []
        return max(found, key=lambda item: item[1]) if found else None

    def trash(self) -> list[TrashItem]:
        """The deletions kept in the store's trash (across restarts), the last first."""
        from . import deleting as _deleting

        return _deleting.trash(self)

    def restore_last_deleted(self) -> Restored | None:
        """Bring back the last deleted entry from the trash, exactly as it was (bookmark,
        note, read state, topic, pin, also rows), across restarts; None: the trash is
        empty. What the reader's undo of a deletion calls."""
        from . import deleting as _deleting

        return _deleting.restore_last(self)

    def restore_deleted(self, entry_ids: Sequence[str]) -> list[Restored]:
        """Bring back the entries ``entry_ids`` from the trash (ids not there skipped)."""
        from . import deleting as _deleting

        return _deleting.restore_ids(self, entry_ids)

    def resolve_entry_id(self, prefix: str, *, deleted: bool = False) -> str:
        """The one entry id that starts with ``prefix`` (any letter case), among the
        stored entries (``deleted``: among those in the trash). :class:`EntryIdError`
        when none does, or more than one (saying how many)."""
        return _entries.resolve_id(self, prefix, deleted=deleted)

    # --- the river: every unread entry, newest first -------------------------------------

    def river_rows(self, limit: int | None = None, after: str | None = None) -> list[EntryRow]:
        """(id, title, source, date) of every unread entry whatever its topic, newest
        first (undated last), the muted ones left out: the reader's "all unread" list
        (``limit``: the first so many, read cheaply; ``after``: those after that entry,
        the next page)."""
        return _queries.river_rows(self, limit, after)

    # --- mute rules ---------------------------------------------------------------------

    def mute_rules(self) -> list[MuteRule]:
        """Every mute rule, in the order made, with how many entries each mutes now."""
        return _mute.rules(self)

    def add_mute_rule(self, kind: str, value: str) -> tuple[MuteRule, bool]:
        """Mute the entries matching a rule: ``kind`` "words" (every one in the title or
        summary), "source" (the whole source, any ASCII letter case) or "feed" (its id).
        Returns the rule and whether it is new; :class:`.bounds.BoundError` for a value
        that cannot be a rule."""
        return _mute.add(self, kind, value)

    def remove_mute_rule(self, rule_id: int) -> MuteRule | None:
        """Remove a mute rule (its entries show again); None when there is none."""
        return _mute.remove(self, rule_id)

    def muted_ids(self) -> set[str]:
        """The ids of every entry a mute rule hides now (the reader skips them when it
        walks a topic's ids for the next unread)."""
        return _mute.muted_ids(self)

    def muted_among(self, ids: list[str]) -> set[str]:
        """Which of ``ids`` a mute rule hides now."""
        return _mute.muted_ids(self, ids)

    def muted_counts(self) -> dict[int, int]:
        """Muted primary members per topic id: a topic's size as the reader shows it is
        its size less these (:meth:`visible_topics` does that)."""
        return _queries.muted_counts(self)

    def visible_topics(self) -> list[Topic]:
        """:meth:`topics` with each size less its muted entries: the sizes the reader and
        ``topiclens topics`` show (the order stays the store's)."""
        muted = self.muted_counts()
        topics = _topics.all_topics(self)
        return [t._replace(size=t.size - muted.get(t.id, 0)) for t in topics] if muted else topics

    # --- saved searches -----------------------------------------------------------------

    def saved_searches(self) -> list[SavedSearch]:
        """Every saved search (name, query, when), in the order saved."""
        return _saved.listing(self)

    def save_search(self, name: str, query: str) -> bool:
        """Keep ``query`` under ``name`` (replacing a query saved under it); returns
        whether the name is new. :class:`.bounds.BoundError` for a name or query that
        cannot be kept."""
        return _saved.save(self, name, query)

    def remove_saved_search(self, name: str) -> bool:
        """Forget a saved search; False when there is none of that name."""
        return _saved.remove(self, name)

    def saved_search_ids(self, name: str) -> list[str] | None:
        """The entries of the saved search ``name`` now, best first, muted ones left out
        (the reader's own search: run it in a worker); None: no such saved search."""
        found = _saved.one(self, name)
        return None if found is None else _saved.entry_ids(self, found.query)

    def saved_search_unread_counts(self) -> dict[str, int]:
        """Unread entries of each saved search, by name (a search each: in a worker)."""
        return _saved.unread_counts(self)
