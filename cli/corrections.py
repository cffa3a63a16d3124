"""``topiclens topic ...``: the reader's corrections from the shell, one subcommand each
(rename, move, merge, split, new, hide, show, undo), all through
:mod:`topiclens.clustering.corrections`, as the reader's keys are.

A name that is not one line of text is a usage error (exit 2); a correction that cannot
be made (an unknown id, a topic too small to split) exits 1 with the reason on one line.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..text import terminal_line
from .commands import err, open_store, out


def _fail(message: str, status: int = 1) -> int:
    err(f"topiclens: {message}")
    return status


def _run(args: argparse.Namespace, action: Callable[[Any], Any]) -> int:
    """Open the store, make the correction and print what changed."""
    from ..clustering.corrections import CorrectionError

    with open_store(args) as store:
        try:
            change = action(store)
        except CorrectionError as exc:
            return _fail(str(exc))
    if change is None:
        out("nothing to undo")
        return 0
    out(terminal_line(change.message))
    return 0


def _name_problem(name: str | None) -> int | None:
    """Exit status 2, with the reason printed, when ``name`` cannot be a topic name (the
    store's one rule for names: :func:`topiclens.store.bounds.check_name`)."""
    from ..store.bounds import BoundError, check_name

    if name is None:
        return None
    try:
        check_name(name, "a topic name")
    except BoundError as exc:
        return _fail(str(exc), 2)
    return None


def cmd_rename(args: argparse.Namespace) -> int:
    from ..clustering.corrections import rename_topic

    bad = _name_problem(args.name)
    if bad is not None:
        return bad
    return _run(args, lambda store: rename_topic(store, args.id, args.name))


def cmd_move(args: argparse.Namespace) -> int:
    from ..clustering.corrections import move_entry
    from ..store.entries import EntryIdError

    def move(store: Any) -> Any:
        try:
            entry_id = store.resolve_entry_id(args.entry)
        except EntryIdError as exc:  # (a correction error: the same one-line failure)
            from ..clustering.corrections import CorrectionError

            raise CorrectionError(str(exc)) from None
        return move_entry(store, entry_id, args.topic)

    return _run(args, move)


def cmd_merge(args: argparse.Namespace) -> int:
    from ..clustering.corrections import merge_topics

    bad = _name_problem(args.name)
    if bad is not None:
        return bad
    return _run(args, lambda store: merge_topics(store, args.ids, args.name))


def cmd_split(args: argparse.Namespace) -> int:
    from ..clustering.corrections import split_topic

    return _run(args, lambda store: split_topic(store, args.id, args.k))


def cmd_new(args: argparse.Namespace) -> int:
    from ..clustering.corrections import new_topic, split_terms

    bad = _name_problem(args.name)
    if bad is not None:
        return bad
    terms = split_terms(args.terms)
    if not terms:
        return _fail('give the terms to gather, as --terms "kv cache, KV 缓存"', 2)
    return _run(args, lambda store: new_topic(store, args.name, terms))


def cmd_hide(args: argparse.Namespace) -> int:
    from ..clustering.corrections import hide_topic

    return _run(args, lambda store: hide_topic(store, args.id))


def cmd_show(args: argparse.Namespace) -> int:
    from ..clustering.corrections import show_topic

    return _run(args, lambda store: show_topic(store, args.id))


def cmd_undo(args: argparse.Namespace) -> int:
    from ..clustering.corrections import undo

    return _run(args, undo)


def cmd_topic(args: argparse.Namespace) -> int:
    """``topiclens topic`` alone: which subcommands there are."""
    return _fail(
        "topic needs a subcommand: rename, move, merge, split, new, hide, show or undo "
        "(see topiclens topic --help)",
        2,
    )
