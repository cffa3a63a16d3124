"""The reader's two themes, dark (the default) and light. Each gives every text the reader
draws WCAG AA contrast (4.5:1) and the cursor's line a background 3:1 against the other
rows, focused or not: bench/contrast.py measures them, and
tests/functional/test_contrast.py keeps it so.

The colours are xterm's 256 (the 6x6x6 cube and the grey ramp), so a terminal without
true colour (tmux's default) shows the very colours measured, not the nearest ones."""

from __future__ import annotations

from textual.theme import Theme

DARK = "topiclens-dark"
LIGHT = "topiclens-light"
DEFAULT = DARK
THEME_KEY = "reader.theme"  # the store's meta key: the theme the user chose last

THEMES: dict[str, Theme] = {
    DARK: Theme(
        name=DARK,
        primary="#5FAFD7",
        secondary="#87AFFF",
        accent="#FFAF5F",
        warning="#FFAF5F",
        error="#FF5F87",
        success="#5FD787",
        foreground="#DADADA",
        background="#121212",
        surface="#1C1C1C",
        panel="#303030",
        dark=True,
        variables={
            # focused: a light bar, dark letters; not focused: a grey bar, white letters
            "block-cursor-foreground": "#121212",
            "block-cursor-background": "#5FAFD7",
            "block-cursor-text-style": "bold",
            "block-cursor-blurred-foreground": "#FFFFFF",
            "block-cursor-blurred-background": "#6C6C6C",
            "block-cursor-blurred-text-style": "none",
            "input-selection-background": "#005F87",
        },
    ),
    LIGHT: Theme(
        name=LIGHT,
        primary="#005F87",
        secondary="#5F5FAF",
        accent="#875F00",
        warning="#875F00",
        error="#AF0000",
        success="#005F00",
        foreground="#1C1C1C",
        background="#EEEEEE",
        surface="#FFFFFF",
        panel="#DADADA",
        dark=False,
        variables={
            "block-cursor-foreground": "#FFFFFF",
            "block-cursor-background": "#005F87",
            "block-cursor-text-style": "bold",
            "block-cursor-blurred-foreground": "#000000",
            "block-cursor-blurred-background": "#8A8A8A",
            "block-cursor-blurred-text-style": "none",
            "footer-key-foreground": "#005F87",
            # Textual's "auto 87%" white on the coloured buttons is no xterm colour
            "button-color-foreground": "#FFFFFF",
        },
    ),
}


def other_theme(name: str) -> str:
    """The theme ``toggle-theme`` switches to from ``name`` (from any other: the light one,
    unless it is the dark one)."""
    return DARK if name == LIGHT else LIGHT
