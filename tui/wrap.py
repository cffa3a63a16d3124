"""Wrapping text to terminal cells the way Chinese is set (the detail pane, the overview
and the help screen use it)."""

from __future__ import annotations

import re

from topiclens.text import cell_width, char_cells

_SPACE = re.compile(r"(\s+)")
NO_LINE_START = frozenset("，。、；：！？）」』”’》〉】%…,.;:!?)")
NO_LINE_END = frozenset("（「『“‘《〈【(")


def tokens(para: str) -> list[str]:
    """Runs of white space, single wide characters (two cells: CJK ideographs, kana,
    CJK and full-width punctuation), and runs of anything else."""
    out: list[str] = []
    for i, chunk in enumerate(_SPACE.split(para)):
        if not chunk:
            continue
        if i % 2 or chunk.isascii():  # odd chunks are the white space split on
            out.append(chunk)
        else:
            out += _split_wide(chunk)
    return out


# the cells of each character wrapped so far: a look-up here costs a tenth of asking rich
# again; bounded, as hostile text may hold every code point there is
_CELLS: dict[str, int] = {}
_CELLS_KEPT = 65_536


def _split_wide(chunk: str) -> list[str]:
    """``chunk`` (no white space) as single wide characters and runs of anything else."""
    out: list[str] = []
    cells = _CELLS
    start = 0
    for n, ch in enumerate(chunk):
        w = cells.get(ch)
        if w is None:
            w = char_cells(ch)
            if len(cells) < _CELLS_KEPT:
                cells[ch] = w
        if w == 2:
            if n > start:
                out.append(chunk[start:n])
            out.append(ch)
            start = n + 1
    if start < len(chunk):
        out.append(chunk[start:])
    return out


def _words(para: str, keep_spaces: bool = False) -> list[str]:
    """The paragraph's pieces a line may not break inside (a run of other characters, a
    wide character, with the punctuation glued to it that may not start or end a line),
    and between them its white space: one space for each run, or with ``keep_spaces`` a
    run of plain spaces as it is."""
    out: list[str] = []
    for i, chunk in enumerate(_SPACE.split(para)):
        if i % 2:  # odd chunks are the white space split on
            out.append(chunk if keep_spaces and not chunk.strip(" ") else " ")
        elif chunk.isascii():
            if chunk:
                out.append(chunk)
        else:
            glue = False  # only within a chunk: white space ends the one before
            for tok in _split_wide(chunk):
                if glue and (tok[0] in NO_LINE_START or out[-1][-1] in NO_LINE_END):
                    out[-1] += tok
                else:
                    out.append(tok)
                glue = True
    return out


def _heads(word: str, width: int) -> list[str]:
    """``word`` in pieces of at most ``width`` cells (at least one character each), read
    once from start to end."""
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


# Columns a tab stands for: the HTML renderer's, and narrow enough for the detail pane.
TAB_CELLS = 4


def wrap_cells(text: str, width: int) -> list[str]:
    """Wrap ``text`` to ``width`` terminal cells the way Chinese is set: a line may break
    between any two wide characters (not only at spaces), never before closing
    punctuation nor after opening punctuation; English words stay whole unless longer
    than a line. A line that starts with spaces (code, a nested list) keeps them, up to
    half the width, on each of its wrapped lines, and keeps the runs of spaces inside it;
    elsewhere each run of white space becomes one space."""
    width = max(4, width)
    lines: list[str] = []
    for para in text.split("\n"):
        if "\t" in para:
            para = para.expandtabs(TAB_CELLS)
        if para[:1] == " " and not para.isspace():
            body = para.lstrip(" ")
            indent = " " * min(len(para) - len(body), width // 2)
            if len(body) + len(indent) <= width and body.isascii() and body.isprintable():
                lines.append(indent + body.rstrip())
            else:
                lines += [indent + line for line in _fill(body, width - len(indent), True)]
        elif len(para) * 2 <= width or (len(para) <= width and para.isascii()):
            # fits, at two cells a character at most (one in ASCII): its white space runs
            # become single spaces, and none at either end
            lines.append(" ".join(para.split()))
        else:
            lines += _fill(para, width, False)
    return lines


def _fill(para: str, width: int, keep_spaces: bool) -> list[str]:
    """``para`` (one line of text) wrapped to ``width`` cells."""
    lines: list[str] = []
    line, used = "", 0
    for tok in _words(para, keep_spaces):
        if tok[0] == " ":  # white space: none at a line's start
            if line:
                line, used = line + tok, used + len(tok)
            continue
        if tok.isascii() and tok.isprintable():
            w = len(tok)
        elif len(tok) == 1:
            w = _CELLS.get(tok) or char_cells(tok)
        else:
            w = cell_width(tok)
        if used + w > width and line:
            lines.append(line.rstrip())
            line, used = "", 0
        if w > width:  # a word longer than the line: cut it, once along it
            *heads, tok = _heads(tok, width)
            lines += heads
            w = cell_width(tok)
        line, used = line + tok, used + w
    lines.append(line.rstrip())
    return lines
