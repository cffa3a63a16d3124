"""Text on its way to a terminal (topiclens.text): the one gate it passes
(terminal_text), and the cells it takes, measured as Textual measures them."""

from __future__ import annotations

import re
import sys
import unicodedata

from hypothesis import example, given
from hypothesis import strategies as st
from topiclens.text import cell_width, fit_cells, terminal_line, terminal_text

# What must never reach a terminal: C0 but tab/newline, DEL, C1, bidi overrides.
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


# --- cells ---------------------------------------------------------------------------

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one glyph, ZWJ-joined
WIDE = [
    FAMILY,
    f"{FAMILY} 一家人",
    "投机解码与 speculative decoding",
    "\U0001f1e8\U0001f1f3",  # a flag: two regional indicators
    "\u2764\ufe0f ok",  # a heart made wide by VS16
    "e\u0301te\u0301",  # combining accents
    "ｆｕｌｌ　ｗｉｄｔｈ",
]


def test_cell_widths_are_textuals():
    from rich.cells import cell_len
    from textual.content import Content

    for text in WIDE:
        assert cell_width(text) == cell_len(text) == Content(text).cell_length, text
    assert cell_width(FAMILY) == 2
    assert cell_width("投机解码") == 8


def test_a_cut_never_splits_a_glyph():
    assert fit_cells(f"ab{FAMILY}cd", 4) == "ab…"
    assert fit_cells(f"ab{FAMILY}cd", 5) == f"ab{FAMILY}…"
    assert fit_cells("投机解码", 6) == "投机…"
    assert fit_cells("投机解码", 8) == "投机解码"


def test_a_joiner_or_a_mark_at_either_end_is_measured_and_cut():
    from rich.cells import cell_len

    for text in ("\u0301abcdef", "\u200dabcdef", "abcdef\u200d", "\ufe0fabcdef"):
        assert cell_width(text) == cell_len(text) >= 5, repr(text)
        cut = fit_cells(text, 3)
        assert cell_width(cut) <= 3 and text.startswith(cut.removesuffix("…")), repr(cut)


def test_a_row_with_an_emoji_sequence_fills_its_width():
    from textual.content import Content
    from topiclens.tui.display import fit_line

    for text in WIDE:
        for width in (3, 8, 20):
            assert Content(fit_line(text, width)).cell_length == width, (text, width)


@given(
    st.text(st.sampled_from(["a", " ", "，", "投", "\u0301", "\u200d", "\U0001f469", "\ufe0f"])),
    st.integers(1, 12),
)
@example("\u200d\u200d投", 1)  # rich's graphemes make this one glyph of no cells
def test_a_cut_fits_and_keeps_the_start(text: str, width: int):
    cut = fit_cells(text, width)
    assert cell_width(cut) <= width
    assert cut == text or text.startswith(cut.removesuffix("…"))


def test_common_chinese_characters_are_measured_without_richs_table(monkeypatch):
    # rich searches its table for each new character (some 30k instructions): the common
    # Chinese characters (U+4E00-U+9FA5) take two cells in every Unicode version it knows
    from rich._unicode_data._versions import VERSIONS
    from rich.cells import get_character_cell_size
    from rich.cells import load_cell_table as table
    from topiclens import text as text_module

    han = [chr(c) for c in range(0x4E00, 0x9FA6)]
    for version in VERSIONS:
        assert table(version).widths, version
        assert {get_character_cell_size(ch, version) for ch in han} == {2}, version
    asked: list[str] = []
    monkeypatch.setattr(text_module, "get_character_cell_size", asked.append)
    assert {text_module.char_cells(ch) for ch in han} == {2}
    assert asked == []


@given(
    st.text(st.sampled_from(["a", " ", "，", "投", "\u0301", "\u200b", "ｱ", "\x00", "\U0001f469"])),
    st.integers(0, 14),
)
def test_a_cut_without_joined_glyphs_is_richs_cut_measured_to_the_cut(text: str, width: int):
    # a text without ZWJ or VS16 is one glyph a character (zero-width ones join the one
    # before): cut as rich's grapheme split cuts it, without splitting the whole head
    from rich.cells import cell_len, split_graphemes
    from topiclens import text as text_module

    expected = text
    if len(text) > width // 2 and cell_len(text) > width:
        budget, end, used = width - 1, 0, 0
        for _, stop, cells in split_graphemes(text)[0]:
            if used + cells > budget:
                break
            used, end = used + cells, stop
        head = text[:end]
        while head and cell_len(head) > budget:
            head = head[:-1]
        expected = head.rstrip(" ,，、：:;；") + "…"
    split = text_module.split_graphemes
    try:
        text_module.split_graphemes = None  # type: ignore[assignment]  # not asked
        assert fit_cells(text, width) == expected
    finally:
        text_module.split_graphemes = split


def test_the_gate_passes_printable_text_without_its_pattern():
    # the gate's pattern is compiled when first needed: a text printable once its tabs and
    # newlines are set aside holds none of the characters it acts on
    from topiclens import text as text_module

    acted_on = re.compile(text_module._UNSAFE)
    every = map(chr, range(sys.maxunicode + 1))
    assert not [ch for ch in every if acted_on.match(ch) and ch.isprintable()]
    for text in ("plain", "投机解码\twith a tab\nand lines", "ＡＩ　infra"):
        assert terminal_text(text) == text
    assert terminal_text("a\u202eb\x1b[2Jc\u00ad") == "a<U+202E>b[2Jc"
