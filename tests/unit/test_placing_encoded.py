"""Placing with bigram features as the parse workers hand them over (encoded, never
decoded): counted straight into the fitted vocabulary, they give every entry the place,
score, terms, similar entries and vector that the same features as strings give."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from topiclens.clustering.features import TokenCounts, encoded_counts, raw_counts
from topiclens.clustering.saved import read_saved
from topiclens.clustering.token_cache import decode, encode
from topiclens.clustering.tokenize import default_tokenizer
from topiclens.store import Store

TEXTS = [
    "Paged attention keeps the KV cache in fixed-size blocks, and prefix caching reuses them.",
    "投机解码用小模型起草多个词元，再由目标模型一次验证，降低解码延迟。",
    "KV 缓存量化到 FP8 后，调度器可以容纳两倍的序列。",
    "专家并行把 MoE 层的专家分到多张 GPU 上，全对全通信是瓶颈。",
    "NCCL all-reduce over NVLink and InfiniBand for tensor parallel training.",
    "",
    "分页注意力：KV 缓存按块管理，前缀缓存复用相同的提示。",
]


def test_encoded_counts_are_the_counts_of_the_decoded_tokens():
    rng = random.Random(3)
    # (bigram features, a 4-byte character, the empty token, a NUL inside, long words)
    words = ["\x02缓存", "\x02注意", "kv", "cache", "\x02解码", "", "\x02专家", "gpu", "\x02𠀀中"]
    words += ["a\x00", "a", "speculative decoding"]
    columns_of = ["gpu", "\x02解码", "kv", "\x02缓存", "nowhere", "\x02𠀀中", "a\x00", ""]
    columns_of += ["speculative decoding"]  # (some tokens in no column)
    columns = {t.encode(): j for j, t in enumerate(columns_of)}
    for _ in range(50):
        docs = [[rng.choice(words) for _ in range(rng.randint(0, 6))] for _ in range(8)]
        got = encoded_counts([encode(d) for d in docs], columns, len(columns_of))
        want = np.zeros((len(docs), len(columns_of)), dtype=np.float32)
        for i, doc in enumerate(docs):
            for t in decode(encode(doc)):  # (a doc of one empty token encodes as none)
                if t.encode() in columns:
                    want[i, columns[t.encode()]] += 1
        assert got.shape == want.shape and np.array_equal(got.toarray(), want)
    assert encoded_counts([b"", b""], columns, 5).nnz == 0


def test_encoded_bigrams_place_as_bigrams_given_as_strings_and_as_made_from_the_texts(
    clustered_home: Path,
):
    with Store.open_dir(clustered_home) as store:
        _, blob = store.topic_model()
    saved = read_saved(blob, placing_only=True)
    assert saved is not None and saved.model.bigrams_
    tokenizer = default_tokenizer()
    made = [tokenizer.tokens_and_bigrams(t) for t in TEXTS]
    assert sum(len(b) for _, b in made) > 50  # (texts with Chinese: many bigram features)

    def counts() -> TokenCounts:
        return TokenCounts(*raw_counts([t for t, _ in made]))

    lists = [b for _, b in made]
    encoded: list[bytes | None] = [encode(b) for b in lists]
    encoded[0] = None  # (one made from its text)
    ways = [
        saved.model.place(TEXTS, tokens=[t for t, _ in made]),  # (strings throughout)
        saved.model.place(TEXTS, tokens=counts()),
        saved.model.place(TEXTS, tokens=counts(), bigrams=lists),
        saved.model.place(TEXTS, tokens=counts(), bigrams=encoded),
    ]
    first = ways[0]
    for other in ways[1:]:
        assert np.array_equal(first.labels, other.labels)
        assert first.scores == other.scores
        assert first.terms == other.terms
        assert first.similar == other.similar
        assert first.also == other.also
        assert np.array_equal(first.vectors.view(np.uint32), other.vectors.view(np.uint32))
    # the arrays a batch packs its similar entries from list what ``similar`` lists
    assert first.near is not None
    for i, listed in enumerate(first.similar):
        index, cosines = first.near[0][i].tolist(), first.near[1][i].tolist()
        assert listed == [(j, c) for j, c in zip(index, cosines, strict=True) if j >= 0]
    # the model read again (a re-cluster saved another): its own vocabulary's columns
    again = read_saved(blob, placing_only=True)
    assert again is not None
    placed = again.model.place(TEXTS, tokens=counts(), bigrams=encoded)
    assert np.array_equal(placed.vectors.view(np.uint32), first.vectors.view(np.uint32))


def test_a_batch_with_its_tokens_and_bigrams_made_places_without_a_tokenizer(
    bundled_home: Path, monkeypatch: pytest.MonkeyPatch
):
    # a refresh's entries come with both made by the parse workers: the process that
    # places them never builds a tokenizer (compiling its patterns costs about 0.1 s)
    from topiclens.clustering import placing, token_cache
    from topiclens.clustering.pipeline import assign_new
    from topiclens.clustering.saved import SavedModels
    from topiclens.clustering.tokenize import tokenizer_version
    from topiclens.store import Entry

    tokenizer = default_tokenizer()
    with Store.open_dir(bundled_home) as store:
        new = [
            Entry(id=f"nomake{i:010d}", title=t, summary="", source="test", date="2026-01-01")
            for i, t in enumerate(TEXTS[:5])
        ]
        store.add_entries(new)
        texts = store.entry_texts([e.id for e in new])
        rows = [(eid, "", tokenizer_version(), tokenizer(text)) for eid, text in texts]
        tokens = {row[0]: blob for row, blob in zip(rows, store.put_tokens(rows), strict=True)}
        bigrams = {eid: encode(tokenizer.bigrams(text)) for eid, text in texts}

        def refused() -> None:
            raise AssertionError("a tokenizer was made")

        monkeypatch.setattr(placing, "default_tokenizer", refused)
        monkeypatch.setattr(token_cache, "default_tokenizer", refused)
        ids = [e.id for e in new]
        assert assign_new(store, ids, SavedModels(), bigrams, tokens) == len(ids)
        assert all(store.assignment(eid) is not None for eid in ids)
