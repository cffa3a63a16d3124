"""The private pieces of Textual the reader uses, kept here so an upgrade has one place
to check."""

from __future__ import annotations

import contextlib
import enum
import os
import pickle
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import MethodType
from typing import Any

import textual.css
from rich.segment import Segment
from textual import events
from textual._border import get_box
from textual._segment_tools import line_pad
from textual.app import App
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.style import Style as TextualStyle
from textual.widget import Widget


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


def vertical_scrollbar(widget: Widget, make: Callable[..., ScrollBar]) -> ScrollBar:
    """``widget``'s vertical scrollbar, made by ``make`` (a ScrollBar subclass) the first
    time it is asked for, as Textual's ``Widget.vertical_scrollbar`` makes its own.
    Private: the widget's ``_vertical_scrollbar`` and ``App._start_widget``, as that
    property uses them."""
    bar = widget._vertical_scrollbar
    if bar is None:
        bar = make(vertical=True, name="vertical", thickness=widget.scrollbar_size_vertical)
        bar.display = False
        widget._vertical_scrollbar = bar
        widget.app._start_widget(widget, bar)
    return bar


def repaint_now(*widgets: Widget) -> None:
    """Ask the screen now for the repaints ``widgets`` (and their scrollbars) have waiting.

    A Textual widget asks for its repaint when it is next idle, after the handler that
    changed it has returned, and the screen draws a frame as soon as it is idle itself: a
    key that changes a list and, through a message, the panes beside it drew the list at
    once and the panes in the next frame, 16.7 ms later (the screen draws 60 frames a
    second at most). Asked here, in the handler, they are in the same frame. Private: the
    widget's ``_check_refresh``, which its idle handler calls, and its scrollbars."""
    for widget in widgets:
        bars = [
            getattr(widget, name, None) for name in ("_vertical_scrollbar", "_horizontal_scrollbar")
        ]
        for each in (*bars, widget):
            check = getattr(each, "_check_refresh", None)
            if check is not None:  # (a Textual without it: the next frame, as before)
                check()


def set_first_theme(app: App[object], name: str) -> None:
    """Give an app that is not running yet its first theme, as ``App.__init__`` gives the
    default one.

    Setting ``App.theme`` runs its watcher, which queues a refresh of the CSS: once the
    screen is composed every stylesheet is parsed again, from an empty cache, and every
    widget styled again, about 5% of the reader's start. Before the app runs
    nothing is parsed or styled yet, so the theme's variables and classes are all it needs."""
    app.set_reactive(App.theme, name)
    dark = app.current_theme.dark
    app.set_class(dark, "-dark-mode", update=False)
    app.set_class(not dark, "-light-mode", update=False)
    app.set_class(True, f"-theme-{name}", update=False)
    app.stylesheet.set_variables(app.get_css_variables())
    app._refresh_truecolor_filter(app.ansi_theme)  # private: ANSI colours as the theme maps them


def first_resume_styled(screen: Screen[Any], event: events.ScreenResume) -> None:
    """Let the screen's first resume skip restyling every widget, and give its first
    layout the scrollbars it needs (:func:`scrollbars_before_layout`).

    Textual restyles a screen's whole DOM whenever the screen is resumed, for the CSS or
    the classes that changed while it was away. On the first resume nothing was away:
    each widget was styled as it was mounted, a moment before, and what changed since
    (a class, the focus) restyled what it touched. Restyling the five panes again cost
    about 3% of the reader's start. Private: the event's ``refresh_styles``, read by
    ``Screen._on_screen_resume``, which runs after the screen's own handler and lays the
    screen out for the first time."""
    if getattr(screen, "_resumed_before", False):
        return
    screen._resumed_before = True  # type: ignore[attr-defined]
    event.refresh_styles = False
    scrollbars_before_layout(screen)


