"""How an assignment row keeps its entry's similar entries (``topic_assignments.similar``):
12 bytes each, the entry id's 8 bytes (its 16 hex digits) and then every cosine in
millionths as a little-endian 32-bit integer (the clustering rounds cosines to six
decimals), where JSON ``[[id, cosine], ...]`` took about 30 bytes each.

A list this cannot hold exactly (an id that is not 16 lowercase hex digits, a finer
cosine) is kept as JSON text, which is read as well, as are the rows of stores written
before and the copies in the correction log (:func:`as_json`)."""

from __future__ import annotations

import sqlite3
import struct
from collections.abc import Sequence

import orjson

EMPTY = "[]"  # the column's default: no similar entries
ID_BYTES = 8
ROW_BYTES = ID_BYTES + 4
MICRO = 1e6

Neighbours = list[tuple[str, float]]  # (entry id, cosine), best first


def stored(near: Sequence[tuple[str, float]] | None) -> str | bytes:
    """The column's value for ``near``, best first: (entry id, cosine)."""
    if not near:
        return EMPTY
    ids, scores = zip(*near, strict=True)
    hexes = "".join(ids)
    micro = [round(score * MICRO) for score in scores]
    try:
        raw = bytes.fromhex(hexes)
        cosines = struct.pack(f"<{len(micro)}i", *micro)  # (struct.error: beyond 32 bits)
    except (ValueError, struct.error):
        return _json(near)
    # fromhex also takes capitals and spaces; a cosine finer than a millionth is not exact
    exact = len(raw) == ID_BYTES * len(micro) and raw.hex() == hexes
    if exact and tuple([m / MICRO for m in micro]) == scores:
        return raw + cosines
    return _json(near)


def _json(near: Sequence[tuple[str, float]]) -> str:
    return orjson.dumps([[other, score] for other, score in near]).decode()


def read(value: str | bytes) -> Neighbours:
    """The similar entries a column value holds, best first: (entry id, cosine)."""
    if isinstance(value, str):
        return [(other, score) for other, score in orjson.loads(value)]
    n = len(value) // ROW_BYTES
    ids = value[: ID_BYTES * n].hex()
    micro = struct.unpack_from(f"<{n}i", value, ID_BYTES * n)
    return [(ids[2 * ID_BYTES * k : 2 * ID_BYTES * (k + 1)], micro[k] / MICRO) for k in range(n)]


def as_json(value: str | bytes) -> str:
    """A column value as JSON text (the correction log is JSON); :func:`repacked` turns
    it back into the stored value."""
    return value if isinstance(value, str) else orjson.dumps(read(value)).decode()


def repacked(value: str | bytes) -> str | bytes:
    """A column value (packed or JSON text) as :func:`stored` writes it."""
    return stored(read(value))


def pack_similar_column(conn: sqlite3.Connection) -> None:
    """The migration: every assignment's similar entries packed. Rows shrink in place; the
    next re-cluster (which rewrites them) or ``topiclens compact`` gives the space back."""
    conn.create_function("similar_packed", 1, repacked, deterministic=True)
    conn.execute(
        "UPDATE topic_assignments SET similar = similar_packed(similar) WHERE similar != ?",
        (EMPTY,),
    )
