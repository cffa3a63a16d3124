"""How much text the user may store or ask for: one function for every name stored (a
topic's, a saved search's, a mute rule's words; a restore passes here too) and one for a
search query, so no stored name can cost the reader more than a frame and no query can
exceed what SQLite evaluates. No I/O."""

from __future__ import annotations

from topiclens.text import terminal_text

NAME_MAX_CHARS = 200  # a name: one line, at most this long
QUERY_MAX_WORDS = 64  # a search: at most this many words ...
QUERY_MAX_CHARS = 1000  # ... and this many characters

_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


class BoundError(ValueError):
    """A name or a query that cannot be stored or run; the message says why, for people."""


def check_name(
    name: str, what: str = "a name", max_chars: int = NAME_MAX_CHARS, *, controls: bool = False
) -> str:
    """``name`` without surrounding blanks; :class:`BoundError` when it is blank, not one
    line, longer than ``max_chars``, or (unless ``controls``) holds a control character.

    What the user types is checked whole; the store's own gate (``controls=True``: a
    rename, a correction, a restore) lets controls through, as it does in every text it
    keeps: they are dropped on the way to a terminal (:func:`.text.terminal_text`)."""
    if not isinstance(name, str):
        raise BoundError(f"{what} must be text")
    text = name.strip()
    if not text:
        raise BoundError(f"{what} cannot be empty")
    if len(text) > max_chars:
        raise BoundError(f"{what} is at most {max_chars} characters, not {len(text):,}")
    for ch in text:
        if ch in _LINE_BREAKS or (not controls and (ch == "\t" or terminal_text(ch) != ch)):
            held = "a line break" if ch in _LINE_BREAKS else "a control character"
            raise BoundError(f"{what} is one line of text; this one holds {held} (U+{ord(ch):04X})")
    return text


def check_query(query: str) -> str:
    """``query`` as given; :class:`BoundError` when it is longer than
    :data:`QUERY_MAX_CHARS` characters or :data:`QUERY_MAX_WORDS` words."""
    words = len(query.split())
    if words > QUERY_MAX_WORDS:
        raise BoundError(f"a search is at most {QUERY_MAX_WORDS} words; this one has {words:,}")
    if len(query) > QUERY_MAX_CHARS:
        raise BoundError(
            f"a search is at most {QUERY_MAX_CHARS:,} characters; this one has {len(query):,}"
        )
    return query
