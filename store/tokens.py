"""The token cache: each entry's tokens as ids into one table of token strings, so a
re-cluster reads arrays of ids instead of making millions of strings."""

from __future__ import annotations

import sqlite3
from array import array
from collections.abc import Iterator, Sequence
from itertools import chain, repeat

from .connection import Database
from .errors import StoreError
from .token_ids import WIDE, pack, unpack

# (entry id, content hash, tokenizer version, tokens), as the clustering caches them
TokenRow = tuple[str, str, str, Sequence[str]]


class TokenCache:
    """The cached tokens of one store, and ``token_vocab`` as read so far: ids are dense
    from 0 and given out in write transactions, so two processes never give one id to two
    tokens."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._tokens: list[str] = []
        self._token_ids: dict[str, int] = {}

    def iter_cached(
        self, version: str, batch: int = 5000, ids: Sequence[str] | None = None
    ) -> Iterator[tuple[str, str, bytes]]:
        """(entry id, content hash, token ids) of every cached row of tokenizer
        ``version`` (or only of the entries ``ids``, looked up by id, in no set order), a
        batch at a time, so a large cache never sits in memory whole. The ids are native
        unsigned 32-bit integers (``array("I")``, numpy ``uint32``) into :meth:`vocab`; the
        store keeps them as 16-bit words (:mod:`.token_ids`)."""
        if ids is not None:
            yield from self._cached_of(version, ids)
            return
        last = 0
        while True:
            rows = self._db.query(
                "SELECT rowid, entry_id, content_hash, tokens FROM token_cache WHERE version_id = "
                "(SELECT id FROM token_versions WHERE version = ?) AND rowid > ? "
                "ORDER BY rowid LIMIT ?",
                (version, last, batch),
            )
            if not rows:
                return
            for (_, eid, digest, _), ids in zip(rows, unpack([r[3] for r in rows]), strict=True):
                yield eid, digest, ids
            last = rows[-1][0]

    def _cached_of(self, version: str, ids: Sequence[str]) -> Iterator[tuple[str, str, bytes]]:
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            rows = self._db.query(
                "SELECT entry_id, content_hash, tokens FROM token_cache WHERE version_id = "
                "(SELECT id FROM token_versions WHERE version = ?) AND "
                f"entry_id IN ({','.join('?' * len(chunk))})",
                (version, *chunk),
            )
            for (eid, digest, _), tids in zip(rows, unpack([r[2] for r in rows]), strict=True):
                yield eid, digest, tids

    def vocab(self) -> list[str]:
        """Every token string any cached row uses, indexed by its id (the list grows)."""
        return self._db.read(self._read)

    def _read(self, conn: sqlite3.Connection) -> list[str]:
        rows = conn.execute(
            "SELECT id, token FROM token_vocab WHERE id >= ? ORDER BY id", (len(self._tokens),)
        ).fetchall()
        for tid, token in rows:
            if tid != len(self._tokens):
                raise StoreError(f"{self._db.path}: the token table has a gap at id {tid}")
            self._token_ids[token] = tid
            self._tokens.append(token)
        return self._tokens

    def put(self, rows: Sequence[TokenRow]) -> list[bytes]:
        """Cache rows; returns each row's token ids as the clustering reads them (native
        unsigned 32-bit integers; the store keeps them as 16-bit words). Tokens new to the
        store get the next ids in the same transaction."""
        if array("I").itemsize != 4:  # pragma: no cover - no such platform in use
            raise StoreError("token ids need 4-byte unsigned integers")
        import numpy as np

        blobs: list[bytes] = []
        fresh: list[tuple[int, str]] = []
        try:
            with self._db.write() as conn:
                self._read(conn)  # ids others gave out since
                index, tokens = self._token_ids, self._tokens
                versions = _version_ids(conn, {version for _, _, version, _ in rows})
                # every row's tokens looked up at once, as one array (the ids, the blobs
                # and the stored words then cut from it), not a list and two arrays a row
                flat = list(chain.from_iterable(toks for _, _, _, toks in rows))
                ids = np.fromiter(map(index.get, flat, repeat(-1)), np.int64, len(flat))
                for i in np.flatnonzero(ids < 0).tolist():  # (new tokens, in order)
                    t = flat[i]
                    tid = index.get(t)
                    if tid is None:
                        tid = index[t] = len(tokens)
                        tokens.append(t)
                        fresh.append((tid, t))
                    ids[i] = tid
                ends = np.cumsum([len(toks) for _, _, _, toks in rows], dtype=np.int64).tolist()
                wide = ids.astype(np.uint32).tobytes()
                # (a row holding an id from WIDE up is packed alone)
                narrow = (
                    ids.astype(np.uint16).tobytes() if not len(ids) or ids.max() < WIDE else None
                )
                out = []
                starts = [0, *ends[:-1]]
                for (eid, digest, version, _), lo, hi in zip(rows, starts, ends, strict=True):
                    blobs.append(wide[4 * lo : 4 * hi])
                    words = (
                        narrow[2 * lo : 2 * hi] if narrow is not None else pack(ids[lo:hi].tolist())
                    )
                    out.append((eid, digest, versions[version], words))
                conn.executemany("INSERT INTO token_vocab(id, token) VALUES (?, ?)", fresh)
                conn.executemany(
                    "INSERT OR REPLACE INTO token_cache"
                    "(entry_id, content_hash, version_id, tokens) VALUES (?,?,?,?)",
                    out,
                )
        except BaseException:
            # rolled back: forget the ids given out here; they are read again next time
            with self._db.lock:
                for _, t in fresh:
                    del self._token_ids[t]
                del self._tokens[len(self._tokens) - len(fresh) :]
            raise
        return blobs


def _version_ids(conn: sqlite3.Connection, versions: set[str]) -> dict[str, int]:
    """The number each tokenizer version is stored as (``token_versions``), a version new
    to the store numbered in the caller's transaction."""
    conn.executemany(
        "INSERT OR IGNORE INTO token_versions(version) VALUES (?)", [(v,) for v in versions]
    )
    return {
        v: conn.execute("SELECT id FROM token_versions WHERE version = ?", (v,)).fetchone()[0]
        for v in versions
    }
