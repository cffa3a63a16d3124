"""The base of every list with a cursor in the reader, drawn line by line (Line API)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from ..commands import NAVIGATION, bindings
from ..textual_compat import StyleStamp, set_virtual_size, vertical_scrollbar
from .line_cache import KeptScrollBar, LineCache, look_of

# A line of a list: (text, style name) parts. Style names are keys of ``line_styles()``.
ListLine = list[tuple[str, str]]


class CursorList(ScrollView, can_focus=True):
    """A list of items with a cursor: keys, paging, clicks, scrolling the cursor into
    view and repainting on focus are written here once.

    Only the lines on screen are drawn (``render_list_line``), so a list of 100,000 items
    costs what a screenful costs, and a cursor move repaints the two lines it changes.
    An item is a line with a cursor stop; subclasses with lines that are not items (a
    separator) override ``line_of`` and ``item_at``."""

    BINDINGS = bindings(NAVIGATION)

    # the cursor's line, styled once for every list (reader.tcss, CursorList)
    COMPONENT_CLASSES: ClassVar[set[str]] = {"cursor-list--cursor"}

    # how many clicks on an item select it (Enter): 1 in the topic list, 2 in the entries
    CLICKS_TO_SELECT: ClassVar[int] = 1

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._cursor: int | None = None
        self._styles: dict[str, Style] = {}
        self._stamp = StyleStamp()  # _styles are kept until the styles are applied anew
        # finished lines by what they show: a list shown or scrolled again is copied
        self._finished = LineCache()
        # the frame being drawn's view (:meth:`_view`), read once for all its rows (None:
        # no frame)
        self._drawn: tuple[int, int, int, int | None] | None = None

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return vertical_scrollbar(self, KeptScrollBar)  # drawn from memory when seen before

    # --- what subclasses give --------------------------------------------------------

    @property
    def item_count(self) -> int:
        return 0

    @property
    def line_count(self) -> int:
        return self.item_count

    def line_of(self, item: int) -> int:
        return item

    def item_at(self, line: int) -> int | None:
        return line if 0 <= line < self.item_count else None

    def line_styles(self) -> dict[str, Style]:
        """Styles by name, from the widget's styles alone: resolved when they change (a
        focus, a theme), not once a frame or once a line."""
        return {"": self.rich_style}

    def render_list_line(self, line: int, width: int, at_cursor: bool) -> Strip:
        raise NotImplementedError

    def line_key(self, line: int, width: int) -> Hashable | None:
        """Everything ``render_list_line`` draws on ``line`` at ``width`` but the cursor
        and the styles (None: the line is drawn each time): a line whose key was drawn
        before is copied from memory."""
        return None

    def cursor_styles(self, styles: dict[str, Style]) -> dict[str, Style]:
        """Each of ``styles`` on the cursor's line (name + "-cursor"): the cursor's colours
        win over the part's own, whose muted colour would not read on the cursor's
        background; the part keeps its bold and italic."""
        cursor = self.get_component_rich_style("cursor-list--cursor")
        return {f"{name}-cursor": style + cursor for name, style in styles.items()}

    def cursor_moved(self, index: int | None) -> None:
        """The cursor moved to item ``index`` (by a key, a click or the program)."""

    def selected(self, index: int) -> None:
        """Enter (or a click) on item ``index``."""

    # --- the cursor ------------------------------------------------------------------

    @property
    def cursor(self) -> int | None:
        """The item under the cursor (None when the list has none)."""
        return self._cursor

    @cursor.setter
    def cursor(self, index: int) -> None:
        self.move_cursor(index)

    def move_cursor(self, index: int, *, announce: bool = True) -> None:
        """Put the cursor on item ``index`` (kept in range); ``announce`` calls
        :meth:`cursor_moved`."""
        if not self.item_count:
            return
        index = max(0, min(index, self.item_count - 1))
        old = self._cursor
        if index == old:
            return
        self._cursor = index
        top = round(self.scroll_y)
        self.scroll_cursor_visible()
        if round(self.scroll_y) == top and old is not None:
            self.refresh_line(self.line_of(old))  # only the two lines that changed
            self.refresh_line(self.line_of(index))
        else:
            self.refresh()
        if announce:
            self.cursor_moved(index)

    def content_changed(self, cursor: int | None, *, center: bool = False) -> None:
        """The items changed: size the view, put the cursor on ``cursor`` and show it
        (in the middle of the view when ``center``)."""
        count = self.item_count
        self._cursor = None if cursor is None or not count else max(0, min(cursor, count - 1))
        set_virtual_size(self, Size(self.scrollable_content_region.width, self.line_count))
        if center and self._cursor is not None:
            height = self.scrollable_content_region.height
            top = max(0, self.line_of(self._cursor) - height // 2)
            self.scroll_to(y=top, animate=False, immediate=True)
        self.scroll_cursor_visible()
        self.refresh()

    def scroll_cursor_visible(self) -> None:
        height = self.scrollable_content_region.height
        if self._cursor is None or height <= 0:
            return
        line = self.line_of(self._cursor)
        top = round(self.scroll_y)
        if line < top:
            self.scroll_to(y=line, animate=False, immediate=True)
        elif line >= top + height:
            self.scroll_to(y=line - height + 1, animate=False, immediate=True)

    def on_resize(self) -> None:
        set_virtual_size(self, Size(self.scrollable_content_region.width, self.line_count))
        self.scroll_cursor_visible()

    def on_focus(self) -> None:
        self.refresh()  # the cursor's colours follow the focus

    def on_blur(self) -> None:
        self.refresh()

    # --- keys and clicks -------------------------------------------------------------

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def action_cursor_up(self) -> None:
        self.move_cursor(self._cursor - 1 if self._cursor is not None else 0)

    def action_cursor_down(self) -> None:
        self.move_cursor(self._cursor + 1 if self._cursor is not None else 0)

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(self.item_count - 1)

    def action_page_up(self) -> None:
        self.move_cursor((self._cursor or 0) - self._page())

    def action_page_down(self) -> None:
        self.move_cursor((self._cursor or 0) + self._page())

    def action_select(self) -> None:
        if self._cursor is not None:
            self.selected(self._cursor)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.item_at(round(self.scroll_y) + offset.y)
        if index is None:
            return
        again = index == self._cursor
        self.move_cursor(index)
        if event.chain >= self.CLICKS_TO_SELECT and (again or self.CLICKS_TO_SELECT == 1):
            self.selected(index)

    # --- drawing ---------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._stamp.forget()

    def render_lines(self, crop: Region) -> list[Strip]:
        if self._stamp.changed(self) or not self._styles:
            self._styles = self.line_styles()
            self._finished.restyled(look_of(self, self._styles))
        self._drawn = self._view()
        self.frame_started()
        try:
            return self._finished.render_lines(self, crop, self._finished_key, super().render_lines)
        finally:
            self._drawn = None

    def _view(self) -> tuple[int, int, int, int | None]:
        """The content's width, its first line shown, its number of lines and the cursor's
        line (None: no cursor)."""
        cursor = self.line_of(self._cursor) if self._cursor is not None else None
        return self.scrollable_content_region.width, round(self.scroll_y), self.line_count, cursor

    def frame_started(self) -> None:
        """A frame asks for lines: what every row's ``line_key`` reads may be read once."""

    def _finished_key(self, y: int) -> Hashable | None:
        """What row ``y`` of the content shows, as ``render_line`` would draw it."""
        width, top, count, cursor = self._drawn or self._view()
        line = top + y
        if line >= count:
            return ("blank",)
        key = self.line_key(line, width)
        if key is None:
            return None
        return key, cursor == line

    def render_line(self, y: int) -> Strip:
        # (a frame's rows: what render_lines read once for all of them)
        width, top, count, cursor = self._drawn or self._view()
        line = top + y
        if not self._styles:
            self._styles = self.line_styles()
        if line >= count:
            return Strip.blank(width, self._styles[""])
        return self.render_list_line(line, width, cursor == line)

    def strip(self, parts: ListLine, width: int, at_cursor: bool) -> Strip:
        """``parts`` as one line of ``width`` cells, in the cursor's colours if ``at_cursor``."""
        styles = self._styles
        at = "-cursor" if at_cursor else ""
        segments = [Segment(text, styles[style + at]) for text, style in parts]
        return Strip(segments).adjust_cell_length(width, styles[at])
