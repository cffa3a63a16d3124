"""What each ``topiclens`` command does (the parser that reaches them is in ``__init__``).

Heavy libraries (Textual, scikit-learn, jieba) are imported inside the commands that need
them, so ``topiclens import`` or ``topiclens entries`` start in a blink. Every value from
the data passes :func:`~topiclens.text.terminal_line` before it is printed.
"""

from __future__ import annotations

import argparse
import sys
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
    from ..tui.app import TopicLensApp

    with open_store(args) as store:
        theme = f"topiclens-{args.theme}" if args.theme else None
        app = TopicLensApp(store, theme=theme)
        app.run()
    return app.return_code or 0


def _counts(report: Any) -> str:
    text = f"{report.new} new, {report.known} already known, {report.rejected} rejected"
    restored = getattr(report, "bookmarks_restored", None)  # a JSON export read back
    if restored is not None:
        text += f"; {restored} bookmarks restored, {report.bookmarks_unchanged} unchanged"
    corrected = getattr(report, "corrections_restored", 0)
    if corrected:
        text += f"; {corrected} topic corrections restored (they shape the next topiclens cluster)"
    return text


def cmd_import(args: argparse.Namespace) -> int:
    from ..store.importer import import_file
    from ..store.models import ImportReport

    # Passed only when given, so this works with an importer that predates the option.
    options = {"fmt": args.format} if args.format else {}
    total = ImportReport()
    shown = 0
    with open_store(args) as store:
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


def _column(text: str, cells: int) -> str:
    """``text`` cut and padded to exactly ``cells`` terminal cells (a Chinese character
    takes two)."""
    text = fit_cells(terminal_line(text), cells)
    return text + " " * (cells - cell_width(text))


def entry_line(e: Any, width: int | None = None) -> str:
    """One entry of `entries`: id, date, source, each padded to its column in terminal
    cells (so the columns of Chinese and English sources line up under the header), then
    the title (whole, or cut so that the line fits ``width`` cells)."""
    date = _column(e.date or "-" * DATE_CELLS, DATE_CELLS)
    head = f"{_column(e.id, ID_CELLS)}  {date}  {_column(e.source, SOURCE_CELLS)}  "
    title = terminal_line(e.title)
    if width is not None:
        title = fit_cells(title, max(8, width - cell_width(head)))
    return head + title


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


def _selected_ids(store: Any, args: argparse.Namespace) -> list[str] | None:
    """The ids `entries` lists: every filter given, in the search's order when searching
    (None: every entry, read in one query)."""
    filters = (args.topic, args.source, args.since, args.search)
    if all(f is None for f in filters) and not (args.unread or args.bookmarked):
        return None
    ids = store.filtered_entry_ids(
        topic_id=args.topic,
        source=args.source,
        since=args.since,
        unread=args.unread,
        bookmarked=args.bookmarked,
    )
    if args.search is None:
        return ids
    from ..clustering.search import search

    wanted = set(ids)
    return [eid for eid in search(store, args.search) if eid in wanted]


def _entry_json(
    e: Any, topics: dict[int, str], placed: dict[str, int], read: set[str], marked: set[str]
) -> dict[str, Any]:
    tid = placed.get(e.id)
    topic = None if tid is None else {"id": tid, "name": topics.get(tid, "")}
    return e.to_json() | {"topic": topic, "read": e.id in read, "bookmarked": e.id in marked}


def cmd_entries(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        if args.topic is not None and store.topic(args.topic) is None:
            err(f"topiclens: no topic with id {args.topic}; `topiclens topics` lists them")
            return 1
        entries = store.entries(_selected_ids(store, args))
        if args.json:
            topics = {t.id: t.name for t in store.topics()}
            placed, read, marked = store.assignments(), store.read_ids(), store.bookmark_ids()
            write_json({"entries": [_entry_json(e, topics, placed, read, marked) for e in entries]})
            return 0
    width = output_width()
    if entries:
        out(ENTRIES_HEADER if width is None else fit_cells(ENTRIES_HEADER, width))
    for e in entries:
        out(entry_line(e, width))
    return 0


def cmd_mark_read(args: argparse.Namespace) -> int:
    read = not args.unread
    with open_store(args) as store:
        if args.all:
            what = "in the store"
            changed = (
                store.mark_all_read() if read else store.set_read_many(store.entry_ids(), False)
            )
        else:
            topic = store.topic(args.topic)
            if topic is None:
                err(f"topiclens: no topic with id {args.topic}; `topiclens topics` lists them")
                return 1
            what = f"in topic {topic.id} ({terminal_line(topic.name)})"
            changed = store.set_read_many(store.topic_entry_ids(topic.id), read)
    noun = "entry" if changed == 1 else "entries"
    out(f"{changed} {noun} {what} marked {'read' if read else 'unread'}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..store.export import (
        ExportError,
        build,
        check_target,
        default_filename,
        get_format,
        is_stdout,
        write_atomic,
    )

    fmt = get_format(args.format)
    to_stdout = is_stdout(args.output)
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
    from ..store.importer import ensure_corpus

    with open_store(args) as store:
        ensure_corpus(store)
        try:
            report = cluster_store(
                store, k=args.k, anchors_path=args.anchors, progress=_progress_line
            )
        except AnchorsError as exc:
            err(f"topiclens: {exc}")
            return 2
        if sys.stderr.isatty():
            sys.stderr.write("\r" + " " * 20 + "\r")
        out(
            f"{report.entries} entries in {report.topics} "
            f"{'topic' if report.topics == 1 else 'topics'} "
            f"({report.tokenized} tokenized, {report.cached} from the cache; "
            f"{report.kept_ids} of them kept their id) in {report.seconds['total']:.1f} s"
        )
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


def topic_line(t: Any) -> str:
    """One topic of `topics`: id, size, cohesion (a percent, "-" when not measured), name
    (after "mixed:" when its entries share little), its first five keywords. The columns
    before the name are ASCII, so they line up in terminal cells whatever the name."""
    words = ", ".join(terminal_line(k) for k, _ in t.keywords[:5])
    cohesion = "-" if t.cohesion is None else f"{round(100 * t.cohesion)} %"
    mark = "mixed: " if t.mixed and not t.name.lower().startswith("mixed") else ""
    return f"{t.id:>4}  {t.size:>5}  {cohesion:>8}  {mark}{terminal_line(t.name)}  ({words})"


def cmd_topics(args: argparse.Namespace) -> int:
    from ..clustering import ensure_topics

    with open_store(args) as store:
        ensure_topics(store)
        if args.json:
            write_json(_topics_json(store))
            return 0
        topics = store.topics()
        if topics:
            out(TOPICS_HEADER)
        for t in topics:
            out(topic_line(t))
    return 0


def cmd_rename_topic(args: argparse.Namespace) -> int:
    """``rename-topic``: the alias of ``topic rename``."""
    from .corrections import cmd_rename

    return cmd_rename(args)
