"""The SQLite store: one :class:`Store` whose methods are the whole interface of the data
layer, each delegating to the module of its concern:

- :mod:`.schema`: the schema, its migrations, the meta table;
- :mod:`.connection`: the connection, write transactions, retries while busy;
- :mod:`.errors`: SQLite errors turned into advice (:class:`StoreError`);
- :mod:`.entries`: entries; :mod:`.bookmarks`: bookmarks, notes and read state;
- :mod:`.topics`: topics, assignments and the fitted model; :mod:`.tokens`: the token
  cache; :mod:`.queries`: the reader's light rows and counts;
- :mod:`.feeds`, :mod:`.feed_entries`, :mod:`.content`: feeds, their entries and entries'
  whole contents (their methods are in :class:`.feed_facade.FeedsFacade`).

One file in the data directory, WAL mode, a schema version with forward migrations, a busy
timeout so a second process waits instead of failing, and one transaction per import batch.
No SQL lives outside ``store/``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from . import bookmarks as _bookmarks
from . import entries as _entries
from . import queries as _queries
from . import schema as _schema
from . import titles as _titles
from . import topics as _topics
from .connection import STORE_FILENAME
from .daily_facade import DailyFacade
from .errors import BUSY_TIMEOUT_MS, RETRY_SECONDS, StoreError, explain
from .feed_facade import FeedsFacade
from .models import Assignment, Bookmark, Entry, ImportReport, ParseResult, Topic
from .queries import EntryRow
from .schema import SCHEMA_VERSION
from .tokens import TokenCache, TokenRow
from .topics import Also, Assignments, Similar

if TYPE_CHECKING:
    from . import correction_log as _log
    from . import corrections as _corrections
    from .deleting import DeletedEntry

__all__ = [
    "BUSY_TIMEOUT_MS",
    "RETRY_SECONDS",
    "SCHEMA_VERSION",
    "STORE_FILENAME",
    "Store",
    "StoreError",
    "explain",
]


class Store(DailyFacade, FeedsFacade):
    """A topiclens store. Safe to share between threads (one lock around the connection)
    and between processes (WAL, busy timeout, immediate write transactions)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        self._token_cache = TokenCache(self)
        _titles.rederive_if_asked(self)  # once, after the migration that asks for it

    # --- meta ------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        return _schema.get_meta(self, key)

    def set_meta(self, key: str, value: str) -> None:
        _schema.set_meta(self, key, value)

    # --- entries ---------------------------------------------------------------------

    def add_entries(self, entries: Iterable[Entry]) -> tuple[list[str], int]:
        """Insert entries in one transaction; returns (ids that were new, count known)."""
        return _entries.add(self, entries)

    def import_result(self, result: ParseResult) -> ImportReport:
        new, known = _entries.add(self, result.entries, result.contents)
        return ImportReport(
            new=len(new),
            known=known,
            rejected=len(result.problems),
            problems=list(result.problems),
            new_ids=new,
            notes=list(result.notes),
        )

    def count_entries(self) -> int:
        return _entries.count(self)

    def entry(self, entry_id: str) -> Entry | None:
        return _entries.one(self, entry_id)

    def entries(self, ids: Sequence[str] | None = None) -> list[Entry]:
        """Entries newest first (undated last, then in import order); ``ids`` keeps its order."""
        return _entries.many(self, ids)

    def entry_texts(self, ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(id, text) for every entry in import order, or for ``ids`` in that order: what
        clustering reads (title, summary, comment and the start of the content only)."""
        return _entries.texts(self, ids)

    def entry_ids(self) -> list[str]:
        """Every entry's id, in import order (the order of :meth:`entry_texts`)."""
        return _entries.ids(self)

    def search(self, query: str, limit: int | None = None) -> list[str]:
        """Ids of entries whose title, summary or comment contain every word of ``query``
        (case-insensitive; Chinese matched as written), newest first."""
        return _entries.search(self, query, limit)

    def search_ranked(
        self,
        prefilter: _entries.Prefilter,
        rank: _entries.Rank,
        limit: int | None = None,
    ) -> list[str]:
        """Ids of the entries that pass ``prefilter`` and that ``rank(title, summary,
        comment)`` ranks, lowest rank first, newest first within a rank
        (``clustering.search`` says what matches)."""
        return _entries.ranked(self, prefilter, rank, limit)

    def search_ranks(
        self, prefilter: _entries.Prefilter, rank: _entries.Rank
    ) -> list[tuple[int, str]]:
        """(rank, id) of what :meth:`search_ranked` finds, in its order."""
        return _entries.ranked_pairs(self, prefilter, rank)

    def unassigned_ids(self) -> list[str]:
        """Ids of entries in no topic, in import order."""
        return _entries.unassigned_ids(self)

    # --- bookmarks, notes, read state ------------------------------------------------

    def bookmarks(self) -> list[Bookmark]:
        """Every bookmark, in the order they were made."""
        return _bookmarks.all_bookmarks(self)

    def bookmark(self, entry_id: str) -> Bookmark | None:
        return _bookmarks.one(self, entry_id)

    def bookmark_ids(self) -> set[str]:
        return _bookmarks.ids(self)

    def set_bookmark(
        self, entry_id: str, on: bool, note: str | None = None, topic_id: int | None = None
    ) -> None:
        """Bookmark the entry (``topic_id``: the topic it is bookmarked from, where an
        export files it) or remove the bookmark (its note stays)."""
        _bookmarks.set_bookmark(self, entry_id, on, note, topic_id)

    def toggle_bookmark(self, entry_id: str, topic_id: int | None = None) -> bool:
        """Flip the bookmark in one transaction; returns whether it is now bookmarked.
        ``topic_id``: the topic the entry is bookmarked from (the reader's topic shown,
        which may be one the entry is only also listed under)."""
        return _bookmarks.toggle(self, entry_id, topic_id)

    def set_note(self, entry_id: str, note: str) -> None:
        """Set the entry's note ("" clears it), bookmarking the entry if it was not."""
        _bookmarks.set_bookmark(self, entry_id, True, note)

    def note(self, entry_id: str) -> str:
        """The entry's note ("" when none), kept whether it is bookmarked or not."""
        return _bookmarks.note(self, entry_id)

    def loose_notes(self) -> list[_bookmarks.Note]:
        """The notes on entries that are not bookmarked (kept when a bookmark is removed)."""
        return _bookmarks.loose_notes(self)

    def read_ids(self) -> set[str]:
        return _bookmarks.read_ids(self)

    def set_read(self, entry_id: str, read: bool = True) -> None:
        _bookmarks.set_read(self, entry_id, read)

    def set_read_many(self, entry_ids: Iterable[str], read: bool = True) -> int:
        """Mark entries read (or unread) in one transaction; returns how many changed."""
        return _bookmarks.set_read_many(self, entry_ids, read)

    def mark_all_read(self) -> int:
        """Mark every entry read in one transaction; returns how many were unread. Logged:
        :meth:`undo_mark_all_read` takes it back (across restarts)."""
        return _bookmarks.mark_all_read(self)

    # --- deleting an entry, and undoing it (imported when first used, as corrections) ---

    def delete_entry(self, entry_id: str) -> DeletedEntry | None:
        """Delete the entry with its bookmark, note, read state and topic rows in one
        transaction; returns them for :meth:`restore_entry` (None: no such entry)."""
        from . import deleting as _deleting

        return _deleting.delete(self, entry_id)

    def restore_entry(self, deleted: DeletedEntry) -> list[str]:
        """Put a deleted entry back exactly, in one transaction; returns the tables whose
        rows named a topic gone since (left out: the entry waits for the next grouping)."""
        from . import deleting as _deleting

        return _deleting.restore(self, deleted)

    # --- topics and assignments ------------------------------------------------------

    def topics(self) -> list[Topic]:
        """Every topic: the clear ones (cohesion 0.6 or more, or unknown), the other
        coherent ones, then the mixed ones (``Topic.mixed``), each largest first."""
        return _topics.all_topics(self)

    def topic(self, topic_id: int) -> Topic | None:
        return next((t for t in self.topics() if t.id == topic_id), None)

    def topic_entry_ids(self, topic_id: int) -> list[str]:
        """The topic's entry ids in the reader's order (that of :meth:`topic_rows`)."""
        return _topics.entry_ids(self, topic_id)

    def also_entry_ids(self, topic_id: int) -> list[str]:
        """The ids of the entries also listed under the topic (their primary topic is
        another), in the reader's order (that of :meth:`topic_also_rows`)."""
        return _topics.also_entry_ids(self, topic_id)

    def also_topics(self, entry_id: str) -> list[Topic]:
        """The other topics the entry is also listed under, best score first."""
        return _topics.also_topics(self, entry_id)

    def assignments(self) -> dict[str, int]:
        """Entry id -> topic id, for every entry in a topic."""
        return _topics.assignments(self)

    def assignment(self, entry_id: str) -> Assignment | None:
        """(topic id, score, terms) of the entry's place in its topic, if it has one."""
        return _topics.assignment(self, entry_id)

    def bookmark_topic_ids(self) -> dict[str, int]:
        """Bookmarked entry id -> topic id, for the bookmarks whose entry is in a topic."""
        return _topics.bookmark_topic_ids(self)

    def similar(self, entry_id: str) -> list[tuple[str, float]]:
        """The entry's most similar entries, best first: (entry id, cosine)."""
        return _topics.similar(self, entry_id)

    def replace_topics(
        self,
        topics: Sequence[Topic],
        assignments: Assignments,
        similar: Similar | None = None,
        *,
        model: tuple[str, bytes] | None = None,
        also: Also | None = None,
        corrections: str | None = None,
    ) -> None:
        """Replace the whole clustering result in one transaction.

        ``topics`` carry their final ids (the caller has matched them to the old ones);
        a topic the user renamed keeps its name unless ``Topic.user_named`` is False here.
        ``assignments`` maps entry id to (topic id, score, terms tying it to the topic);
        ``similar`` (None: kept as they are) each entry's similar entries. ``model``
        (version, blob), the fitted model that placed them, is stored in the same
        transaction, so topics and the model that assigns new entries never disagree.
        ``also`` (entry id, topic id, score) rows list entries under other topics they
        centrally discuss; they replace every also row (None: none are left). A row naming
        the entry's primary topic, a topic not in ``topics`` or an entry not in
        ``assignments`` is left out. The bulk rows skip foreign-key checks; rows of an entry
        deleted while the clustering ran are dropped in the same transaction. Nothing is written
        if the corrections changed since ``corrections`` was read (``CorrectionsChanged``)."""
        _topics.replace(
            self, topics, assignments, similar, model=model, also=also, corrections=corrections
        )

    def add_assignments(
        self, assignments: Assignments, similar: Similar | None = None, *, also: Also | None = None
    ) -> list[str]:
        """Put entries into existing topics (no re-cluster) and update the topics' sizes,
        in one transaction. Returns the ids of the entries it could not assign because
        their topic is gone (a re-cluster in another process replaced the topics since
        the caller read them): the topics are checked inside this write transaction, the
        other rows are written, and the caller places those entries again.

        ``also`` (entry id, topic id, score): the other topics the placed entries are also
        listed under, replacing any they had, in the same transaction; rows whose topic is
        gone, whose entry is not placed here or that name the entry's primary topic are
        left out."""
        return _topics.add_assignments(self, assignments, similar, also=also)

    def rename_topic(self, topic_id: int, name: str) -> bool:
        return _topics.rename(self, topic_id, name)

    # --- the reader's corrections (store/corrections.py) -------------------------------
    # (these modules are imported when first used: at import they cost the reader's start)

    def corrections(self) -> _corrections.Corrections:
        """Every correction in force: shaped topics by id, pinned entries."""
        from . import corrections as _corrections

        return _corrections.in_force(self)

    def has_corrections(self) -> bool:
        from . import corrections as _corrections

        return _corrections.has_any(self)

    def apply_correction(self, plan: _corrections.Plan) -> None:
        """Write one correction in one transaction, logged for :meth:`undo_correction`."""
        from . import corrections as _corrections

        _corrections.apply(self, plan)

    def undo_correction(self, fit_names: _log.FitNames | None = None) -> _log.Undone | None:
        """Take the last logged correction back (None: none); see :func:`.undo_last`."""
        from . import correction_log as _log

        return _log.undo_last(self, fit_names)

    def forget_corrections(self, topic_ids: Sequence[int]) -> None:
        """Drop the shaped-topic rows of ``topic_ids`` (unlogged: a re-cluster found them
        holding nothing)."""
        from . import corrections as _corrections

        _corrections.forget(self, topic_ids)

    def put_corrections(self, corrections: _corrections.Corrections) -> int:
        """Add corrections read from an export (their entries and topics as they are);
        returns how many rows were written."""
        from . import corrections as _corrections

        return _corrections.put(self, corrections)

    def topic_model(self) -> tuple[str, bytes] | None:
        """(version, blob) of the fitted topic model, if any."""
        return _topics.model(self)

    # --- the token cache -------------------------------------------------------------

    def iter_cached_tokens(
        self, version: str, batch: int = 5000, ids: Sequence[str] | None = None
    ) -> Iterator[tuple[str, str, bytes]]:
        """(entry id, content hash, token ids) of every cached row of tokenizer ``version``
        (or of the entries ``ids``), a batch at a time; the ids index :meth:`token_vocab`."""
        return self._token_cache.iter_cached(version, batch, ids)

    def token_vocab(self) -> list[str]:
        """Every token string any cached row uses, indexed by its id (the list grows)."""
        return self._token_cache.vocab()

    def put_tokens(self, rows: Sequence[TokenRow]) -> list[bytes]:
        """Cache (entry id, content hash, tokenizer version, tokens) rows; returns each
        row's token ids as stored (new tokens get the next ids in the same transaction)."""
        return self._token_cache.put(rows)

    # --- the reader's queries --------------------------------------------------------

    def topic_rows(self, topic_id: int) -> list[EntryRow]:
        """(id, title, source, date) of a topic's entries, newest first, undated last."""
        return _queries.topic_rows(self, topic_id)

    def topic_also_rows(self, topic_id: int) -> list[EntryRow]:
        """(id, title, source, date) of the entries also listed under a topic, in the
        order of :meth:`topic_rows`: the reader shows them after the topic's own."""
        return _queries.topic_rows(self, topic_id, also=True)

    def entry_rows(self, ids: Sequence[str]) -> list[EntryRow]:
        """(id, title, source, date) for ``ids``, in the order given."""
        return _queries.entry_rows(self, ids)

    def topic_unread_counts(self) -> dict[int, int]:
        """Unread primary members per topic id (topics with none are absent)."""
        return _queries.topic_unread_counts(self)

    def filtered_entry_ids(
        self,
        *,
        topic_id: int | None = None,
        source: str | None = None,
        since: str | None = None,
        until: str | None = None,
        unread: bool = False,
        bookmarked: bool = False,
        muted: bool | None = None,
    ) -> list[str]:
        """Ids of the entries that pass every filter given, newest first: a topic's own
        entries, a source holding ``source``, dated ``since`` or later and ``until`` or
        earlier, unread, bookmarked, muted (True) or not (False) (``topiclens entries``)."""
        return _queries.filtered_ids(
            self,
            topic_id=topic_id,
            source=source,
            since=since,
            until=until,
            unread=unread,
            bookmarked=bookmarked,
            muted=muted,
        )

    def count_unassigned(self) -> int:
        """Entries no topic holds yet (imported since the last clustering)."""
        return _queries.count_unassigned(self)

    def topic_profile(self) -> tuple[dict[int, list[tuple[str, int]]], dict[int, dict[str, int]]]:
        """Per topic, its sources with counts (most first) and its entries per month."""
        return _queries.topic_profile(self)
