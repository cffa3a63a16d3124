"""Derived titles stored whole: stores whose digest titles were cut to 56 cells when they
were imported get them derived again, once, from the summary they were derived from.

An entry's id never depends on a derived title (digest ids come from the summary and the
comment, ``entry_id("", summary, comment)``), so only the title columns change: the entry's
and the copies the reader's topic lists keep.
"""

from __future__ import annotations

from .connection import Database

# Set by migration 8 on every store created or migrated by it; removed once titles are whole.
REDERIVE_KEY = "titles.rederive"


def rederive_if_asked(db: Database) -> int:
    """Derive every derived title again when the store asks for it (one read otherwise);
    returns how many titles changed."""
    if not db.query("SELECT 1 FROM meta WHERE key = ?", (REDERIVE_KEY,)):
        return 0
    # (imported here: every store opens this module, and only an old one needs the parsers)
    from .parse_text import TITLE_FROM_CHARS
    from .text import derive_title

    rows = db.query("SELECT id, title, summary FROM entries WHERE title_given = 0")
    changed = [
        (title, eid)
        for eid, old, summary in rows
        if (title := derive_title(summary[:TITLE_FROM_CHARS])) != old
    ]
    with db.write() as conn:
        for table in ("entries", "topic_list", "topic_also_list"):
            column = "id" if table == "entries" else "entry_id"
            conn.executemany(f"UPDATE {table} SET title = ? WHERE {column} = ?", changed)
        conn.execute("DELETE FROM meta WHERE key = ?", (REDERIVE_KEY,))
    return len(changed)
