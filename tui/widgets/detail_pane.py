"""One entry in full: title, source, summary, comment, topic, note."""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import lru_cache
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import BindingType
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from ..commands import FIRST, LAST, NAVIGATION, bindings
from ..display import terminal_line, terminal_text
from ..model import Detail
from ..textual_compat import StyleStamp, set_virtual_size, vertical_scrollbar
from ..wrap import wrap_cells
from .entry_list import BOOKMARK_MARK, UNREAD_MARK, matched_segments
from .line_cache import KeptScrollBar, LineCache, look_of

# A paragraph of the detail pane: (label, label style, text, text style); the styles
# name the detail pane's component classes ("title" is "detail--title"), "" is plain.
Paragraph = tuple[str, str, str, str]
Line = list[tuple[str, str]]
NO_ENTRY: list[Paragraph] = [("", "", "No entry selected.", "muted")]
# A feed entry's content (up to 200,000 characters) is laid out a piece at a time: this
# many characters when shown, as many again whenever the bottom two screens come near
LAYOUT_CHARS = 6000
PIECE_CHARS = 2000  # the content's pieces: paragraphs, a long one cut at a space


def content_pieces(text: str, size: int = PIECE_CHARS) -> list[str]:
    """``text`` in pieces of about ``size`` characters at most, cut at line breaks, else
    at a space, so it can be wrapped a piece at a time (a piece wraps as it would whole,
    but for a word cut in a paragraph longer than ``size`` with no space in it)."""
    pieces: list[str] = []
    for block in text.split("\n"):
        while len(block) > size:
            cut = block.rfind(" ", size // 2, size)
            cut = cut + 1 if cut > 0 else size
            pieces.append(block[:cut].rstrip())
            block = block[cut:]
        if pieces and len(pieces[-1]) + len(block) + 1 <= size:
            pieces[-1] += "\n" + block  # short lines travel together
        else:
            pieces.append(block)
    return pieces


def detail_paragraphs(d: Detail) -> list[Paragraph]:
    """What the detail pane shows of ``d``, every string from the data cleaned for the
    terminal and cut to what a screen can show: one-line fields by ``terminal_line``, the
    summary, comment and note (which keep their line breaks) by ``terminal_text``, in
    pieces a layout takes one at a time."""
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
    # the user's own words come first, under the title, where they are seen at once
    if d.bookmark is not None or d.note:
        note = terminal_text(d.note) or "(no note: press N to write one)"
        out += [("", "", "Note", "heading"), *_pieces(note), ("", "", "", "")]
    if d.feed or e.author:
        if e.author:
            out.append(("by ", "muted", line(e.author), ""))
        if d.feed:
            out.append(("feed: ", "muted", line(d.feed), ""))
        if e.url:  # above the post, which may be long: O opens it
            out.append(("link: ", "muted", line(e.url), "muted"))
        out.append(("", "", "", ""))
    if d.content:  # a feed entry's whole post: its summary is the start of it
        out += [("", "", piece, "") for piece in content_pieces(terminal_text(d.content))]
        out.append(("", "", "", ""))
    elif e.summary:
        out += [*_pieces(terminal_text(e.summary)), ("", "", "", "")]
    if e.comment:
        out += [("", "", "Curator's comment", "heading"), *_pieces(terminal_text(e.comment))]
        out.append(("", "", "", ""))
    if e.url and not (d.feed or e.author):
        out += [("", "", line(e.url), "muted"), ("", "", "", "")]
    if d.topic is not None:
        out.append(("Topic ", "heading", line(d.topic.name), ""))
        keywords = line(", ".join(k for k, _ in d.topic.keywords[:8]))
        if keywords:
            out.append(("keywords: ", "muted", keywords, ""))
        if d.terms:
            out.append(("tied by: ", "muted", line(", ".join(d.terms[:8])), "accent"))
    if d.also:
        out.append(("also in: ", "muted", ", ".join(line(t.name) for t in d.also), ""))
    if d.topic is not None or d.also:
        out.append(("", "", "", ""))
    return out


def _pieces(text: str) -> list[Paragraph]:
    """A text of several lines as paragraphs of at most PIECE_CHARS characters."""
    return [("", "", piece, "") for piece in content_pieces(text)]


def render_paragraphs(paragraphs: list[Paragraph], width: int) -> list[Line]:
    """The paragraphs wrapped to ``width`` cells: lines of (text, style name) parts."""
    lines: list[Line] = []
    for label, label_style, text, style in paragraphs:
        lines += render_paragraph(label, label_style, text, style, width)
    return lines


# the paragraphs of the entries last shown in every topic a session goes back to (about
# 15 each; at most PIECE_CHARS characters: a few MB at most)
@lru_cache(maxsize=2048)
def render_paragraph(
    label: str, label_style: str, text: str, style: str, width: int
) -> tuple[Line, ...]:
    """One paragraph wrapped to ``width`` cells. Kept, because most of an entry's
    paragraphs come back with the next one (blank lines, its marks, its topic's name and
    keywords) and a cursor moving back finds its entries wrapped already; the lines are
    shared, so never changed."""
    lines: list[Line] = []
    for n, line in enumerate(wrap_cells(label + text, width)):
        if n == 0 and label:
            cut = min(len(label.rstrip()), len(line))
            lines.append([(line[:cut], label_style), (line[cut:], style)])
        else:
            lines.append([(line, style)])
    return tuple(lines)


class DetailPane(ScrollView, can_focus=True):
    """One entry in full, drawn line by line (Line API): showing another entry changes
    this pane's virtual size, not the screen's layout, so a cursor move repaints two
    panes instead of reflowing the whole screen. The text is wrapped when first drawn at
    the width the layout gives, and again only when that width changes."""

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
        "detail--match",
    }

    # what a search matched (the theme's stylesheet may restyle it)
    DEFAULT_CSS = """
    DetailPane > .detail--match { color: $text-warning; text-style: bold underline; }
    """

    detail: reactive[Detail | None] = reactive(None, always_update=True)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._paragraphs: list[Paragraph] = NO_ENTRY
        self._lines: list[Line] = []
        self._wrapped_at = 0  # the width the lines were wrapped at (0: not yet)
        self._laid_out = 0  # the paragraphs wrapped into _lines so far
        self._styles: dict[str, Style] = {}
        self._stamp = StyleStamp()  # _styles are kept until the styles are applied anew
        # finished lines by what they show: an entry shown again is copied from memory
        self._finished = LineCache()
        self._match = Style()  # what a search matched is drawn in this style
        self._highlight: re.Pattern[str] | None = None  # what a search matched
        # the content's width and first line in the frame being drawn (None: no frame)
        self._drawn: tuple[int, int] | None = None

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return vertical_scrollbar(self, KeptScrollBar)  # drawn from memory when seen before

    def action_cursor_up(self) -> None:
        self.scroll_up(animate=False)

    def action_cursor_down(self) -> None:
        self.scroll_down(animate=False)

    def action_first(self) -> None:
        self.scroll_home(animate=False)

    def action_last(self) -> None:
        self.lay_out(len(self._paragraphs))  # the end asked for: the rest, once
        self.scroll_end(animate=False)

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    @property
    def more_to_lay_out(self) -> bool:
        """Part of a long content is not wrapped yet (it is when scrolled near)."""
        return self._laid_out < len(self._paragraphs)

    @property
    def text(self) -> str:
        """What the pane shows, as plain text (for tests and screen readers): the lines
        laid out so far."""
        self._wrap_to_layout()
        return "\n".join("".join(t for t, _ in line) for line in self._lines)

    def before_layout(self, size: Size) -> None:
        """Wrap the entry to the width its lines will have, before the first layout gives
        the pane its size: the first frame then knows whether the pane scrolls
        (``textual_compat.scrollbars_before_layout``)."""
        if size.width > 0 and size.width != self._wrapped_at:
            self._lines, self._laid_out = [], 0
            self._wrapped_at = size.width
            self.lay_out()

    def _wrap_to_layout(self) -> None:
        width = self.scrollable_content_region.width
        if width > 0 and width != self._wrapped_at:
            self._lines, self._laid_out = [], 0
            self._wrapped_at = width
            self.lay_out()

    def lay_out(self, upto: int | None = None) -> None:
        """Wrap the next paragraphs, about LAYOUT_CHARS characters of them (``upto``: up
        to that paragraph), so a long content costs a piece at a time, never all at once."""
        width = self._wrapped_at
        if not width or self._laid_out >= len(self._paragraphs):
            return
        budget = LAYOUT_CHARS
        paragraphs, start = self._paragraphs, self._laid_out
        stop = start
        while stop < len(paragraphs) and (budget > 0 or (upto is not None and stop < upto)):
            budget -= len(paragraphs[stop][2])
            stop += 1
        self._lines += render_paragraphs(paragraphs[start:stop], max(4, width))
        self._laid_out = stop
        set_virtual_size(self, Size(width, len(self._lines)))

    def scroll_to_line(self, top: int) -> None:
        """Scroll line ``top`` to the top of the pane, laying out as much of a long
        content as that needs (a piece at a time)."""
        self._wrap_to_layout()
        while self.more_to_lay_out and len(self._lines) < top + self.size.height:
            self.lay_out()
        self.scroll_to(y=top, animate=False, immediate=True)

    def on_resize(self) -> None:
        self._wrap_to_layout()

    def watch_detail(self, detail: Detail | None) -> None:
        self._paragraphs = detail_paragraphs(detail) if detail is not None else NO_ENTRY
        self._wrapped_at = 0
        self._wrap_to_layout()  # before the first layout: when first drawn
        self.scroll_to(y=0, animate=False, immediate=True)
        self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._wrap_to_layout()
        if self.more_to_lay_out and self.scroll_y + 3 * self.size.height >= len(self._lines):
            self.lay_out()  # two screens ahead of the reader, the next piece
        if self._stamp.changed(self) or not self._styles:
            base = self.rich_style
            get = self.get_component_rich_style
            self._styles = {"": base} | {
                name: base + get(f"detail--{name}")
                for name in ("title", "muted", "accent", "heading")
            }
            self._match = get("detail--match")
            self._finished.restyled(look_of(self, self._styles, self._match))
        self._drawn = (self.scrollable_content_region.width, round(self.scroll_y))
        try:
            return self._finished.render_lines(self, crop, self._finished_key, super().render_lines)
        finally:
            self._drawn = None

    def _finished_key(self, y: int) -> Hashable | None:
        """What row ``y`` of the content shows, as ``render_line`` would draw it."""
        index = (self._drawn[1] if self._drawn else round(self.scroll_y)) + y
        if index >= len(self._lines):
            return ("blank",)
        return tuple(self._lines[index]), self._highlight

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._stamp.forget()

    def render_line(self, y: int) -> Strip:
        # a frame's rows: the width and first line render_lines read once for all of them
        width, top = self._drawn or (self.scrollable_content_region.width, round(self.scroll_y))
        styles = self._styles or {"": self.rich_style}
        index = top + y
        if index >= len(self._lines):
            return Strip.blank(width, styles[""])
        segments = [
            Segment(text, styles.get(style, styles[""])) for text, style in self._lines[index]
        ]
        if self._highlight is not None:
            segments = self._marked(segments)
        return Strip(segments).adjust_cell_length(width, styles[""])

    # --- what a search matched --------------------------------------------------------

    def show_matches(self, pattern: re.Pattern[str] | None) -> None:
        """Mark what ``pattern`` finds in the text (a search's words and concept forms, in
        the ``detail--match`` style); None marks nothing."""
        if pattern is not self._highlight:
            self._highlight = pattern
            self.refresh()

    def _marked(self, segments: list[Segment]) -> list[Segment]:
        match = self._match
        out: list[Segment] = []
        for seg in segments:
            out += matched_segments(seg.text, self._highlight, seg.style or Style(), match)
        return out
