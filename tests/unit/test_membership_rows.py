"""Each row's largest value and sum in some columns, read off the values in those columns
(:func:`row_max`, :func:`row_sum`): what picking the columns out of the matrix and asking
scipy gives, bit for bit, with rows that hold every column, none, negative values, and
columns asked for twice; and the "also" topics read from every topic's columns picked
out at once, as those read from the whole matrices topic by topic."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from topiclens.clustering import membership
from topiclens.clustering.membership import also_topics, row_max, row_sum


def _matrix(rng: np.random.Generator, negative: bool) -> sp.csr_matrix:
    n, width = int(rng.integers(1, 60)), int(rng.integers(1, 40))
    m = sp.random(n, width, density=rng.uniform(0, 0.6), format="csr", dtype=np.float32, rng=rng)
    if negative:
        m.data -= np.float32(0.5)
    m.data = np.round(m.data * 8) / 8  # (ties)
    m.data[m.data == 0] = np.float32(0.25)  # (no stored zero)
    dense = m.toarray()
    dense[0, :] = np.float32(0.75)  # a row holding every column
    return sp.csr_matrix(dense)


@pytest.mark.parametrize("seed", range(30))
def test_row_max_and_sum_are_scipys(seed: int):
    rng = np.random.default_rng(seed)
    m = _matrix(rng, negative=seed % 2 == 1)
    width = m.shape[1]
    for cols in (
        [int(rng.integers(width))],
        sorted(rng.choice(width, size=int(rng.integers(1, width + 1)), replace=False).tolist()),
        list(range(width)),
        [width - 1, 0, width - 1],  # (out of order, one twice)
    ):
        theirs = np.asarray(m[:, cols].max(axis=1).todense()).ravel()
        ours = row_max(m, cols)
        assert ours.dtype == theirs.dtype
        assert np.array_equal(ours, theirs)
        counts = m.copy()
        counts.data = np.ceil(np.abs(counts.data) * 4)  # (counts: whole numbers)
        assert np.array_equal(
            row_sum(counts, cols), np.asarray(counts[:, cols].sum(axis=1)).ravel()
        )


def test_also_topics_are_those_read_topic_by_topic(monkeypatch: pytest.MonkeyPatch):
    rng = np.random.default_rng(5)
    n, vocab = 200, [f"t{j}" for j in range(30)] + [f"\x02b{j}" for j in range(10)]
    counts = sp.random(n, len(vocab), density=0.3, format="csr", dtype=np.float32, rng=rng)
    counts.data = np.ceil(counts.data * 3)
    tfidf = counts.copy()
    tfidf.data = (tfidf.data * rng.uniform(0.1, 1.0, size=tfidf.nnz)).astype(np.float32)
    topic_terms = [["t1", "t2", "t3"], [], ["t4", "t5"], ["t6", "nowhere"], ["t7", "t8", "t9"]]
    labels = rng.integers(0, len(topic_terms), size=n)
    bars = [0.5, 0.5, 0.6, 0.5, 0.55]
    ours = also_topics(tfidf, counts, vocab, topic_terms, labels, bars)

    def as_it_was(tfidf, counts, vocab_tokens, topic_terms):  # type: ignore[no-untyped-def]
        # each topic's columns picked out of the whole matrices by scipy
        index = {t: j for j, t in enumerate(vocab_tokens)}
        words = [j for j, t in enumerate(vocab_tokens) if not t.startswith("\x02")]
        top = np.asarray(tfidf[:, words].max(axis=1).todense()).ravel()
        out = {}
        for c, terms in enumerate(topic_terms):
            cols = [index[t] for t in terms if t in index]
            if cols:
                best = np.asarray(tfidf[:, cols].max(axis=1).todense()).ravel()
                uses = np.asarray(counts[:, cols].sum(axis=1)).ravel()
                out[c] = np.where(uses >= 2, best / np.maximum(top, 1e-12), 0.0)
        return out

    monkeypatch.setattr(membership, "_shares", as_it_was)
    assert ours == also_topics(tfidf, counts, vocab, topic_terms, labels, bars)
    assert sum(map(len, ours)) > 20  # (many entries listed elsewhere)
