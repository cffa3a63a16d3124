"""The migration that keys ``topic_assignments`` by its entry id, without a rowid: the
table is then its own index of entry ids, where a rowid table kept a separate one (24 MiB
at 1,000,000 entries). Its columns, their order and its index on (topic, entry) stay."""

KEY_ASSIGNMENTS_BY_ENTRY = """
    CREATE TABLE topic_assignments_keyed (
        entry_id TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
        score    REAL NOT NULL DEFAULT 0,
        terms    TEXT NOT NULL DEFAULT '[]',
        similar  TEXT NOT NULL DEFAULT '[]'
    ) WITHOUT ROWID;
    INSERT INTO topic_assignments_keyed(entry_id, topic_id, score, terms, similar)
    SELECT entry_id, topic_id, score, terms, similar FROM topic_assignments ORDER BY entry_id;
    DROP TABLE topic_assignments;
    ALTER TABLE topic_assignments_keyed RENAME TO topic_assignments;
    CREATE INDEX topic_assignments_topic_entry ON topic_assignments(topic_id, entry_id);
"""
