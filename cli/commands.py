"""What each ``topiclens`` command does (the parser that reaches them is in ``__init__``).

Heavy libraries (Textual, scikit-learn, jieba) are imported inside the commands that need
them, so ``topiclens import`` or ``topiclens entries`` start in a blink. Every value from
the data passes :func:`~topiclens.text.terminal_line` before it is printed.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable
from typing import Any

from ..paths import data_dir
from ..text import cell_width, fit_cells, terminal_line, terminal_text

MAX_PROBLEMS_SHOWN = 20
SOURCE_CELLS = 24  # the source column of `entries`, in terminal cells


def out(text: str = "") -> None:
    """One line to standard output; its data fields are already safe (terminal_line)."""
    sys.stdout.write(terminal_text(text) + "\n")


def err(text: str) -> None:
    """One line to standard error."""
    sys.stderr.write(terminal_line(text) + "\n")


def write_bytes(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.flush()


def write_json(value: Any) -> None:
    from ..store.export import json_bytes

    write_bytes(json_bytes(value))


def open_store(args: argparse.Namespace) -> Any:
    from ..store import Store

    return Store.open_dir(data_dir(args.data_dir))


def cmd_read(args: argparse.Namespace) -> int:
    """Open the reader. On a first start it shows at once and imports and groups the
    bundled corpus in a worker, with a progress bar. Exits non-zero if the reader
    crashed (Textual sets the return code to 1 on an unhandled exception)."""
    # No garbage collection from Textual's import to the reader's first frame (the app
    # turns it back on then): what they allocate lives as long as the reader, and the
    # collections would only walk it (~20 ms of the start).
    gc.disable()
    try:
        from ..tui.app import TopicLensApp

        with open_store(args) as store:
            theme = f"topiclens-{args.theme}" if args.theme else None
            app = TopicLensApp(store, theme=theme)
            app.run()
    finally:
        gc.enable()
    return app.return_code or 0


def _counts(report: Any) -> str:
    text = f"{report.new} new, {report.known} already known, {report.rejected} rejected"
    restored = getattr(report, "bookmarks_restored", None)  # a JSON export read back
    if restored is not None:
        text += f"; {restored} bookmarks restored, {report.bookmarks_unchanged} unchanged"
    corrected = getattr(report, "corrections_restored", 0)
    if corrected:
        text += f"; {corrected} topic corrections restored (they shape the next topiclens cluster)"
    searches, rules = (getattr(report, k, 0) for k in ("searches_restored", "mute_rules_restored"))
    if searches or rules:
        text += f"; {searches} saved searches and {rules} mute rules restored"
    return text


def cmd_import(args: argparse.Namespace) -> int:
    from ..store.compact import large_pages_for_import
    from ..store.importer import import_file
    from ..store.models import ImportReport

    # Passed only when given, so this works with an importer that predates the option.
    options = {"fmt": args.format} if args.format else {}
    total = ImportReport()
    shown = 0
    with open_store(args) as store:
        large_pages_for_import(store, sum(_file_size(p) for p in args.paths))
        for path in args.paths:
            report = import_file(store, path, **options)
            total.add(report)
            out(f"{terminal_line(path)}: {_counts(report)}")
            for problem in report.problems:
                if shown < MAX_PROBLEMS_SHOWN:
                    err(f"error: {problem}")
                shown += 1
        _place_unassigned(store)
    if shown > MAX_PROBLEMS_SHOWN:
        err(f"error: … and {shown - MAX_PROBLEMS_SHOWN} more problems")
    if len(args.paths) > 1:
        out(f"total: {_counts(total)}")
    return 1 if total.rejected else 0


def _file_size(path: str) -> int:
    """The size of the file at ``path`` (0: standard input, or no such file)."""
    try:
        return os.path.getsize(path) if path != "-" else 0
    except OSError:
        return 0


def _place_unassigned(store: Any) -> None:
    """Put every entry in no topic into its nearest one, not only this import's: a rerun
    of a cut-off import (or one that raced a re-cluster) leaves nothing unplaced."""
    if store.topic_model() is None:
        return
    waiting = store.unassigned_ids()
    if not waiting:
        return
    from ..clustering import assign_new

    placed = assign_new(store, waiting)
    if placed:
        noun = "entry" if placed == 1 else "entries"
        out(
            f"{placed} {noun} joined their nearest topic (to rethink the topics: topiclens cluster)"
        )


ID_CELLS = 16  # an entry id: 16 hex digits
DATE_CELLS = 10  # YYYY-MM-DD
ENTRIES_HEADER = f"{'id':<{ID_CELLS}}  {'date':<{DATE_CELLS}}  {'source':<{SOURCE_CELLS}}  title"


# A table's last column when the output is no terminal (piped to a file or a script):
# whole for any real title or name, cut where only a damaged or hostile one reaches.
PIPED_CELLS = 500


def cell(text: str, cells: int) -> str:
    """``text`` as one line of at most ``cells`` terminal cells, reading only as much of
    it as that takes (a 50 MB title costs what its first line does)."""
    return fit_cells(terminal_line(text[: 4 * cells + 64]), cells)


def _column(text: str, cells: int) -> str:
    """``text`` cut and padded to exactly ``cells`` terminal cells (a Chinese character
    takes two)."""
    text = cell(text, cells)
    return text + " " * (cells - cell_width(text))


def entry_line(e: Any, width: int | None = None) -> str:
    """One entry of `entries`: id, date, source, each padded to its column in terminal
    cells (so the columns of Chinese and English sources line up under the header), then
    the title, cut so that the line fits ``width`` cells (piped: :data:`PIPED_CELLS`)."""
    date = _column(e.date or "-" * DATE_CELLS, DATE_CELLS)
    head = f"{_column(e.id, ID_CELLS)}  {date}  {_column(e.source, SOURCE_CELLS)}  "
    room = PIPED_CELLS if width is None else max(8, width - cell_width(head))
    return head + cell(e.title, room)


def output_width() -> int | None:
    """The terminal's width when standard output is one; None (lines kept whole) when piped."""
    import shutil

    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def since_date(text: str) -> str:
    """An argparse type: a date or its start (YYYY-MM-DD, YYYY-MM or YYYY), as given."""
    import datetime as dt

    parts = text.strip().split("-")
    try:
        if (
            not 1 <= len(parts) <= 3
            or len(parts[0]) != 4
            or not all(p.isascii() and p.isdigit() for p in parts)
        ):
            raise ValueError
        numbers = [int(p) for p in parts] + [1] * (3 - len(parts))
        if any(len(p) != 2 for p in parts[1:]):
            raise ValueError
        dt.date(*numbers)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a date is YYYY-MM-DD, YYYY-MM or YYYY, not {text!r}"
        ) from None
    return text.strip()


