"""The footer: the keys of the screen's bindings, one line drawn in one go; or, while slow
work runs, its progress in their place."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.strip import Strip
from textual.widget import Widget
from topiclens.text import cell_width

from ..display import terminal_line
from ..textual_compat import StyleStamp

# narrower than this, the command palette's key is left out so that every key fits
PALETTE_MIN_WIDTH = 100

# (key, key as shown, description, enabled) per action, and the command palette's key
Keys = tuple[list[tuple[str, str, str, bool]], tuple[str, str, str] | None]


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

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._spans: list[tuple[int, int, str]] = []  # (first cell, end cell, key)
        # the keys and line drawn last, with the width they were worked out for: most keys
        # change neither, and working them out took a millisecond of every frame
        self._keys_at: tuple[int, Keys] | None = None
        self._line: Strip | None = None
        self._stamp = StyleStamp()  # the line is kept until the styles are applied anew
        # slow work's (stage, fraction) shown in place of the keys: on this line, so the
        # panes keep their size (a box of its own took rows from them, a layout of the
        # screen each time it came and went)
        self.progress: tuple[str, float] | None = None

    def show_progress(self, stage: str, fraction: float) -> str:
        """Show ``stage`` (a clustering stage's name or a sentence) at ``fraction`` (0:
        not measured) in place of the keys until :meth:`hide_progress`; returns the
        sentence shown."""
        from ..progress import STAGES

        text = STAGES.get(stage, stage)
        progress = (text, max(0.0, min(1.0, fraction)))
        if progress != self.progress:
            self.progress, self._line = progress, None
            self.refresh()
        return text

    def hide_progress(self) -> None:
        if self.progress is not None:
            self.progress, self._line = None, None
            self.refresh()

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: object) -> None:
        if self._keys_at is None:
            return  # never drawn: its first line reads the keys (twice before the first frame)
        width = self.size.width
        keys = self._keys()
        if self._keys_at != (width, keys):
            self._keys_at, self._line = (width, keys), None
            self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._stamp.forget()

    def _keys(self) -> Keys:
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
        if self.size.width >= PALETTE_MIN_WIDTH and app.ENABLE_COMMAND_PALETTE:
            active = bindings.get(app.COMMAND_PALETTE_BINDING)
            if active is not None:
                binding = active.binding
                shown = terminal_line(app.get_key_display(binding))
                palette = (binding.key, shown, terminal_line(binding.description))
        return keys, palette

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self._keys_at is None or self._keys_at[0] != width:
            self._keys_at, self._line = (width, self._keys()), None
        if self._stamp.changed(self):
            self._line = None
        if self._line is None:
            if self.progress is not None:
                self._line = self._draw_progress(width, *self.progress)
            else:
                self._line = self._draw(width, self._keys_at[1])
        return self._line

    def _draw_progress(self, width: int, stage: str, fraction: float) -> Strip:
        from ..progress import progress_line

        self._spans = []  # no key to click meanwhile
        get = self.get_component_rich_style
        text = Style(bgcolor=self.rich_style.bgcolor) + get("key-footer--description")
        # the bar in the keys' colour, its rest in the separators'
        done = text + Style(color=get("key-footer--key").color)
        todo = text + get("key-footer--separator")
        return progress_line(stage, fraction, width, text, done, todo)

    def _draw(self, width: int, shown: Keys) -> Strip:
        base = Style(bgcolor=self.rich_style.bgcolor)  # between the keys: background only
        get = self.get_component_rich_style
        key_style, text_style = get("key-footer--key"), get("key-footer--description")
        dim = Style(dim=True)
        keys, palette = shown
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
            end = x + cell_width(shown) + cell_width(label)
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
            right_w = sum(cell_width(seg.text) for seg in right)
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
