"""The entries of one view (a topic, the bookmarks or a search): marks, title, source
and date, in columns cut and padded in terminal cells."""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from topiclens.store.pages import TopicRows, index_of
from topiclens.text import cell_width, fit_cells

from ..display import fit_line
from ..model import Row
from .cursor_list import CursorList

BOOKMARK_MARK = "★"
UNREAD_MARK = "●"
NEW_MARK = "✦"  # unread, and brought by a refresh of the feeds in this session
ALSO_HERE = "also here"  # after the title of a row whose own topic is another


def also_suffix(title_w: int) -> str:
    """What follows the title of an "also here" row in a title column ``title_w`` cells
    wide: the words when they leave the title most of the column, else a shorter mark."""
    if title_w >= 3 * len(ALSO_HERE):
        return " " + ALSO_HERE
    return " also" if title_w >= 12 else "+"


def matched_segments(
    text: str, pattern: re.Pattern[str] | None, style: Style, match: Style
) -> list[Segment]:
    """``text`` in ``style``, with what ``pattern`` finds in it (a search's words and
    concept forms) in ``style + match``: styles, never markup."""
    if pattern is None:
        return [Segment(text, style)]
    out: list[Segment] = []
    at = 0
    for m in pattern.finditer(text):
        start, end = m.span()
        if end <= start:
            continue
        if start > at:
            out.append(Segment(text[at:start], style))
        out.append(Segment(text[start:end], style + match))
        at = end
    if at < len(text) or not out:
        out.append(Segment(text[at:], style))
    return out