# between a search's literal matches and the entries that hold the query only as a concept
CONCEPT_DIVIDER = "── by concept: a related term, not the words as written ──"


def _selected_ids(store: Any, args: argparse.Namespace) -> tuple[list[str] | None, int]:
    """The ids `entries` lists (None: every entry, read in one query) and where a
    search's concept matches begin among them: every filter given, in the search's order
    when searching, the literal matches first. Muted entries are left out, except from a
    search (a search is how a muted entry is found) or with --muted (only they)."""
    muted = True if args.muted else None if args.search is not None else False
    filters = (args.topic, args.source, args.since, args.until, args.search)
    unfiltered = all(f is None for f in filters) and not (args.unread or args.bookmarked)
    if unfiltered and muted is False and not store.muted_ids():
        return None, 0
    ids = store.filtered_entry_ids(
        topic_id=args.topic,
        source=args.source,
        since=args.since,
        until=args.until,
        unread=args.unread,
        bookmarked=args.bookmarked,
        muted=muted,
    )
    if args.search is None:
        return ids, len(ids)
    from ..clustering.search import search_split

    wanted = set(ids)
    literal, concept = (
        [eid for eid in group if eid in wanted] for group in search_split(store, args.search)
    )
    return literal + concept, len(literal)


def _entry_json(
    e: Any,
    topics: dict[int, str],
    placed: dict[str, int],
    states: tuple[set[str], set[str], set[str]],
) -> dict[str, Any]:
    tid = placed.get(e.id)
    topic = None if tid is None else {"id": tid, "name": topics.get(tid, "")}
    read, marked, muted = states
    return e.to_json() | {
        "topic": topic,
        "read": e.id in read,
        "bookmarked": e.id in marked,
        "muted": e.id in muted,
    }


