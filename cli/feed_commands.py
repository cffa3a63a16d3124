"""``topiclens feed ...`` (subscriptions: add, list, remove, rename, import, export) and
``topiclens refresh`` (fetch them), all through :mod:`topiclens.feeds`.

A feed's name that is not one line of text is a usage error (exit 2); an unknown id or a
URL that is no feed exits 1 with the reason on one line. ``refresh`` exits 0 when every
feed was fetched or unchanged and 1 when any failed, each failure named on standard
error: it is made for cron. Everything from a feed passes
:func:`~topiclens.text.terminal_line` before it is printed.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

from ..text import terminal_line
from .commands import add_verb, err, open_store, out, write_bytes, write_json

MAX_ID = 2**63 - 1

Add = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]


def declare(add: Add, feed_id: Callable[[str], int]) -> None:
    """Declare ``feed`` (with its verbs) and ``refresh`` through ``add`` (the parser's
    one way of adding a command); ``feed_id`` is the argparse type of a feed's id."""
    feed = add("feed", _usage, "subscribe to feeds (RSS, Atom, JSON Feed) and manage them")
    verbs = feed.add_subparsers(title="actions", metavar="ACTION")

    verb = partial(add_verb, verbs)

    an_id = {"type": feed_id, "metavar": "ID", "help": "a feed's id (see `topiclens feed list`)"}
    v = verb(
        "add",
        cmd_add,
        "subscribe to a feed and fetch it at once: its URL, or a page that names its feed",
    )
    v.add_argument("url", metavar="URL", help="an http, https or file URL (or a file's path)")
    v.add_argument("--name", metavar="NAME", help="your name for it (default: its own title)")
    v.add_argument("--folder", default="", metavar="FOLDER", help='a folder, "a/b" when nested')
    v = verb("list", cmd_list, "list the feeds with their status, last check and entry counts")
    v.add_argument(
        "--json",
        action="store_true",
        help="print JSON: a list of {id, url, title, status, error, last_checked, last_ok, "
        "entries, unread, ...}",
    )
    v = verb("remove", cmd_remove, "unsubscribe from a feed (its entries stay)")
    v.add_argument("id", **an_id)
    v = verb("rename", cmd_rename, "give a feed your own name")
    v.add_argument("id", **an_id)
    v.add_argument("name", metavar="NAME", help="the new name (one line)")
    v = verb("import", cmd_import, "subscribe to every feed of an OPML file (fetched at refresh)")
    v.add_argument("path", metavar="FILE", help="an OPML file, or - for standard input")
    v = verb("export", cmd_export, "write the feeds as OPML 2.0 (which feed import reads back)")
    v.add_argument(
        "--output", "-o", metavar="FILE", help="file to write (default: standard output)"
    )
    v.add_argument("--force", action="store_true", help="replace FILE if it exists")

    p = add(
        "refresh",
        cmd_refresh,
        "fetch every feed (or those named) and place new entries into their topics; "
        "exit 1 if any failed",
    )
    p.add_argument("ids", nargs="*", type=feed_id, metavar="ID", help="only these feeds")
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON: {feeds: [{id, name, url, outcome, status, new, updated, error, "
        "...}], new, updated, failed, topics: [{id, name, new}]}",
    )


def _usage(args: argparse.Namespace) -> int:
    err("topiclens: feed needs an action: add, list, remove, rename, import or export "
        "(see topiclens feed --help)")  # fmt: skip
    return 2


def _fail(message: str, status: int = 1) -> int:
    err(f"topiclens: {message}")
    return status


def _time(stamp: float | None) -> str | None:
    """A stored time as ISO 8601 UTC, to the second (None stays None)."""
    if stamp is None:
        return None
    return _dt.datetime.fromtimestamp(stamp, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _local(stamp: float | None) -> str:
    if stamp is None:
        return "never"
    return _dt.datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M")


def _name_problem(name: str | None) -> int | None:
    """Exit status 2, with the reason printed, when ``name`` cannot be a feed's name."""
    from ..store.feeds import check_name

    if name is None:
        return None
    try:
        check_name(name)
    except ValueError as exc:
        return _fail(str(exc), 2)
    return None


def _topics_line(summary: Any) -> str:
    """Where the new entries went: "8 in KV cache, 4 in Speculative decoding"."""
    return ", ".join(f"{t.count} in {terminal_line(t.name)}" for t in summary.topics)


# --- feed add, list, remove, rename ------------------------------------------------------


def cmd_add(args: argparse.Namespace) -> int:
    from ..feeds.subscribe import subscribe

    bad = _name_problem(args.name)
    if bad is not None:
        return bad
    with open_store(args) as store:
        done = subscribe(store, args.url, name=args.name, folder=args.folder)
    if done.error is not None or done.feed is None:
        return _fail(done.error or "nothing was stored")
    f = done.feed
    where = f"{terminal_line(f.display_name)} <{terminal_line(f.url)}>"
    if done.already:
        out(f"already subscribed as feed {f.id}: {where}")
        return 0
    out(f"subscribed to feed {f.id}: {where}")
    if done.found_on:
        out(f"(the feed named by the page {terminal_line(done.found_on)})")
    summary = done.summary
    if summary is not None and summary.feeds:
        result = summary.feeds[0]
        text = f"{f.entries} {'entry' if f.entries == 1 else 'entries'}, {result.new} new"
        if summary.topics:
            text += f": {_topics_line(summary)}"
        out(text)
        if summary.unplaced:
            out(terminal_line(summary.unplaced))
    return 0


def _feed_json(f: Any) -> dict[str, Any]:
    return {
        "id": f.id,
        "url": f.url,
        "title": f.display_name,
        "name": f.name,
        "feed_title": f.title,
        "folder": f.folder,
        "site_url": f.site_url,
        "status": f.status,
        "error": f.error,
        "last_checked": _time(f.last_checked),
        "last_ok": _time(f.last_ok),
        "retry_until": _time(f.retry_until),
        "entries": f.entries,
        "unread": f.unread,
    }


LIST_HEADER = f"{'id':>4}  {'status':<6}  {'entries':>7}  {'unread':>6}  {'checked':<16}  name"


def cmd_list(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        feeds = store.feeds()
    if args.json:
        write_json([_feed_json(f) for f in feeds])
        return 0
    if not feeds:
        out("no feeds yet: topiclens feed add URL (or feed import FILE.opml)")
        return 0
    out(LIST_HEADER)
    for f in feeds:
        folder = f"{terminal_line(f.folder)}/" if f.folder else ""
        out(
            f"{f.id:>4}  {f.status:<6}  {f.entries:>7}  {f.unread:>6}  "
            f"{_local(f.last_checked):<16}  {folder}{terminal_line(f.display_name)}  "
            f"<{terminal_line(f.url)}>"
        )
        if f.error:
            out(f"{'':>4}  error: {terminal_line(f.error)}")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        feed = store.feed(args.id)
        if feed is None or feed.removed_at is not None or not store.remove_feed(args.id):
            return _fail(f"no feed with id {args.id}; `topiclens feed list` lists them")
    noun = "entry stays" if feed.entries == 1 else "entries stay"
    out(f"unsubscribed from feed {feed.id} ({terminal_line(feed.display_name)}); "
        f"its {feed.entries} {noun}")  # fmt: skip
    return 0


def cmd_rename(args: argparse.Namespace) -> int:
    bad = _name_problem(args.name)
    if bad is not None:
        return bad
    with open_store(args) as store:
        if not store.rename_feed(args.id, args.name):
            return _fail(f"no feed with id {args.id}; `topiclens feed list` lists them")
        feed = store.feed(args.id)
    assert feed is not None
    out(f"feed {feed.id} is now called {terminal_line(feed.display_name)}")
    return 0


# --- OPML ----------------------------------------------------------------------------------


def cmd_import(args: argparse.Namespace) -> int:
    from ..feeds.subscribe import import_opml
    from ..store.models import Problem
    from ..store.reading import STDIN, STDIN_NAME, read_source

    display = STDIN_NAME if args.path == STDIN else args.path
    data = read_source(args.path, display)
    if isinstance(data, Problem):
        return _fail(str(data))
    with open_store(args) as store:
        done = import_opml(store, data, display)
    for problem in done.problems:
        err(f"error: {problem}")
    text = f"{terminal_line(display)}: {len(done.added)} feeds subscribed, {len(done.known)} "
    text += "already subscribed"
    if done.problems:
        text += f", {len(done.problems)} refused"
    if done.added:
        text += "; topiclens refresh fetches them"
    out(text)
    return 1 if done.problems else 0


def cmd_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..feeds.subscribe import export_opml
    from ..store.export import ExportError, check_target, is_stdout, write_atomic

    with open_store(args) as store:
        data = export_opml(store)
        count = len(store.feeds())
    if args.output is None or is_stdout(args.output):
        write_bytes(data)
        return 0
    path = Path(args.output).expanduser()
    try:
        check_target(path, force=args.force)
        path = write_atomic(path, data, force=args.force)
    except ExportError as exc:
        return _fail(str(exc))
    out(f"wrote {count} feeds as OPML to {terminal_line(str(path.resolve()))}")
    return 0


# --- refresh -------------------------------------------------------------------------------


def _progress(progress: Any) -> None:
    if not sys.stderr.isatty():
        return
    what = "placing new entries" if progress.placing else "refreshing"
    sys.stderr.write(f"\r{what} {progress.done}/{progress.total} feeds ")
    sys.stderr.flush()


def _result_line(r: Any) -> str:
    name = f"{r.feed_id} {terminal_line(r.name)}"
    if r.failed:
        text = f"feed {name} <{terminal_line(r.url)}>: {terminal_line(r.error or 'failed')}"
        if r.retry_until is not None:
            text += f"; not asked again before {_local(r.retry_until)} (Retry-After)"
        return text
    parts = []
    if r.new or r.updated or not r.moved_to:
        parts.append(f"{r.new} new")
    if r.updated:
        parts.append(f"{r.updated} updated")
    if r.moved_to:
        parts.append(f"moved permanently to {terminal_line(r.moved_to)}")
    if r.error:
        parts.append(terminal_line(r.error))
    return f"feed {name}: " + ", ".join(parts)


def _refresh_json(summary: Any) -> dict[str, Any]:
    return {
        "feeds": [
            {
                "id": r.feed_id,
                "name": r.name,
                "url": r.url,
                "outcome": r.outcome,
                "status": r.status,
                "new": r.new,
                "updated": r.updated,
                "error": r.error,
                "moved_to": r.moved_to,
                "retry_until": _time(r.retry_until),
                "new_ids": list(r.new_ids),
            }
            for r in summary.feeds
        ],
        "new": summary.new,
        "updated": summary.updated,
        "failed": len(summary.failed),
        "topics": [{"id": t.topic_id, "name": t.name, "new": t.count} for t in summary.topics],
        "unplaced": summary.unplaced,
        "summary": summary.line(),
        "seconds": round(summary.seconds, 3),
    }


def cmd_refresh(args: argparse.Namespace) -> int:
    from ..feeds.refresh import CHANGED, refresh

    with open_store(args) as store:
        if args.ids:
            known = {f.id for f in store.feeds()}
            unknown = [i for i in dict.fromkeys(args.ids) if i not in known]
            if unknown:
                ids = ", ".join(map(str, unknown))
                return _fail(f"no feed with id {ids}; `topiclens feed list` lists them")
        elif not store.feeds():
            out("no feeds to refresh: topiclens feed add URL (or feed import FILE.opml)")
            return 0
        summary = refresh(store, args.ids or None, progress=_progress)
    if sys.stderr.isatty():
        sys.stderr.write("\r" + " " * 40 + "\r")
    for r in summary.failed:
        err(f"topiclens: {_result_line(r)}")
    if args.json:
        write_json(_refresh_json(summary))
    else:
        for r in summary.feeds:
            if r.outcome == CHANGED:
                out(_result_line(r))
        out(summary.line())
        if summary.topics:
            out(f"new entries: {_topics_line(summary)}")
        if summary.unplaced:
            out(terminal_line(summary.unplaced))
    return 1 if summary.failed else 0
