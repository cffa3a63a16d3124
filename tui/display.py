"""Text from the store on its way to the screen: cleaned by the one terminal gate
(``store.text.terminal_text`` / ``terminal_line``) and never parsed as markup."""

from __future__ import annotations

from functools import lru_cache

from textual.content import Content
from textual.markup import escape
from topiclens.store.text import terminal_line, terminal_text

__all__ = ["cached_line", "literal", "markup_literal", "terminal_line", "terminal_text"]

# The entry list draws the same titles and sources frame after frame: each is cleaned once.
cached_line = lru_cache(maxsize=8192)(terminal_line)


def literal(text: str) -> Content:
    """One line of data as Content: cleaned, and shown as written (``[/]`` stays ``[/]``)."""
    return Content(terminal_line(text))


def markup_literal(text: str) -> str:
    """One line of data for a Textual API that reads markup (the command palette's titles)."""
    return escape(terminal_line(text))
