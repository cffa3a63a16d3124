"""The panes: topics, entries, the entry and similar entries, each drawn line by line
(Textual's Line API), so a frame costs what the lines on screen cost."""

from __future__ import annotations

import re
from typing import ClassVar, NamedTuple

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from topiclens.store.models import Topic

from .commands import FIRST, LAST, NAVIGATION, bindings
from .display import cached_line, terminal_line, terminal_text
from .model import Detail, Row, View

BOOKMARK_MARK = "★"
UNREAD_MARK = "●"


def _pad(text: str, width: int) -> str:
    """``text`` cut (with an ellipsis) or padded to exactly ``width`` terminal cells, a
    Chinese character counting two. Rich's cached cell measures keep this fast."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(set_cell_size(text, width - 1).rstrip() + "…", width)


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Give a Line API view a new scrollable size without a layout of the whole screen.

    Setting ``virtual_size`` normally reflows the screen, because a scrollbar that appears
    takes room from the content. The views here keep the room for their scrollbar
    (``scrollbar-gutter: stable`` in the CSS), so only the view and its scrollbar need
    drawing again: at 100,000 entries that halves what a cursor move costs."""
    if size != view.virtual_size:
        view.set_reactive(ScrollView.virtual_size, size)
        view._scroll_update(size)
        view.refresh()


# --- topics ----------------------------------------------------------------------------


# A line of a list: (text, style name) parts, already cut and padded to the list's width.
# Style names: "" plain, "muted", "bold", "italic", "muted-italic", "separator".
ListLine = list[tuple[str, str]]


class LineList(ScrollView, can_focus=True):
    """A short list with a cursor, drawn line by line (Line API) from lines built once.

    The topic list and the similar entries were ``OptionList``s: every option became a
    ``Content`` measured, wrapped and rendered to strips, ~7 ms for the topic list's first
    frame and again for each new set of similar entries. Here a line is a few segments
    built once at the pane's width, and a cursor move repaints the two lines it touches.
    Items are the lines with a cursor stop; a separator line is not an item."""

    BINDINGS = bindings(NAVIGATION)

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "line-list--cursor",
        "line-list--muted",
        "line-list--separator",
    }

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._lines: list[ListLine] = []
        self._item_lines: list[int] = []  # item index -> line number
        self._cursor: int | None = None
        self._styles: dict[str, Style] = {}

    @property
    def option_count(self) -> int:
        """How many items (lines with a cursor stop) the list has."""
        return len(self._item_lines)

    @property
    def highlighted(self) -> int | None:
        """The item under the cursor (None when the list has none)."""
        return self._cursor

    def set_lines(self, lines: list[ListLine], items: list[int], cursor: int | None) -> None:
        """Show ``lines``; ``items`` are the line numbers of the items, in order."""
        self._lines = lines
        self._item_lines = items
        self._cursor = cursor if cursor is not None and 0 <= cursor < len(items) else None
        set_virtual_size(self, Size(self.scrollable_content_region.width, len(lines)))
        self._scroll_cursor_visible()
        self.refresh()

    def move_cursor(self, index: int) -> None:
        """Put the cursor on item ``index`` (kept in range) and tell :meth:`cursor_moved`."""
        if not self._item_lines:
            return
        index = max(0, min(index, len(self._item_lines) - 1))
        old = self._cursor
        if index == old:
            return
        self._cursor = index
        top = round(self.scroll_y)
        self._scroll_cursor_visible()
        if round(self.scroll_y) == top and old is not None:
            self.refresh_line(self._item_lines[old])  # only the two lines that changed
            self.refresh_line(self._item_lines[index])
        else:
            self.refresh()
        self.cursor_moved(index)

    def cursor_moved(self, index: int) -> None:
        """The user moved the cursor to item ``index``."""

    def selected(self, index: int) -> None:
        """Enter (or a click) on item ``index``."""

    def _scroll_cursor_visible(self) -> None:
        height = self.scrollable_content_region.height
        if self._cursor is None or height <= 0:
            return
        line = self._item_lines[self._cursor]
        top = round(self.scroll_y)
        if line < top:
            self.scroll_to(y=line, animate=False, immediate=True)
        elif line >= top + height:
            self.scroll_to(y=line - height + 1, animate=False, immediate=True)

    def on_resize(self) -> None:
        set_virtual_size(self, Size(self.scrollable_content_region.width, len(self._lines)))
        self._scroll_cursor_visible()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # --- keys ------------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        self.move_cursor(self._cursor - 1 if self._cursor is not None else 0)

    def action_cursor_down(self) -> None:
        self.move_cursor(self._cursor + 1 if self._cursor is not None else 0)

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(len(self._item_lines) - 1)

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

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
        line = round(self.scroll_y) + offset.y
        if line in self._item_lines:
            index = self._item_lines.index(line)
            self.move_cursor(index)
            self.selected(index)

    # --- drawing ---------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        base = self.rich_style
        get = self.get_component_rich_style
        cursor = get("line-list--cursor")
        # a muted part takes only the colour: on the cursor's line, the cursor's background
        muted = Style(color=get("line-list--muted").color)
        italic, bold = Style(italic=True), Style(bold=True)
        parts = {"": Style(), "muted": muted, "bold": bold, "italic": italic}
        parts["muted-italic"] = muted + italic
        self._styles = {name: base + style for name, style in parts.items()}
        self._styles |= {f"{name}-cursor": cursor + style for name, style in parts.items()}
        separator = get("line-list--separator")
        self._styles |= {"separator": separator, "separator-cursor": separator}
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        styles = self._styles
        line = round(self.scroll_y) + y
        if line >= len(self._lines):
            return Strip.blank(width, styles[""])
        at = ""
        if self._cursor is not None and self._item_lines[self._cursor] == line:
            at = "-cursor"
        segments = [Segment(text, styles[style + at]) for text, style in self._lines[line]]
        return Strip(segments).adjust_cell_length(width, styles[at or ""])


