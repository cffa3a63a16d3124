"""The reader's corrections to its topics: the one interface the reader and the command
line call. Each function does its work in one store transaction (logged, so :func:`undo`
takes it back) and returns a :class:`Change`, or raises :class:`CorrectionError` with a
message a user can read.

Corrections are data in the store (:mod:`topiclens.store.corrections`); a re-cluster reads
them (:mod:`.holding`): pinned entries stay, merged and split topics hold their entries,
topics made from terms seed the clustering and gather the entries that use their terms,
hidden topics stay hidden.

:func:`split_topic` and :func:`new_topic` read every entry's tokens and may fit a model:
call them from a worker thread. Every function only goes through the store's own methods
and transactions, so it is safe in a worker beside the reader's other workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from topiclens.store.corrections import Corrections, Plan, TopicCorrection, apply, in_force
from topiclens.store.corrections import undo_last as _undo_last
from topiclens.store.models import Topic
from topiclens.store.text import terminal_line, terminal_text

if TYPE_CHECKING:
    from topiclens.store.db import Store

MAX_SPLIT = 20  # parts a split may ask for


class CorrectionError(ValueError):
    """A correction that cannot be made; the message says why, for the user."""


class Change(NamedTuple):
    """What a correction did: one line for a toast or the command line, and the topic to
    show afterwards (None: none in particular)."""

    message: str
    topic_id: int | None


# --- checks -----------------------------------------------------------------------------


def clean_name(name: str) -> str:
    """``name`` without surrounding blanks; CorrectionError when it is empty or not one
    line of visible text."""
    for ch in name:
        if ch in "\n\r\t\v\f\u2028\u2029" or terminal_text(ch) != ch:
            what = "a line break" if ch in "\n\r\v\f\u2028\u2029" else "a control character"
            raise CorrectionError(
                f"a topic name is one line of text; this one holds {what} (U+{ord(ch):04X})"
            )
    name = name.strip()
    if not name:
        raise CorrectionError("a topic name cannot be empty")
    return name


def _quote(name: str) -> str:
    return "'" + terminal_line(name) + "'"


def _topic(store: Store, topic_id: int) -> Topic:
    """The visible topic ``topic_id``; CorrectionError when there is none."""
    topic = store.topic(topic_id)
    if topic is not None:
        return topic
    hidden = in_force(store).topics.get(topic_id)
    if hidden is not None and hidden.hidden:
        raise CorrectionError(
            f"topic {topic_id} ({_quote(hidden.label)}) is hidden; show it first "
            f"(topiclens topic show {topic_id})"
        )
    raise CorrectionError(f"no topic with id {topic_id}; `topiclens topics` lists them")


# --- the corrections --------------------------------------------------------------------


def rename_topic(store: Store, topic_id: int, name: str) -> Change:
    """Give topic ``topic_id`` the user's ``name``; it survives every re-cluster."""
    name = clean_name(name)
    topic = _topic(store, topic_id)
    plan = Plan(f"renamed topic {topic_id} to {_quote(name)}", topic_id)
    plan.topics.append(topic._replace(name=name, user_named=True))
    shaped = in_force(store).topics.get(topic_id)
    if shaped is not None:
        plan.corrections.append(shaped._replace(name=name, label=name))
    apply(store, plan)
    return Change(plan.message, topic_id)


def move_entry(store: Store, entry_id: str, topic_id: int) -> Change:
    """Move entry ``entry_id`` to topic ``topic_id`` and pin it there: every re-cluster
    leaves it in that topic."""
    entry = store.entry(entry_id)
    if entry is None:
        raise CorrectionError(f"no entry with id {entry_id!r}; `topiclens entries` lists them")
    topic = _topic(store, topic_id)
    plan = Plan(f"moved {_quote(entry.title)} to {_quote(topic.name)} (pinned there)", topic_id)
    plan.assign[entry_id] = (topic_id, 0.0, [])
    plan.pins[entry_id] = topic_id
    apply(store, plan)
    return Change(plan.message, topic_id)


def merge_topics(store: Store, topic_ids: Sequence[int], name: str | None = None) -> Change:
    """Merge the topics ``topic_ids`` into the first of them (named ``name``, else keeping
    its name); a re-cluster keeps their entries together."""
    raise NotImplementedError


def split_topic(store: Store, topic_id: int, k: int = 2) -> Change:
    """Cluster topic ``topic_id``'s entries into ``k`` topics (the largest keeps the id and
    a name the user gave it); a re-cluster keeps the parts apart. Slow: a worker's job."""
    raise NotImplementedError


def new_topic(store: Store, name: str, terms: Sequence[str]) -> Change:
    """A topic of the user's, named ``name``, whose ``terms`` are its anchor: it gathers
    every entry that uses one of them (concept-aware: the terms go through the entries'
    tokenizer, so "KV cache" and "KV 缓存" are one), now and when later entries are
    imported, and seeds every re-cluster as anchors do. Entries pinned elsewhere stay
    there. Slow: a worker's job."""
    raise NotImplementedError


def hide_topic(store: Store, topic_id: int) -> Change:
    """Hide topic ``topic_id``: its entries go to their next-best topic, and it stays
    hidden across re-clusters until :func:`show_topic`."""
    raise NotImplementedError


def show_topic(store: Store, topic_id: int) -> Change:
    """Show hidden topic ``topic_id`` again, with the entries it had (those not pinned
    elsewhere since)."""
    raise NotImplementedError


def hidden_topics(store: Store) -> list[Topic]:
    """The hidden topics, in the order they were hidden (size: the entries they hold)."""
    return [
        Topic(c.topic_id, c.label, list(c.keywords), len(c.entries), c.name is not None)
        for c in in_force(store).hidden()
    ]


def undo(store: Store) -> Change | None:
    """Take back the last correction still in the log; None when there is none."""
    undone = _undo_last(store)
    if undone is None:
        return None
    message = f"undone: {undone.message}"
    if not undone.topics_restored:
        message += " (topics re-clustered since: the topics follow at the next re-cluster)"
    shown = undone.topic_id if undone.topic_id is not None else None
    if shown is not None and store.topic(shown) is None:
        shown = None
    return Change(message, shown)


def corrections(store: Store) -> Corrections:
    """Every correction in force: the topics the user shaped (``topics``, by id: origin,
    name, terms, entries held, hidden) and the pinned entries (``pins``: entry id ->
    topic id). ``to_json()`` gives them as the JSON export and ``topics --json`` carry
    them."""
    return in_force(store)


__all__ = [
    "Change",
    "CorrectionError",
    "Corrections",
    "TopicCorrection",
    "corrections",
    "hidden_topics",
    "hide_topic",
    "merge_topics",
    "move_entry",
    "new_topic",
    "rename_topic",
    "show_topic",
    "split_topic",
    "undo",
]
