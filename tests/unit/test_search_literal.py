"""A search for a specific name: its literal and phrase matches come first, the entries
that hold it only as a concept after them (kept apart, for a divider), and a search
never finds less than its words as written."""

from __future__ import annotations

from pathlib import Path

import pytest
from topiclens.clustering.search import search, search_split
from topiclens.store import Store
from topiclens.store.models import Entry
from topiclens.store.text import entry_id


def entry(title: str, summary: str, date: str | None = None) -> Entry:
    return Entry(id=entry_id(title, summary), title=title, summary=summary, date=date)


# "flashattention" is a form of the attention concept (assets/concepts.tsv): an entry
# about attention in general is related, never a better match than the name itself
NAMED = entry("FlashAttention on Hopper", "Tiling the softmax.", "2024-01-01")
NAMED_IN_TEXT = entry("Kernel notes", "We switched to FlashAttention-3 last week.", "2024-02-01")
ECONOMICS = entry(
    "The Economics of Speculative Decoding",
    "Draft models and their attention costs.",
    "2026-06-01",
)
ATTENTION_TITLE = entry("Attention sinks in long context", "The first tokens.", "2026-07-01")
UNRELATED = entry("Storage tiers", "Disks and flash drives.", "2026-08-01")


@pytest.fixture
def store(tmp_path: Path):
    with Store.open_dir(tmp_path) as s:
        s.add_entries([NAMED, NAMED_IN_TEXT, ECONOMICS, ATTENTION_TITLE, UNRELATED])
        yield s


def test_a_name_finds_its_literal_matches_before_its_concept(store: Store):
    found = search(store, "flashattention")
    # the name in a title, then in a text (older, both), then the concept's other forms,
    # even those in a title and newer
    assert found[:2] == [NAMED.id, NAMED_IN_TEXT.id]
    assert set(found[2:]) == {ECONOMICS.id, ATTENTION_TITLE.id}
    assert found.index(ECONOMICS.id) > found.index(NAMED_IN_TEXT.id)


def test_the_split_keeps_literal_and_concept_matches_apart(store: Store):
    literal, concept = search_split(store, "flashattention")
    assert literal == [NAMED.id, NAMED_IN_TEXT.id]
    assert concept == [ATTENTION_TITLE.id, ECONOMICS.id]  # a title first, then the text
    assert literal + concept == search(store, "flashattention")
    # a query with no concept: everything it finds is literal
    assert search_split(store, "tiers") == ([UNRELATED.id], [])
    assert search_split(store, "   ") == ([], [])


def test_a_phrase_ranks_before_its_words_apart(tmp_path: Path):
    apart = entry("Flash memory pays attention to wear", "Controllers.", "2026-09-01")
    together = entry("Flash attention, explained", "A kernel.", "2020-01-01")
    joined = entry("Why FlashAttention is fast", "IO awareness.", "2019-01-01")
    in_text = entry("Kernels", "A flash-attention kernel in Triton.", "2018-01-01")
    with Store.open_dir(tmp_path) as store:
        store.add_entries([apart, together, joined, in_text])
        literal, _ = search_split(store, "flash attention")
        # the words together in a title (newest first), then apart in one, then in a text
        assert literal == [together.id, joined.id, apart.id, in_text.id]


@pytest.mark.parametrize(
    "query",
    ["flashattention", "flash attention", "attention", "speculative decoding", "kv cache", "flash"],
)
def test_a_search_never_finds_less_than_its_words_as_written(store: Store, query: str):
    literal, concept = search_split(store, query)
    as_written = set(store.search(query))  # every word, as written (SQL LIKE)
    assert set(literal) == as_written
    assert not set(concept) & as_written