def scrollbars_before_layout(screen: Screen[Any]) -> None:
    """Give each scrolling pane of ``screen`` the size its first layout will give it, so
    the first frame shows the vertical scrollbars it needs.

    Textual decides a scrollbar from the size a layout gives the view, and places it in a
    second layout and frame: at 100,000 entries the scrollbars of the topic list, the
    entry list and the entry appeared in a second frame of ~10 ms that redrew most of the
    screen. Here the screen is arranged as its first layout will arrange it (Textual keeps
    the arrangement, and that layout uses it); a view with a ``before_layout(size)``
    method is told the size its lines have (the entry wraps its text to that width), and
    a view whose lines do not fit shows its scrollbar from the start. Private: the
    screen's arrangement, each view's scrollable region and its ``show_vertical_scrollbar``
    set without a layout of its own; the first layout decides again, the same way."""
    for placement in screen.arrange(screen.app.size).placements:
        view = placement.widget
        if not isinstance(view, ScrollView) or view.styles.overflow_y not in ("auto", "scroll"):
            continue
        container = placement.region.shrink(view.styles.gutter)  # inside border and padding
        if not container.size:
            continue  # no room: Textual leaves its scrollbars as they are, so does this
        before_layout = getattr(view, "before_layout", None)
        if before_layout is not None:
            before_layout(view._get_scrollable_region(container).size)
        if view.styles.overflow_y == "scroll" or view.virtual_size.height > container.height:
            view.set_reactive(Widget.show_vertical_scrollbar, True)


def laid_out_at(screen: Screen[Any], size: Size) -> bool:
    """Whether ``screen`` is laid out at ``size`` already: Textual's handler of a Resize
    to that size would lay the whole screen out again and draw a frame. What a widget
    asked for since (a layout, a repaint) is done by the screen's next update, as
    without a Resize. Private: the screen's compositor, its size and its map."""
    compositor = screen._compositor
    return (
        compositor.size == size
        and bool(compositor._full_map)
        and not compositor._full_map_invalidated
    )


def crop_frames(screen: Screen[Any]) -> None:
    """Let ``screen``'s frames draw a partial update from the widgets it touches only.

    Textual's compositor asks every widget on the screen for its lines on every frame (it
    tests each widget's clip, which is the whole screen, against the changed region), so
    a cursor move in the entry list also went through the topic list, the footer and the
    screen's background, and cut their lines into the frame's chops. Here a widget is
    asked only for the rows where it covers a changed region (the regions themselves, not
    the box around them: a frame with the topic list's cursor and the entries does not
    draw the whole topic list). What reaches the terminal is the same: the update writes
    the changed regions alone, and every widget with a cell in them is drawn for that row.
    Private: the screen's compositor, its ``_get_renders`` and ``render_partial_update``
    (which holds the changed regions), replaced on this one compositor."""
    compositor = screen._compositor
    needed = ("_get_renders", "visible_widgets", "render_partial_update", "_dirty_regions")
    if not all(hasattr(compositor, name) for name in needed):
        return  # a Textual that drew otherwise: its own full frames, still correct
    compositor._get_renders = MethodType(_cropped_renders, compositor)  # type: ignore[method-assign]
    compositor.render_partial_update = MethodType(_partial_update, compositor)  # type: ignore[method-assign]
    compositor._frame_regions = None


def frames_cropped(screen: Screen[Any]) -> bool:
    """Whether :func:`crop_frames` was applied to ``screen``."""
    method = getattr(screen._compositor, "_get_renders", None)
    return getattr(method, "__func__", None) is _cropped_renders


def _partial_update(compositor: Any) -> Any:
    """The compositor's ``render_partial_update``, the frame's changed regions kept for
    :func:`_cropped_renders` while it draws."""
    compositor._frame_regions = list(compositor._dirty_regions)
    try:
        return type(compositor).render_partial_update(compositor)
    finally:
        compositor._frame_regions = None


def _row_spans(visible: Region, changed: list[Region]) -> list[tuple[int, int]]:
    """The rows (top, bottom) where ``visible`` covers one of ``changed``, merged."""
    spans = sorted(
        (cut.y, cut.bottom) for region in changed if (cut := visible.intersection(region))
    )
    merged: list[tuple[int, int]] = []
    for top, bottom in spans:
        if merged and top <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], bottom))
        else:
            merged.append((top, bottom))
    return merged


