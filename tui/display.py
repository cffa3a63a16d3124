"""Text from the store on its way to the screen: cleaned by the one terminal gate
(``topiclens.text.terminal_text`` / ``terminal_line``) and never parsed as markup."""

from __future__ import annotations

from functools import lru_cache

from textual.content import Content
from textual.markup import escape
from topiclens.text import cell_width, fit_cells, terminal_line, terminal_text

__all__ = [
    "fit_line",
    "literal",
    "markup_literal",
    "terminal_line",
    "terminal_text",
]


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
    text = fit_cells(terminal_line(text), width)
    return text + " " * (width - cell_width(text))