class TopicItem(NamedTuple):
    view: View
    name: str
    size: int
    unread: int


class TopicList(LineList):
    """Topics, with a Bookmarks and a Search pseudo-topic when they apply."""

    class Chosen(Message):
        """The highlighted topic changed (``opened``: Enter was pressed on it)."""

        def __init__(self, view: View, opened: bool = False) -> None:
            super().__init__()
            self.view = view
            self.opened = opened

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._items: list[TopicItem] = []
        self._keys: dict[str, int] = {}
        self._shown: tuple[list[TopicItem], View | None] | None = None
        self._built_width = 0

    def show(self, items: list[TopicItem], current: View | None) -> None:
        """Rebuild the lines, keeping the cursor on ``current``."""
        self._shown = (items, current)
        width = self._built_width = self._width()
        # the counts line up in two right-aligned columns, as wide as the widest number
        columns = (
            max((len(str(i.size)) for i in items), default=1),
            max((len(str(i.unread)) for i in items if i.unread), default=0),
        )
        lines: list[ListLine] = []
        item_lines: list[int] = []
        pseudo = [i for i in items if i.view.kind != "topic"]
        for item in items:
            item_lines.append(len(lines))
            lines.append(self._prompt(item, width, columns))
            if pseudo and item is pseudo[-1]:
                lines.append([("─" * width, "separator")])
        self._items = items
        self._keys = {item.view.key: i for i, item in enumerate(items)}
        cursor = self._keys.get(current.key) if current is not None else None
        if cursor is None and items:
            cursor = 0
        self.set_lines(lines, item_lines, cursor)

    def _width(self) -> int:
        width = self.scrollable_content_region.width
        if not width:  # not laid out yet: what the CSS will give (30%, 22 to 40, less
            # the border, the padding and the scrollbar's gutter), so the first frame is
            # built right and not again once laid out
            width = max(22, min(40, self.app.size.width * 3 // 10)) - 5
        return width

    def on_resize(self) -> None:
        if self._shown is not None and self._width() != self._built_width:
            current = self.item()
            items, _ = self._shown
            self.show(items, current.view if current is not None else None)
        super().on_resize()

    @staticmethod
    def _prompt(item: TopicItem, width: int, columns: tuple[int, int] = (1, 0)) -> ListLine:
        """One line: the name cut to fit, then the size and the unread count, each
        right-aligned in its column (``columns``: their widths in digits)."""
        size_w, unread_w = columns
        counts = f" {item.size:>{size_w}}"
        if not unread_w:
            unread = ""
        elif item.unread:
            unread = f" {item.unread:>{unread_w}}{UNREAD_MARK}"
        else:
            unread = " " * (unread_w + 2)
        room = max(4, width - 1 - cell_len(counts + unread))
        name = _pad(terminal_line(item.name), room)
        return [
            (" ", ""),
            (name, "italic" if item.view.kind != "topic" else ""),
            (counts, "muted"),
            (unread, "bold"),
        ]

    def item(self, index: int | None = None) -> TopicItem | None:
        index = self.highlighted if index is None else index
        if index is None or not 0 <= index < len(self._items):
            return None
        return self._items[index]

    def select_view(self, view: View) -> None:
        """Put the cursor on ``view`` without a Chosen: the screen shows the view itself."""
        index = self._keys.get(view.key)
        if index is not None and index != self._cursor:
            self._cursor = index
            self._scroll_cursor_visible()
            self.refresh()

    def cursor_moved(self, index: int) -> None:
        self.post_message(self.Chosen(self._items[index].view))

    def selected(self, index: int) -> None:
        self.post_message(self.Chosen(self._items[index].view, opened=True))


# --- footer ----------------------------------------------------------------------------


class KeyFooter(Widget):
    """The keys of the screen's bindings that are shown in the footer, one line drawn in
    one go. Textual's ``Footer`` composes a widget per key once the first frame is on the
    terminal (so that frame had an empty footer) and parses two widgets' CSS before it;
    this one is a single widget whose first frame already shows every key. Clicking a key
    presses it, as with ``Footer``."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "key-footer--key",
        "key-footer--description",
        "key-footer--separator",
    }

    show_command_palette: reactive[bool] = reactive(True)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._spans: list[tuple[int, int, str]] = []  # (first cell, end cell, key)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: object) -> None:
        self.refresh()

    def _keys(self) -> tuple[list[tuple[str, str, str, bool]], tuple[str, str, str] | None]:
        """(key, key as shown, description, enabled) per action shown in the footer, in
        binding order, and the command palette's key when it is shown."""
        app = self.app
        bindings = self.screen.active_bindings
        keys: list[tuple[str, str, str, bool]] = []
        actions: set[str] = set()
        for _node, binding, enabled, _tooltip in bindings.values():
            if binding.show and binding.action not in actions:
                actions.add(binding.action)
                shown = terminal_line(app.get_key_display(binding))
                keys.append((binding.key, shown, terminal_line(binding.description), enabled))
        palette = None
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            active = bindings.get(app.COMMAND_PALETTE_BINDING)
            if active is not None:
                binding = active.binding
                shown = terminal_line(app.get_key_display(binding))
                palette = (binding.key, shown, terminal_line(binding.description))
        return keys, palette

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = Style(bgcolor=self.rich_style.bgcolor)  # between the keys: background only
        get = self.get_component_rich_style
        key_style, text_style = get("key-footer--key"), get("key-footer--description")
        dim = Style(dim=True)
        keys, palette = self._keys()
        segments: list[Segment] = []
        spans: list[tuple[int, int, str]] = []
        x = 0
        for key, shown, description, enabled in keys:
            if x:
                segments.append(Segment(" ", base))
                x += 1
            label = f" {description}" if description else ""
            k, t = (key_style, text_style) if enabled else (key_style + dim, text_style + dim)
            segments += [Segment(shown, k), Segment(label, t)]
            end = x + cell_len(shown) + cell_len(label)
            spans.append((x, end, key))
            x = end
        if palette is not None:
            key, shown, description = palette
            right = [
                Segment("▏", get("key-footer--separator")),
                Segment(shown, key_style),
                Segment(f" {description}", text_style),
                Segment(" ", base),
            ]
            right_w = sum(cell_len(seg.text) for seg in right)
            if x + right_w <= width:
                segments.append(Segment(" " * (width - x - right_w), base))
                spans.append((width - right_w + 1, width - 1, key))
                segments += right
        self._spans = spans
        return Strip(segments).adjust_cell_length(width, base)

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                self.app.simulate_key(key)
                return


# --- entries ---------------------------------------------------------------------------


class EntryList(ScrollView, can_focus=True):
    """The entries of one view, drawn line by line (Line API): showing 100,000 rows costs
    what showing a screenful costs."""

    BINDINGS = bindings(NAVIGATION)

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "entry-list--cursor",
        "entry-list--unread",
        "entry-list--meta",
        "entry-list--mark",
        "entry-list--empty",
    }

    bookmarks: reactive[frozenset[str]] = reactive(frozenset, always_update=True)
    read: reactive[frozenset[str]] = reactive(frozenset, always_update=True)
    cursor: reactive[int] = reactive(0, always_update=True)
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
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.rows: list[Row] = []
        self._styles: dict[str, Style] = {}

    def show_rows(self, rows: list[Row], keep: str | None = None) -> None:
        """Show ``rows``, with the cursor on entry ``keep`` if it is there, else the top."""
        self.rows = rows
        index = 0
        if keep is not None:
            index = next((i for i, r in enumerate(rows) if r[0] == keep), 0)
        set_virtual_size(self, Size(self.scrollable_content_region.width, len(rows)))
        self.scroll_to(
            y=max(0, index - self.scrollable_content_region.height // 2),
            animate=False,
            immediate=True,
        )
        self.cursor = index
        self.refresh()

    def watch_bookmarks(self) -> None:
        self.refresh()

    def watch_read(self) -> None:
        self.refresh()

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.rows) - 1))

    def watch_cursor(self, old: int, new: int) -> None:
        top = round(self.scroll_y)
        self._scroll_cursor_visible()
        if round(self.scroll_y) == top and old != new:
            self.refresh_line(old)  # only the two lines that changed
            self.refresh_line(new)
        elif old != new or round(self.scroll_y) != top:
            self.refresh()
        self.post_message(self.Highlighted(self.current_id))

    @property
    def current_id(self) -> str | None:
        if not self.rows:
            return None
        return self.rows[self.cursor][0]

    def _scroll_cursor_visible(self) -> None:
        height = self.scrollable_content_region.height
        if height <= 0:
            return
        top = round(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def on_resize(self) -> None:
        set_virtual_size(self, Size(self.scrollable_content_region.width, len(self.rows)))
        self._scroll_cursor_visible()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # --- keys ------------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self.rows) - 1

    def action_page_up(self) -> None:
        self.cursor -= max(1, self.scrollable_content_region.height - 1)

    def action_page_down(self) -> None:
        self.cursor += max(1, self.scrollable_content_region.height - 1)

    def action_select(self) -> None:
        if self.current_id is not None:
            self.post_message(self.Opened(self.current_id))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self.rows:
            return
        index = round(self.scroll_y) + offset.y
        if 0 <= index < len(self.rows):
            if index == self.cursor and event.chain == 2:
                self.action_select()
            self.cursor = index

    # --- drawing ---------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        # resolve the styles once a frame, not once a line
        self._styles = self._line_styles()
        return super().render_lines(crop)

    def _line_styles(self) -> dict[str, Style]:
        base = self.rich_style
        get = self.get_component_rich_style
        cursor = get("entry-list--cursor")
        styles = {
            "read": base,
            "unread": base + get("entry-list--unread"),
            "meta": base + get("entry-list--meta"),
            "mark": base + get("entry-list--mark"),
            "empty": base + get("entry-list--empty"),
        }
        for name in ("read", "unread", "meta", "mark"):
            styles[f"{name}-cursor"] = styles[name] + cursor
        return styles

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        styles = self._styles or self._line_styles()
        index = round(self.scroll_y) + y
        rows = self.rows
        if not rows:
            if y == 1:
                text = _pad(f"  {terminal_line(self.empty_text)}", width)
                return Strip([Segment(text, styles["empty"])], width)
            return Strip.blank(width, styles["read"])
        if index >= len(rows):
            return Strip.blank(width, styles["read"])
        row_id, title, source, date = rows[index]
        title, source = cached_line(title), cached_line(source)
        unread = row_id not in self.read
        at = "-cursor" if index == self.cursor else ""
        style = styles[("unread" if unread else "read") + at]
        meta, mark = styles["meta" + at], styles["mark" + at]
        marks = (UNREAD_MARK if unread else " ") + (
            BOOKMARK_MARK if row_id in self.bookmarks else " "
        )
        date_w = 10 if width >= 40 else 0
        source_w = min(18, max(0, (width - 40) // 3)) if width >= 60 else 0
        title_w = max(
            0, width - 3 - (source_w + 2 if source_w else 0) - (date_w + 1 if date_w else 0)
        )
        segments = [Segment(marks + " ", mark), Segment(_pad(title, title_w), style)]
        if source_w:
            segments.append(Segment("  " + _pad(source, source_w), meta))
        if date_w:
            segments.append(Segment(" " + _pad(cached_line(date or ""), date_w), meta))
        # every part was padded to its cells: give the length rather than measure it
        used = 3 + title_w + (source_w + 2 if source_w else 0) + (date_w + 1 if date_w else 0)
        return Strip(segments, used).adjust_cell_length(width, style)


# --- detail ----------------------------------------------------------------------------


class SimilarList(LineList):
    """Entries similar to the one shown; Enter jumps to one. Its height is fixed in CSS:
    new entries repaint it without a layout of the screen."""

    class Jump(Message):
        """Enter on the similar entry ``entry_id``."""

        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    detail: reactive[Detail | None] = reactive(None, always_update=True)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._rows: list[Row] = []
        self._built_width = 0

    def watch_detail(self, detail: Detail | None) -> None:
        self._rows = [row for row, _score in detail.similar] if detail is not None else []
        self._build(self.scrollable_content_region.width)

    def _build(self, width: int) -> None:
        self._built_width = width
        if self._rows:
            self.set_lines(self._lines_at(width), list(range(len(self._rows))), 0)
        else:
            self.set_lines([[(" No similar entries.", "muted-italic")]], [], None)

    def _lines_at(self, width: int) -> list[ListLine]:
        """One line an entry, padded one cell on each side: the title, then its source
        and date muted, cut with an ellipsis where the pane ends."""
        room = max(1, width - 2)
        lines: list[ListLine] = []
        for _id, title, source, date in self._rows:
            title = terminal_line(title)
            meta = "  " + terminal_line(" ".join(filter(None, (source, date or ""))))
            title_w = cell_len(title)
            if title_w + cell_len(meta) <= room:
                parts = [(title, ""), (meta, "muted")]
            elif title_w < room - 1:
                parts = [(title, ""), (_pad(meta, room - title_w), "muted")]
            else:
                parts = [(_pad(title, room), "")]
            lines.append([(" ", ""), *parts, (" ", "")])
        return lines

    def render_lines(self, crop: Region) -> list[Strip]:
        width = self.scrollable_content_region.width
        if width != self._built_width:  # built before the layout, or the pane resized
            self._built_width = width
            if self._rows:
                self._lines = self._lines_at(width)
        return super().render_lines(crop)

    def selected(self, index: int) -> None:
        if 0 <= index < len(self._rows):
            self.post_message(self.Jump(self._rows[index][0]))


class DetailPane(ScrollView, can_focus=True):
    """One entry in full, drawn line by line (Line API): showing another entry changes
    this pane's virtual size, not the screen's layout, so a cursor move repaints two
    panes instead of reflowing the whole screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings(NAVIGATION[:2]),
        FIRST.binding(),
        LAST.binding(),
        *bindings(NAVIGATION[4:6]),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "detail--title",
        "detail--muted",
        "detail--accent",
        "detail--heading",
    }

    detail: reactive[Detail | None] = reactive(None, always_update=True)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._paragraphs: list[Paragraph] = [("", "", "No entry selected.", "muted")]
        self._lines: list[Line] = []
        self._width_drawn = 0
        self._styles: dict[str, Style] = {}

    def action_cursor_up(self) -> None:
        self.scroll_up(animate=False)

    def action_cursor_down(self) -> None:
        self.scroll_down(animate=False)

    def action_first(self) -> None:
        self.scroll_home(animate=False)

    def action_last(self) -> None:
        self.scroll_end(animate=False)

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    @property
    def text(self) -> str:
        """What the pane shows, as plain text (for tests and screen readers)."""
        return "\n".join("".join(t for t, _ in line) for line in self._lines)

    def _width(self) -> int:
        width = self.scrollable_content_region.width
        if not width:  # not laid out yet: what the CSS will give (the screen less the
            # topic list, then the border, the padding and the scrollbar's gutter), so
            # the first entry is wrapped once, at the width it is drawn at
            screen = self.app.size.width
            width = screen - max(22, min(40, screen * 3 // 10)) - 5
        return max(4, width)

    def _wrap(self) -> None:
        width = self._width()
        self._lines = render_paragraphs(self._paragraphs, width)
        self._width_drawn = width
        set_virtual_size(self, Size(width, len(self._lines)))

    def on_resize(self) -> None:
        if self._width() != self._width_drawn:
            self._wrap()
            self.refresh()

    def watch_detail(self, detail: Detail | None) -> None:
        self._paragraphs = (
            detail_paragraphs(detail)
            if detail is not None
            else [("", "", "No entry selected.", "muted")]
        )
        self._wrap()
        self.scroll_to(y=0, animate=False, immediate=True)
        self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        base = self.rich_style
        get = self.get_component_rich_style
        self._styles = {"": base} | {
            name: base + get(f"detail--{name}") for name in ("title", "muted", "accent", "heading")
        }
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        styles = self._styles or {"": self.rich_style}
        index = round(self.scroll_y) + y
        if width != self._width_drawn:
            self._wrap()
        if index >= len(self._lines):
            return Strip.blank(width, styles[""])
        segments = [
            Segment(text, styles.get(style, styles[""])) for text, style in self._lines[index]
        ]
        return Strip(segments).adjust_cell_length(width, styles[""])


# A paragraph of the detail pane: (label, label style, text, text style); the styles
# name the detail pane's component classes ("title" is "detail--title"), "" is plain.
Paragraph = tuple[str, str, str, str]

# Characters a line may break before or after: CJK ideographs, kana, CJK punctuation and
# full-width forms. Tested by code point: a regex character class over these ranges costs
# ~7 ms to compile, at every start of the reader.
_WIDE = ((0x2E80, 0x9FFF), (0xF900, 0xFAFF), (0x3000, 0x303F), (0xFF00, 0xFFEF))
_SPACE = re.compile(r"(\s+)")


def _is_wide(ch: str) -> bool:
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in _WIDE)


def _tokens(para: str) -> list[str]:
    """Runs of white space, single CJK characters, and runs of anything else."""
    out: list[str] = []
    for i, chunk in enumerate(_SPACE.split(para)):
        if not chunk:
            continue
        if i % 2 or chunk.isascii():  # odd chunks are the white space split on
            out.append(chunk)
            continue
        run = ""
        for ch in chunk:
            if _is_wide(ch):
                if run:
                    out.append(run)
                    run = ""
                out.append(ch)
            else:
                run += ch
        if run:
            out.append(run)
    return out


_NO_LINE_START = set("，。、；：！？）」』”’》〉】%…,.;:!?)")
_NO_LINE_END = set("（「『“‘《〈【(")


def wrap_cells(text: str, width: int) -> list[str]:
    """Wrap ``text`` to ``width`` terminal cells the way Chinese is set: a line may break
    between any two Chinese characters (not only at spaces), never before closing
    punctuation nor after opening punctuation; English words stay whole unless longer
    than a line."""
    width = max(4, width)
    lines: list[str] = []
    for para in text.split("\n"):
        tokens: list[str] = []
        for tok in _tokens(para):
            glue = tokens and not tok.isspace() and not tokens[-1].isspace()
            if glue and (tok[0] in _NO_LINE_START or tokens[-1][-1] in _NO_LINE_END):
                tokens[-1] += tok
                continue
            tokens.append(tok)
        line, used = "", 0
        for tok in tokens:
            if tok.isspace():
                if line:
                    line, used = line + " ", used + 1
                continue
            w = cell_len(tok)
            if used + w > width and line.strip():
                lines.append(line.rstrip())
                line, used = "", 0
            while w > width:  # a word longer than the line: cut it
                head = set_cell_size(tok, width).rstrip()  # a wide character may not fit
                head = head or tok[0]
                lines.append(head)
                tok = tok[len(head) :]
                w = cell_len(tok)
            line, used = line + tok, used + w
        lines.append(line.rstrip())
    return lines


def detail_paragraphs(d: Detail) -> list[Paragraph]:
    """What the detail pane shows of ``d``, every string from the data cleaned for the
    terminal: one-line fields by ``terminal_line``, the summary, comment and note (which
    keep their line breaks) by ``terminal_text``."""
    e = d.entry
    line = terminal_line
    meta = line(" · ".join(p for p in (e.source, e.category, e.date or "") if p))
    marks = []
    if d.bookmark is not None:
        marks.append(f"{BOOKMARK_MARK} bookmarked")
    marks.append("read" if d.read else f"{UNREAD_MARK} unread")
    out: list[Paragraph] = [
        ("", "", line(e.title), "title"),
        ("", "", meta, "muted"),
        ("", "", "  ".join(marks), "accent"),
        ("", "", "", ""),
    ]
    if e.summary:
        out += [("", "", terminal_text(e.summary), ""), ("", "", "", "")]
    if e.comment:
        out += [("", "", "Curator's comment", "heading"), ("", "", terminal_text(e.comment), "")]
        out.append(("", "", "", ""))
    if e.url:
        out += [("", "", line(e.url), "muted"), ("", "", "", "")]
    if d.topic is not None:
        out.append(("Topic ", "heading", line(d.topic.name), ""))
        keywords = line(", ".join(k for k, _ in d.topic.keywords[:8]))
        if keywords:
            out.append(("keywords: ", "muted", keywords, ""))
        if d.terms:
            out.append(("tied by: ", "muted", line(", ".join(d.terms[:8])), "accent"))
        out.append(("", "", "", ""))
    if d.bookmark is not None:
        note = terminal_text(d.bookmark.note) or "(no note: press N to write one)"
        out += [("", "", "Note", "heading"), ("", "", note, ""), ("", "", "", "")]
    return out


Line = list[tuple[str, str]]


def render_paragraphs(paragraphs: list[Paragraph], width: int) -> list[Line]:
    """The paragraphs wrapped to ``width`` cells: lines of (text, style name) parts."""
    lines: list[Line] = []
    for label, label_style, text, style in paragraphs:
        for n, line in enumerate(wrap_cells(label + text, width)):
            if n == 0 and label:
                cut = min(len(label.rstrip()), len(line))
                lines.append([(line[:cut], label_style), (line[cut:], style)])
            else:
                lines.append([(line, style)])
    return lines


def topic_items(
    topics: list[Topic],
    unread: dict[int, int],
    bookmarks: int,
    search: tuple[str, int] | None,
) -> list[TopicItem]:
    items: list[TopicItem] = []
    if search is not None:
        query, n = search
        items.append(TopicItem(View("search", query=query), f"Search: {query}", n, 0))
    if bookmarks:
        items.append(TopicItem(View("bookmarks"), "Bookmarks", bookmarks, 0))
    items += [TopicItem(View("topic", t.id), t.name, t.size, unread.get(t.id, 0)) for t in topics]
    return items
