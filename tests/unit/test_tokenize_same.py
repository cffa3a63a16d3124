"""The tokenizer's fast paths give exactly the tokens of the plain algorithm.

``Tokenizer.__call__`` finds the concepts' forms with :meth:`Tokenizer.concept_spans` (the
whole surface pattern tried only where a form can start), cuts Chinese runs with its own
``segment`` and caches each concept's broader concepts. :class:`Reference`
(``tests/plain_tokenizer.py``) is the algorithm written plainly: the surface pattern's
``finditer`` over the whole text, jieba's own ``cut``, and ``Vocabulary.expand`` for every
concept. Tokens are what a refresh caches
and what places an entry, so any difference would change the store: these tests compare
them on the bundled corpus and on every feed in ``tests/data``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import DATA
from hypothesis import example, given, settings
from hypothesis import strategies as st
from plain_tokenizer import Reference
from topiclens.clustering.tokenize import (
    _ASCII_PIECE_TEXTS,
    _PIECE_TEXTS,
    HAN,
    Tokenizer,
    Vocabulary,
    boilerplate_pattern,
    boilerplate_starts,
    fold,
    latin_heads,
    surface_pattern,
)
from topiclens.store.feed_entries import feed_scope, item
from topiclens.store.feed_parse import NotAFeed, parse_feed
from topiclens.store.importer import bundled_paths
from topiclens.store.parsers import parse_file

HEADER = re.compile(rb"^Header:\s*([A-Za-z-]+):\s*(.*?)\s*$", re.MULTILINE)


@pytest.fixture(scope="module")
def tk() -> Tokenizer:
    tk = Tokenizer()
    tk.jieba()
    return tk


@pytest.fixture(scope="module")
def ref(tk: Tokenizer) -> Reference:
    return Reference(tk)


def feed_texts(paths: list[Path]) -> list[str]:
    """What a refresh tokenizes for every entry of these feed files (each one's title,
    summary and start of content: ``Entry.text``)."""
    texts = []
    for path in paths:
        data = path.read_bytes()
        headers = {k.decode().lower(): v.decode("latin-1") for k, v in HEADER.findall(data[:4096])}
        url = headers.pop("content-location", "http://127.0.0.1:9/feeds/" + path.name)
        try:
            parsed = parse_feed(data, url=url, headers=headers)
        except NotAFeed:
            continue
        for entry in parsed.entries:
            made = item(entry, scope=feed_scope(1), feed_id=1, source="f", origin=url, seen_at=0)
            texts.append(made.entry.text())
    return texts


@pytest.mark.slow
def test_the_same_tokens_on_the_bundled_corpus(tk: Tokenizer, ref: Reference):
    texts = [e.text() for _, path in bundled_paths() for e in parse_file(path).entries]
    assert len(texts) > 100
    assert [tk(t) for t in texts] == [ref.tokens(t) for t in texts]


@pytest.mark.slow
def test_the_same_tokens_on_every_feed_in_the_test_data(tk: Tokenizer, ref: Reference):
    paths = sorted(p for p in DATA.glob("feed*/**/*") if p.is_file() and p.suffix != ".md")
    texts = feed_texts(paths)
    assert len(texts) > 500
    assert any(re.search("[\u4e00-\u9fff]{2}", t) for t in texts)  # Chinese ones among them
    assert [tk(t) for t in texts] == [ref.tokens(t) for t in texts]


def test_the_same_tokens_where_forms_touch_words_and_each_other(tk: Tokenizer, ref: Reference):
    texts = [
        "KV cache, kvcache, kv-cache and KV  缓存; kv缓存 akv 缓存 xkv cache",
        "all-reduce all-to-all allreduce, NVLink与NVSwitch；MoE专家并行 moes",
        "投机解码=推测解码=speculative decoding; 2speculative decoding",
        "",
        "   ",
        "kv",
        "缓存",
    ]
    for text in texts:
        assert tk(text) == ref.tokens(text), text


# the first characters of forms, what guards them, whitespace, and ordinary letters
_PIECE = st.sampled_from(
    ["kv", " cache", "缓存", "kv cache", "all-reduce", "moe", "nvlink", "投机解码", "专家",
     "a", "x", "1", "-", " ", "  ", "\n", "草稿", "的", "，", "s", "e"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECE, max_size=30).map("".join))
def test_concept_spans_are_the_surface_patterns_matches(tk: Tokenizer, ref: Reference, text: str):
    folded = fold(text)
    expected = [m.span() for m in ref.surface_re.finditer(folded)]
    assert list(tk.concept_spans(folded)) == expected
    assert tk(text) == ref.tokens(text)


def test_a_latin_form_is_tried_only_at_a_word_its_heads_name():
    forms = ["ep", "moe", "kv 缓存", "缓存", "kv cache", "all-reduce", "x 2 y"]
    # a form's letters and digits up to its first other character, and up to each space
    assert latin_heads(forms) == {b"ep", b"moe", b"kv", b"kvcache", b"all", b"x", b"x2", b"x2y"}
    tk = Tokenizer(Vocabulary(surfaces={f: f for f in forms}))
    text = "deep ep moe xmoe 1ep kv缓存 akv 缓存 ep kvcache kv\ncache all-reduce x2 y x 2y"
    spans = [m.span() for m in surface_pattern(forms).finditer(text)]
    assert [start for start, _ in spans][:5] == [5, 8, 21, 30, 33]  # not "eep", "xmoe", "akv"
    assert list(tk.concept_spans(text)) == spans and len(spans) == 10


def test_the_tokens_of_a_text_do_not_depend_on_what_was_tokenized_before(
    tk: Tokenizer, ref: Reference
):
    # a tokenizer remembers the words it has cut: the forms of concepts written several
    # ways ("kv缓存", "kv 缓存", "kv cache"), asked in any order, each give their own tokens
    texts = ["kv cache", "KV  缓存", "kv缓存", "kv\ncache", "kvcache", "NVLink", "nvlink与nvswitch"]
    first = [tk(t) for t in texts]
    again = [tk(t) for t in reversed(texts)][::-1]
    assert first == again == [ref.tokens(t) for t in texts]
    assert first == [Tokenizer(tk.vocab)(t) for t in texts]  # as a fresh tokenizer says


# Chinese, English, mixed and symbols, forms among them, for one tokenizer that remembers
# what it has cut across examples
_MIXED = st.lists(
    st.sampled_from(
        list("abcdekmnoprstvx-_.+ \n\t，。、（）()!?#&<>0123456789")
        + list("缓存投机解码推测专家并行的是这篇文章介绍了草稿模型")
        + ["KV", "cache", "NVLink", "NVSwitch", "MoE", "all-reduce", "kv 缓存", "Ｋｖ", "ﬁ"]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(_MIXED, min_size=1, max_size=4))
def test_the_same_tokens_on_any_mix_of_scripts_and_symbols(
    tk: Tokenizer, ref: Reference, texts: list[str]
):
    for text in texts:
        assert tk(text) == ref.tokens(text)


# the pieces between concept forms, as written plainly: a Chinese run, or an identifier
# that starts with a-z where no letter or digit comes before it
_PLAIN_PIECES = re.compile(rf"[{HAN}]+|(?<![a-z0-9])[a-z][a-z0-9]*(?:[-_.+][a-z0-9]+)*")


@settings(max_examples=400, deadline=None)
@given(_MIXED.map(fold))
@example("kv缓存a1 b-2c 中文x.y_z 9ab a")
def test_the_pieces_between_forms_are_the_plain_patterns_matches(text: str):
    assert _PIECE_TEXTS.findall(text) == _PLAIN_PIECES.findall(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="abcxyz0129-_.+ \n\t,()", max_size=40))
@example("a1 b-2c x.y_z 9ab a 1-ab -x _y a+ +a")
def test_the_pieces_of_ascii_text_are_the_plain_patterns_matches(text: str):
    assert _ASCII_PIECE_TEXTS.findall(text) == _PLAIN_PIECES.findall(text)


def test_ascii_text_is_cut_of_boilerplate_only_where_a_match_can_start_in_ascii():
    bundled = Tokenizer()
    assert not bundled._ascii_boilerplate  # (the bundled phrasing is all Chinese)
    assert bundled._cleaned("This post covers KV cache") == "this post covers kv cache"
    phrasing = [r"worth a read:?", "值得一读"]
    vocab = Vocabulary(
        boilerplate=boilerplate_pattern(phrasing), boilerplate_starts=boilerplate_starts(phrasing)
    )
    tk = Tokenizer(vocab)
    assert tk._ascii_boilerplate
    assert tk._cleaned("Worth a read: KV cache") == "  kv cache"
    assert tk._cleaned("值得一读 KV cache") == "  kv cache"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["kv", " cache", "all-reduce", "moe", "a", "x", "1", "-", "_", ".",
                                 "+", " ", "\n", "e.g.", "gpt-4", "v1.2", "3d", "(", ","]),
                max_size=30).map("".join))  # fmt: skip
def test_the_same_tokens_on_ascii_text(tk: Tokenizer, ref: Reference, text: str):
    assert tk(text) == ref.tokens(text)
