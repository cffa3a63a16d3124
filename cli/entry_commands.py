"""Entry commands for scripts: ``read``, ``unread``, ``bookmark``, ``unbookmark``,
``delete`` and ``restore-deleted``. Each takes entry ids or their start (``16ce5bd0``), as
every command that takes an entry id does (:func:`resolve_ids`); an id that names no entry,
or several, is an error naming it, and then nothing is changed."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from ..text import fit_cells, terminal_line
from .commands import err, open_store, out

TITLE_CELLS = 60  # a title in a one-line message

Command = Callable[[argparse.Namespace], int]


def register(sub: Any) -> None:
    """Declare the entry commands on the command line's subparsers ``sub``."""

    def add(name: str, func: Command, help: str) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = sub.add_parser(name, help=help, description=help)
        p.set_defaults(func=func)
        return p

    some = {"nargs": "+", "metavar": "ENTRY", "help": "entry ids, or their start (8 digits do)"}
    add("read", cmd_read_entries, "mark entries read").add_argument("entries", **some)
    add("unread", cmd_unread_entries, "mark entries unread").add_argument("entries", **some)
    add("bookmark", cmd_bookmark, "bookmark entries").add_argument("entries", **some)
    add("unbookmark", cmd_unbookmark, "remove entries' bookmarks (their notes stay)").add_argument(
        "entries", **some
    )
    add(
        "delete", cmd_delete, "delete entries (kept in the trash: restore-deleted brings them back)"
    ).add_argument("entries", **some)
    p = add(
        "restore-deleted",
        cmd_restore_deleted,
        "bring deleted entries back from the trash, exactly as they were (default: the last "
        "one deleted)",
    )
    p.add_argument(
        "entries",
        nargs="*",
        metavar="ENTRY",
        help="ids of deleted entries, or their start (see --list)",
    )
    p.add_argument("--list", action="store_true", help="list the trash, the last deleted first")


def resolve_ids(store: Any, given: Sequence[str], *, deleted: bool = False) -> list[str] | None:
    """The full id of each of ``given`` (ids or their start), in order, without repeats;
    None, with each problem printed, when one names no entry or several."""
    from ..store.entries import EntryIdError

    found: list[str] = []
    failed = False
    for text in given:
        try:
            found.append(store.resolve_entry_id(text, deleted=deleted))
        except EntryIdError as exc:
            err(f"topiclens: {exc}")
            failed = True
    return None if failed else list(dict.fromkeys(found))


def _title(text: str) -> str:
    return fit_cells(terminal_line(text[: 4 * TITLE_CELLS]), TITLE_CELLS)


def _counted(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _set_read(args: argparse.Namespace, read: bool) -> int:
    with open_store(args) as store:
        ids = resolve_ids(store, args.entries)
        if ids is None:
            return 1
        changed = store.set_read_many(ids, read)
    state = "read" if read else "unread"
    already = len(ids) - changed
    out(f"{_counted(changed, 'entry', 'entries')} marked {state} ({already} already {state})")
    return 0


def cmd_read_entries(args: argparse.Namespace) -> int:
    return _set_read(args, True)


def cmd_unread_entries(args: argparse.Namespace) -> int:
    return _set_read(args, False)


def _set_bookmarks(args: argparse.Namespace, on: bool) -> int:
    with open_store(args) as store:
        ids = resolve_ids(store, args.entries)
        if ids is None:
            return 1
        had = store.bookmark_ids()
        todo = [eid for eid in ids if (eid in had) != on]
        for eid in todo:
            store.set_bookmark(eid, on)
    if on:
        out(
            f"{_counted(len(todo), 'entry', 'entries')} bookmarked ({len(ids) - len(todo)} already)"
        )
    else:
        noun = _counted(len(todo), "bookmark", "bookmarks")
        out(f"{noun} removed, notes kept ({len(ids) - len(todo)} not bookmarked)")
    return 0


def cmd_bookmark(args: argparse.Namespace) -> int:
    return _set_bookmarks(args, True)


def cmd_unbookmark(args: argparse.Namespace) -> int:
    return _set_bookmarks(args, False)


def cmd_delete(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        ids = resolve_ids(store, args.entries)
        if ids is None:
            return 1
        for eid in ids:
            deleted = store.delete_entry(eid)
            if deleted is not None:
                out(f"deleted {eid}  {_title(deleted.title)}")
    out("(topiclens restore-deleted brings the last one back)")
    return 0


def _restored(item: Any) -> None:
    out(f"restored {item.entry_id}  {_title(item.title)}")
    if "topic_assignments" in item.left_out:
        out("  its topic is gone since: it joins one at the next topiclens cluster")


def cmd_restore_deleted(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        if args.list:
            return _list_trash(store)
        if not args.entries:
            item = store.restore_last_deleted()
            if item is None:
                err("topiclens: nothing deleted to bring back (the trash is empty)")
                return 1
            _restored(item)
            return 0
        ids = resolve_ids(store, args.entries, deleted=True)
        if ids is None:
            return 1
        for item in store.restore_deleted(ids):
            _restored(item)
    return 0


def _list_trash(store: Any) -> int:
    import datetime as dt

    items = store.trash()
    out(f"{'id':<16}  {'deleted':<16}  title")
    if not items:
        out("no entries (the trash is empty)")
    for item in items:
        when = dt.datetime.fromtimestamp(item.deleted_at).strftime("%Y-%m-%d %H:%M")
        out(f"{terminal_line(item.entry_id):<16}  {when:<16}  {_title(item.title)}")
    return 0
