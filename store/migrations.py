"""The store's migrations, in order: migration N takes a store from schema N-1 to N
(``store/schema.py`` runs them), and the SQL fragments the queries share with them."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from .also_counts import count_also_rows
from .keyed_assignments import KEY_ASSIGNMENTS_BY_ENTRY
from .origins import number_origin_files
from .similar_rows import pack_similar_column
from .token_ids import compact_token_cache, number_token_versions

# The order of every list of entries the reader shows: newest first, undated last, then
# in import order. ``topic_list`` keeps each topic's entries in it (its primary key).
NEWEST_FIRST = "date IS NULL, date DESC, rowid"
TOPIC_LIST_ORDER = "undated, date DESC, entry_rowid"  # the same order, in topic_list


# fills topic_list (migration 6) from the assignments
TOPIC_LIST_FILL = """
    INSERT INTO topic_list(topic_id, undated, date, entry_rowid, entry_id, title, source)
    SELECT a.topic_id, e.date IS NULL, coalesce(e.date, ''), e.rowid, e.id, e.title, e.source
    FROM topic_assignments a JOIN entries e ON e.id = a.entry_id
"""


def mute_match(entry: str) -> str:
    """SQL true when the mute rule ``r`` mutes the entry row ``entry`` (an alias or
    ``new``): a source rule when the source is its text in any ASCII letter case; a words
    rule when the title or the summary holds each of its words (lower-cased, as SQLite's
    lower() does: ASCII letters only). Feed rules are matched when read (store/mute.py):
    the feed column is another migration's."""
    return (
        f"((r.kind = 'source' AND lower({entry}.source) = r.match) "
        "OR (r.kind = 'words' AND NOT EXISTS (SELECT 1 FROM json_each(r.match) w "
        f"WHERE instr(lower({entry}.title || char(10) || {entry}.summary), w.value) = 0)))"
    )


# The triggers that keep ``muted_entries`` up to date on every path an entry is written by.
# They exist only while a words or source rule does (:func:`sync_mute_triggers`): with no
# rule they would still run for every row an import writes, about a sixth of its time.
MUTE_TRIGGERS: dict[str, str] = {
    "entries_muted": "CREATE TRIGGER IF NOT EXISTS entries_muted AFTER INSERT ON entries BEGIN "
    "INSERT OR IGNORE INTO muted_entries(entry_id, rule_id) "
    f"SELECT new.id, r.id FROM mute_rules r WHERE {mute_match('new')}; END",
    "entries_muted_again": "CREATE TRIGGER IF NOT EXISTS entries_muted_again "
    "AFTER UPDATE OF title, summary, source ON entries BEGIN "
    "DELETE FROM muted_entries WHERE entry_id = old.id; "
    "INSERT OR IGNORE INTO muted_entries(entry_id, rule_id) "
    f"SELECT new.id, r.id FROM mute_rules r WHERE {mute_match('new')}; END",
    "entries_unmuted": "CREATE TRIGGER IF NOT EXISTS entries_unmuted AFTER DELETE ON entries "
    "BEGIN DELETE FROM muted_entries WHERE entry_id = old.id; END",
}


def sync_mute_triggers(conn: sqlite3.Connection) -> None:
    """Inside the caller's write transaction: create the mute triggers when a words or
    source rule exists, drop them when none does (feed rules are matched when read)."""
    ruled = conn.execute("SELECT 1 FROM mute_rules WHERE kind != 'feed' LIMIT 1").fetchone()
    for name, sql in MUTE_TRIGGERS.items():
        conn.execute(sql if ruled else f"DROP TRIGGER IF EXISTS {name}")


# A migration is an SQL script, or a function given the connection (inside the migration's
# transaction) when what it does depends on what the store holds.
Migration = str | Callable[[sqlite3.Connection], None]

