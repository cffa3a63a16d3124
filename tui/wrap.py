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
        glued: list[str] = []
        for tok in tokens(para):
            glue = glued and not tok.isspace() and not glued[-1].isspace()
            if glue and (tok[0] in NO_LINE_START or glued[-1][-1] in NO_LINE_END):
                glued[-1] += tok
                continue
            glued.append(tok)
        line, used = "", 0
        for tok in glued:
            if tok.isspace():
                if line:
                    line, used = line + " ", used + 1
                continue
            w = cell_width(tok)
            if used + w > width and line.strip():
                lines.append(line.rstrip())
                line, used = "", 0
            if w > width:  # a word longer than the line: cut it, once along it
                *heads, tok = _heads(tok, width)
                lines += heads
                w = cell_width(tok)
            line, used = line + tok, used + w
        lines.append(line.rstrip())
    return lines
