"""Reading the JSON the reader's start reads (its state, the topics' keywords, the shown
entry's terms and extra fields) without importing :mod:`json`, nor :mod:`orjson`, which
imports it: json's import compiles its regular expressions, about 5M instructions before
the first frame (docs/performance.md, "The first frame"). :func:`loads` runs the scanner
written in C under ``json.loads`` (CPython's ``_json``), which needs none of them; where
there is no such scanner it is ``json.loads`` itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# JSON's whitespace (RFC 8259), the only characters allowed around the value
_SPACE = " \t\n\r"


class _Options:
    """What the C scanner reads of a ``json.JSONDecoder``: json.loads's defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity and -Infinity, as json.loads reads them


def _scanner() -> Callable[[str, int], tuple[Any, int]] | None:
    try:
        from _json import make_scanner  # type: ignore[import-not-found]
    except ImportError:  # another Python than CPython
        return None
    return make_scanner(_Options())  # type: ignore[no-any-return]


_scan = _scanner()


def loads(text: str) -> Any:
    """The value the JSON ``text`` holds, as ``json.loads`` reads it; ValueError if it
    is not JSON (RecursionError if it is nested too deep)."""
    if _scan is None:
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as stop:
        raise ValueError(f"no JSON value at character {stop.value}") from None
    if text[end:].strip(_SPACE):
        raise ValueError(f"more than one JSON value (extra data at character {end})")
    return value