def _cropped_renders(
    compositor: Any, crop: Region | None = None
) -> Iterator[tuple[Region, Region, list[Strip]]]:
    """The compositor's ``_get_renders`` (called by its ``_render_chops``): a partial
    update's widgets, each rendered for the rows where it covers a changed region."""
    if not crop:  # a full frame: Textual's own
        yield from type(compositor)._get_renders(compositor, crop)
        return
    changed = compositor._frame_regions or [crop]
    exposed = _exposed_rows(compositor)
    for widget, (region, clip) in compositor.visible_widgets.items():
        rows_shown = exposed.get(widget)
        for top, bottom in _row_spans(region.intersection(clip), changed):
            if rows_shown is not None and not any(a < bottom and top < b for a, b in rows_shown):
                continue  # every cell of these rows is under widgets drawn over it
            # whole rows: the chops are cut across each row, so the columns stay
            rows = clip.intersection(Region(clip.x, top, clip.width, bottom - top))
            shown = region.intersection(rows)
            lines = widget.render_lines(shown.translate((-region.x, -region.y)))
            yield region, rows, lines


def _exposed_rows(compositor: Any) -> dict[Widget, list[tuple[int, int]]]:
    """Each visible widget's rows (top, bottom) where some cell of it is not under a
    widget drawn over it (the compositor fills a frame's cells front to back, the first
    widget in a cell wins): the screen's background, under the panes, is never asked for
    its lines. Worked out once a layout (the compositor's map of visible widgets is made
    anew on each). Private: the compositor's ``visible_widgets``, front first."""
    visible = compositor.visible_widgets
    kept = getattr(compositor, "_exposed_rows", None)
    if kept is not None and kept[0] is visible:
        return kept[1]  # type: ignore[no-any-return]
    covered: dict[int, list[tuple[int, int]]] = {}  # row -> columns of the widgets above
    exposed: dict[Widget, list[tuple[int, int]]] = {}
    for widget, (region, clip) in visible.items():
        shown = region.intersection(clip)
        spans: list[tuple[int, int]] = []
        for y in range(shown.y, shown.bottom):
            above = covered.setdefault(y, [])
            if not _spans_cover(above, shown.x, shown.right):
                if spans and spans[-1][1] == y:
                    spans[-1] = (spans[-1][0], y + 1)
                else:
                    spans.append((y, y + 1))
            above.append((shown.x, shown.right))
        exposed[widget] = spans
    compositor._exposed_rows = (visible, exposed)
    return exposed


