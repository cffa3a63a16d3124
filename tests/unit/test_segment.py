"""The tokenizer's own word segmentation is jieba's, word for word.

``Tokenizer.segment`` walks jieba's word graph with jieba's dictionary (plus our user
dictionary) faster than ``jieba.Tokenizer.cut``; these tests hold it to the same words, on
the bundled corpus and on generated text, including characters jieba does not count as
Chinese and ties between routes.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from topiclens.clustering.tokenize import USE_HMM, Tokenizer, fold, surface_pattern
from topiclens.store.importer import bundled_paths
from topiclens.store.parsers import parse_file
from topiclens.text import HAN

HAN_RUN = re.compile(f"[{HAN}]+")


@pytest.fixture(scope="module")
def tk() -> Tokenizer:
    tk = Tokenizer()
    tk.jieba()
    return tk


def _jieba_words(tk: Tokenizer, run: str) -> list[str]:
    return list(tk.jieba().cut(run, HMM=USE_HMM))


@pytest.mark.slow
def test_segment_matches_jieba_on_the_bundled_corpus(tk: Tokenizer):
    runs = [
        run
        for _, path in bundled_paths()
        for entry in parse_file(path).entries
        for run in HAN_RUN.findall(fold(entry.text()))
    ]
    assert len(runs) > 1000
    assert [tk.segment(r) for r in runs] == [_jieba_words(tk, r) for r in runs]


# common words, user-dictionary words, single characters, characters outside jieba's
# Chinese range (extension A, U+9FD6..U+9FFF) and compatibility ideographs
_ALPHABET = [
    *"投机解码推测草稿模型专家并行张量缓存预填充冷启动的了是在和分布式训练",
    *"\u3400\u4db5\u9fd6\u9fff\uf900",
]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(_ALPHABET), min_size=1, max_size=40))
def test_segment_matches_jieba_on_generated_text(tk: Tokenizer, run: str):
    assert tk.segment(run) == _jieba_words(tk, run)


def test_segment_breaks_ties_as_jieba_does():
    # 甲|乙丙 and 甲乙|丙 score exactly the same; jieba takes the longer first word
    tk = Tokenizer()
    for word, freq in (("甲", 100), ("甲乙", 100), ("乙丙", 10**6), ("丙", 10**6)):
        tk.jieba().add_word(word, freq)
    assert _jieba_words(tk, "甲乙丙") == ["甲乙", "丙"]
    assert tk.segment("甲乙丙") == ["甲乙", "丙"]


def test_surface_pattern_guards_latin_forms_at_word_starts():
    pat = surface_pattern(["ep", "moe", "kv 缓存"])
    text = "deep ep moe xmoe 1ep kv缓存 akv 缓存 ep"
    assert [m.span() for m in pat.finditer(text)] == [
        (5, 7),
        (8, 11),
        (21, 25),
        (33, 35),
    ]


@pytest.mark.slow
def test_the_merged_dictionary_is_cached_and_read_back_whole(tmp_path, monkeypatch):
    import tempfile

    from topiclens.clustering.dictionary import read_dictionary

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    fresh = Tokenizer()
    made = fresh.jieba()  # jieba's dictionary plus ours, then cached
    (cached,) = tmp_path.glob("topiclens-jieba-*.cache")
    again = Tokenizer()
    read = again.jieba()
    assert read.FREQ == made.FREQ and read.total == made.total
    assert read.FREQ["投机解码"] > 0  # a word of our user dictionary
    text = "投机解码的草稿模型与专家并行，KV 缓存和预填充"
    assert again(text) == fresh(text)
    # a cache cut short is not used (and is made again)
    cached.write_bytes(cached.read_bytes()[:1000])
    assert not read_dictionary(object(), cached)
    assert Tokenizer().jieba().FREQ == made.FREQ
    assert read_dictionary(type("T", (), {})(), cached)
