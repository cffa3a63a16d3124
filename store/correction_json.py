"""The corrections of a JSON export read back: every value checked before any is kept.

A topic id is a whole number from 1 to TOPIC_ID_MAX; numbers are finite; a name follows
the rules of ``topic rename`` (:func:`.bounds.check_name`: one line, not blank, no control
character); lists hold what they should. The first value that is wrong raises
ValueError with a sentence naming the correction and the field, so a restore refuses
the corrections whole and says why."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .bounds import BoundError, check_name
from .jsonvalues import kind

if TYPE_CHECKING:
    from .corrections import Corrections, TopicCorrection

TOPIC_ID_MAX = 2**31 - 1  # far above any store's topics; ids a correction adds stay exact
MADE_AT_MAX = 253_402_300_799.0  # the last second of the year 9999


def _whole(value: Any, where: str, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{where}: {field!r} must be a whole number, not {kind(value)}")
    if not low <= value <= high:
        raise ValueError(f"{where}: {field!r} must be {low} to {high:,}, not {value}")
    return value


def _topic_id(value: Any, where: str) -> int:
    return _whole(value, where, "topic_id", 1, TOPIC_ID_MAX)


def _number(value: Any, where: str, field: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{where}: {field!r} must be a number, not {kind(value)}")
    if not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"{where}: {field!r} must be a number from {low:g} to {high:g}")
    return float(value)


def _text(value: Any, where: str, field: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where}: {field!r} must be a string, not {kind(value)}")
    return value


def _texts(value: Any, where: str, field: str) -> list[str]:
    if not isinstance(value, list):
        raise ValueError(f"{where}: {field!r} must be a list, not {kind(value)}")
    return [_text(v, where, f"{field}[{i}]") for i, v in enumerate(value)]


def _name(value: Any, where: str, field: str) -> str:
    try:
        return check_name(_text(value, where, field), "a topic name")
    except BoundError as exc:
        raise ValueError(f"{where}: {field!r}: {exc}") from None


def correction(value: Any, number: int) -> TopicCorrection:
    """Topic correction ``number`` (from 1) of an export."""
    from .corrections import ORIGINS, TopicCorrection

    where = f"topic correction {number}"
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be an object, not {kind(value)}")
    for key in ("topic_id", "origin"):
        if key not in value:
            raise ValueError(f"{where}: {key!r} is missing")
    tid = _topic_id(value["topic_id"], where)
    where = f"topic correction {number} (topic {tid})"
    origin = _text(value["origin"], where, "origin")
    if origin not in ORIGINS:
        raise ValueError(f"{where}: unknown origin {origin[:40]!r} (one of {', '.join(ORIGINS)})")
    name = value.get("name")
    label = value.get("label", "")
    keywords = value.get("keywords", [])
    if not isinstance(keywords, list):
        raise ValueError(f"{where}: 'keywords' must be a list, not {kind(keywords)}")
    pairs = []
    for i, pair in enumerate(keywords):
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"{where}: 'keywords[{i}]' must be a word and its weight")
        word = _text(pair[0], where, f"keywords[{i}]")
        pairs.append((word, _number(pair[1], where, f"keywords[{i}]", -1e6, 1e6)))
    hidden = value.get("hidden", False)
    if not isinstance(hidden, bool):
        raise ValueError(f"{where}: 'hidden' must be true or false, not {kind(hidden)}")
    return TopicCorrection(
        tid,
        origin,
        None if name is None else _name(name, where, "name"),
        _name(label, where, "label") if label != "" else "",
        _texts(value.get("terms", []), where, "terms"),
        _texts(value.get("entries", []), where, "entries"),
        pairs,
        hidden,
        _number(value.get("made_at", 0.0), where, "made_at", 0.0, MADE_AT_MAX),
    )


def corrections(value: Any) -> Corrections:
    """The corrections :meth:`.corrections.Corrections.to_json` wrote."""
    from .corrections import Corrections

    if not isinstance(value, dict):
        raise ValueError(f"'corrections' must be an object, not {kind(value)}")
    lists = {key: value.get(key, []) for key in ("topics", "pins", "names")}
    for key, items in lists.items():
        if not isinstance(items, list):
            raise ValueError(f"'corrections.{key}' must be a list, not {kind(items)}")
    shaped = [correction(v, i) for i, v in enumerate(lists["topics"], start=1)]
    pins: dict[str, int] = {}
    for i, pin in enumerate(lists["pins"], start=1):
        where = f"pin {i}"
        if not isinstance(pin, dict) or "entry_id" not in pin or "topic_id" not in pin:
            raise ValueError(f"{where} must be an object with 'entry_id' and 'topic_id'")
        pins[_text(pin["entry_id"], where, "entry_id")] = _topic_id(pin["topic_id"], where)
    names: dict[int, tuple[str, list[str]]] = {}
    for i, item in enumerate(lists["names"], start=1):
        where = f"topic name {i}"
        if not isinstance(item, dict) or "topic_id" not in item or "name" not in item:
            raise ValueError(f"{where} must be an object with 'topic_id' and 'name'")
        tid = _topic_id(item["topic_id"], where)
        names[tid] = (
            _name(item["name"], where, "name"),
            _texts(item.get("entries", []), where, "entries"),
        )
    return Corrections({c.topic_id: c for c in shaped}, pins, names)
