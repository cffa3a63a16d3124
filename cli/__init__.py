"""The ``topiclens`` command line.

Heavy libraries (Textual, scikit-learn, jieba) are imported inside the commands that need
them, so ``topiclens import`` or ``topiclens entries`` start in a blink.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from .. import __version__
from ..paths import ENV_HOME, data_dir

MAX_PROBLEMS_SHOWN = 20

DESCRIPTION = """\
topiclens: a terminal reader for curated technical digests.

With no command, opens the reader on your store (on a first start, the bundled
corpus is imported and grouped into topics for you)."""

EPILOG = f"""\
examples:
  topiclens                          open the reader
  topiclens import digest.txt        add entries from a digest, listing or JSON Lines file
  topiclens entries --json           every entry as JSON
  topiclens export --format html     your bookmarks as one HTML page

The store lives in the platform's data directory; --data-dir or ${ENV_HOME} moves it."""


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


def _write_json(value: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()


def _open_store(args: argparse.Namespace) -> Any:
    from ..store import Store

    return Store.open_dir(data_dir(args.data_dir))


# --- commands ----------------------------------------------------------------------


def cmd_read(args: argparse.Namespace) -> int:
    """Open the reader. On a first start it shows at once and imports and groups the
    bundled corpus in a worker, with a progress bar."""
    from ..tui.app import TopicLensApp

    with _open_store(args) as store:
        TopicLensApp(store).run()
    return 0


def _counts(report: Any) -> str:
    text = f"{report.new} new, {report.known} already known, {report.rejected} rejected"
    restored = getattr(report, "bookmarks_restored", None)  # a JSON export read back
    if restored is not None:
        text += f"; {restored} bookmarks restored, {report.bookmarks_unchanged} unchanged"
    return text


def cmd_import(args: argparse.Namespace) -> int:
    from ..store.importer import import_file
    from ..store.models import ImportReport

    total = ImportReport()
    shown = 0
    with _open_store(args) as store:
        for path in args.paths:
            report = import_file(store, path)
            total.add(report)
            _out(f"{path}: {_counts(report)}")
            for problem in report.problems:
                if shown < MAX_PROBLEMS_SHOWN:
                    _err(f"error: {problem}")
                shown += 1
        if total.new_ids and store.topic_model() is not None:
            from ..clustering import assign_new

            placed = assign_new(store, total.new_ids)
            if placed:
                _out(
                    f"{placed} new entries joined their nearest topic "
                    "(to rethink the topics: topiclens cluster)"
                )
    if shown > MAX_PROBLEMS_SHOWN:
        _err(f"error: … and {shown - MAX_PROBLEMS_SHOWN} more problems")
    if len(args.paths) > 1:
        _out(f"total: {_counts(total)}")
    return 1 if total.rejected else 0


def cmd_entries(args: argparse.Namespace) -> int:
    from ..store.text import fit_cells

    with _open_store(args) as store:
        entries = store.entries()
    if args.json:
        _write_json({"entries": [e.to_json() for e in entries]})
        return 0
    for e in entries:
        _out(f"{e.id}  {e.date or '----------'}  {fit_cells(e.source, 24):<24}  {e.title}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..store.export import (
        FORMAT_NAMES,
        ExportError,
        collect,
        count,
        default_filename,
        export_bookmarks,
    )

    with _open_store(args) as store:
        try:
            if args.output == "-":
                export_bookmarks(store, args.format, None, topic_id=args.topic)
                return 0
            path = Path(args.output or default_filename(args.format))
            n = count(collect(store, topic_id=args.topic))
            written = export_bookmarks(
                store, args.format, path, topic_id=args.topic, force=args.force
            )
        except ExportError as exc:
            _err(f"topiclens: {exc}")
            return 1
    assert written is not None
    noun = "bookmark" if n == 1 else "bookmarks"
    _out(f"wrote {n} {noun} as {FORMAT_NAMES[args.format]} to {written.resolve()}")
    if not n:
        _err("topiclens: no bookmarks to export yet: press b on an entry in the reader")
    return 0


def _progress_line(stage: str, fraction: float) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{stage:<10} {fraction:4.0%}")
        sys.stderr.flush()


def cmd_cluster(args: argparse.Namespace) -> int:
    from ..clustering import cluster_store
    from ..clustering.anchors import AnchorsError
    from ..store.importer import ensure_corpus

    if args.k is not None and args.k < 1:
        _err("topiclens: --k must be at least 1")
        return 2
    with _open_store(args) as store:
        ensure_corpus(store)
        try:
            report = cluster_store(
                store, k=args.k, anchors_path=args.anchors, progress=_progress_line
            )
        except AnchorsError as exc:
            _err(f"topiclens: {exc}")
            return 2
        if sys.stderr.isatty():
            sys.stderr.write("\r" + " " * 20 + "\r")
        _out(
            f"{report.entries} entries in {report.topics} topics "
            f"({report.tokenized} tokenized, {report.cached} from the cache; "
            f"{report.kept_ids} of them kept their id) in {report.seconds['total']:.1f} s"
        )
    return 0


def _topics_json(store: Any) -> dict[str, Any]:
    entries = {e.id: e for e in store.entries()}
    out = []
    for t in store.topics():
        out.append(
            {
                "id": t.id,
                "name": t.name,
                "keywords": [k for k, _ in t.keywords],
                "size": t.size,
                "entries": [
                    {
                        "id": e.id,
                        "title": e.title,
                        "summary": e.summary,
                        "source": e.source,
                        "date": e.date,
                    }
                    for e in (entries[i] for i in store.topic_entry_ids(t.id) if i in entries)
                ],
            }
        )
    return {"topics": out}


def cmd_topics(args: argparse.Namespace) -> int:
    from ..clustering import ensure_topics

    with _open_store(args) as store:
        ensure_topics(store)
        if args.json:
            _write_json(_topics_json(store))
            return 0
        for t in store.topics():
            words = ", ".join(k for k, _ in t.keywords[:5])
            _out(f"{t.id:>4}  {t.size:>5}  {t.name}  ({words})")
    return 0


def cmd_rename_topic(args: argparse.Namespace) -> int:
    with _open_store(args) as store:
        try:
            found = store.rename_topic(args.id, args.name)
        except ValueError as exc:
            _err(f"topiclens: {exc}")
            return 2
    if not found:
        _err(f"topiclens: no topic with id {args.id}; `topiclens topics` lists them")
        return 1
    _out(f"topic {args.id} is now {args.name.strip()!r}; the name survives re-clustering")
    return 0


# --- parser ------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="topiclens",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"topiclens {__version__}")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help=f"where the store lives (default: ${ENV_HOME}, else the platform's data dir)",
    )
    parser.set_defaults(func=cmd_read)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    def add(
        name: str, func: Callable[[argparse.Namespace], int], help: str
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        p.set_defaults(func=func)
        return p

    p = add(
        "import",
        cmd_import,
        "import digest, listing or JSON Lines files into the store, or restore the "
        "bookmarks of a JSON export",
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="files to import (format detected from content)"
    )

    p = add(
        "export",
        cmd_export,
        "export your bookmarks as Markdown, JSON, CSV or HTML (a JSON export is also a "
        "backup: `topiclens import` restores it)",
    )
    p.add_argument(
        "--format", choices=("md", "json", "csv", "html"), default="md", help="default: md"
    )
    p.add_argument(
        "--output",
        "-o",
        metavar="PATH",
        help="file to write, or - for standard output "
        "(default: topiclens-bookmarks-DATE.FORMAT in the current directory)",
    )
    p.add_argument("--topic", type=int, metavar="ID", help="only the bookmarks of this topic")
    p.add_argument("--force", action="store_true", help="overwrite PATH if it exists")

    p = add("entries", cmd_entries, "list the entries in the store")
    p.add_argument(
        "--json", action="store_true", help="print JSON (one object with an 'entries' list)"
    )

    p = add(
        "cluster",
        cmd_cluster,
        "group every entry into topics again (topics keep their ids and your names)",
    )
    p.add_argument("--k", type=int, metavar="N", help="number of topics (default: automatic)")
    p.add_argument(
        "--anchors",
        type=Path,
        metavar="FILE",
        help="a TOML file of topic anchors (name and seed terms) instead of the bundled one",
    )

    p = add("topics", cmd_topics, "list the topics (grouping the entries first if needed)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON: {topics: [{id, name, keywords, size, entries: [...]}]}",
    )

    p = add("rename-topic", cmd_rename_topic, "give a topic your own name")
    p.add_argument("id", type=int, metavar="ID", help="the topic's id (see `topiclens topics`)")
    p.add_argument("name", metavar="NAME", help="the new name")

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from ..store import StoreError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except StoreError as exc:
        _err(f"topiclens: {exc}")
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