def columns(width: int) -> tuple[int, int, int]:
    """Cells for the title, the source and the date in a list ``width`` cells wide
    (0: the column is left out); the two marks and a space take the first three."""
    date_w = 10 if width >= 40 else 0
    source_w = min(18, max(0, (width - 40) // 3)) if width >= 60 else 0
    title_w = max(0, width - 3 - (source_w + 2 if source_w else 0) - (date_w + 1 if date_w else 0))
    return title_w, source_w, date_w


class EntryList(CursorList):
    """The entries of one view: showing 100,000 rows costs what showing a screenful costs."""

    CLICKS_TO_SELECT: ClassVar[int] = 2  # a click moves the cursor, a double click opens

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "entry-list--unread",
        "entry-list--meta",
        "entry-list--mark",
        "entry-list--empty",
        "entry-list--match",
    }

    # what a search matched, in the titles (the theme's stylesheet may restyle it)
    DEFAULT_CSS = """
    EntryList > .entry-list--match { color: $text-warning; text-style: bold underline; }
    """

    bookmarks: reactive[frozenset[str]] = reactive(frozenset, always_update=True)
    read: reactive[frozenset[str]] = reactive(frozenset, always_update=True)
    new: reactive[frozenset[str]] = reactive(frozenset, always_update=True)
    empty_text: reactive[str] = reactive("Nothing here.")

    class Highlighted(Message):
        """The cursor is on entry ``entry_id`` (None: the list is empty)."""

        def __init__(self, entry_id: str | None) -> None:
            super().__init__()
            self.entry_id = entry_id

    class Opened(Message):
        """Enter on entry ``entry_id``."""

        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.rows: Sequence[Row] = []
        self._length = 0  # len(rows) as the list was sized for it
        self._resizing = False  # a paged topic's length changed: sized again soon
        self.also_from: int | None = None  # rows from here on are "also here" rows
        # a search's: the line above its concept matches (the rows from also_from on)
        self.divider: str | None = None
        self._divider_line: int | None = None
        # what a search matched (its words and concept forms), marked in the titles
        self.highlight: re.Pattern[str] | None = None
        # the read, new and bookmarked entries as a frame's row keys read them
        self._frame_marks: tuple[frozenset[str], frozenset[str], frozenset[str]] = (
            frozenset(),
            frozenset(),
            frozenset(),
        )

    @property
    def item_count(self) -> int:
        return len(self.rows)

    @property
    def line_count(self) -> int:
        if not self.rows:
            return 2  # the empty text sits on the second line
        return len(self.rows) + (self._divider_line is not None)

    def item_at(self, line: int) -> int | None:
        split = self._divider_line
        if split is not None and line >= split:
            line = line - 1 if line > split else -1  # the divider is no item
        return line if 0 <= line < len(self.rows) else None

    def line_of(self, item: int) -> int:
        split = self._divider_line
        return item + 1 if split is not None and item >= split else item

    @property
    def current_id(self) -> str | None:
        row = self.row(self.cursor) if self.cursor is not None else None
        return row[0] if row is not None else None

    def row(self, index: int) -> Row | None:
        """Row ``index``; None past the end. A paged topic whose stored size proved wrong
        while it was read has another length now: the list is sized again after this."""
        try:
            row = self.rows[index]
        except IndexError:
            row = None
        if len(self.rows) != self._length and not self._resizing:
            self._resizing = True
            self.call_later(self._resized)
        return row

    def _resized(self) -> None:
        self._resizing = False
        rows = self.rows
        if len(rows) == self._length:  # (other rows shown since)
            return
        self._length = len(rows)
        if self.also_from is not None:
            self._also_after(rows)
        self.content_changed(self.cursor)
        self.post_message(self.Highlighted(self.current_id))

    def _also_after(self, rows: Sequence[Row]) -> None:
        """A paged topic's "also here" rows (and a search's divider) start after its own,
        as many as its length now holds."""
        if isinstance(rows, TopicRows):
            self.also_from = len(rows) - rows.also
            self._divider_line = self.also_from if self.divider is not None else None

    def show_rows(
        self,
        rows: Sequence[Row],
        keep: str | None = None,
        *,
        also: int = 0,
        divider: str | None = None,
    ) -> None:
        """Show ``rows`` (the last ``also`` of them marked "also here", or with
        ``divider`` a line saying so above them), with the cursor on entry ``keep`` if it
        is there, else the top."""
        self.rows = rows
        self.also_from = len(rows) - also if also else None
        self.divider = divider if also else None
        self._divider_line = self.also_from if self.divider is not None else None
        index = 0
        if keep is not None:
            index = index_of(rows, keep) or 0  # (asks the store where, of a paged topic)
        self._length = len(rows)  # (after index_of: it may have counted a paged topic)
        if also:
            self._also_after(rows)
        self.content_changed(index, center=True)
        self.post_message(self.Highlighted(self.current_id))

    def watch_bookmarks(self) -> None:
        self.refresh()

    def watch_read(self) -> None:
        self.refresh()

    def watch_new(self) -> None:
        self.refresh()

    def cursor_moved(self, index: int | None) -> None:
        self.post_message(self.Highlighted(self.current_id))

    def selected(self, index: int) -> None:
        row = self.row(index)
        if row is not None:
            self.post_message(self.Opened(row[0]))

    def line_styles(self) -> dict[str, Style]:
        base = self.rich_style
        get = self.get_component_rich_style
        styles = {
            "": base,
            "unread": base + get("entry-list--unread"),
            "meta": base + get("entry-list--meta"),
            "mark": base + get("entry-list--mark"),
            "empty": base + get("entry-list--empty"),
        }
        match = get("entry-list--match")
        styles = styles | self.cursor_styles(styles)
        styles["match"] = match
        # on the cursor's row, the match keeps the cursor's colours and takes its text style
        styles["match-cursor"] = styles["-cursor"] + Style(
            bold=match.bold, underline=match.underline
        )
        return styles

    def frame_started(self) -> None:
        self._frame_marks = (self.read, self.new, self.bookmarks)  # (reactives: read once)

    def line_key(self, line: int, width: int) -> Hashable | None:
        # every input of render_list_line: the row itself, its marks, whether it is an
        # "also here" row and what a search marks in it
        if not self.rows:
            return ("empty", self.empty_text) if line == 1 else ("blank",)
        if line == self._divider_line and self.divider is not None:
            return ("divider", self.divider)
        index = self.item_at(line)
        row = None if index is None else self.row(index)
        if index is None or row is None:
            return ("blank",)
        row_id = row[0]
        also = self.divider is None and self.also_from is not None and index >= self.also_from
        read, new, bookmarks = self._frame_marks
        marks = (row_id not in read, row_id in new, row_id in bookmarks)
        return ("row", tuple(row), marks, also, self.highlight)

    def render_list_line(self, line: int, width: int, at_cursor: bool) -> Strip:
        styles = self._styles
        if not self.rows:
            if line == 1:
                text = "  " + fit_line(self.empty_text, width - 2)
                return Strip([Segment(text, styles["empty"])], width)
            return Strip.blank(width, styles[""])
        if line == self._divider_line and self.divider is not None:
            text = fit_cells(f"── {self.divider} ", width)  # the reader's own words
            return Strip([Segment(text + "─" * (width - cell_width(text)), styles["meta"])], width)
        index = self.item_at(line)
        row = None if index is None else self.row(index)
        if index is None or row is None:
            return Strip.blank(width, styles[""])
        row_id, title, source, date = row
        unread = row_id not in self.read
        at = "-cursor" if at_cursor else ""
        style = styles[("unread" if unread else "") + at]
        meta, mark = styles["meta" + at], styles["mark" + at]
        unread_mark = (NEW_MARK if row_id in self.new else UNREAD_MARK) if unread else " "
        marks = unread_mark + (BOOKMARK_MARK if row_id in self.bookmarks else " ")
        title_w, source_w, date_w = columns(width)
        segments = [Segment(marks + " ", mark)]
        found = styles["match" + at]
        also = self.divider is None and self.also_from is not None and index >= self.also_from
        if also and title_w:
            suffix = also_suffix(title_w)
            shown = fit_line(title, title_w - len(suffix))
            segments += matched_segments(shown, self.highlight, style, found)
            segments.append(Segment(suffix, meta))
        else:
            segments += matched_segments(fit_line(title, title_w), self.highlight, style, found)
        if source_w:
            segments.append(Segment("  " + fit_line(source, source_w), meta))
        if date_w:
            segments.append(Segment(" " + fit_line(date or "", date_w), meta))
        # every part was padded to its cells: give the length rather than measure it
        used = 3 + title_w + (source_w + 2 if source_w else 0) + (date_w + 1 if date_w else 0)
        return Strip(segments, used).adjust_cell_length(width, style)