MIGRATIONS: tuple[Migration, ...] = (
    # 1: the first schema
    """
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE entries (
        id          TEXT PRIMARY KEY,
        title       TEXT NOT NULL,
        title_given INTEGER NOT NULL DEFAULT 1,
        summary     TEXT NOT NULL,
        comment     TEXT NOT NULL DEFAULT '',
        source      TEXT NOT NULL DEFAULT '',
        category    TEXT NOT NULL DEFAULT '',
        date        TEXT,
        url         TEXT,
        lang        TEXT NOT NULL,
        format      TEXT NOT NULL,
        origin_file TEXT NOT NULL,
        origin_line INTEGER NOT NULL,
        extra       TEXT NOT NULL DEFAULT '{}',
        imported_at REAL NOT NULL
    );
    CREATE INDEX entries_date ON entries(date);
    CREATE TABLE bookmarks (
        entry_id   TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        created_at REAL NOT NULL,
        note       TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE read_state (
        entry_id TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        read_at  REAL NOT NULL
    );
    CREATE TABLE topics (
        id         INTEGER PRIMARY KEY,
        name       TEXT NOT NULL,
        user_named INTEGER NOT NULL DEFAULT 0,
        anchor     TEXT,
        keywords   TEXT NOT NULL DEFAULT '[]',
        size       INTEGER NOT NULL DEFAULT 0,
        updated_at REAL NOT NULL
    );
    CREATE TABLE topic_assignments (
        entry_id TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
        score    REAL NOT NULL DEFAULT 0,
        terms    TEXT NOT NULL DEFAULT '[]'
    );
    CREATE INDEX topic_assignments_topic ON topic_assignments(topic_id);
    CREATE TABLE similar (
        entry_id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
        other_id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
        rank     INTEGER NOT NULL,
        score    REAL NOT NULL,
        PRIMARY KEY (entry_id, rank)
    );
    CREATE TABLE token_cache (
        entry_id          TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        content_hash      TEXT NOT NULL,
        tokenizer_version TEXT NOT NULL,
        tokens            BLOB NOT NULL
    );
    """,
    # 2: the fitted topic model, so entries imported later join their nearest topic
    """
    CREATE TABLE topic_model (
        id         INTEGER PRIMARY KEY CHECK (id = 1),
        version    TEXT NOT NULL,
        created_at REAL NOT NULL,
        model      BLOB NOT NULL
    );
    """,
    # 3: covering indexes for the reader's entry list (Store.topic_rows): a topic's rows
    # come from two index-only searches, not a table row per entry (a topic of 6,395 of
    # 100,000 entries: ~55 ms -> ~25 ms warm). The new assignments index starts with
    # topic_id, so it replaces the old one.
    """
    CREATE INDEX topic_assignments_topic_entry ON topic_assignments(topic_id, entry_id);
    DROP INDEX topic_assignments_topic;
    CREATE INDEX entries_row ON entries(id, date, title, source);
    """,
    # 4: cached tokens as ids into one table of token strings: a re-cluster of 100,000
    # entries reads 24 million ids as arrays instead of making 24 million strings. The
    # cached rows of the old format (strings) are dropped: they are made again once.
    """
    CREATE TABLE token_vocab (
        id    INTEGER PRIMARY KEY,
        token TEXT NOT NULL UNIQUE
    );
    DELETE FROM token_cache;
    """,
    # 5: each entry's similar entries live in its assignment row, as JSON [[id, score],
    # ...] best first: a re-cluster of 100,000 entries writes 100,000 rows, not 600,000,
    # and the reader finds them with the assignment's key
    """
    ALTER TABLE topic_assignments ADD COLUMN similar TEXT NOT NULL DEFAULT '[]';
    UPDATE topic_assignments SET similar = (
        SELECT json_group_array(json_array(other_id, score)) FROM (
            SELECT other_id, score FROM similar s
            WHERE s.entry_id = topic_assignments.entry_id ORDER BY rank
        )
    ) WHERE entry_id IN (SELECT entry_id FROM similar);
    DROP TABLE similar;
    """,
    # 6: each topic's entry list as the reader shows it (newest first, undated last),
    # stored in that order: a topic of 10,000 entries is one range read instead of a
    # join and a sort. Rewritten with the assignments, in the same transaction.
    """
    CREATE TABLE topic_list (
        topic_id    INTEGER NOT NULL,
        undated     INTEGER NOT NULL,
        date        TEXT NOT NULL,
        entry_rowid INTEGER NOT NULL,
        entry_id    TEXT NOT NULL,
        title       TEXT NOT NULL,
        source      TEXT NOT NULL,
        PRIMARY KEY (topic_id, undated, date DESC, entry_rowid)
    ) WITHOUT ROWID;
    CREATE INDEX topic_list_entry ON topic_list(entry_id);
    """
    + TOPIC_LIST_FILL
    + ";",
    # 7: how much a topic's entries share (measured by the clustering; NULL: clustered
    # before it was measured) and whether it is a mixed bag; "also" memberships: an entry
    # listed under other topics it centrally discusses besides its primary one. Each
    # topic's also rows are kept in reading order in topic_also_list, as topic_list keeps
    # the primary ones; triggers keep that list in step with topic_also on every path
    # (a write, a cascade from a deleted topic or entry), so it can never go stale.
    """
    ALTER TABLE topics ADD COLUMN cohesion REAL;
    ALTER TABLE topics ADD COLUMN mixed INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE topic_also (
        entry_id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
        topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
        score    REAL NOT NULL,
        PRIMARY KEY (entry_id, topic_id)
    );
    CREATE INDEX topic_also_topic ON topic_also(topic_id);
    CREATE TABLE topic_also_list (
        topic_id    INTEGER NOT NULL,
        undated     INTEGER NOT NULL,
        date        TEXT NOT NULL,
        entry_rowid INTEGER NOT NULL,
        entry_id    TEXT NOT NULL,
        title       TEXT NOT NULL,
        source      TEXT NOT NULL,
        PRIMARY KEY (topic_id, undated, date DESC, entry_rowid)
    ) WITHOUT ROWID;
    CREATE INDEX topic_also_list_entry ON topic_also_list(entry_id);
    CREATE TRIGGER topic_also_listed AFTER INSERT ON topic_also BEGIN
        INSERT INTO topic_also_list(topic_id, undated, date, entry_rowid, entry_id, title, source)
        SELECT new.topic_id, e.date IS NULL, coalesce(e.date, ''), e.rowid, e.id, e.title,
               e.source
        FROM entries e WHERE e.id = new.entry_id;
    END;
    CREATE TRIGGER topic_also_unlisted AFTER DELETE ON topic_also BEGIN
        DELETE FROM topic_also_list
        WHERE entry_id = old.entry_id AND topic_id = old.topic_id;
    END;
    """,
    # 8: notes live apart from the bookmark flag, so removing a bookmark never takes the
    # text the user wrote with it; every note a bookmark held moves over, with its time.
    """
    CREATE TABLE notes (
        entry_id  TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        note      TEXT NOT NULL,
        noted_at  REAL NOT NULL
    );
    INSERT INTO notes(entry_id, note, noted_at)
    SELECT entry_id, note, created_at FROM bookmarks WHERE note != '';
    ALTER TABLE bookmarks DROP COLUMN note;
    """
    # ... and derived titles were cut to 56 cells at import: the store asks for them to be
    # derived again, whole, from their summaries (store/titles.py, when the store opens)
    + "INSERT OR REPLACE INTO meta(key, value) VALUES ('titles.rederive', '1');",
    # 9: the reader's corrections, as data a re-cluster reads (store/corrections.py):
    # topics the user shaped (merged, split, made from terms, hidden) with the entries
    # they hold, entries pinned to a topic, and the log that undo walks back
    """
    CREATE TABLE topic_corrections (
        topic_id INTEGER PRIMARY KEY,
        origin   TEXT NOT NULL,
        name     TEXT,
        label    TEXT NOT NULL DEFAULT '',
        terms    TEXT NOT NULL DEFAULT '[]',
        entries  TEXT NOT NULL DEFAULT '[]',
        keywords TEXT NOT NULL DEFAULT '[]',
        hidden   INTEGER NOT NULL DEFAULT 0,
        made_at  REAL NOT NULL
    );
    CREATE TABLE entry_pins (
        entry_id  TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        topic_id  INTEGER NOT NULL,
        pinned_at REAL NOT NULL
    );
    CREATE INDEX entry_pins_topic ON entry_pins(topic_id);
    CREATE TABLE correction_log (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        made_at    REAL NOT NULL,
        message    TEXT NOT NULL,
        topic_id   INTEGER,
        generation INTEGER NOT NULL,
        before     TEXT NOT NULL
    );
    """,
    # 10: daily use. A trash: each deleted entry's rows as JSON (store/deleting.py), so a
    # deletion can be undone after a restart. The topic a bookmark was made from. The
    # marks of "mark everything read", so undo can take one back. Saved searches and mute
    # rules (store/saved.py, store/mute.py); the entries a words or source rule mutes are
    # kept in muted_entries by triggers, on every path an entry is written by.
    """
    CREATE TABLE trash (
        id         INTEGER PRIMARY KEY,
        entry_id   TEXT NOT NULL,
        title      TEXT NOT NULL,
        deleted_at REAL NOT NULL,
        rows       TEXT NOT NULL
    );
    CREATE INDEX trash_entry ON trash(entry_id);
    ALTER TABLE bookmarks ADD COLUMN topic_id INTEGER;
    CREATE TABLE read_marks (
        id      INTEGER PRIMARY KEY,
        made_at REAL NOT NULL,
        entries TEXT NOT NULL
    );
    CREATE TABLE saved_searches (
        name       TEXT PRIMARY KEY,
        query      TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE TABLE mute_rules (
        id         INTEGER PRIMARY KEY,
        kind       TEXT NOT NULL CHECK (kind IN ('words', 'source', 'feed')),
        value      TEXT NOT NULL,
        match      TEXT NOT NULL,
        created_at REAL NOT NULL,
        UNIQUE (kind, match)
    );
    CREATE TABLE muted_entries (
        entry_id TEXT NOT NULL,
        rule_id  INTEGER NOT NULL REFERENCES mute_rules(id) ON DELETE CASCADE,
        PRIMARY KEY (entry_id, rule_id)
    ) WITHOUT ROWID;
    CREATE INDEX muted_entries_rule ON muted_entries(rule_id);
    CREATE TRIGGER entries_muted AFTER INSERT ON entries BEGIN
        INSERT OR IGNORE INTO muted_entries(entry_id, rule_id)
        SELECT new.id, r.id FROM mute_rules r WHERE """
    + mute_match("new")
    + """;
    END;
    CREATE TRIGGER entries_muted_again AFTER UPDATE OF title, summary, source ON entries
    BEGIN
        DELETE FROM muted_entries WHERE entry_id = old.id;
        INSERT OR IGNORE INTO muted_entries(entry_id, rule_id)
        SELECT new.id, r.id FROM mute_rules r WHERE """
    + mute_match("new")
    + """;
    END;
    CREATE TRIGGER entries_unmuted AFTER DELETE ON entries BEGIN
        DELETE FROM muted_entries WHERE entry_id = old.id;
    END;
    """,
    # 11: feeds (store/feeds.py). A feed's row outlives its subscription (removed_at), so
    # its entries keep their feed and adding the URL again finds them; no feed row is ever
    # deleted and ids are never reused. A feed entry is known by its key inside its feed
    # (the partial unique index), and its whole content lives in entry_content, so the
    # rows every list reads stay small (store/content.py says what it holds and why).
    """
    CREATE TABLE feeds (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        url           TEXT NOT NULL,
        title         TEXT NOT NULL DEFAULT '',
        name          TEXT,
        folder        TEXT NOT NULL DEFAULT '',
        site_url      TEXT,
        etag          TEXT,
        last_modified TEXT,
        status        TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'error', 'gone')),
        error         TEXT,
        last_checked  REAL,
        last_ok       REAL,
        failures      INTEGER NOT NULL DEFAULT 0,
        retry_until   REAL,
        added_at      REAL NOT NULL,
        removed_at    REAL
    );
    CREATE UNIQUE INDEX feeds_subscribed_url ON feeds(url) WHERE removed_at IS NULL;
    ALTER TABLE entries ADD COLUMN feed_id INTEGER;
    ALTER TABLE entries ADD COLUMN feed_key TEXT;
    ALTER TABLE entries ADD COLUMN author TEXT NOT NULL DEFAULT '';
    ALTER TABLE entries ADD COLUMN published TEXT;
    ALTER TABLE entries ADD COLUMN date_first_seen INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE entries ADD COLUMN content_start TEXT NOT NULL DEFAULT '';
    CREATE UNIQUE INDEX entries_feed_key ON entries(feed_id, feed_key)
        WHERE feed_id IS NOT NULL;
    CREATE TABLE entry_content (
        entry_id TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        text     TEXT NOT NULL,
        html     BLOB,
        hash     TEXT NOT NULL
    );
    """,
    # 12: the mute triggers only while a words or source rule exists (store/mute.py keeps
    # them so from now on): a store with no rule drops them
    sync_mute_triggers,
    # 13: the token cache's ids as 16-bit words, half their size (compact_token_cache)
    compact_token_cache,
    # 14: no covering index of the entries' list columns: the topic lists carry them now, and
    # at 1,000,000 entries it took 111 MiB (store/topics.py fills the lists without it)
    "DROP INDEX IF EXISTS entries_row;",
    # 15: each topic's count of its also rows, kept by triggers (store/also_counts.py)
    count_also_rows,
    # 16: each entry's similar entries packed, 12 bytes each where JSON took about 30
    # (store/similar_rows.py)
    pack_similar_column,
    # 17: the token cache's rows name their tokenizer version by a number (token_versions)
    number_token_versions,
    # 18: each entry names the file it came from by a number (origin_files, store/origins.py)
    number_origin_files,
    # 19: the assignments keyed by their entry id without a rowid (store/keyed_assignments.py)
    KEY_ASSIGNMENTS_BY_ENTRY,
)
