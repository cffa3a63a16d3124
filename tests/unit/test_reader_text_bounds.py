"""Stored text on its way to the reader's panes: cut before it is cleaned or laid out, and
wrapped in one pass however long a word is. No app: the functions alone."""

from __future__ import annotations

from topiclens.text import cell_width
from topiclens.tui.display import LINE_MAX_CHARS, TEXT_MAX_CHARS, fit_line, terminal_line
from topiclens.tui.display import terminal_text as shown_text
from topiclens.tui.links import unsafe_link
from topiclens.tui.wrap import wrap_cells


def test_one_line_is_cut_at_its_bound_and_cleaned():
    assert terminal_line("a\x1b]0;t\x07 b") == "a]0;t b"
    huge = "\x1b[2J" + "名" * 10_000_000
    line = terminal_line(huge)
    assert line.endswith("…") and len(line) <= LINE_MAX_CHARS + 1
    assert "\x1b" not in line and line.startswith("[2J名名")


def test_several_lines_are_cut_at_theirs():
    text = shown_text("line one\n" + "x" * (2 * TEXT_MAX_CHARS))
    assert text.startswith("line one\nxxx") and text.endswith("…")
    assert len(text) == TEXT_MAX_CHARS + 1
    assert shown_text("kept\nas\x07 written") == "kept\nas written"


def test_a_list_cell_of_a_huge_title_is_its_width():
    cell = fit_line("长" * 5_000_000, 40)
    assert cell_width(cell) == 40 and cell.rstrip().endswith("…")


def test_a_long_word_wraps_into_full_lines_in_one_pass():
    lines = wrap_cells("x" * 100_000, 80)
    assert len(lines) == 1250 and set(lines) == {"x" * 80}
    lines = wrap_cells("ab " + "长" * 45, 20)
    assert lines[0] == "ab " + "长" * 8 and all(cell_width(line) <= 20 for line in lines)
    assert "".join(lines).replace(" ", "") == "ab" + "长" * 45


def test_a_link_is_safe_to_paste_only_when_web_and_visible():
    assert unsafe_link("https://example.org/a?q=投机&x=1#b") is None
    assert unsafe_link("http://example.org/") is None
    assert unsafe_link("HTTPS://EXAMPLE.ORG/") is None
    assert unsafe_link("ftp://example.org/") == "it is not a web link"
    assert "U+001B" in (unsafe_link("https://e.org/\x1b]52;c;eA==\x07") or "")
    assert "U+0085" in (unsafe_link("https://e.org/\x85") or "")
    assert "U+200B" in (unsafe_link("https://e.org/\u200bx") or "")
    assert "U+0020" in (unsafe_link("https://e.org/a b") or "")
