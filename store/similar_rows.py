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
from collections.abc import Callable, Sequence
from typing import Any

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


def stored_rows(id_of: Callable[[int], str], near: Any, cosines: Any) -> list[str | bytes]:
    """:func:`stored` of many lists at once (a batch of placed entries): row ``i`` lists
    the entries ``id_of(near[i, k])`` (-1: none) with cosines ``cosines[i, k]`` (float64,
    rounded to six decimals), best first. Packed as arrays, each row then cut from one
    buffer; a row :func:`stored` would keep as JSON is made by it."""
    import numpy as np

    n, k = near.shape
    out: list[str | bytes] = [EMPTY] * n
    if not n or not k:
        return out
    used = np.unique(near[near >= 0])
    raw = np.zeros((len(used), ID_BYTES), dtype=np.uint8)
    packable = np.zeros(len(used), dtype=bool)
    for at, j in enumerate(used.tolist()):
        eid = id_of(j)
        try:
            b = bytes.fromhex(eid)
        except ValueError:
            continue
        if len(b) == ID_BYTES and b.hex() == eid:
            raw[at] = np.frombuffer(b, dtype=np.uint8)
            packable[at] = True
    micro = np.rint(cosines * MICRO)
    where = np.searchsorted(used, near)
    ok = (near >= 0) & (np.abs(micro) < 2**31) & (micro / MICRO == cosines)
    ok &= packable[np.minimum(where, len(used) - 1)] if len(used) else False
    whole = ok.all(axis=1)
    rows = np.flatnonzero(whole)
    if len(rows):
        ids = raw[where[rows]].reshape(len(rows), ID_BYTES * k)
        scores = micro[rows].astype("<i4").view(np.uint8).reshape(len(rows), 4 * k)
        buf = np.hstack([ids, scores]).tobytes()
        w = ROW_BYTES * k
        for r, i in enumerate(rows.tolist()):
            out[i] = buf[r * w : (r + 1) * w]
    for i in np.flatnonzero(~whole).tolist():
        out[i] = stored(
            [
                (id_of(j), c)
                for j, c in zip(near[i].tolist(), cosines[i].tolist(), strict=True)
                if j >= 0
            ]
        )
    return out


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
