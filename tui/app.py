"""The topiclens reader: a Textual app over the store."""

from __future__ import annotations

import gc
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.screen import ModalScreen, Screen
from topiclens.paths import cache_dir
from topiclens.store import Store

from .commands import APP as APP_COMMANDS
from .commands import BY_ID, MAIN, bindings
from .display import markup_literal, terminal_line
from .keymap import keymap_path, load_keymap, normal_key
from .main_screen import MainScreen
from .textual_compat import keep_parsed_css, load_parsed_css, set_first_theme
from .theme import DEFAULT, THEME_KEY, THEMES, other_theme

PARSED_CSS = "parsed-css.pickle"  # in the cache dir


class TopicLensApp(App[None]):
    """Topics, entries and the entry, keyboard first."""

    # next to this module wherever the package is installed; absolute, so subclasses
    # defined in other modules find it too (importlib.resources costs ~10% of a start)
    CSS_PATH = Path(__file__).with_name("reader.tcss")
    TITLE = "topiclens"
    BINDINGS: ClassVar[list[BindingType]] = bindings(APP_COMMANDS)

    def __init__(
        self,
        store: Store,
        *,
        keymap_file: Path | None = None,
        cluster: bool = True,
        poll_interval: float = 2.0,
        feed_check: float | None = None,
        theme: str | None = None,
    ) -> None:
        super().__init__()
        for t in THEMES.values():
            self.register_theme(t)
        self._theme_chosen = True
        # the one asked for, else the one chosen last, else ours (an unknown name: ours)
        chosen = theme or store.get_meta(THEME_KEY) or DEFAULT
        set_first_theme(self, chosen if chosen in self.available_themes else DEFAULT)
        # the CSS as the last start with this theme parsed it (kept after its first frame)
        self.css_cache = cache_dir() / PARSED_CSS
        self._css_loaded = load_parsed_css(self.stylesheet, self.css_cache)
        self.store = store
        self.keymap_file = keymap_file if keymap_file is not None else keymap_path()
        self.cluster = cluster
        self.poll_interval = poll_interval
        self.feed_check = feed_check  # seconds between looks for due feeds (None: default)
        # binding id -> keys, from the user's keymap file (the help screen shows them)
        self.keymap, self.keymap_problems = load_keymap(self.keymap_file)
        self.set_keymap(self.keymap)

    # App.__init__ asks for the CSS variables of Textual's default theme, which the reader
    # never shows: the first ones made are those of the theme set_first_theme gives it
    _theme_chosen = False

    def get_css_variables(self) -> dict[str, str]:
        return super().get_css_variables() if self._theme_chosen else {}

    def get_default_screen(self) -> Screen[None]:
        screen = MainScreen(self.store, cluster=self.cluster, poll_interval=self.poll_interval)
        if self.feed_check is not None:
            screen.feed_check = self.feed_check
        return screen

    def on_load(self) -> None:
        # No garbage collection until the first frame is on the terminal (``topiclens``
        # turns it off before its imports already): what the start allocates (widgets,
        # styles, rows) lives as long as the app, and collections would only walk it (a
        # full one cost ~20 ms before the first frame at 100,000 entries).
        gc.disable()

    def on_ready(self) -> None:
        """The first frame is on the terminal."""
        gc.enable()
        # the start's garbage, all of it in the youngest generation (after a start from
        # the command line, the imports' too: ~20 ms, once the frame is shown), before
        # first_frame_shown freezes what is left
        gc.collect(0)
        if isinstance(self.screen, MainScreen):
            self.screen.first_frame_shown()
        keep_parsed_css(self.stylesheet, self.css_cache, self._css_loaded)

    def on_unmount(self) -> None:
        gc.enable()  # an app that stopped before its first frame

    def on_mount(self) -> None:
        # subscribed after the first theme is set: only the user's choices are remembered
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        for problem in self.keymap_problems:
            self.notify(
                terminal_line(problem), title="Keymap", severity="warning", timeout=10, markup=False
            )

    def action_toggle_theme(self) -> None:
        self.theme = other_theme(self.theme)

    def _remember_theme(self, theme: object) -> None:
        self.store.set_meta(THEME_KEY, self.theme)

    async def action_close_or_quit(self) -> None:
        """``q``: close what is over the panes first (the overview, the maximised entry),
        as Escape would; quit from the panes."""
        screen = self.screen
        if not isinstance(screen, MainScreen):
            self.simulate_key("escape")  # each screen's own way out (a question may ask)
        elif screen.maximized is not None:
            screen.minimize()
        else:
            await self.action_quit()

    def on_key(self, event: events.Key) -> None:
        """The quit key in a dialog closes it as Escape does: a modal screen keeps the
        app's bindings from its keys, and one the dialog left alone (no text field took
        it, no binding of its own) arrives here."""
        screen = self.screen
        if not isinstance(screen, ModalScreen) or event.key in screen.active_bindings:
            return
        quit_keys = self.keymap.get("quit", BY_ID["quit"].keys).split(",")
        if event.key in {normal_key(k.strip()) for k in quit_keys}:
            event.stop()
            self.simulate_key("escape")

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        theme = BY_ID["toggle-theme"]
        yield SystemCommand(theme.label, theme.help, self.action_toggle_theme)
        if not isinstance(screen, MainScreen):
            return
        for command in MAIN:
            if command.palette:
                yield SystemCommand(
                    command.label, command.help, partial(self._run, screen, command.action)
                )
        yield SystemCommand("Help", "Show every key", self.action_help)
        for t in screen.topics:  # the palette reads titles as markup: the name is escaped
            title = markup_literal(f"Jump to topic: {t.name}")
            jump = partial(screen.jump_to_topic, t.id)
            yield SystemCommand(title, f"{t.size} entries", jump, discover=False)

    def _run(self, screen: Screen[object], action: str) -> None:
        self.call_later(screen.run_action, action)
