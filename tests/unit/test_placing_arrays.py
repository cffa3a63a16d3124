"""Placing with a saved model's arrays alone (no scikit-learn): the rows scaled as
scikit-learn's ``normalize`` scales them, bit for bit, and every new entry placed as the
``TopicModel`` it was saved from places it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import normalize
from topiclens.clustering.features import unit_rows_dense, unit_rows_sparse
from topiclens.clustering.placing import FittedArrays
from topiclens.clustering.saved import read_saved
from topiclens.store import Store


@pytest.mark.parametrize("seed", range(40))
def test_sparse_rows_scaled_as_scikit_learn_scales_them(seed: int):
    rng = np.random.default_rng(seed)
    n, width = int(rng.integers(1, 200)), int(rng.integers(1, 2000))
    m = sp.random(n, width, density=rng.uniform(0, 0.2), format="csr", dtype=np.float32, rng=rng)
    # values over a wide range, as BM25 weights of rare and common terms, and empty rows
    m.data *= np.exp(rng.uniform(-25, 25, size=m.data.shape)).astype(np.float32)
    theirs = normalize(m.copy(), copy=False)
    ours = unit_rows_sparse(m.copy())
    assert np.array_equal(theirs.indptr, ours.indptr)
    assert np.array_equal(theirs.data.view(np.uint32), ours.data.view(np.uint32))


@pytest.mark.parametrize("seed", range(40))
def test_dense_rows_scaled_as_scikit_learn_scales_them(seed: int):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(int(rng.integers(1, 300)), int(rng.integers(1, 200))))
    x = (x * np.exp(rng.uniform(-20, 20))).astype(np.float32)
    x[rng.random(len(x)) < 0.1] = 0.0  # zero rows stay zero
    x[rng.random(len(x)) < 0.05] *= np.float32(1e-30)  # (nearly) zero rows stay as they are
    before = x.copy()
    ours = unit_rows_dense(x)
    assert np.array_equal(x, before)  # a copy, as normalize makes
    assert ours.dtype == np.float32
    assert np.array_equal(normalize(x).view(np.uint32), ours.view(np.uint32))


NEW_TEXTS = [
    "Paged attention keeps the KV cache in fixed-size blocks, and prefix caching reuses them.",
    "A draft model proposes tokens that the target model verifies: speculative decoding.",
    "Expert parallelism spreads the experts of an MoE layer over GPUs; all-to-all is the limit.",
    "FlashAttention tiles attention so softmax stays in shared memory; Triton and CUTLASS.",
    "投机解码用小模型起草多个词元，再由目标模型一次验证，降低解码延迟。",
    "KV 缓存量化到 FP8 后，调度器可以容纳两倍的序列。",
    "NCCL all-reduce over NVLink and InfiniBand for tensor parallel training.",
    "",
]


def test_the_saved_arrays_place_as_the_model_they_were_saved_from(clustered_home: Path):
    with Store.open_dir(clustered_home) as store:
        _, blob = store.topic_model()
    model = read_saved(blob)
    arrays = read_saved(blob, placing_only=True)
    assert model is not None and arrays is not None
    assert isinstance(arrays.model, FittedArrays)
    assert arrays.topic_ids == model.topic_ids and arrays.entry_ids == model.entry_ids
    among = [i % 3 != 1 for i in range(len(model.topic_ids))]
    for how in ({}, {"among": among}):
        theirs = model.model.place(NEW_TEXTS, **how)
        ours = arrays.model.place(NEW_TEXTS, **how)
        assert np.array_equal(theirs.labels, ours.labels)
        assert theirs.scores == ours.scores
        assert theirs.terms == ours.terms
        assert theirs.similar == ours.similar
        assert theirs.also == ours.also
        assert np.array_equal(theirs.vectors, ours.vectors)
    assert len(set(theirs.labels.tolist())) > 2  # (texts of different topics)
