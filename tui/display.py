"""Text from the store on its way to the screen: cleaned by the one terminal gate
(``topiclens.text.terminal_text`` / ``terminal_line``), cut to what a screen can show
before it is laid out, and never parsed as markup. Every widget of the reader takes
stored text from here."""

from __future__ import annotations

from functools import lru_cache

from textual.content import Content
from textual.markup import escape
from topiclens import text as gate
from topiclens.text import cell_width, fit_cells

__all__ = [
    "cut_line",
    "fit_line",
    "literal",
    "markup_literal",
    "terminal_line",
    "terminal_text",
]

# One line of data (a title, a name, a path) is cut to this many characters before it is
# cleaned or laid out: more than the widest terminal shows, so a 50 MB title costs what
# a screenful does. Several lines (a summary, a comment, a note) are cut at TEXT_MAX_CHARS.
LINE_MAX_CHARS = 4096
TEXT_MAX_CHARS = 200_000
CUT = "…"


def terminal_line(text: str) -> str:
    """``text`` as one line a terminal may show (``topiclens.text.terminal_line``), at
    most about :data:`LINE_MAX_CHARS` characters: a longer one is cut, ending in ``…``."""
    if len(text) <= LINE_MAX_CHARS:
        return gate.terminal_line(text)
    return gate.terminal_line(text[:LINE_MAX_CHARS]) + CUT


def terminal_text(text: str) -> str:
    """``text`` as lines a terminal may show (``topiclens.text.terminal_text``), at most
    :data:`TEXT_MAX_CHARS` characters: a longer one is cut, ending in ``…``."""
    if len(text) <= TEXT_MAX_CHARS:
        return gate.terminal_text(text)
    return gate.terminal_text(text[:TEXT_MAX_CHARS]) + CUT


def cut_line(text: str, cells: int) -> str:
    """One line of data cleaned and cut to at most ``cells`` terminal cells (ending in ``…``
    when cut): for a dialog's subject or a toast, which are never wider than that."""
    return fit_cells(terminal_line(text), cells)


def literal(text: str) -> Content:
    """One line of data as Content: cleaned, and shown as written (``[/]`` stays ``[/]``)."""
    return Content(terminal_line(text))


def markup_literal(text: str) -> str:
    """One line of data for a Textual API that reads markup (the command palette's titles)."""
    return escape(terminal_line(text))


@lru_cache(maxsize=16384)
def fit_line(text: str, width: int) -> str:
    """``text`` cleaned, cut as the command line cuts it (``topiclens.text.fit_cells``, with an
    ellipsis) and padded to exactly ``width`` terminal cells. Cached: the entry list asks
    for the same titles at the same width frame after frame."""
    if width <= 0:
        return ""
    text = cut_line(text, width)
    return text + " " * (width - cell_width(text))
