"""How the token cache stores an entry's token ids: 16-bit words, half the size of 32-bit
ids, since the ids are dense from 0 and a store's tokens rarely number 65,535.

An id from ``WIDE`` up is the word ``WIDE`` followed by its low and its high 15 bits, so
``WIDE`` is never part of an id and a batch of rows decodes in a few array operations.
Words are in the machine's byte order, as the 32-bit ids the clustering reads are."""

from __future__ import annotations

import sqlite3
from array import array
from collections.abc import Sequence
from itertools import pairwise

WIDE = 0xFFFF
LIMIT = 1 << 30  # ids below it fit two 15-bit halves


def pack(ids: Sequence[int]) -> bytes:
    """Token ids (each below :data:`LIMIT`) as stored."""
    if not ids or max(ids) < WIDE:
        return array("H", ids).tobytes()
    words = array("H")
    for i in ids:
        if i < WIDE:
            words.append(i)
        elif i < LIMIT:
            words.extend((WIDE, i & 0x7FFF, i >> 15))
        else:
            raise ValueError(f"token id {i} is too large to store")
    return words.tobytes()


def unpack(blobs: Sequence[bytes]) -> list[bytes]:
    """Stored rows back as token ids, each row native unsigned 32-bit integers (numpy
    ``uint32``), all rows of a batch decoded at once."""
    import numpy as np

    words = np.frombuffer(b"".join(blobs), dtype=np.uint16)
    counts = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs)) // 2
    wide = words == WIDE
    if wide.any():
        at = np.flatnonzero(wide)
        ids = words.astype(np.uint32)
        ids[at] = ids[at + 1] | (ids[at + 2] << 15)
        keep = np.ones(len(words), dtype=bool)
        keep[at + 1] = keep[at + 2] = False
        ids = ids[keep]
        # each wide id takes three words and gives one id
        seen = np.concatenate(([0], np.cumsum(wide, dtype=np.int64)))
        ends = np.concatenate(([0], np.cumsum(counts)))
        counts = counts - 2 * np.diff(seen[ends])
    else:
        ids = words.astype(np.uint32)
    raw = ids.tobytes()
    offsets = (np.concatenate(([0], np.cumsum(counts))) * 4).tolist()
    return [raw[lo:hi] for lo, hi in pairwise(offsets)]


def from_wide(blob: bytes) -> bytes:
    """A row of 32-bit ids (the cache's earlier format) as stored now."""
    return pack(array("I", blob))


def compact_token_cache(conn: sqlite3.Connection) -> None:
    """Rewrite the token cache's 32-bit ids as 16-bit words (:func:`pack`) in a new
    table, so its rows lie packed (rewritten in place, each would leave half its page
    empty); ``topiclens compact`` gives the old table's pages back to the disk."""
    conn.create_function("token_ids_16", 1, from_wide, deterministic=True)
    for statement in (
        """CREATE TABLE token_cache_16 (
        entry_id          TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        content_hash      TEXT NOT NULL,
        tokenizer_version TEXT NOT NULL,
        tokens            BLOB NOT NULL
    )""",
        # a row not of whole 32-bit ids is damaged: left out, tokenized again when needed
        "INSERT INTO token_cache_16(rowid, entry_id, content_hash, tokenizer_version, tokens) "
        "SELECT rowid, entry_id, content_hash, tokenizer_version, token_ids_16(tokens) "
        "FROM token_cache WHERE length(tokens) % 4 = 0 ORDER BY rowid",
        "DROP TABLE token_cache",
        "ALTER TABLE token_cache_16 RENAME TO token_cache",
    ):
        conn.execute(statement)


def number_token_versions(conn: sqlite3.Connection) -> None:
    """The migration: each cached row names its tokenizer version by a small number into
    ``token_versions``, where it repeated the 16-character version (about 17 MiB at
    1,000,000 entries). Rewritten in a new table, as :func:`compact_token_cache` does."""
    for statement in (
        "CREATE TABLE token_versions (id INTEGER PRIMARY KEY, version TEXT NOT NULL UNIQUE)",
        # numbered in the order of their first row
        "INSERT INTO token_versions(version) SELECT tokenizer_version FROM token_cache "
        "GROUP BY tokenizer_version ORDER BY min(rowid)",
        """CREATE TABLE token_cache_v (
        entry_id   TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        content_hash TEXT NOT NULL,
        version_id INTEGER NOT NULL,
        tokens     BLOB NOT NULL
    )""",
        "INSERT INTO token_cache_v(rowid, entry_id, content_hash, version_id, tokens) "
        "SELECT c.rowid, c.entry_id, c.content_hash, v.id, c.tokens FROM token_cache c "
        "JOIN token_versions v ON v.version = c.tokenizer_version ORDER BY c.rowid",
        "DROP TABLE token_cache",
        "ALTER TABLE token_cache_v RENAME TO token_cache",
    ):
        conn.execute(statement)
