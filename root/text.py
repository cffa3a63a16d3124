"""Text helpers every layer shares: what a Chinese character is, how many terminal cells
text takes, and the one gate text passes on its way to a terminal. Pure functions, no I/O.

Cell widths are rich's (``rich.cells``), the measure Textual draws with, so a row cut
here is the row the reader shows: an emoji sequence joined by ZWJ is one glyph of two
cells, as the terminal draws it.
"""

from __future__ import annotations

import re

from rich.cells import cell_len, get_character_cell_size, split_graphemes

# What counts as a Chinese character everywhere in topiclens (CJK unified ideographs,
# extension A, compatibility ideographs); jieba's own narrower range stays in tokenize.py.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# compiled on first use by re's cache: the clustering asks, the reader's start does not
# (a range this wide takes ~1 ms to compile)
_HAN_ONLY = f"[{HAN}]+"


def is_han(text: str) -> bool:
    """Whether every character of ``text`` is a Chinese character (see ``HAN``)."""
    return bool(text) and re.fullmatch(_HAN_ONLY, text) is not None


# --- terminal cells ----------------------------------------------------------------------


def char_cells(ch: str) -> int:
    """Terminal cells one character takes: 2 for wide East Asian characters and emoji,
    0 for combining marks and joiners, else 1."""
    # the common Chinese characters take two cells in every Unicode version rich knows:
    # answered here, without rich's search of its table (some 30k instructions a character)
    if "\u4e00" <= ch <= "\u9fa5":
        return 2
    return get_character_cell_size(ch)


def cell_width(text: str) -> int:
    """Terminal cells ``text`` takes, grapheme by grapheme (a ZWJ sequence is one glyph)."""
    return cell_len(text)


# code points one cell may take in text a person wrote (an emoji sequence joined by ZWJ
# takes 3.5); fit_cells looks no further than this many per cell of the width
CHARS_A_CELL = 8


def fit_cells(text: str, width: int, ellipsis: str = "…") -> str:
    """Cut ``text`` to at most ``width`` terminal cells, ending with ``ellipsis`` if cut;
    never inside a glyph. Reads only as far as the cut: a 50 MB title costs what its
    first line of cells does."""
    if len(text) <= width // 2:  # at most two cells a character: it fits
        return text
    head = text[: CHARS_A_CELL * (width + 1)]
    if len(head) == len(text) and cell_len(text) <= width:
        return text
    budget = width - cell_len(ellipsis)
    end = used = 0
    if "\u200d" in head or "\ufe0f" in head:  # joined glyphs: rich's split of the whole head
        for _, stop, cells in split_graphemes(head)[0]:
            if used + cells > budget:
                break
            used += cells
            end = stop
    else:  # a glyph a character (zero-width ones join the one before): measured up to the cut
        for n, ch in enumerate(head):
            cells = char_cells(ch)
            if used + cells > budget:
                break
            used += cells
            end = n + 1
    head = text[:end]
    # rich's grapheme split and its cell_len disagree on nonsense (a ZWJ first): measured
    # again, and shortened until it fits
    while head and cell_len(head) > budget:
        head = head[:-1]
    return head.rstrip(" ,，、：:;；") + ellipsis


# --- the terminal gate -------------------------------------------------------------------

# Characters a terminal acts on: C0 controls but tab and newline, DEL, and C1 controls
# (ESC starts OSC 52 clipboard writes, window titles, screen clears).
_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f"
# Bidi controls reorder what is shown around them: made visible, never obeyed.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Every other invisible format character (Unicode category Cf) and the line and paragraph
# separators, except ZWJ and ZWNJ, which shape emoji and scripts and move nothing.
_FORMAT = (
    "\u00ad\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u2028\u2029"
    "\u2060-\u2064\u206a-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)
# compiled by re (and kept in its cache) the first time unsafe text is shown, not at start
# (a class this wide takes some 2M instructions to compile)
_UNSAFE = f"[{_CONTROL}{_BIDI}{_FORMAT}]"
_BIDI_CHARS = f"[{_BIDI}]"


def _harmless(match: re.Match[str]) -> str:
    ch = match.group()
    return f"<U+{ord(ch):04X}>" if re.match(_BIDI_CHARS, ch) else ""


def terminal_text(text: str) -> str:
    """``text`` as it may reach a terminal: controls dropped (newline and tab kept), bidi
    controls shown as ``<U+202E>``, other invisible format characters dropped.

    Every string from the data passes here on its way out (panes, toasts, CLI lines,
    Markdown and CSV exports); the store keeps the text exactly as imported."""
    # every character above is a control, a format character or a separator, none of which
    # str.isprintable accepts: text printable once its tabs and newlines are set aside is safe
    if text.isprintable() or text.replace("\n", "").replace("\t", "").isprintable():
        return text
    if re.search(_UNSAFE, text) is None:
        return text
    return re.sub(_UNSAFE, _harmless, text)


def terminal_line(text: str) -> str:
    """:func:`terminal_text` on one line: every run of white space (newlines, tabs, line
    separators) becomes one space, so a name or title can never split a line."""
    # str.split() breaks on every Unicode space and line break, U+2028/U+2029 included
    return terminal_text(" ".join(text.split())).strip()
