"""Bulk tokenizing of texts that come a window at a time: the same tokens, in order, as
the tokenizer gives one text at a time, and the next window is read while the workers
still hold the last (so reading texts never leaves them idle)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from topiclens.clustering import token_cache
from topiclens.clustering.token_cache import decode, iter_tokenize_windows
from topiclens.clustering.tokenize import default_tokenizer

TEXTS = [
    f"{i}: KV cache 分页 paging for long contexts, speculative decoding 投机解码 draft {i % 7}"
    for i in range(1100)
]
SIZES = [400, 1, 0, 350, 349]  # windows of uneven sizes, an empty one among them


def windows(taken: list[int], given: list[int]) -> Iterator[list[str]]:
    """The texts in windows of ``SIZES``; ``taken`` records, as each window is asked for,
    how many results the caller had been given by then (``given[0]``)."""
    start = 0
    for size in SIZES:
        taken.append(given[0])
        yield TEXTS[start : start + size]
        start += size


@pytest.mark.parametrize("processes", [1, 2])
def test_windowed_tokens_are_the_tokenizers_in_order(
    monkeypatch: pytest.MonkeyPatch, processes: int
) -> None:
    monkeypatch.setattr(token_cache, "PARALLEL_MIN", 0)  # workers even for a few texts
    tk = default_tokenizer()
    taken: list[int] = []
    given = [0]
    got: list[list[str]] = []
    for blob in iter_tokenize_windows(windows(taken, given), len(TEXTS), processes=processes):
        got.append(decode(blob))
        given[0] += 1
    assert got == [tk(t) for t in TEXTS]
    if processes > 1:
        # each window is asked for before any result of the window before it is given
        ends = [sum(SIZES[:i]) for i in range(len(SIZES))]
        assert taken == [0, *ends[:-1]]
