"""wrap_cells gives the very lines of a plain version (kept here as the reference: one token
at a time, every width measured by rich) on the bundled corpus and on text made to trip it,
at several widths; and lays out code and nested lists as written."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from topiclens.text import cell_width, char_cells
from topiclens.tui.wrap import NO_LINE_END, NO_LINE_START, wrap_cells

ASSETS = Path(__file__).resolve().parents[2] / "assets"
WIDTHS = (1, 4, 5, 7, 12, 20, 33, 40, 57, 78, 80, 119)


def reference_tokens(para: str) -> list[str]:
    out: list[str] = []
    for i, chunk in enumerate(re.split(r"(\s+)", para)):
        if not chunk:
            continue
        if i % 2 or chunk.isascii():
            out.append(chunk)
            continue
        run = ""
        for ch in chunk:
            if char_cells(ch) == 2:
                if run:
                    out.append(run)
                    run = ""
                out.append(ch)
            else:
                run += ch
        if run:
            out.append(run)
    return out


def reference_heads(word: str, width: int) -> list[str]:
    pieces: list[str] = []
    start = used = 0
    for n, ch in enumerate(word):
        cells = char_cells(ch)
        if used + cells > width and n > start:
            pieces.append(word[start:n])
            start, used = n, 0
        used += cells
    pieces.append(word[start:])
    return pieces


def reference_wrap(text: str, width: int) -> list[str]:
    width = max(4, width)
    lines: list[str] = []
    for para in text.split("\n"):
        para = para.expandtabs(4)
        indented = para.startswith(" ") and not para.isspace()
        indent = " " * min(len(para) - len(para.lstrip(" ")), width // 2) if indented else ""
        lines += [
            indent + line
            for line in reference_fill(para.lstrip(" "), width - len(indent), indented)
        ]
    return lines


def reference_fill(para: str, width: int, keep_spaces: bool) -> list[str]:
    lines: list[str] = []
    glued: list[str] = []
    for tok in reference_tokens(para):
        glue = glued and not tok.isspace() and not glued[-1].isspace()
        if glue and (tok[0] in NO_LINE_START or glued[-1][-1] in NO_LINE_END):
            glued[-1] += tok
            continue
        glued.append(tok)
    line, used = "", 0
    for tok in glued:
        if tok.isspace():
            if line:
                run = tok if keep_spaces and set(tok) == {" "} else " "
                line, used = line + run, used + len(run)
            continue
        w = cell_width(tok)
        if used + w > width and line.strip():
            lines.append(line.rstrip())
            line, used = "", 0
        if w > width:
            *heads, tok = reference_heads(tok, width)
            lines += heads
            w = cell_width(tok)
        line, used = line + tok, used + w
    lines.append(line.rstrip())
    return lines


HOSTILE = [
    "",
    "    def lookup(block_table, position):\n        block = block_table[position  //  16]",
    "  - nested item " * 12,
    " " * 300 + "far indented",
    "\tindented by a tab\t\tand inside",
    "    " + "长" * 60,
    "  \u3000 indent then wide space",
    " ",
    "\n\n\n",
    "  leading and trailing  \t",
    "tabs\tbetween\t\twords\tand\x0bvertical\x0cfeeds\r\nwindows line ends\r",
    "separators\x1cfile\x1dgroup\x1erecord\x1funit end",
    "controls\x01in\x7fwords\x00here " * 5,
    "x" * 1000,
    "a" * 79 + " " + "b" * 81 + " c",
    "ab " + "长" * 45,
    "（括号）「引号」『双引』《书名》〈单〉【方】“双”‘单’",
    "中文，标点。" * 30 + "结束！？",
    "，，，，开头就是标点。。。。" * 8,
    "（（（（（（（（（（（（（（（（（（（（（（（（（（（（（（",
    "word,word.word;word:word!word?word)" * 12,
    "e\u0301e\u0301e\u0301 cafe\u0301 na\u0308ive " * 20,  # combining marks
    "\u0301\u0301\u0301 lone combining marks \u20dd\u20dd",
    "👨\u200d👩\u200d👧\u200d👦 family 🏳\ufe0f\u200d🌈 flag ❤\ufe0f heart " * 10,
    "\u200d\ufe0f\u200d start with joiners",
    "全角ＡＢＣ１２３ｘｙｚ　全角空格　分开" * 10,
    "ｶﾀｶﾅ半角 ひらがな カタカナ 한국어 텍스트 " * 10,
    "混合English和中文mixed在一起without空格" * 10,
    "https://example.org/a/very/long/path/without/any/space/at/all/" * 5 + "。",
    "\u3000\u3000全角空格开头\u3000\u2003em space\u00a0nbsp\u2028line sep\u2029para",
    "𠀀𠀁𠀂 extension B 𪜀 and emoji 🎉🎉🎉" * 10,
    "\ue000private\U000f0000use \ufffd replacement \U0010ffff",
]


def corpus() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(ASSETS.glob("0*.txt"))]


def test_the_bundled_corpus_wraps_to_the_same_lines() -> None:
    texts = corpus()
    assert texts and sum(map(len, texts)) > 40_000  # the corpus is there
    for text in texts:
        paras = text.split("\n")
        for width in WIDTHS:
            for para in paras:
                assert wrap_cells(para, width) == reference_wrap(para, width), (width, para)
        assert wrap_cells(text, 57) == reference_wrap(text, 57)


@pytest.mark.parametrize("width", WIDTHS)
def test_hostile_text_wraps_to_the_same_lines(width: int) -> None:
    for text in HOSTILE:
        assert wrap_cells(text, width) == reference_wrap(text, width), text


def test_random_mixtures_wrap_to_the_same_lines() -> None:
    pieces = [
        " ", "  ", "\t", "\u3000", "\r", "长", "文", "，", "。", "（", "）", "「", "」", "%",
        "…", "a", "word", "x" * 30, ",", ".", "(", ")", "e\u0301", "\u0301", "🎉", "\u200d",
        "\ufe0f", "ｱ", "Ａ", "\x01", "\x1c", "한", "—", "·",
    ]  # fmt: skip
    rng = random.Random(7)
    for _ in range(600):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 120)))
        width = rng.choice(WIDTHS)
        assert wrap_cells(text, width) == reference_wrap(text, width), (width, text)


def test_one_character_measures_as_its_cells() -> None:
    """wrap_cells takes a one-character word's width from char_cells rather than
    cell_width: the two agree on every code point of the first three planes."""
    for code in range(0x30000):
        if 0xD800 <= code < 0xE000:  # surrogates are no characters
            continue
        ch = chr(code)
        assert cell_width(ch) == char_cells(ch), hex(code)


def test_code_keeps_its_indentation_and_alignment() -> None:
    code = "Look:\n\n    def lookup(table, at):\n        block  = table[at // 16]\n\treturn block"
    assert wrap_cells(code, 40) == [
        "Look:",
        "",
        "    def lookup(table, at):",
        "        block  = table[at // 16]",
        "    return block",
    ]


def test_an_indented_line_wraps_under_its_indentation() -> None:
    item = "  - a nested item long enough to wrap"
    assert wrap_cells(item, 20) == ["  - a nested item", "  long enough to", "  wrap"]
    # prose keeps collapsing its runs of white space
    assert wrap_cells("two  spaces\tand a tab", 40) == ["two spaces and a tab"]


def test_indentation_is_at_most_half_the_line() -> None:
    assert wrap_cells(" " * 10_000 + "word", 20) == [" " * 10 + "word"]
