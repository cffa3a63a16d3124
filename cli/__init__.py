"""The ``topiclens`` command line: the parser (one declaration per command) and ``main``.

What each command does is in :mod:`.commands`. Every error is one line on standard error:
argparse's too (a number out of range, an empty ``--data-dir``), with a pointer to
``--help`` instead of the usage text.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import NoReturn

from .. import __version__
from ..paths import ENV_HOME
from ..store.models import SOURCE_FORMATS
from ..text import terminal_line
from . import commands as c

DESCRIPTION = """\
topiclens: a terminal reader for curated technical digests.

With no command, opens the reader on your store (on a first start, the bundled
corpus is imported and grouped into topics for you)."""

EPILOG = f"""\
examples:
  topiclens                          open the reader
  topiclens import digest.txt        add entries from a digest, listing or JSON Lines file
  topiclens feed add URL             subscribe to a feed (RSS, Atom, JSON Feed)
  topiclens refresh                  fetch every feed; new entries join their topics
  cat f.jsonl | topiclens import -   the same from standard input
  topiclens entries --json           every entry as JSON
  topiclens export --format html     your bookmarks as one HTML page

The store lives in the platform's data directory; --data-dir or ${ENV_HOME} moves it."""

MAX_ID = 2**63 - 1  # SQLite's largest integer
MAX_K = 1000  # more topics than anyone reads; the clustering also caps k at the entry count


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: the message and where to read more."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {terminal_line(message)} (see {self.prog} --help)\n")


def whole_number(low: int, high: int, what: str) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``, else a one-line error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            digits = text.strip().lstrip("+-")
            if digits.isdigit():  # longer than Python converts: out of range all the same
                raise argparse.ArgumentTypeError(
                    f"{what} must be from {low} to {high}, not a {len(digits)}-digit number"
                ) from None
            raise argparse.ArgumentTypeError(
                f"{what} must be a whole number, not {text!r}"
            ) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} must be from {low} to {high}, not {value}")
        return value

    return parse


