"""Entries similar to the one shown, under it; Enter jumps to one."""

from __future__ import annotations

from collections.abc import Hashable
from typing import ClassVar

from rich.style import Style
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from topiclens.text import cell_width

from ..display import fit_line, terminal_line
from ..model import Detail, Row
from .cursor_list import CursorList, ListLine
from .topic_list import list_styles

NO_SIMILAR: ListLine = [(" No similar entries.", "muted-italic")]


def similar_line(row: Row, width: int) -> ListLine:
    """One entry, padded one cell on each side: the title, then its source and date
    muted, cut with an ellipsis where the pane ends."""
    _id, title, source, date = row
    room = max(1, width - 2)
    title = terminal_line(title)
    meta = terminal_line(" ".join(filter(None, (source, date or ""))))
    title_w = cell_width(title)
    if title_w + 2 + cell_width(meta) <= room:
        parts = [(title, ""), ("  " + meta, "muted")]
    elif title_w < room - 1:
        parts = [(title, ""), ("  " + fit_line(meta, room - title_w - 2), "muted")]
    else:
        parts = [(fit_line(title, room), "")]
    return [(" ", ""), *parts, (" ", "")]


class SimilarList(CursorList):
    """Entries similar to the one shown; Enter jumps to one. Its height is fixed in CSS:
    new entries repaint it without a layout of the screen."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "cursor-list--cursor",
        "cursor-list--muted",
        "cursor-list--separator",
    }

    class Jump(Message):
        """Enter on the similar entry ``entry_id``."""

        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    detail: reactive[Detail | None] = reactive(None, always_update=True)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._rows: list[Row] = []
        self._lines: list[ListLine] = []
        self._lines_width = -1
        self._shown: str | None = None  # the entry whose similar entries these are

    @property
    def item_count(self) -> int:
        return len(self._rows)

    @property
    def line_count(self) -> int:
        return max(1, len(self._rows))  # "No similar entries." when there are none

    @property
    def current_id(self) -> str | None:
        """The highlighted similar entry (b, N and r act on it while this list has focus)."""
        cursor = self.cursor
        return self._rows[cursor][0] if cursor is not None and cursor < len(self._rows) else None

    def watch_detail(self, detail: Detail | None) -> None:
        shown = detail.entry.id if detail is not None else None
        # the same entry again (its bookmark or read state changed): the cursor stays
        cursor = self.cursor if shown == self._shown and self.cursor is not None else 0
        self._shown = shown
        self._rows = [row for row, _score in detail.similar] if detail is not None else []
        self._lines_width = -1
        self.content_changed(cursor if self._rows else None)

    def line_styles(self) -> dict[str, Style]:
        return list_styles(self)

    def line_parts(self, line: int, width: int) -> ListLine:
        if width != self._lines_width:  # built when first drawn, at the laid-out width
            self._lines = [similar_line(row, width) for row in self._rows]
            self._lines_width = width
        return self._lines[line] if self._rows else NO_SIMILAR

    def line_key(self, line: int, width: int) -> Hashable | None:
        return tuple(self.line_parts(line, width))  # the line is its parts

    def render_list_line(self, line: int, width: int, at_cursor: bool) -> Strip:
        return self.strip(self.line_parts(line, width), width, at_cursor and bool(self._rows))

    def selected(self, index: int) -> None:
        if 0 <= index < len(self._rows):
            self.post_message(self.Jump(self._rows[index][0]))
