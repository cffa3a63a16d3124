"""What a JSON export keeps besides bookmarks and notes, read back by ``topiclens import``:
saved searches, mute rules, and the topic each bookmark was made from.

Every value is checked (the same rules as when the user makes them: :mod:`.bounds`,
:func:`.saved.checked`, :func:`.mute.checked`); a bad item is refused alone, as
``file:line: saved search N: what is wrong`` (the line of its list's key), and the good
ones are written in one transaction. A restore is idempotent: restoring the same export
twice changes nothing the second time."""

from __future__ import annotations

import sqlite3
from typing import Any

import orjson

from . import mute, saved
from .bounds import BoundError
from .connection import Database
from .jsonvalues import INT_MAX, Invalid, kind, seconds
from .models import Problem
from .reading import BOM

KEYS = ("saved_searches", "mute_rules")
MISSING = object()  # an export older than the bookmark's topic: leave the stored one


def from_topic(obj: dict[str, Any]) -> object:
    """A bookmark's ``from_topic``: a topic id, None, or :data:`MISSING` when absent;
    :class:`Invalid` when it is anything else."""
    value = obj.get("from_topic", MISSING)
    if value is MISSING or value is None:
        return value
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= INT_MAX:
        raise Invalid(f"'from_topic' must be a topic id or null, not {str(value)[:40]!r}")
    return value


def put_from_topic(conn: sqlite3.Connection, entry_id: str, topic: object) -> bool:
    """Inside the caller's transaction, give the bookmark of ``entry_id`` the topic it was
    made from; False when it had it already (or the export does not say)."""
    if topic is MISSING:
        return False
    cur = conn.execute(
        "UPDATE bookmarks SET topic_id = ? WHERE entry_id = ? AND topic_id IS NOT ?",
        (topic, entry_id, topic),
    )
    return cur.rowcount > 0


def _when(item: dict[str, Any]) -> float:
    return seconds(item.get("created_at"), "created_at")


def _search(item: Any) -> saved.SavedSearch:
    if not isinstance(item, dict):
        raise Invalid(f"must be an object, not {kind(item)}")
    name, query = item.get("name"), item.get("query")
    if not isinstance(name, str) or not isinstance(query, str):
        raise Invalid("'name' and 'query' must be strings")
    name, query = saved.checked(name, query)
    return saved.SavedSearch(name, query, _when(item))


def _rule(item: Any) -> tuple[str, str, float]:
    if not isinstance(item, dict):
        raise Invalid(f"must be an object, not {kind(item)}")
    what, value = item.get("kind"), item.get("value")
    if not isinstance(what, str) or not isinstance(value, str):
        raise Invalid("'kind' and 'value' must be strings")
    mute.checked(what, value)
    return what, value, _when(item)


def restore(db: Database, data: bytes, display: str) -> tuple[int, int, list[Problem]]:
    """Put back the saved searches and mute rules of an export's bytes ``data``: (saved
    searches added or changed, mute rules added, a problem for each item refused)."""
    if not any(f'"{key}"'.encode() in data for key in KEYS):
        return 0, 0, []
    try:
        doc = orjson.loads(data.removeprefix(BOM))
    except orjson.JSONDecodeError:  # the export's own problem is reported already
        return 0, 0, []
    if not isinstance(doc, dict):
        return 0, 0, []
    wrong: dict[str, list[str]] = {}
    good: dict[str, list[Any]] = {key: [] for key in KEYS}
    for key, read, what in (
        ("saved_searches", _search, "saved search"),
        ("mute_rules", _rule, "mute rule"),
    ):
        items = doc.get(key, [])
        if not isinstance(items, list):
            wrong[key] = [f"{key!r} must be a list, not {kind(items)}"]
            continue
        for number, item in enumerate(items, start=1):
            try:
                good[key].append(read(item))
            except (Invalid, BoundError) as exc:
                message = exc.message if isinstance(exc, Invalid) else str(exc)
                wrong.setdefault(key, []).append(f"{what} {number}: {message}")
    searches = saved.put(db, good["saved_searches"])[0] if good["saved_searches"] else 0
    rules = mute.put(db, good["mute_rules"]) if good["mute_rules"] else 0
    return searches, rules, _pinned(data, display, wrong)


def _pinned(data: bytes, display: str, wrong: dict[str, list[str]]) -> list[Problem]:
    """Each problem on the line of its list's key."""
    if not wrong:
        return []
    from .restore import _layout, _line_numbers

    text = data.decode("utf-8", errors="replace")
    keys = _layout(text)[0]
    lines = _line_numbers(text, [keys[k] for k in wrong if k in keys])
    return [
        Problem(display, lines.get(keys.get(key, -1), 0), message)
        for key, messages in wrong.items()
        for message in messages
    ]