def cmd_entries(args: argparse.Namespace) -> int:
    from ..store.bounds import BoundError

    with open_store(args) as store:
        if args.topic is not None and store.topic(args.topic) is None:
            err(f"topiclens: no topic with id {args.topic}; `topiclens topics` lists them")
            return 1
        try:
            ids, concept_from = _selected_ids(store, args)
            entries = store.entries(ids)
        except BoundError as exc:
            err(f"topiclens: {exc}")
            return 2
        if args.json:
            topics = {t.id: t.name for t in store.topics()}
            placed = store.assignments()
            states = (store.read_ids(), store.bookmark_ids(), store.muted_ids())
            found = [_entry_json(e, topics, placed, states) for e in entries]
            if args.search is not None:  # how each matched: the query as written, or a concept
                for i, item in enumerate(found):
                    item["match"] = "literal" if i < concept_from else "concept"
            write_json({"entries": found})
            return 0
    width = output_width()
    out(ENTRIES_HEADER if width is None else fit_cells(ENTRIES_HEADER, width))
    if not entries:
        out("no entries")
    for i, e in enumerate(entries):
        if i == concept_from and args.search is not None:
            out(CONCEPT_DIVIDER if width is None else fit_cells(CONCEPT_DIVIDER, width))
        out(entry_line(e, width))
    return 0


def cmd_mark_read(args: argparse.Namespace) -> int:
    """Mark a topic's entries, or every entry, read (or unread) and say how many are so
    now and how many of them changed (a count of the changed alone reads as the total)."""
    read = not args.unread
    with open_store(args) as store:
        if args.all:
            what = "in the store"
            ids = store.entry_ids()
            changed = store.mark_all_read() if read else store.set_read_many(ids, False)
        else:
            topic = store.topic(args.topic)
            if topic is None:
                err(f"topiclens: no topic with id {args.topic}; `topiclens topics` lists them")
                return 1
            what = f"in topic {topic.id} ({fit_cells(terminal_line(topic.name[:400]), 60)})"
            ids = store.topic_entry_ids(topic.id)
            changed = store.set_read_many(ids, read)
    noun = "entry" if len(ids) == 1 else "entries"
    state = "read" if read else "unread"
    out(f"{len(ids)} {noun} {what} now {state} ({changed} changed)")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..store.export import (
        ExportError,
        build,
        check_target,
        default_filename,
        format_for_path,
        get_format,
        is_stdout,
        write_atomic,
    )

    to_stdout = is_stdout(args.output)
    named = None if to_stdout or not args.output else format_for_path(args.output)
    if args.format and named and named.name != args.format:
        err(
            f"topiclens: {terminal_line(args.output)}: its extension says {named.label}, but "
            f"--format {args.format} was given; leave --format out, or give the file the "
            f"extension {get_format(args.format).extension}"
        )
        return 2
    fmt = get_format(args.format) if args.format else named or get_format("md")
    path = None if to_stdout else Path(args.output or default_filename(fmt.name)).expanduser()
    with open_store(args) as store:
        try:
            if path is not None:
                check_target(path, force=args.force)  # fail before rendering anything
            doc = build(store, fmt.name, topic_id=args.topic)
            if path is None:
                write_bytes(doc.data)
            else:
                path = write_atomic(path, doc.data, force=args.force)
        except ExportError as exc:
            err(f"topiclens: {exc}")
            return 1
    for problem in doc.problems:
        err(f"topiclens: warning: {problem}")
    if path is None:
        return 0
    noun = "bookmark" if doc.count == 1 else "bookmarks"
    out(f"wrote {doc.count} {noun} as {fmt.label} to {terminal_line(str(path.resolve()))}")
    if not doc.count:
        err("topiclens: no bookmarks to export yet: press b on an entry in the reader")
    return 0


def _progress_line(stage: str, fraction: float) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{stage:<10} {fraction:4.0%}")
        sys.stderr.flush()


def cmd_cluster(args: argparse.Namespace) -> int:
    from ..clustering import cluster_store
    from ..clustering.anchors import AnchorsError
    from ..store.correction_log import CorrectionsChanged
    from ..store.importer import ensure_corpus

    with open_store(args) as store:
        ensure_corpus(store)
        try:
            report = cluster_store(
                store,
                k=args.k,
                anchors_path=args.anchors,
                progress=_progress_line,
                fresh=args.fresh,
            )
        except AnchorsError as exc:
            err(f"topiclens: {exc}")
            return 2
        except CorrectionsChanged as exc:
            err(f"topiclens: {exc}")
            return 1
        if sys.stderr.isatty():
            sys.stderr.write("\r" + " " * 20 + "\r")
        out(
            f"{report.entries} entries in {report.topics} "
            f"{'topic' if report.topics == 1 else 'topics'} "
            f"({report.tokenized} tokenized, {report.cached} from the cache; "
            f"{report.kept_ids} of them kept their id) in {report.seconds['total']:.1f} s"
        )
        if report.changes:  # a re-cluster that continued the last topics
            out(terminal_line(report.changes))
        for note in report.notes():  # what differs from what was asked, and why
            out(terminal_line(note))
    return 0


