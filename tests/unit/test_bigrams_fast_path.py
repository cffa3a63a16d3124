"""Character bigrams skip folding a text that holds no character whose fold is Chinese
(most English texts): the bigrams stay exactly those of folding every text first, which
is what places a refresh's new entries."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from topiclens.clustering.tokenize import _MAY_FOLD_TO_HAN, BIGRAM_MARK, HAN, Tokenizer, fold
from topiclens.store.importer import bundled_paths
from topiclens.store.parsers import parse_file

_HAN = re.compile(f"[{HAN}]")
_RUN = re.compile(rf"[{HAN}]{{2,}}")


def plain_bigrams(tk: Tokenizer, text: str) -> list[str]:
    """The bigrams as written plainly: every text folded first."""
    folded = fold(text)
    if tk.vocab.boilerplate is not None:
        folded = tk.vocab.boilerplate.sub(" ", folded)
    return [BIGRAM_MARK + r[i : i + 2] for r in _RUN.findall(folded) for i in range(len(r) - 1)]


@pytest.fixture(scope="module")
def tk() -> Tokenizer:
    return Tokenizer()


def test_every_character_whose_fold_is_chinese_is_looked_for():
    missed = [
        hex(c)
        for c in range(sys.maxunicode + 1)
        if _HAN.search(fold(chr(c))) and not _MAY_FOLD_TO_HAN.match(chr(c))
    ]
    assert not missed


def test_bigrams_of_the_bundled_corpus_are_those_of_folding_every_text(tk: Tokenizer):
    texts = [e.text() for _, path in bundled_paths() for e in parse_file(path).entries]
    assert len(texts) > 100 and any(tk.bigrams(t) for t in texts)
    assert [tk.bigrams(t) for t in texts] == [plain_bigrams(tk, t) for t in texts]


# text mixing ASCII, Chinese, Kangxi radicals, enclosed and compatibility ideographs
MIXED = st.text(
    alphabet=st.sampled_from(
        "ab 1.\u00e9\u2014\u4e00\u5206\u5e03\u2f00\u2f08\u3280\u337b\uf900\U0001f210\U0002f800"
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(MIXED)
def test_bigrams_of_any_text_are_those_of_folding_it(tk: Tokenizer, text: str):
    assert tk.bigrams(text) == plain_bigrams(tk, text)
