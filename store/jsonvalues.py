"""JSON that parses but cannot be stored: too deep, integers beyond 64 bits, fields of
the wrong type. Shared by the JSON Lines parser and the restore of a JSON export; every
check raises :class:`Invalid` with a message naming the field."""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Iterator
from typing import Any

import orjson

MAX_DEPTH = 64
INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
# orjson turns integers beyond 64 bits into floats without a word: a run of 19 or more
# digits sends the text through the exact (slower) standard parser to find them
_LONG_DIGITS = re.compile(rb"\d{19,}")


class Invalid(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def kind(value: Any) -> str:
    """A JSON value's kind for people: 'a string', 'a number', 'a list'..."""
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    return {dict: "an object", list: "a list", str: "a string"}.get(type(value), "null")


def depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            stack.extend((c, level + 1) for c in children if isinstance(c, dict | list))
    return deepest


def leaves(value: Any, where: str) -> Iterator[tuple[Any, str]]:
    """Every value inside ``value`` that is neither an object nor a list, with its path
    (``entry.origin.line``, ``tags[2]``), iteratively: nesting never meets the stack."""
    stack = [(value, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, dict):
            stack.extend((v, f"{at}.{k}" if at else str(k)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(item))
        else:
            yield item, at


def is_huge_int(value: Any) -> bool:
    return isinstance(value, int) and not INT_MIN <= value <= INT_MAX


def _first_huge_int(value: Any, where: str) -> str | None:
    return next((at or "the value" for item, at in leaves(value, where) if is_huge_int(item)), None)


def too_deep(exc: orjson.JSONDecodeError) -> bool:
    """True when orjson gave up because of nesting (it stops at 1,024 levels)."""
    return "depth" in str(exc) or "recursion" in str(exc).lower()


def check(value: Any, raw: bytes | str, what: str = "JSON") -> None:
    """:class:`Invalid` when ``value`` (parsed from ``raw``) nests more than
    :data:`MAX_DEPTH` deep or ``raw`` holds an integer beyond 64 bits."""
    levels = depth(value)
    if levels > MAX_DEPTH:
        raise Invalid(f"{what} nested {levels} levels deep (at most {MAX_DEPTH})")
    blob = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if _LONG_DIGITS.search(blob):
        import json  # only for the rare text with a long run of digits

        try:
            exact = json.loads(blob)
        except ValueError:  # (Python's own limit on the digits of an integer)
            raise Invalid(f"{what} holds an integer beyond 64 bits") from None
        where = _first_huge_int(exact, "")
        if where is not None:
            raise Invalid(f"{where!r} is an integer beyond 64 bits")


# numbers, and strings matched whole so that digits inside them are left alone
_NUMBER_OR_TEXT = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')


def _out_of_range(raw: bytes | str, what: str) -> str:
    """What to say of a document holding a number no double holds: an integer beyond 64
    bits, or (a fraction or an exponent, such as 1e400) a number out of range."""
    blob = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    for match in _NUMBER_OR_TEXT.finditer(blob):
        token = match.group()
        if token[:1] != b'"' and math.isinf(float(token)):
            if re.fullmatch(rb"-?\d+", token):
                break
            shown = token[:24].decode("ascii") + ("…" if len(token) > 24 else "")
            return f"{what} holds a number out of range ({shown}): larger than any stored number"
    return f"{what} holds an integer beyond 64 bits"


def loads(raw: bytes | str, what: str = "JSON") -> Any:
    """Parse ``raw``; :class:`Invalid` when it is malformed or fails :func:`check`."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if too_deep(exc):
            raise Invalid(f"{what} nested deeper than {MAX_DEPTH} levels") from None
        if "infinity" in str(exc):  # a literal too large even for a float
            raise Invalid(_out_of_range(raw, what)) from None
        raise Invalid(f"malformed {what}: {exc}") from None
    check(value, raw, what)
    return value


def text(obj: dict[str, Any], key: str, *, required: bool = False, default: str = "") -> str:
    """The string at ``key`` (missing or null: ``default``); :class:`Invalid` naming the
    field when it is another type, or missing or blank and ``required``."""
    value = obj.get(key)
    if value is None:
        if required:
            raise Invalid(f"missing {key!r}")
        return default
    if not isinstance(value, str):
        raise Invalid(f"{key!r} must be a string, not {kind(value)}")
    if required and not value.strip():
        raise Invalid(f"{key!r} is empty")
    return value


def whole(value: Any, key: str, low: int = 0, high: int = INT_MAX) -> int:
    """An integer in ``[low, high]``; :class:`Invalid` naming the field otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Invalid(f"{key!r} must be a whole number from {low} to {high}, not {value!r}")
    return value


# The latest time an export can show (9999-12-31T23:59:59Z): beyond it, every later
# export would fail to render the bookmark.
LATEST_SECONDS = 253_402_300_799


def seconds(when: Any, key: str = "bookmarked_at") -> float:
    """A time in seconds since 1970 from an export (``key`` names it in the message);
    :class:`Invalid` for anything else, one in milliseconds explained."""
    if (
        isinstance(when, bool)
        or not isinstance(when, int | float)
        or not math.isfinite(when)
        or when < 0
    ):
        raise Invalid(f"{key!r} must be a time in seconds, not {when!r}")
    if when > LATEST_SECONDS:
        if when / 1000 <= LATEST_SECONDS:
            moment = _dt.datetime.fromtimestamp(when / 1000, _dt.UTC).strftime("%Y-%m-%d")
            raise Invalid(
                f"{key!r} {when!r} looks like milliseconds ({moment} if so); an "
                "export holds seconds since 1970: divide it by 1000 and import again"
            )
        raise Invalid(f"{key!r} {when!r} is too far in the future to be a time")
    return float(when)
