"""Placing new entries batch after batch (a refresh's): the cached tokens of a few entries
looked up by id give what a pass over the whole cache gives, and the saved model is read
again only when the store saved another."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from topiclens.clustering import saved
from topiclens.clustering.pipeline import assign_new, cluster_store
from topiclens.clustering.saved import SavedModels, saved_model
from topiclens.clustering.token_cache import BY_ID_MAX, TokenIds, entry_token_ids
from topiclens.clustering.tokenize import default_tokenizer, tokenizer_version
from topiclens.store import Entry, Store


def test_cached_tokens_of_some_entries_are_those_of_the_whole_cache(bundled_home: Path):
    with Store.open_dir(bundled_home) as store:
        ids = store.entry_ids()
        version = tokenizer_version()
        every = {eid: (digest, blob) for eid, digest, blob in store.iter_cached_tokens(version)}
        assert len(every) == len(ids)
        some = [*ids[::3], "no-such-entry"]
        found = {eid: (d, b) for eid, d, b in store.iter_cached_tokens(version, ids=some)}
        assert found == {eid: every[eid] for eid in ids[::3]}
        assert list(store.iter_cached_tokens("another version", ids=some)) == []
        # entry_token_ids reads a few by id and many in one pass: the same arrays either way
        few, tokenized = entry_token_ids(store, some)
        assert tokenized == 0 and len(few) == len(some)
        whole, _ = entry_token_ids(store, ids)
        at = {eid: i for i, eid in enumerate(ids)}
        for k, eid in enumerate(some[:-1]):
            i = at[eid]
            assert few.ids[few.indptr[k] : few.indptr[k + 1]].tolist() == (
                whole.ids[whole.indptr[i] : whole.indptr[i + 1]].tolist()
            )
        assert few.indptr[-1] == few.indptr[-2]  # the id not stored has no tokens
        assert len(ids) <= BY_ID_MAX  # (the bundled corpus is looked up by id)


def _new_entries(n: int) -> list[Entry]:
    return [
        Entry(
            id=f"batch{i:011d}",
            title=f"Paged attention and the KV cache, part {i}",
            summary="Prefix caching reuses KV blocks across requests that share a prompt.",
            source="test",
            date="2026-01-01",
        )
        for i in range(n)
    ]


def test_batches_place_with_one_read_of_the_model_until_it_changes(bundled_home: Path, monkeypatch):
    reads: list[bytes] = []
    read = saved.read_saved

    def counted(blob: bytes, **how: bool) -> saved.Saved | None:
        reads.append(blob)
        return read(blob, **how)

    monkeypatch.setattr(saved, "read_saved", counted)
    with Store.open_dir(bundled_home) as store:
        entries = _new_entries(6)
        store.add_entries(entries)
        models = SavedModels()
        assert assign_new(store, [e.id for e in entries[:2]], models) == 2
        assert assign_new(store, [e.id for e in entries[2:4]], models) == 2
        assert len(reads) == 1  # one read for both batches
        # the same placing as a model read anew for each batch
        placed = store.assignments()
        assert placed[entries[0].id] == placed[entries[2].id]
        cluster_store(store)  # a re-cluster saves another model (and places everything)
        reads.clear()
        store.add_entries(more := _new_entries(8)[6:])
        assert assign_new(store, [e.id for e in more], models) == 2
        assert len(reads) == 1  # read again: the store's model changed
        assert reads[0] == store.topic_model()[1]
        assert saved_model(store) is not None


def test_counts_keep_their_tokens_when_the_token_list_grows_after():
    # a refresh caches more tokens (the store's list grows) while a batch is placed
    vocab = ["kv", "cache"]
    ids = TokenIds(np.array([0, 1, 1], dtype=np.uint32), np.array([0, 3]), vocab)
    counts = ids.counts()
    vocab.append("prefix")
    more = counts.plus([["\x02缓存"]])
    assert more.vocab == ["kv", "cache", "\x02缓存"]
    assert more.matrix.toarray().tolist() == [[1.0, 2.0, 1.0]]


def test_tokens_and_bigrams_are_the_tokenizers_two_answers():
    tokenizer = default_tokenizer()
    texts = [
        "KV 缓存的分页注意力：vLLM 如何复用前缀缓存",
        "Ｆｕｌｌｗｉｄｔｈ ＧＰＵ 内核，融合算子。",
        "Speculative decoding with a draft model",
        "",
    ]
    for text in texts:
        assert tokenizer.tokens_and_bigrams(text) == (tokenizer(text), tokenizer.bigrams(text))
