"""The topic list: topics with their sizes and unread counts (mixed topics, listed after
the coherent ones, in muted letters), and the Bookmarks and Search pseudo-topics when
they apply."""

from collections.abc import Hashable, Sequence
from typing import ClassVar

from rich.style import Style
from textual.message import Message
from textual.strip import Strip
from topiclens.store.models import Record, Topic
from topiclens.text import cell_width

from ..display import fit_line
from ..model import View
from .cursor_list import CursorList, ListLine

UNREAD_MARK = "●"
NAME_PROBE = 80  # characters of a name that count for the pane's width (it is never wider)
RIVER_NAME = "All unread"  # the pseudo-topic of every unread entry, newest first
SAVED_MARK = "⌕"  # before a saved search's name in the topic list
USER_MARK = "✎"  # a topic the user named or made (the overview says what they did)
# what the two numbers on a topic row are (the pane's subtitle, its tooltip, the help)
TOPIC_ROW_LEGEND = f"entries · unread {UNREAD_MARK}"
TOPIC_ROW_HELP = (
    f"A topic's row: its name, how many entries it holds, and how many of them are unread "
    f"({UNREAD_MARK}). All unread (every unread entry, newest first), your saved searches "
    "(⌕), the bookmarks and a search sit above the topics."
)


class TopicItem(Record):
    """One row of the topic list: the view it opens, its name and counts, whether the
    topic is mixed and whether its name is the user's."""

    __slots__ = ("mixed", "name", "size", "unread", "user", "view")

    def __init__(
        self, view: View, name: str, size: int, unread: int, mixed: bool = False, user: bool = False
    ) -> None:
        self.view = view
        self.name = name
        self.size = size
        self.unread = unread
        self.mixed = mixed
        self.user = user


def topic_items(
    topics: list[Topic],
    unread: dict[int, int],
    bookmarks: int,
    search: tuple[str, int] | None,
    saved: Sequence[tuple[str, int | None, int]] = (),
) -> list[TopicItem]:
    """The rows of the topic list: the search (while searching), All unread (every
    unread entry: the topics' counts added up), each saved search (name, how many it
    finds (None: not counted yet), how many of those are unread), the bookmarks, then the
    topics. The Bookmarks row comes last of the pseudo-topics, where its placeholder is."""
    items: list[TopicItem] = []
    if search is not None:
        query, n = search
        items.append(TopicItem(View("search", query=query), f"Search: {query}", n, 0))
    every = sum(unread.values())
    items.append(TopicItem(View("river"), RIVER_NAME, every, every))
    items += [
        TopicItem(View("saved", query=name), f"{SAVED_MARK} {name}", n or 0, fresh)
        for name, n, fresh in saved
    ]
    if bookmarks:
        items.append(TopicItem(View("bookmarks"), "Bookmarks", bookmarks, 0))
    items += [
        TopicItem(View("topic", t.id), t.name, t.size, unread.get(t.id, 0), t.mixed, t.user_named)
        for t in topics
    ]
    return items


def topic_line(item: TopicItem, width: int, columns: tuple[int, int] = (1, 0)) -> ListLine:
    """One line: the name cut to fit, then the size and the unread count, each
    right-aligned in its column (``columns``: their widths in digits)."""
    size_w, unread_w = columns
    counts = f" {item.size:>{size_w}}"
    if item.view.kind == "river":
        # one count (they are all unread), across both columns: the river's count, larger
        # than any topic's, widens no column
        count = f" {item.unread}{UNREAD_MARK}" if item.unread else " 0"
        counts, unread = f"{count:>{1 + size_w + (unread_w + 2 if unread_w else 0)}}", ""
    elif not unread_w:
        unread = ""
    elif item.unread:
        unread = f" {item.unread:>{unread_w}}{UNREAD_MARK}"
    else:
        unread = " " * (unread_w + 2)
    mark = f"{USER_MARK} " if item.user else ""
    room = max(4, width - 1 - cell_width(mark + counts + unread))
    style = "italic" if item.view.kind != "topic" else "muted" if item.mixed else ""
    marked = [(mark, "bold")] if mark else []  # no empty part: the frame stays as it was
    return [
        (" ", ""),
        *marked,
        (fit_line(item.name, room), style),
        (counts, "muted"),
        (unread, "bold"),
    ]


def bookmarks_placeholder(width: int, columns: tuple[int, int]) -> ListLine:
    """The Bookmarks row before the first bookmark: greyed, 0, not a cursor stop."""
    size_w, unread_w = columns
    count = f" {0:>{size_w}}"
    pad = " " * (unread_w + 2) if unread_w else ""
    room = max(4, width - 1 - cell_width(count + pad))
    return [(" ", ""), (fit_line("Bookmarks", room), "muted-italic"), (count, "muted"), (pad, "")]


