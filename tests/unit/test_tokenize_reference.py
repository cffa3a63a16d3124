"""The tokenizer gives, bit for bit, what the plain algorithm gives, on any text.

The tokenizer takes shortcuts for speed: full-width ASCII forms replaced before NFKC,
Chinese runs, English identifiers, concept forms and bigram runs remembered with what
they give (in memos forgotten when full), its own walk of jieba's word graph, the concept
search tried only where a form can start. :class:`Reference` (``tests/plain_tokenizer.py``)
is the algorithm without any of them: ``unicodedata.normalize`` of the whole text, the
surface pattern's ``finditer``, jieba's own ``cut`` and a fresh look-up of everything for
every text.
Tokens are cached in the store under the tokenizer's version, which no shortcut
changes, so tokens made before and after must be the same: these tests compare both,
tokens and bigrams, on the bundled corpus, every line of every file in ``tests/data``,
hostile texts (empty, control characters, very long words, emoji, full-width forms,
combining marks) and generated text, with memos that forget as they go.
"""

from __future__ import annotations

import re
import sys
import unicodedata

import pytest
from helpers import DATA
from hypothesis import given, settings
from hypothesis import strategies as st
from plain_tokenizer import BOILERPLATE, HAN_RUN, Reference, plain_boilerplate
from topiclens.clustering.tokenize import Tokenizer, boilerplate_pattern, first_chars, fold
from topiclens.store.importer import bundled_paths
from topiclens.store.parsers import parse_file


@pytest.fixture(scope="module")
def tk() -> Tokenizer:
    tk = Tokenizer()
    tk.jieba()
    return tk


@pytest.fixture(scope="module")
def ref(tk: Tokenizer) -> Reference:
    return Reference(tk)


def forgetful() -> Tokenizer:
    """A tokenizer whose memos forget every few texts, as a long run's do."""
    tk = Tokenizer()
    for memo in (tk._pieces, tk._forms, tk._bigram_runs):
        memo.limit = 40
    return tk


def differences(tk: Tokenizer, ref: Reference, texts: list[str]) -> list[str]:
    """The texts (their start) on which the tokenizer and the reference differ, in
    ``__call__``, ``bigrams`` or ``tokens_and_bigrams``."""
    bad = []
    for text in texts:
        tokens, bigrams = ref.tokens(text), ref.bigrams(text)
        if not (tk(text) == tokens and tk.bigrams(text) == bigrams) or tk.tokens_and_bigrams(
            text
        ) != (tokens, bigrams):
            bad.append(text[:80])
    return bad


HOSTILE = [
    "",
    " ",
    "   \t\n ",
    "\r\n\r",
    "\x00\x01\x02\x1b[31m\x1f\x7f\x85",
    "\u200b\u200d\ufeff\u2028\u2029",
    "\u202eevil\u202c kv cache \u2066x\u2069",
    "😀🚀 emoji 表情😀测试 👩‍👩‍👧 家庭 🇨🇳",
    "Ｆｕｌｌ－ｗｉｄｔｈ　ＫＶ　ｃａｃｈｅ，全角的投机解码（ＭｏＥ）：专家并行",
    "；Ａｌｌ－ｒｅｄｕｃｅ！",
    # full-width forms before combining marks
    "！\u0301，\u0308 ａ\u0301 Ａ\u030a ｋｖ\u20dd cache",
    "ﬁne ﬂow Ⅻ ㎏ ㍻ ⑴ ⒜ ℃ ½ ² µ ſt K Å",
    "İstanbul ΣΑΣ STRASSE straße ǅ",
    "\u2f00\u2f08\u3280\u337b\uf900\U0001f210\U0002f800 ⼭⼈",
    "𠀀𠀁𪚥 extension b 㐀䶵 \u9fd6\u9fff 龥",
    "x" * 20_000,
    "缓" * 3000,
    "投机解码" * 500 + "kv缓存" * 500,
    "a-" * 3000 + "b",
    "kv" + " " * 3000 + "cache",
    "混合mixed文本with英文and数字123abc中文deepseek-v4-flash w4a16 fp8 int4-awq g++ c# .net",
    "kv缓存kv 缓存kvcache KV  缓存 akv cache xkv 2speculative decoding",
    "推荐收录，因为这篇文章介绍了投机解码。适合工程师参考。核心看点：MoE 值得一读",
    "。。。，，，！！！？？？",
    "\ud7ff\ue000\uffff\U0010ffff",
]


