"""The one private piece of Textual the reader uses, kept here so an upgrade has one place
to check."""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Give a Line API view a new scrollable size without a layout of the whole screen.

    Setting ``virtual_size`` reflows the screen, because a scrollbar that appears takes
    room from the content. The reader's views keep that room (``scrollbar-gutter: stable``),
    so only the view and its scrollbar need drawing again: at 100,000 entries that halves
    what a cursor move costs (docs/reader.md, "Speed")."""
    if size != view.virtual_size:
        view.set_reactive(ScrollView.virtual_size, size)
        view._scroll_update(size)  # private: sizes the scrollbars, which a reflow would do
        view.refresh()
