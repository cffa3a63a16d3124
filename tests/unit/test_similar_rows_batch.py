"""A batch of placed entries' similar entries packed at once (:func:`stored_rows`): each
row the column value :func:`stored` makes of its list, byte for byte, the rows it keeps
as JSON (an id that is not 16 lowercase hex digits, a cosine finer than a millionth, no
neighbour) included."""

from __future__ import annotations

import numpy as np
from topiclens.store.similar_rows import EMPTY, read, stored, stored_rows


def test_each_row_is_what_stored_makes_of_its_list():
    rng = np.random.default_rng(11)
    pool = [f"{int(x):016x}" for x in rng.integers(0, 2**63, size=40)]
    pool[3] = "ABCDEF0123456789"  # (capitals: kept as JSON)
    pool[7] = "not-an-entry-id"
    n, k = 300, 5
    near = np.stack([rng.choice(len(pool), size=k, replace=False) for _ in range(n)])
    cosines = np.round(rng.uniform(-1, 1, size=(n, k)).astype(np.float32).astype(np.float64), 6)
    cosines[5, 2] = 0.1234567  # (finer than a millionth)
    near[9, 3:] = -1  # (fewer neighbours than asked)
    near[10, :] = -1
    got = stored_rows(pool.__getitem__, near, cosines)
    want = [
        stored([(pool[j], c) for j, c in zip(r, cs, strict=True) if j >= 0])
        for r, cs in zip(near.tolist(), cosines.tolist(), strict=True)
    ]
    assert got == want
    assert isinstance(got[5], str) and got[10] == EMPTY
    packed = [i for i, v in enumerate(got) if isinstance(v, bytes)]
    assert len(packed) > n // 4 and any(isinstance(v, str) for v in got[11:])
    i = packed[0]
    assert read(got[i]) == list(zip([pool[j] for j in near[i]], cosines[i].tolist(), strict=True))
    assert stored_rows(pool.__getitem__, near[:0], cosines[:0]) == []
    assert stored_rows(pool.__getitem__, near[:, :0], cosines[:, :0]) == [EMPTY] * n
