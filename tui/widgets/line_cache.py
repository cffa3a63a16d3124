"""Finished lines of a Line API view, kept by what each shows, so a topic shown again, a
list scrolled back or an entry seen before is copied from memory instead of styled again.

A line is kept as plain tuples of its texts and style numbers, not as Textual's ``Strip``:
a Strip brings seven small caches of its own, and thousands of kept Strips made every full
garbage collection some 30 times slower (the collector untracks a tuple of strings and
numbers, never a Strip). Making a Strip again from the tuples costs a few microseconds."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import ClassVar

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget

from ..textual_compat import RowStyle, styled_lines

# Lines kept per view (a few hundred bytes each): the entry list's screens of 140 topics,
# the entry pane's lines of 60 entries
KEPT_LINES = 2048
# Looks kept per view, each with its lines: a pane with the focus and without it (the
# cursor's colours, a border, a tint), so a focus moving away and back copies its lines
# again instead of styling every one anew
KEPT_LOOKS = 2
# Lines kept as Strips as well, per look, the most recently shown first: a pane's screenful
# and some. A frame that shows such a line again (a focus come back, a topic switched back
# to) hands the compositor the Strip it had before, whose own caches (the line cut at the
# frame's edges) are filled already; few, so full collections stay cheap
LIVE_LINES = 96

LineKey = Callable[[int], Hashable | None]
Render = Callable[[Region], list[Strip]]
# a line kept, as one flat tuple (the collector untracks it at its first look): its length
# in cells, then each part's text and style number
Packed = tuple[int | str, ...]


class Packer:
    """Strips as plain tuples and back, their styles kept once, by number."""

    def __init__(self) -> None:
        self._styles: list[Style | None] = []
        self._numbers: dict[Style | None, int] = {}

    def clear(self) -> None:
        self._styles.clear()
        self._numbers.clear()

    def pack(self, strip: Strip) -> Packed | None:
        """``strip`` as a tuple (None: it holds a control code, which is not kept)."""
        numbers = self._numbers
        packed: list[int | str] = [strip.cell_length]
        for text, style, control in strip:
            if control:
                return None
            number = numbers.get(style)
            if number is None:
                number = numbers[style] = len(self._styles)
                self._styles.append(style)
            packed += (text, number)
        return tuple(packed)

    def unpack(self, packed: Packed) -> Strip:
        styles = self._styles
        parts = zip(packed[1::2], packed[2::2], strict=True)
        return Strip(
            [Segment(text, styles[number]) for text, number in parts],  # type: ignore[index,arg-type]
            packed[0],  # type: ignore[arg-type]
        )


def look_of(widget: Widget, *styles: object) -> tuple[object, ...]:
    """What a view's applied styles give every line it draws, to be compared by equality:
    ``styles`` (the view's own line styles), its base style (inherited colours included)
    and its CSS rules (border, titles' colours, padding, tint, ...)."""
    return (*styles, widget.rich_style, widget.styles.get_rules())


class LineCache:
    """A view's finished lines (its borders, padding and the app's filters applied, as
    Textual's ``render_lines`` gives them), each kept under a key naming everything the
    view drew on it, so a line is never shown stale: a change to what it shows is another
    key. What the key cannot name is the lines' look: the view's styles (the view calls
    :meth:`restyled` when they are applied anew) and its frame (its size, background,
    filters and opacity). Lines are kept for each of the last KEPT_LOOKS looks, so a pane
    the focus leaves and comes back to is copied again, not styled anew.

    A border's or padding's line is kept under its row and what Textual draws on it: the
    border's title above the content, its subtitle below."""

    def __init__(
        self, size: int = KEPT_LINES, looks: int = KEPT_LOOKS, live: int = LIVE_LINES
    ) -> None:
        self.size = size
        self.looks = looks
        self.live = live
        self._lines: dict[Hashable, Packed] = {}
        self._packer = Packer()
        self._strips: dict[Hashable, Strip] = {}  # the look's lines last shown, as Strips
        self._styled: tuple[object, ...] = ()  # the view's styles, as restyled() was told
        self._look: tuple[object, ...] | None = None  # (styles, frame) the lines are in
        self._row_style: RowStyle | None = None  # worked out in the look, when first needed
        # the other looks' lines, oldest first: (look, lines, their packer, their Strips)
        self._other_looks: list[
            tuple[tuple[object, ...], dict[Hashable, Packed], Packer, dict[Hashable, Strip]]
        ] = []

    def clear(self) -> None:
        """Forget every line of every look."""
        self._lines, self._packer, self._strips = {}, Packer(), {}
        self._look = None
        self._row_style = None
        self._other_looks.clear()

    def restyled(self, styled: tuple[object, ...]) -> None:
        """The view's styles were applied anew and give ``styled`` (:func:`look_of`),
        compared by equality: lines kept in an equal look come back."""
        self._styled = styled

    def _in_look(self, look: tuple[object, ...]) -> None:
        """Keep the lines in ``look``: those kept for an equal one, else none yet."""
        if look == self._look:
            return
        found = next((i for i, kept in enumerate(self._other_looks) if kept[0] == look), None)
        lines, packer, strips = (
            self._other_looks.pop(found)[1:] if found is not None else ({}, Packer(), {})
        )
        if self._look is not None and self._lines:
            self._other_looks.append((self._look, self._lines, self._packer, self._strips))
            del self._other_looks[: max(0, len(self._other_looks) - (self.looks - 1))]
        self._look, self._lines, self._packer, self._strips = look, lines, packer, strips
        self._row_style = None

    def _shown(self, key: Hashable, strip: Strip) -> None:
        """``strip`` is shown under ``key``: kept as a Strip, the least recently shown
        forgotten past ``live``."""
        strips = self._strips
        strips.pop(key, None)
        if len(strips) >= self.live:
            del strips[next(iter(strips))]
        strips[key] = strip

    def render_lines(
        self, widget: Widget, crop: Region, key: LineKey, render: Render
    ) -> list[Strip]:
        """``widget``'s lines in ``crop`` (rows relative to the widget): kept ones from
        memory, the others from ``render`` (the widget's own ``render_lines``), drawn
        in runs of consecutive rows. ``key(line)`` names what content line ``line`` shows
        (None: not kept)."""
        width, height = widget.region.size
        if crop.x != 0 or crop.width != width or not crop.height:
            return render(crop)  # part of a line: Textual's own, not kept
        frame = (
            widget.region.size,
            widget.content_region.size,
            widget.background_colors,
            tuple(widget.get_line_filters()),
            widget.opacity,
        )
        self._in_look((self._styled, frame))
        gutter = widget.styles.gutter
        # the content's rows, as Textual's StylesCache draws them (the rest: borders, padding)
        first = gutter.top
        end = min(height - gutter.bottom, first + widget.content_region.height)
        # a border's top rows show its title (markup, styles and all), its bottom rows its
        # subtitle: a view whose title alone changed (another topic's entries) keeps its
        # bottom border
        title, subtitle = widget.border_title, widget.border_subtitle
        lines, packer, strips = self._lines, self._packer, self._strips
        out: list[Strip | None] = []
        keys: list[Hashable | None] = []
        for y in crop.line_range:
            if first <= y < end:
                k = key(y - first)
            else:
                k = ("edge", y, title if y < first else subtitle)
            keys.append(k)
            strip = None
            if k is not None:
                strip = strips.get(k)
                if strip is None:
                    kept = lines.get(k)
                    strip = packer.unpack(kept) if kept is not None else None
                if strip is not None:
                    self._shown(k, strip)
            out.append(strip)
        y0 = crop.y
        i = 0
        while i < len(out):
            if out[i] is not None:
                i += 1
                continue
            j = i
            while j < len(out) and out[j] is None:
                j += 1
            if self._row_style is None:
                self._row_style = RowStyle(widget)  # (what the look and frame give every row)
            drawn = styled_lines(widget, Region(0, y0 + i, width, j - i), render, self._row_style)
            out[i:j] = drawn
            for k, strip in zip(keys[i:j], drawn, strict=True):
                packed = packer.pack(strip) if k is not None else None
                if packed is not None:
                    if len(lines) >= self.size:
                        del lines[next(iter(lines))]  # the oldest
                    lines[k] = packed
                    self._shown(k, strip)
            i = j
        return out  # type: ignore[return-value]


class KeptScrollBar(ScrollBar):
    """Textual's scrollbar, its lines kept by what it shows (its thumb's size and place
    and its colours, as Textual's own ``render`` describes them): a view shown again, or
    another of the same length, draws its scrollbar from memory. Each of its lines is kept
    too, by the cell Textual's renderer puts on it (a piece of the track or of the thumb,
    or one of the thumb's ends), so a bar of another thumb is made of lines kept: a topic
    first shown draws no scrollbar line anew."""

    KEPT_BARS: ClassVar[int] = 64

    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1):
        super().__init__(vertical, name, thickness=thickness)
        # whole bars by their key, and single lines by ("line", their cell, frame)
        self._kept: dict[Hashable, list[Packed]] = {}
        self._packer = Packer()

    def render_lines(self, crop: Region) -> list[Strip]:
        bar = self.render()
        if not isinstance(bar, ScrollBarRender):
            return super().render_lines(crop)  # another renderer: Textual's own, not kept
        view = self.parent
        if isinstance(view, Widget) and view.max_scroll_y == 0:
            # nothing to scroll: drawn as the view draws its gutter without a scrollbar
            base, background = view.background_colors
            blank = Strip.blank(crop.width, Style(bgcolor=(base + background).rich_color))
            return [blank] * crop.height
        frame = (bar.style, self.background_colors, tuple(self.get_line_filters()))
        key = (
            crop,
            self.region.size,
            bar.virtual_size,
            bar.window_size,
            bar.position,
            bar.thickness,
            bar.vertical,
            *frame,
        )
        kept = self._kept.get(key)
        if kept is not None:
            return self._unpacked(kept)
        cells = self._cells(bar, crop, frame)
        if cells is not None:
            found = [self._kept.get(cell) for cell in cells]
            if all(line is not None for line in found):
                for cell, line in zip(cells, found, strict=True):
                    self._kept[cell] = self._kept.pop(cell, line)  # the newest again
                kept = [line[0] for line in found]  # type: ignore[index]
                self._keep(key, kept)
                return self._unpacked(kept)
        lines = super().render_lines(crop)
        packed = [self._packer.pack(line) for line in lines]
        if all(line is not None for line in packed):
            self._keep(key, packed)  # type: ignore[arg-type]
            for cell, line in zip(cells or (), packed, strict=False):
                self._keep(cell, [line])  # type: ignore[list-item]
        return lines

    def _unpacked(self, lines: list[Packed]) -> list[Strip]:
        """``lines`` as Strips, one Strip for the lines that are the same (most of a bar)."""
        strips: dict[Packed, Strip] = {}
        unpack = self._packer.unpack
        return [strips.get(line) or strips.setdefault(line, unpack(line)) for line in lines]

    def _keep(self, key: Hashable, lines: list[Packed]) -> None:
        if len(self._kept) >= self.KEPT_BARS:
            del self._kept[next(iter(self._kept))]  # the oldest
        self._kept[key] = lines

    def _cells(
        self, bar: ScrollBarRender, crop: Region, frame: tuple[object, ...]
    ) -> list[Hashable] | None:
        """The key of each line of ``crop``: the cell Textual's renderer draws on it (as
        its ``__rich_console__`` asks ``render_bar``, one segment a line), in ``frame``.
        None: not a vertical bar drawn whole across."""
        width, height = self.size
        if not bar.vertical or crop.x != 0 or crop.width != width:
            return None
        style = bar.style if isinstance(bar.style, Style) else Style.parse(bar.style)
        drawn = bar.render_bar(
            size=height,
            window_size=bar.window_size,
            virtual_size=bar.virtual_size,
            position=bar.position,
            vertical=True,
            thickness=width,
            back_color=style.bgcolor or Color.parse("#555555"),
            bar_color=style.color or Color.parse("bright_magenta"),
        )
        cells = drawn.segments
        if len(cells) != height:
            return None
        return [("line", cells[y], width, *frame) for y in crop.line_range]