def folder(text: str) -> str:
    """An argparse type: a folder name that is not empty."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "an empty name is no folder (leave --data-dir out for the default store)"
        )
    return text


# --- parser ------------------------------------------------------------------------


def build_parser(*, exporting: bool = True) -> argparse.ArgumentParser:
    """The whole command line. With ``exporting`` False, the export command is declared
    without its ``--format`` (and the exporters are not imported): ``main`` passes False
    when the command line does not name export, so the reader's start never pays for them
    (importing them took 15 ms on a loaded 2-core machine)."""
    parser = _Parser(
        prog="topiclens",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"topiclens {__version__}")
    parser.add_argument(
        "--data-dir",
        type=folder,
        metavar="DIR",
        help=f"where the store lives (default: ${ENV_HOME}, else the platform's data dir)",
    )
    # the theme: the short names of tui/theme.py's THEMES
    parser.add_argument(
        "--theme",
        choices=("dark", "light"),
        help="the reader's theme this time (in the reader, ctrl+t switches and remembers)",
    )
    parser.set_defaults(func=c.cmd_read)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    def add(
        name: str,
        func: Callable[[argparse.Namespace], int],
        help: str,
        description: str | None = None,
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=description or help)
        p.set_defaults(func=func)
        return p

    p = add(
        "import",
        c.cmd_import,
        "import digest, listing, JSON Lines or feed (RSS, Atom, JSON Feed) files into the "
        "store, or restore the bookmarks of a JSON export",
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="files to import, or - for standard input (format detected from content)",
    )
    p.add_argument(
        "--format",
        choices=SOURCE_FORMATS,
        help="read every PATH as this format instead of detecting it",
    )

    p = add(
        "export",
        c.cmd_export,
        "export your bookmarks (`topiclens export --help` lists the formats; a JSON export "
        "is also a backup: `topiclens import` restores it)",
        "export your bookmarks as Markdown, JSON, CSV or HTML, chosen by --format or by the "
        "extension of --output (a JSON export is also a backup: `topiclens import` restores "
        "it, saved searches and mute rules included)",
    )
    if exporting:
        from ..store.export import FORMATS, format_names

        p.add_argument(
            "--format",
            choices=format_names(),
            help=", ".join(f"{f.name}: {f.label}" for f in FORMATS)
            + f" (default: the format the --output file name ends with, else {FORMATS[0].name})",
        )
    p.add_argument(
        "--output",
        "-o",
        metavar="PATH",
        help="file to write (its extension chooses the format: .md, .json, .csv, .html), or "
        "- (or /dev/stdout) for standard output "
        "(default: topiclens-bookmarks-DATE.FORMAT in the current directory)",
    )
    topic_id = whole_number(0, MAX_ID, "a topic id")
    p.add_argument("--topic", type=topic_id, metavar="ID", help="only the bookmarks of this topic")
    p.add_argument(
        "--force", action="store_true", help="replace PATH if it is an existing regular file"
    )

    # --- entries and mark-read (the reading loop on the command line) ---
    p = add(
        "entries",
        c.cmd_entries,
        "list the entries in the store, newest first (the filters given all apply)",
    )
    p.add_argument("--topic", type=topic_id, metavar="ID", help="only this topic's own entries")
    p.add_argument(
        "--source", metavar="S", help="only entries whose source holds S (any letter case)"
    )
    p.add_argument(
        "--since",
        type=c.since_date,
        metavar="DATE",
        help="only entries dated DATE or later (YYYY-MM-DD, YYYY-MM or YYYY)",
    )
    p.add_argument(
        "--until",
        type=c.since_date,
        metavar="DATE",
        help="only entries dated DATE or earlier (YYYY-MM-DD, YYYY-MM or YYYY: to its end)",
    )
    p.add_argument("--unread", action="store_true", help="only unread entries")
    p.add_argument("--bookmarked", action="store_true", help="only bookmarked entries")
    p.add_argument(
        "--muted",
        action="store_true",
        help="only the entries mute rules hide (see `topiclens mute list`); without it, "
        "they are left out, except from a --search, which finds them too",
    )
    p.add_argument(
        "--search",
        metavar="QUERY",
        help="only entries matching QUERY, best first: words as written, or concepts in "
        "either language (投机解码 also finds speculative decoding), as / in the reader",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON (one object with an 'entries' list; each entry also carries "
        "'topic' ({id, name} or null), 'read', 'bookmarked' and 'muted')",
    )

    p = add(
        "mark-read", c.cmd_mark_read, "mark a topic's entries, or every entry, read (or unread)"
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--topic", type=topic_id, metavar="ID", help="this topic's own entries")
    which.add_argument("--all", action="store_true", help="every entry in the store")
    p.add_argument("--unread", action="store_true", help="mark them unread instead")

    p = add(
        "cluster",
        c.cmd_cluster,
        "group every entry into topics again (topics keep their ids and your names)",
    )
    p.add_argument(
        "--k",
        type=whole_number(1, MAX_K, "the number of topics"),
        metavar="N",
        help=f"number of topics, 1 to {MAX_K} (default: automatic)",
    )
    p.add_argument(
        "--anchors",
        type=Path,
        metavar="FILE",
        help="a TOML file of topic anchors (name and seed terms) instead of the bundled one",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="start over instead of continuing the last topics (entries may change topic)",
    )

    p = add("topics", c.cmd_topics, "list the topics (grouping the entries first if needed)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON: {topics: [{id, name, keywords, size, user, pinned, entries: [...]}], "
        "hidden: [...]}",
    )

    add(
        "compact",
        c.cmd_compact,
        "give the store's free space back to the disk (close the reader first)",
        "rewrite the store without the space deleted rows and rewritten tables left "
        "(SQLite's VACUUM); close the reader first, and have free disk for twice the store",
    )

    p = add("rename-topic", c.cmd_rename_topic, "give a topic your own name")
    p.add_argument(
        "id", type=topic_id, metavar="ID", help="the topic's id (see `topiclens topics`)"
    )
    p.add_argument("name", metavar="NAME", help="the new name (one line)")

    # --- topic: the reader's corrections, each one also a key in the reader
    from . import corrections

    topic = add(
        "topic",
        corrections.cmd_topic,
        "correct the topics: each correction lasts across re-clusters",
    )
    verbs = topic.add_subparsers(title="corrections", metavar="CORRECTION")

    verb = partial(c.add_verb, verbs)

    an_id = {"type": topic_id, "metavar": "ID", "help": "a topic id (see `topiclens topics`)"}
    v = verb("rename", corrections.cmd_rename, "give a topic your own name")
    v.add_argument("id", **an_id)
    v.add_argument("name", metavar="NAME", help="the new name (one line)")
    v = verb("move", corrections.cmd_move, "move an entry to another topic and pin it there")
    v.add_argument(
        "entry", metavar="ENTRY_ID", help="the entry's id, or its start (see `topiclens entries`)"
    )
    v.add_argument("topic", **an_id)
    v = verb("merge", corrections.cmd_merge, "merge topics into the first one given")
    v.add_argument("ids", nargs="+", **an_id)
    v.add_argument("--name", metavar="NAME", help="the merged topic's name (default: the first's)")
    v = verb("split", corrections.cmd_split, "split a topic's entries into N topics")
    v.add_argument("id", **an_id)
    v.add_argument(
        "--k",
        type=whole_number(2, 20, "the number of parts"),
        default=2,
        metavar="N",
        help="parts, 2 to 20 (default: 2)",
    )
    v = verb(
        "new",
        corrections.cmd_new,
        "make a topic from search terms: it gathers the entries about them",
    )
    v.add_argument("name", metavar="NAME", help="the topic's name (one line)")
    v.add_argument(
        "--terms",
        required=True,
        metavar="TERMS",
        help='its terms, comma-separated: "kv cache, KV 缓存"',
    )
    v = verb("hide", corrections.cmd_hide, "hide a topic: its entries go to their next-best topic")
    v.add_argument("id", **an_id)
    v = verb("show", corrections.cmd_show, "show a hidden topic again")
    v.add_argument("id", **an_id)
    verb("undo", corrections.cmd_undo, "take back the last correction")

    # --- commands declared in their own modules
    from . import entry_commands, view_commands

    entry_commands.register(sub)
    view_commands.register(sub)
    # --- feed and refresh: subscriptions and fetching them
    from . import feed_commands as fc

    fc.declare(add, whole_number(1, MAX_ID, "a feed id"))

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from ..store import StoreError

    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(exporting="export" in argv)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except StoreError as exc:
        c.err(f"topiclens: {exc}")
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