def _spans_cover(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether the column ``spans`` (start, end) together cover ``start`` to ``end``."""
    reached = start
    for a, b in sorted(spans):
        if a > reached:
            break
        reached = max(reached, b)
        if reached >= end:
            return True
    return reached >= end


class StyleStamp:
    """Tells whether a widget's styles were applied since it was last asked, so what a
    widget works out from them (its line styles) is kept between frames.

    Textual applies a widget's CSS again on a focus, a class, a theme or any restyle of an
    ancestor, and each time makes the widget new component styles (private:
    ``_component_styles``); its own rules replaced call ``notify_style_update``, which the
    widget passes on to :meth:`forget`. A scroll or a repaint applies nothing."""

    def __init__(self) -> None:
        self._seen: tuple[object, ...] | None = None

    def forget(self) -> None:
        self._seen = None

    def changed(self, widget: Widget) -> bool:
        """True the first time and whenever ``widget``'s styles were applied anew."""
        applied = tuple(widget._component_styles.values())
        seen = self._seen
        if (
            seen is not None
            and len(seen) == len(applied)
            and all(a is b for a, b in zip(seen, applied, strict=True))
        ):
            return False
        self._seen = applied  # (held: their ids are never reused while compared)
        return True


class RowStyle:
    """What :func:`styled_lines` works out from a widget's styles, size and background for
    every content row: whether its rows are plain enough to make (no outline, hatch, tint,
    opacity or vertical padding), and then its border's sides, padding, background and
    line filters. The same for every frame until one of those changes, so a view that
    keeps its lines by its look and frame (``LineCache``) works it out once a look."""

    __slots__ = (
        "background",
        "content_size",
        "filters",
        "gutter",
        "inner",
        "left",
        "pad_left",
        "pad_right",
        "plain",
        "right",
        "size"
    )  # fmt: skip

    def __init__(self, widget: Widget) -> None:
        styles = widget.styles
        self.size = widget.region.size
        self.gutter = styles.gutter
        self.plain = (
            not any(edge for edge, _ in styles.outline)
            and not (styles.has_rule("hatch") and styles.hatch != "none")
            and not styles.tint.a
            and styles.text_opacity == 1.0
            and widget.opacity == 1.0
            and not styles.padding.top
            and not styles.padding.bottom
        )
        base_background, self.background = widget.background_colors
        inner_style = TextualStyle(background=base_background + self.background)
        outer_style = TextualStyle(background=base_background)
        self.inner = inner_style.rich_style
        (_, _), (border_right, right_color), (_, _), (border_left, left_color) = styles.border
        self.left = self.right = None
        if border_left:
            left_style = TextualStyle(foreground=base_background + left_color)
            self.left = get_box(border_left, inner_style, outer_style, left_style)[1][0]
        if border_right:
            right_style = TextualStyle(foreground=base_background + right_color)
            self.right = get_box(border_right, inner_style, outer_style, right_style)[1][2]
        _, self.pad_right, _, self.pad_left = styles.padding
        self.content_size = widget.content_region.size
        self.filters = widget.get_line_filters()


def styled_lines(
    widget: Widget,
    crop: Region,
    render: Callable[[Region], list[Strip]],
    row_style: RowStyle | None = None,
) -> list[Strip]:
    """``widget``'s finished lines in ``crop`` (whole rows), as ``render`` (the widget's own
    ``render_lines``: Textual's ``StylesCache``) makes them: the content rows are made
    here, its border's sides and background worked out once for the rows instead of once
    a row (Textual's styling cost some 90 us a line, three times the line's own drawing).
    The border's rows and a widget styled beyond a border, horizontal padding and a
    background (an outline, a hatch, a tint, an opacity, vertical padding) are Textual's.
    ``row_style``: the widget's :class:`RowStyle`, when kept since it was worked out.
    Private: the border's segments (``get_box``), the padding (``line_pad``), and the steps
    of ``StylesCache.render_line`` for a content row, which this follows."""
    rows = RowStyle(widget) if row_style is None else row_style
    width, height = rows.size
    gutter = rows.gutter
    top, bottom = max(crop.y, gutter.top), min(crop.bottom, height - gutter.bottom)
    plain = (
        rows.plain
        and crop.x == 0
        and crop.width == width
        and top < bottom
        and not widget.hover_style._link_id
    )
    if not plain:
        return render(crop)
    inner, left, right = rows.inner, rows.left, rows.right
    pad_left, pad_right = rows.pad_left, rows.pad_right
    content_width, content_height = rows.content_size
    filters, background = rows.filters, rows.background
    lines: list[Strip] = []
    for y in range(top, bottom):
        content_y = y - gutter.top
        if content_y < content_height:
            # padded to the content's width here, not as another Strip
            line = widget.render_line(content_y)
            gap = content_width - line.cell_length
            if gap < 0:
                line, gap = line.adjust_cell_length(content_width, inner), 0
        else:
            line, gap = Strip.blank(content_width, inner), 0
        parts = [*line, Segment(" " * gap, inner)] if gap else line
        padded = line_pad(parts, pad_left, pad_right, inner) if pad_left or pad_right else parts
        segments = [
            *((left,) if left is not None else ()),
            *padded,
            *((right,) if right is not None else ()),
        ]
        for line_filter in filters:  # (as Strip.apply_filter does, with no Strip between)
            segments = line_filter.apply(segments, background)
        lines.append(Strip(segments, width))
    before = render(Region(0, crop.y, width, top - crop.y)) if top > crop.y else []
    after = render(Region(0, bottom, width, crop.bottom - bottom)) if crop.bottom > bottom else []
    return [*before, *lines, *after]


def load_parsed_css(stylesheet: Stylesheet, path: Path) -> frozenset[object]:
    """Give ``stylesheet`` the rule sets :func:`keep_parsed_css` kept at ``path``, so the
    CSS a start parsed before is not parsed again (about 4% of the reader's start): the
    keys of those loaded, none when the file is missing, unreadable or was kept for
    other theme variables or another Textual.

    Each kept parse is keyed as Textual keys its own (the CSS text, where it was read,
    its scope and priority), so a changed file is parsed anew. Private: the stylesheet's
    parse cache and its variables. The file is the user's own, like their config."""
    try:
        with path.open("rb") as file:
            made_by, variables, parsed = _KeptCssUnpickler(file).load()
        if made_by != _parser_stamp() or variables != stylesheet._variables:
            return frozenset()
        if not isinstance(parsed, dict) or not all(
            isinstance(rules, list) and all(isinstance(rule, RuleSet) for rule in rules)
            for rules in parsed.values()
        ):
            return frozenset()
    except Exception:  # missing, truncated, garbage, an old Textual's classes: parse
        return frozenset()
    for key, rules in parsed.items():
        stylesheet._parse_cache[key] = rules
    return frozenset(parsed)


# What a kept parse is made of; a pickle naming anything else (not written by
# keep_parsed_css) is refused before it can call it.
_KEPT_CSS_MODULES = ("textual.css.", "textual.color", "textual.geometry", "textual.layouts.")


class _KeptCssUnpickler(pickle.Unpickler):
    """Reads Textual's CSS classes and the checks of its selectors, and nothing else:
    ``getattr`` gives only what a kept parse asks of it (:func:`_kept_attribute`)."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("builtins", "getattr"):
            return _kept_attribute
        plain = "." not in name  # (a dotted name reaches into what a module holds)
        if plain and (
            (module, name) == ("functools", "partial") or module.startswith(_KEPT_CSS_MODULES)
        ):
            found = super().find_class(module, name)
            if isinstance(found, type) or getattr(found, "__module__", "").startswith("textual."):
                return found
        raise pickle.UnpicklingError(f"not in a kept parse: {module}.{name}")


def _kept_attribute(owner: object, name: str) -> object:
    """``getattr`` as a kept parse uses it: an enum's member, or the look-ups a style keeps
    of its rules' dict."""
    if isinstance(owner, type) and issubclass(owner, enum.Enum):
        return owner[name]
    if type(owner) is dict and name in ("get", "__contains__"):
        return getattr(owner, name)
    raise pickle.UnpicklingError(f"not in a kept parse: getattr {name}")


def keep_parsed_css(stylesheet: Stylesheet, path: Path, loaded: frozenset[object]) -> None:
    """Keep at ``path`` the rule sets of ``stylesheet``'s sources (those of a first start's
    progress bar are gone by the next), for the next start's :func:`load_parsed_css`,
    unless they are the ones loaded from it. Written to a temporary file and moved into
    place, so a start never reads half a file; a cache that cannot be written is left
    as it is."""
    cache = stylesheet._parse_cache
    # (a source is parsed again when its priority changes: both parses are kept)
    keys = frozenset(k for k in cache.keys() if k[1] in stylesheet.source)  # noqa: SIM118 (no __iter__)
    if not keys or keys == loaded:
        return
    kept = (_parser_stamp(), stylesheet._variables, {key: cache[key] for key in keys})
    temporary = path.with_name(f"{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(temporary, path)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


def _parser_stamp() -> tuple[object, ...]:
    """What tells one install of Textual's CSS classes from another (a pip upgrade
    rewrites every file) without importlib.metadata, whose import costs more than the
    parse kept: Python's version and the size and time of each module of textual.css."""
    folder = Path(textual.css.__file__).parent
    files = sorted(
        (entry.name, entry.stat().st_size, entry.stat().st_mtime_ns)
        for entry in os.scandir(folder)
        if entry.name.endswith(".py")
    )
    return (sys.version, str(folder), *files)
