"""The private pieces of Textual the reader uses, kept here so an upgrade has one place to
check."""

from __future__ import annotations

from textual.app import App
from textual.geometry import Size
from textual.scroll_view import ScrollView


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
