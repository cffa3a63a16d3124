"""An entry's link: which links go to a browser, which browser, and what to say when an
entry has none. The main screen's ``O`` and ``y`` use these; nothing here draws."""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from topiclens import text as gate
from topiclens.store.models import Entry

from .display import terminal_line

if TYPE_CHECKING:
    import webbrowser

# The schemes handed to the browser: anything else in a link field (a path, an option
# such as "--flag", javascript:) is shown and copied, never run.
WEB_SCHEMES = frozenset({"http", "https"})

# Browsers that draw in the terminal: the reader steps aside while one runs, as newsboat
# does; any other runs in a thread (webbrowser's command may wait until it exits).
TERMINAL_BROWSERS = frozenset(
    {"www-browser", "links", "links2", "elinks", "lynx", "w3m", "browsh", "carbonyl"}
)


# a link longer than this is no link a person pastes (browsers stop near 2,000 to 64 KB)
LINK_MAX_CHARS = 8192


def is_web_link(url: str) -> bool:
    return urlsplit(url).scheme.lower() in WEB_SCHEMES


def unsafe_link(url: str) -> str | None:
    """Why ``url`` is not safe to put on the clipboard (None when it is): only an http or
    https link of visible characters is, with no space, no control character (ESC, BEL,
    C1: a terminal acts on them when pasted) and no bidi or invisible format character."""
    if len(url) > LINK_MAX_CHARS:
        return f"the link is {len(url):,} characters long"
    for ch in url:
        if ch.isspace() or gate.terminal_text(ch) != ch:
            return f"the link holds an invisible or control character (U+{ord(ch):04X})"
    if not is_web_link(url):
        return "it is not a web link"
    return None


def no_link(entry: Entry) -> str:
    """What to say about an entry without a link: where it came from."""
    if entry.source:
        return f"This entry has no link. Its source: {terminal_line(entry.source)}."
    where = terminal_line(entry.origin_file) or "an unknown file"
    line = f", line {entry.origin_line}" if entry.origin_line else ""
    return f"This entry has no link. It came from {where}{line}."


def find_browser() -> webbrowser.BaseBrowser | None:
    """The browser ``webbrowser`` would use ($BROWSER first), None when there is none."""
    import webbrowser  # here, not at the top: every start would pay for it

    try:
        return webbrowser.get()
    except webbrowser.Error:
        return None


def in_terminal(browser: webbrowser.BaseBrowser) -> bool:
    """Whether ``browser`` is one that draws in the terminal (lynx, w3m, ...)."""
    import shlex

    try:
        words = shlex.split(str(getattr(browser, "name", "")))
    except ValueError:
        return False
    return bool(words) and PurePath(words[0]).name in TERMINAL_BROWSERS