class TopicList(CursorList):
    """Topics, with a Search pseudo-topic above them while searching, then the Bookmarks
    row (kept, greyed, before the first bookmark, so the first one shifts nothing), and a
    separator line under those."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "cursor-list--cursor",
        "cursor-list--muted",
        "cursor-list--separator",
    }

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
        self._separator = 0  # the line under the pseudo-topics
        self._placeholder: int | None = None  # the Bookmarks row while there are none
        self._line_items: list[int | None] = []  # the item on each line (None: no item)
        self._item_lines: list[int] = []
        self._columns = (1, 0)
        self._lines: dict[int, ListLine] = {}  # built once per width, when first drawn
        self._lines_width = 0

    @property
    def item_count(self) -> int:
        return len(self._items)

    @property
    def line_count(self) -> int:
        return len(self._line_items)

    def line_of(self, item: int) -> int:
        return self._item_lines[item] if 0 <= item < len(self._item_lines) else item

    def item_at(self, line: int) -> int | None:
        return self._line_items[line] if 0 <= line < len(self._line_items) else None

    def on_mount(self) -> None:
        self.border_subtitle = TOPIC_ROW_LEGEND
        self.tooltip = TOPIC_ROW_HELP

    def show(self, items: list[TopicItem], current: View | None) -> None:
        """Show ``items``, keeping the cursor on ``current``."""
        self._items = items
        self._keys = {item.view.key: i for i, item in enumerate(items)}
        pseudo = sum(1 for i in items if i.view.kind != "topic")
        lines: list[int | None] = list(range(pseudo))
        self._placeholder = None
        if not any(i.view.kind == "bookmarks" for i in items):
            self._placeholder = len(lines)
            lines.append(None)
        self._separator = len(lines)
        lines.append(None)
        lines += range(pseudo, len(items))
        self._line_items = lines
        self._item_lines = [n for n, i in enumerate(lines) if i is not None]
        # the counts line up in two right-aligned columns, as wide as the widest number
        counted = [i for i in items if i.view.kind != "river"]  # (its count spans both)
        self._columns = (
            max((len(str(i.size)) for i in counted), default=1),
            max((len(str(i.unread)) for i in counted if i.unread), default=0),
        )
        self._lines = {}
        cursor = self._keys.get(current.key) if current is not None else None
        if cursor is None and items:
            cursor = 0
        self.content_changed(cursor)

    def wanted_width(self) -> int:
        """The pane's width that shows every name whole (borders, padding and the
        scrollbar's gutter included). A name counts for its first NAME_PROBE characters
        only: the pane is never wider than that, and a huge name costs no frame."""
        size_w, unread_w = self._columns
        counts = 1 + size_w + (unread_w + 2 if unread_w else 0)
        lines = (
            1 + (2 if item.user else 0) + cell_width(item.name[:NAME_PROBE]) + counts
            for item in self._items
        )
        gutter = self.styles.gutter.width + self.styles.scrollbar_size_vertical
        return max(lines, default=0) + gutter

    def item(self, index: int | None = None) -> TopicItem | None:
        index = self.cursor if index is None else index
        if index is None or not 0 <= index < len(self._items):
            return None
        return self._items[index]

    def select_view(self, view: View) -> None:
        """Put the cursor on ``view`` without a Chosen: the screen shows the view itself."""
        index = self._keys.get(view.key)
        if index is not None:
            self.move_cursor(index, announce=False)

    def cursor_moved(self, index: int | None) -> None:
        if index is not None:
            self.post_message(self.Chosen(self._items[index].view))

    def selected(self, index: int) -> None:
        self.post_message(self.Chosen(self._items[index].view, opened=True))

    def line_styles(self) -> dict[str, Style]:
        return list_styles(self)

    def line_parts(self, line: int, width: int) -> ListLine:
        if width != self._lines_width:
            self._lines, self._lines_width = {}, width
        parts = self._lines.get(line)
        if parts is None:
            if line == self._separator:
                parts = [("─" * width, "separator")]
            elif line == self._placeholder:
                parts = bookmarks_placeholder(width, self._columns)
            else:
                item = self._items[self.item_at(line) or 0]
                parts = topic_line(item, width, self._columns)
            self._lines[line] = parts
        return parts

    def line_key(self, line: int, width: int) -> Hashable | None:
        return tuple(self.line_parts(line, width))  # the line is its parts

    def render_list_line(self, line: int, width: int, at_cursor: bool) -> Strip:
        return self.strip(self.line_parts(line, width), width, at_cursor)


def list_styles(widget: CursorList) -> dict[str, Style]:
    """The styles of a short list's parts ("" plain, "muted", "bold", "italic",
    "muted-italic", "separator"), and each on the cursor's line (name + "-cursor")."""
    base = widget.rich_style
    get = widget.get_component_rich_style
    # a muted part takes only the colour: the list's own background stays under it
    muted = Style(color=get("cursor-list--muted").color)
    italic, bold = Style(italic=True), Style(bold=True)
    parts = {"": Style(), "muted": muted, "bold": bold, "italic": italic}
    parts["muted-italic"] = muted + italic
    styles = {name: base + style for name, style in parts.items()}
    styles |= widget.cursor_styles(styles)
    separator = get("cursor-list--separator")
    return styles | {"separator": separator, "separator-cursor": separator}
