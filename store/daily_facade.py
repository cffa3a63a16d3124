"""The store's methods for daily use: the trash, what deleting would lose, undoing "mark
everything read", entry ids by their start. :class:`~topiclens.store.Store` is a
:class:`DailyFacade`, whose methods delegate to the module of their concern as the Store's
others do (kept apart from ``db.py`` so each file stays short)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import bookmarks as _bookmarks
from . import entries as _entries
from .connection import Database

if TYPE_CHECKING:
    from .deleting import Restored, TrashItem


class DailyFacade(Database):
    """The trash, undoing "mark everything read", saved searches, mute rules, the river."""

    def bookmark_from_topics(self) -> dict[str, int]:
        """Bookmarked entry id -> the topic it was bookmarked from, where one was recorded."""
        return _bookmarks.bookmark_topics(self)

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
