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


def _words(para: str) -> list[str | None]:
    """The paragraph's pieces a line may not break inside (a run of other characters, a
    wide character, with the punctuation glued to it that may not start or end a line),
    None where white space was."""
    out: list[str | None] = []
    for i, chunk in enumerate(_SPACE.split(para)):
        if i % 2:  # odd chunks are the white space split on
            out.append(None)
        elif chunk.isascii():
            if chunk:
                out.append(chunk)
        else:
            glue = False  # only within a chunk: white space ends the one before
            for tok in _split_wide(chunk):
                if glue and (tok[0] in NO_LINE_START or out[-1][-1] in NO_LINE_END):  # type: ignore[index]
                    out[-1] += tok  # type: ignore[operator]
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


def wrap_cells(text: str, width: int) -> list[str]:
    """Wrap ``text`` to ``width`` terminal cells the way Chinese is set: a line may break
    between any two wide characters (not only at spaces), never before closing
    punctuation nor after opening punctuation; English words stay whole unless longer
    than a line."""
    width = max(4, width)
    lines: list[str] = []
    for para in text.split("\n"):
        if len(para) * 2 <= width or (len(para) <= width and para.isascii()):
            # fits, at two cells a character at most (one in ASCII): its white space runs
            # become single spaces, and none at either end
            lines.append(" ".join(para.split()))
            continue
        line, used = "", 0
        for tok in _words(para):
            if tok is None:
                if line:
                    line, used = line + " ", used + 1
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
