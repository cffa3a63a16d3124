"""What placing a batch of new entries reads of the store: the texts of those still in no
topic (one query a chunk, not every assignment of the store), and of those only the
texts it needs; the entries land where reading everything put them."""

from __future__ import annotations

import shutil
from pathlib import Path

from topiclens.clustering.pipeline import assign_new
from topiclens.clustering.saved import SavedModels
from topiclens.clustering.token_cache import encode, entry_token_ids
from topiclens.clustering.tokenize import default_tokenizer
from topiclens.store import Entry, Store
from topiclens.store.entries import unassigned_texts

TEXTS = [
    ("Paged attention and the KV cache", "Prefix caching reuses KV blocks across requests."),
    ("Speculative decoding with a draft model", "A small model drafts what the large one checks."),
    ("FlashAttention kernels on Hopper", "Tiling the attention computation in shared memory."),
    ("分页注意力与 KV 缓存", "前缀缓存在共享提示的请求之间复用 KV 块。"),
    ("Quantizing weights to four bits", "GPTQ and AWQ keep accuracy at int4."),
    ("Continuous batching in vLLM", "Requests join and leave the batch at every step."),
]


def _entries(prefix: str) -> list[Entry]:
    return [
        Entry(id=f"{prefix}{i:012d}", title=t, summary=s, source="test", date="2026-01-01")
        for i, (t, s) in enumerate(TEXTS)
    ]


def test_unassigned_texts_are_those_of_the_entries_in_no_topic_in_the_order_given(
    bundled_home: Path,
):
    with Store.open_dir(bundled_home) as store:
        placed = store.entry_ids()[:3]  # (the bundled corpus is in its topics)
        new = _entries("read")
        store.add_entries(new)
        ids = [new[4].id, placed[0], "no-such-entry", new[1].id, placed[2], new[0].id]
        texts = dict(store.entry_texts([e.id for e in new]))
        wanted = [new[4].id, new[1].id, new[0].id]
        assert unassigned_texts(store, ids) == [(eid, texts[eid]) for eid in wanted]
        assert all(text for _, text in unassigned_texts(store, ids))
        # a text the caller has what it needs of already is not made
        got = unassigned_texts(store, ids, known={new[1].id})
        assert got == [
            (new[4].id, texts[new[4].id]),
            (new[1].id, ""),
            (new[0].id, texts[new[0].id]),
        ]
        assert unassigned_texts(store, [placed[0], "no-such-entry"]) == []


def _members(store: Store, ids: list[str]) -> list[frozenset[str]]:
    """The new entries grouped by the topic each went to (topics found by their members,
    never by their ids' order)."""
    placed = store.assignments()
    groups: dict[int, set[str]] = {}
    for eid in ids:
        groups.setdefault(placed[eid], set()).add(eid[-12:])
    return sorted(frozenset(g) for g in groups.values())


def test_entries_with_their_bigrams_made_place_as_those_placed_from_their_texts(
    bundled_home: Path, tmp_path: Path
):
    other = tmp_path / "other"
    shutil.copytree(bundled_home, other)
    tokenizer = default_tokenizer()
    results = []
    for home, made in ((bundled_home, False), (other, True)):
        with Store.open_dir(home) as store:
            new = _entries("bigram")
            store.add_entries(new)
            ids = [e.id for e in new]
            entry_token_ids(store, ids)  # (their tokens cached, as a refresh caches them)
            bigrams = {}
            if made:  # as the parse workers make them, from each entry's text
                bigrams = {eid: encode(tokenizer.bigrams(t)) for eid, t in store.entry_texts(ids)}
            assert assign_new(store, ids, SavedModels(), bigrams) == len(ids)
            placed = store.assignments()
            scores = {eid[-12:]: store.assignment(eid).score for eid in ids}
            # (the two stores are copies of one: the same topics, under the same ids)
            results.append((_members(store, ids), scores, {placed[i] for i in ids}))
    assert results[0] == results[1]


def _kept(store: Store, ids: list[str]) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The entries' tokens cached as a refresh caches them, and what it keeps of them for
    placing: their token ids as caching gave them, and their bigram features."""
    from topiclens.clustering.tokenize import tokenizer_version

    tokenizer = default_tokenizer()
    texts = store.entry_texts(ids)
    rows = [(eid, "", tokenizer_version(), tokenizer(text)) for eid, text in texts]
    tokens = {row[0]: blob for row, blob in zip(rows, store.put_tokens(rows), strict=True)}
    return tokens, {eid: encode(tokenizer.bigrams(text)) for eid, text in texts}


def test_token_ids_kept_from_caching_are_those_the_cache_gives_back(
    bundled_home: Path, monkeypatch
):
    with Store.open_dir(bundled_home) as store:
        new = _entries("kept")
        store.add_entries(new)
        ids = [e.id for e in new]
        tokens, _ = _kept(store, ids)
        read, _ = entry_token_ids(store, ids)
        half = {eid: tokens[eid] for eid in ids[::2]}
        asked: list[list[str]] = []
        looked_up = Store.iter_cached_tokens

        def watched(self: Store, version: str, batch: int = 5000, ids=None):  # type: ignore[no-untyped-def]
            asked.append(list(ids or []))
            return looked_up(self, version, batch, ids)

        monkeypatch.setattr(Store, "iter_cached_tokens", watched)
        for known, wanted in ((tokens, []), (half, [[eid for eid in ids[1::2]]])):
            asked.clear()
            got, tokenized = entry_token_ids(store, ids, known=known)
            assert tokenized == 0 and asked == wanted  # only the others looked up
            assert got.ids.tolist() == read.ids.tolist()
            assert got.indptr.tolist() == read.indptr.tolist() and got.vocab == read.vocab


def test_entries_left_at_the_end_of_a_refresh_are_placed_with_what_was_kept_of_them(
    bundled_home: Path, tmp_path: Path, monkeypatch
):
    from topiclens.feeds.refresh import _Placing

    other = tmp_path / "other"
    shutil.copytree(bundled_home, other)
    results = []
    for home, kept in ((bundled_home, True), (other, False)):
        with Store.open_dir(home) as store:
            new = _entries("left")
            store.add_entries(new)
            ids = [e.id for e in new]
            tokens, bigrams = _kept(store, ids)
            if kept:  # fewer than a batch: the placing thread leaves them to finish()
                looked_up: list[object] = []

                def watched(*asked: object, into: list[object] = looked_up, **how: object):  # type: ignore[no-untyped-def]
                    into.append(asked)
                    return iter(())

                monkeypatch.setattr(Store, "iter_cached_tokens", watched)
                placing = _Placing(store)
                placing.add(ids, bigrams, tokens)
                placing.join()
                placing.finish()
                monkeypatch.undo()
                assert looked_up == []  # (nothing read back from the token cache)
            else:
                assert assign_new(store, ids) == len(ids)
            assert store.count_unassigned() == 0
            scores = {eid[-12:]: store.assignment(eid).score for eid in ids}
            results.append((_members(store, ids), scores))
    assert results[0] == results[1]
