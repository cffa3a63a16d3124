"""Caching many entries' tokens in one call (a feed's new entries): new tokens get the
next ids in the order they first appear, each row comes back as its 32-bit ids and is
stored as :func:`pack` makes it, rows of no token and rows of ids from ``WIDE`` up too."""

from __future__ import annotations

from array import array
from pathlib import Path

from helpers import DIGEST
from topiclens.store import Store
from topiclens.store.importer import import_file
from topiclens.store.token_ids import WIDE, pack


def _stored(store: Store, eid: str) -> bytes:
    return store.query("SELECT tokens FROM token_cache WHERE entry_id = ?", (eid,))[0][0]


def test_rows_cached_at_once_get_ids_in_order_and_are_stored_packed(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        import_file(store, DIGEST)
        eids = [row[0] for row in store.query("SELECT id FROM entries ORDER BY id")][:6]
        rows = [
            (eids[0], "h", "v1", ["kv", "cache", "kv"]),
            (eids[1], "h", "v1", []),
            (eids[2], "h", "v1", ["moe", "cache", "专家并行"]),
        ]
        blobs = store.put_tokens(rows)
        assert store.token_vocab() == ["kv", "cache", "moe", "专家并行"]
        want = [[0, 1, 0], [], [2, 1, 3]]
        assert [array("I", b).tolist() for b in blobs] == want
        assert [_stored(store, eid) for eid in eids[:3]] == [pack(ids) for ids in want]
        # a row with ids from WIDE up is stored with its wide words, beside rows without
        many = [f"t{i}" for i in range(WIDE + 10)]
        rows = [
            (eids[3], "h", "v1", many),
            (eids[4], "h", "v1", [*many[-1::-4000], "kv"]),
            (eids[5], "h", "v1", ["cache", "moe"]),
        ]
        blobs = store.put_tokens(rows)
        vocab = store.token_vocab()
        assert len(vocab) == 4 + len(many)
        for (eid, _, _, toks), blob in zip(rows, blobs, strict=True):
            ids = array("I", blob).tolist()
            assert [vocab[i] for i in ids] == toks
            assert _stored(store, eid) == pack(ids)
        assert max(array("I", blobs[1])) >= WIDE
