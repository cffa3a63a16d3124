"""``topiclens search ...`` (saved searches) and ``topiclens mute ...`` (mute rules): the
views a heavy reader lives in, kept in the store, so the reader shows the same ones.

A name, a query or a rule that cannot be stored is a usage error (exit 2, the reason on one
line); an unknown saved search or rule exits 1."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from .commands import (
    CONCEPT_DIVIDER,
    ENTRIES_HEADER,
    add_verb,
    cell,
    entry_line,
    err,
    open_store,
    out,
    output_width,
)

Command = Callable[[argparse.Namespace], int]
NAME_CELLS = 30  # a name or a rule in a listing


def register(sub: Any) -> None:
    """Declare ``search`` and ``mute`` with their subcommands on the subparsers ``sub``."""

    def group(name: str, func: Command, help: str) -> Any:
        p = sub.add_parser(name, help=help, description=help)
        p.set_defaults(func=func)
        return p.add_subparsers(title="commands", metavar="COMMAND")

    verb = add_verb

    search = group(
        "search", cmd_search, "saved searches: a query kept under a name, listed with its unread"
    )
    v = verb(search, "save", cmd_search_save, "save a search under a name (replacing one so named)")
    v.add_argument("name", metavar="NAME", help="its name (one line)")
    v.add_argument("query", metavar="QUERY", help="what to look for, as / in the reader")
    verb(search, "list", cmd_search_list, "list the saved searches with their entries and unread")
    v = verb(search, "show", cmd_search_show, "list a saved search's entries, best first")
    v.add_argument("name", metavar="NAME")
    v = verb(search, "remove", cmd_search_remove, "forget a saved search")
    v.add_argument("name", metavar="NAME")

    mute = group(
        "mute",
        cmd_mute,
        "mute rules: entries matching one are hidden from lists and counts, kept and found "
        "by a search",
    )
    v = verb(
        mute,
        "add",
        cmd_mute_add,
        "mute the entries whose title or summary holds every one of WORDS (or a source, or a feed)",
    )
    v.add_argument("words", nargs="*", metavar="WORDS", help="words, as written (any case)")
    which = v.add_mutually_exclusive_group()
    which.add_argument("--source", metavar="S", help="mute the entries whose source is S")
    which.add_argument("--feed", metavar="ID", help="mute the entries of feed ID")
    verb(mute, "list", cmd_mute_list, "list the mute rules with how many entries each hides")
    v = verb(mute, "remove", cmd_mute_remove, "remove a mute rule: its entries show again")
    v.add_argument("id", metavar="ID", help="the rule's id (see `topiclens mute list`)")


def _bad(message: str, status: int = 2) -> int:
    err(f"topiclens: {message}")
    return status


def cmd_search(args: argparse.Namespace) -> int:
    return _bad("search needs a command: save, list, show or remove (see topiclens search --help)")


def cmd_mute(args: argparse.Namespace) -> int:
    return _bad("mute needs a command: add, list or remove (see topiclens mute --help)")


# --- saved searches ---------------------------------------------------------------------


def cmd_search_save(args: argparse.Namespace) -> int:
    from ..store.bounds import BoundError

    with open_store(args) as store:
        try:
            new = store.save_search(args.name, args.query)
        except BoundError as exc:
            return _bad(str(exc))
        found = store.saved_search_ids(args.name.strip()) or []
    what = "saved" if new else "replaced"
    out(f"{what} search {cell(args.name, NAME_CELLS)!r}: {len(found)} entries match now")
    return 0


def cmd_search_list(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        searches = store.saved_searches()
        read = store.read_ids()
        rows = []
        for s in searches:
            ids = store.saved_search_ids(s.name) or []
            rows.append((s, len(ids), sum(1 for eid in ids if eid not in read)))
    out(f"{'name':<{NAME_CELLS}}  entries  unread  query")
    if not rows:
        out("no saved searches (topiclens search save NAME QUERY)")
    for s, total, unread in rows:
        name = cell(s.name, NAME_CELLS)
        out(f"{name:<{NAME_CELLS}}  {total:>7}  {unread:>6}  {cell(s.query, 60)}")
    return 0


def cmd_search_show(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        saved = next((x for x in store.saved_searches() if x.name == args.name.strip()), None)
        if saved is None:
            return _bad(f"no saved search named {cell(args.name, NAME_CELLS)!r}", 1)
        from ..clustering.search import search_split

        hidden = store.muted_ids()
        literal, concept = (
            [e for e in group if e not in hidden] for group in search_split(store, saved.query)
        )
        entries = store.entries(literal + concept)
    width = output_width()
    out(ENTRIES_HEADER)
    if not entries:
        out("no entries")
    for i, e in enumerate(entries):
        if i == len(literal):  # the query's words first, then what holds it as a concept
            out(CONCEPT_DIVIDER)
        out(entry_line(e, width))
    return 0


def cmd_search_remove(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        if not store.remove_saved_search(args.name):
            return _bad(f"no saved search named {cell(args.name, NAME_CELLS)!r}", 1)
    out(f"removed search {cell(args.name, NAME_CELLS)!r}")
    return 0


# --- mute rules ---------------------------------------------------------------------------


def cmd_mute_add(args: argparse.Namespace) -> int:
    from ..store.bounds import BoundError

    given = [bool(args.words), args.source is not None, args.feed is not None]
    if sum(given) != 1:
        return _bad("mute add takes WORDS, or --source S, or --feed ID (one of them)")
    kind, value = (
        ("source", args.source)
        if args.source is not None
        else ("feed", args.feed)
        if args.feed is not None
        else ("words", " ".join(args.words))
    )
    with open_store(args) as store:
        try:
            rule, new = store.add_mute_rule(kind, value)
        except BoundError as exc:
            return _bad(str(exc))
    what = "added" if new else "already there:"
    noun = "entry" if rule.muted == 1 else "entries"
    out(f"{what} rule {rule.rule_id} ({_describe(rule)}): it hides {rule.muted} {noun}")
    return 0


def _describe(rule: Any) -> str:
    label = {"words": "words", "source": "source", "feed": "feed"}[rule.kind]
    return f"{label} {cell(rule.value, NAME_CELLS)!r}"


def cmd_mute_list(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        rules = store.mute_rules()
    out(f"{'id':>4}  {'hides':>6}  rule")
    if not rules:
        out("no mute rules (topiclens mute add WORDS)")
    for rule in rules:
        out(f"{rule.rule_id:>4}  {rule.muted:>6}  {_describe(rule)}")
    return 0


def cmd_mute_remove(args: argparse.Namespace) -> int:
    text = args.id.strip()
    if not (text.isascii() and text.isdigit() and len(text) < 19):
        return _bad(f"a rule is given by its id (see topiclens mute list), not {text[:40]!r}")
    with open_store(args) as store:
        rule = store.remove_mute_rule(int(text))
    if rule is None:
        return _bad(f"no mute rule {int(text)} (see topiclens mute list)", 1)
    out(f"removed rule {rule.rule_id} ({_describe(rule)}): its {rule.muted} entries show again")
    return 0