def _brief(e: Any) -> dict[str, Any]:
    """An entry as `topics --json` lists it under a topic."""
    return {"id": e.id, "title": e.title, "summary": e.summary, "source": e.source, "date": e.date}


def _topics_json(store: Any) -> dict[str, Any]:
    """Each topic with its own entries (``entries``) and the entries whose own topic is
    another but that are also listed under it (``also``), both in the reader's order;
    whether the user made it (``user``), its terms, the entries pinned to it (``pinned``,
    ids); and the hidden topics."""
    entries = {e.id: e for e in store.entries()}
    corrections = store.corrections()
    pinned: dict[int, list[str]] = {}
    for eid, tid in corrections.pins.items():
        pinned.setdefault(tid, []).append(eid)
    topics = []
    for t in store.topics():
        shaped = corrections.topics.get(t.id)
        members = [entries[i] for i in store.topic_entry_ids(t.id) if i in entries]
        also = [entries[i] for i in store.also_entry_ids(t.id) if i in entries]
        topics.append(
            {
                "id": t.id,
                "name": t.name,
                "keywords": [k for k, _ in t.keywords],
                "size": t.size,
                "cohesion": t.cohesion,
                "mixed": t.mixed,
                # made by the user (a merge, a split, search terms), not by the clustering
                "user": shaped is not None and shaped.origin in USER_ORIGINS,
                "terms": list(shaped.terms) if shaped else [],
                "pinned": pinned.get(t.id, []),
                "entries": [_brief(e) for e in members],
                "also": [_brief(e) for e in also],
            }
        )
    hidden = [
        {"id": c.topic_id, "name": c.label, "size": len(c.entries)} for c in corrections.hidden()
    ]
    return {"topics": topics, "hidden": hidden}


USER_ORIGINS = ("merge", "split", "terms")


TOPICS_HEADER = "  id   size  cohesion  name (keywords)"


def topic_line(t: Any, width: int | None = None) -> str:
    """One topic of `topics`: id, size, cohesion (a percent, "-" when not measured), name
    (after "mixed:" when its entries share little), its first five keywords, cut to
    ``width`` cells (piped: the name and the keywords each to :data:`PIPED_CELLS`). The
    columns before the name are ASCII, so they line up in terminal cells whatever the name."""
    words = ", ".join(cell(k, 40) for k, _ in t.keywords[:5])
    cohesion = "-" if t.cohesion is None else f"{round(100 * t.cohesion)} %"
    mark = "mixed: " if t.mixed and not t.name[:5].lower().startswith("mixed") else ""
    line = f"{t.id:>4}  {t.size:>5}  {cohesion:>8}  {mark}{cell(t.name, PIPED_CELLS)}  ({words})"
    return line if width is None else fit_cells(line, width)


def cmd_topics(args: argparse.Namespace) -> int:
    from ..clustering import ensure_topics

    with open_store(args) as store:
        ensure_topics(store)
        if args.json:
            write_json(_topics_json(store))
            return 0
        topics = store.visible_topics()  # sizes without the muted entries
    width = output_width()
    out(TOPICS_HEADER)
    if not topics:
        out("no topics")
    for t in topics:
        out(topic_line(t, width))
    return 0


def cmd_rename_topic(args: argparse.Namespace) -> int:
    """``rename-topic``: the alias of ``topic rename``."""
    from .corrections import cmd_rename

    return cmd_rename(args)


def cmd_compact(args: argparse.Namespace) -> int:
    from ..store.compact import compact

    with open_store(args) as store:
        before, after = compact(store)
    mib = 1 << 20
    out(f"compacted the store: {before / mib:,.1f} MiB -> {after / mib:,.1f} MiB")
    return 0


def add_verb(
    verbs: Any, name: str, func: Callable[[argparse.Namespace], int], help: str
) -> argparse.ArgumentParser:
    """A subcommand ``name`` on the subparsers ``verbs``, running ``func``; its help is
    also its description."""
    v: argparse.ArgumentParser = verbs.add_parser(name, help=help, description=help)
    v.set_defaults(func=func)
    return v
