"""The one gate between stored text and a terminal (store.text.terminal_text)."""

from __future__ import annotations

import re
import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st
from topiclens.store.text import terminal_line, terminal_text

# What must never reach a terminal (issue 10): C0 but tab/newline, DEL, C1, bidi overrides.
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_escape_sequences_lose_their_escape():
    assert terminal_text("a\x1b]52;c;cHduZWQ=\x07b") == "a]52;c;cHduZWQ=b"
    assert terminal_text("\x1b[2Jx\x9b31m") == "[2Jx31m"
    assert terminal_text("keep\ttab\nand newline") == "keep\ttab\nand newline"


def test_bidi_override_is_shown_not_obeyed():
    assert terminal_text("abc\u202edcba") == "abc<U+202E>dcba"
    assert terminal_text("\u2066x\u2069") == "<U+2066>x<U+2069>"


def test_every_invisible_format_character_is_handled():
    kept = {"\u200c", "\u200d"}  # ZWJ and ZWNJ shape emoji and scripts
    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        if unicodedata.category(ch) == "Cf" and ch not in kept:
            assert "\\" not in terminal_text(ch) and ch not in terminal_text(ch), hex(cp)
    assert terminal_text("👩\u200d💻") == "👩\u200d💻"


def test_plain_text_is_the_same_object():
    text = "投机解码 speculative decoding"
    assert terminal_text(text) is text


def test_one_line_folds_every_break():
    assert terminal_line(" KV\ncache\u2028[WIP]\t\x1b ") == "KV cache [WIP]"


@given(st.text(alphabet=st.characters(codec="utf-8")))
def test_nothing_forbidden_survives(text: str):
    assert FORBIDDEN.search(terminal_text(text)) is None
    line = terminal_line(text)
    assert FORBIDDEN.search(line) is None and "\n" not in line