def test_the_plain_fold_of_every_code_point_alone_and_before_combining_marks():
    # the shortcut (full-width forms replaced first) against NFKC of the whole text
    chars = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]
    plain = unicodedata.normalize
    assert [fold(c) for c in chars] == [plain("NFKC", c).lower() for c in chars]
    marks = "\u0301\u0308\u0327\u20dd\u3099\u309a\u0345"
    texts = [c + m + "\uff41" + m for c in map(chr, range(0xFF00, 0xFF70)) for m in marks]
    assert [fold(t) for t in texts] == [plain("NFKC", t).lower() for t in texts]


def test_the_same_on_hostile_texts(tk: Tokenizer, ref: Reference):
    assert differences(tk, ref, HOSTILE) == []
    assert differences(forgetful(), ref, HOSTILE) == []


@pytest.mark.slow
def test_the_same_on_the_bundled_corpus_with_memos_warm_and_forgetting(
    tk: Tokenizer, ref: Reference
):
    texts = [e.text() for _, path in bundled_paths() for e in parse_file(path).entries]
    assert len(texts) > 100
    assert differences(tk, ref, texts) == []
    assert differences(tk, ref, texts) == []  # every memo warm now
    assert differences(forgetful(), ref, texts) == []


@pytest.mark.slow
def test_the_same_on_every_line_of_every_file_in_the_test_data(tk: Tokenizer, ref: Reference):
    # feeds (XML, JSON, entities, bad encodings), exports, digests and listings, as text
    texts: list[str] = []
    for path in sorted(p for p in DATA.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8", "replace")
        texts.append(text)
        texts.extend(text.splitlines())
    assert len(texts) > 10_000
    assert any(HAN_RUN.search(fold(t)) for t in texts)
    assert differences(tk, ref, texts) == []


# Chinese, English, full-width and compatibility forms, combining marks, boilerplate and
# concept forms, emoji and controls, for tokenizers that remember across examples
_MIXED = st.lists(
    st.one_of(
        st.sampled_from(
            list("abcdekmnoprstvx-_.+ \n\t，。、（）()!?#&<>0123456789ＡＢａｂ１２－＿．＋")
            + list("缓存投机解码推测专家并行的是这篇文章介绍了草稿模型\u3400\u9fd6\uf900⼭")
            + ["KV", "cache", "NVLink", "NVSwitch", "MoE", "all-reduce", "kv 缓存", "Ｋｖ"]
            + ["ﬁ", "\u0301", "\u20dd", "😀", "\x00", "\u200d", "推荐收录", "适合读者参考"]
        ),
        st.text(max_size=3),
    ),
    max_size=40,
).map("".join)
_REMEMBERING = Tokenizer()
_FORGETFUL = forgetful()


@settings(max_examples=250, deadline=None)
@given(st.lists(_MIXED, min_size=1, max_size=4))
def test_the_same_on_any_mix_of_scripts_and_symbols(ref: Reference, texts: list[str]):
    assert differences(_REMEMBERING, ref, texts) == []
    assert differences(_FORGETFUL, ref, texts) == []


# patterns of every shape first_chars follows or gives up on, with the bundled boilerplate
PATTERNS = [
    *BOILERPLATE,
    "ab|ac",
    "a?b",
    "(?:x|y)?z+",
    "(a|)b",
    "(?:ab){2}c",
    r"\bfo+",
    "(?=b)[a-c]",
    "a(?<=a)b",
    "(?>ab|b)c",
    "[x-z]{1,3}?a",
    r"\w+",
    "(?i)ab",
    "[^a]b",
    "a*",
    ".b",
]


def test_first_chars_knows_the_start_of_every_pattern_it_follows_and_no_other():
    assert first_chars("推荐收录[，,]?") == {"推"}
    assert first_chars("(?:这篇|本篇)?(?:文章|本文)") == set("这本文")
    assert first_chars("a?b") == {"a", "b"}
    for unknown in [r"\w+", "(?i)ab", "[^a]b", "a*", ".b", "x{0,2}", r"(a)?\1b"]:
        assert first_chars(unknown) is None, unknown
    # the bundled boilerplate is filtered: its regex starts with the look-ahead
    assert boilerplate_pattern(BOILERPLATE).pattern.startswith("(?=[")


@settings(max_examples=400, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("abcxyz 推荐收录这篇文章本文介绍了适合读者参考，,：")),
        max_size=40,
    )
)
def test_a_pattern_matches_only_where_first_chars_allows_and_the_filter_cuts_the_same(text: str):
    for pattern in PATTERNS:
        chars = first_chars(pattern)
        if chars is not None:
            starts = {m.start() for m in re.finditer(pattern, text) if m.group()}
            assert {text[i] for i in starts} <= chars, pattern
    for patterns in (BOILERPLATE, PATTERNS[len(BOILERPLATE) : len(BOILERPLATE) + 9]):
        plain = plain_boilerplate(patterns)
        assert boilerplate_pattern(patterns).sub(" ", text) == plain.sub(" ", text)
