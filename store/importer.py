"""Importing files into the store: parsed and committed a batch at a time."""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from .db import Store
from .models import ImportReport, ParseResult, Problem
from .parsers import FORMATS, parse_file, parse_source
from .reading import STDIN, STDIN_NAME, open_source, source_name

# The user's corpus, shipped byte for byte in assets/ and imported on a first start.
BUNDLED_CORPUS: tuple[str, ...] = ("000_628a9e309749597c.txt", "002_e2969eaa9c23cb58.txt")


def import_file(
    store: Store, path: str | Path, display: str | None = None, fmt: str | None = None
) -> ImportReport:
    """Read one input once (``path`` ``-`` is standard input; a pipe or a FIFO works as a
    file does), parse it and add its good entries. Problems are reported as
    ``file:line: what is wrong``, never raised. A file of lines is read, parsed and
    committed :data:`parsers.BATCH_ENTRIES` entries at a time, so memory does not grow
    with the file: cut off, it keeps the batches committed before (running it again adds
    the rest); a smaller file, and a feed, land in one transaction. ``fmt`` forces one of
    :data:`parsers.FORMATS`; None detects it (and a note in the report says which was
    chosen when another was plausible). A topiclens JSON export (recognised from its
    content) is restored: its entries and bookmarks come back."""
    from .restore import export_marker, restore_data

    if fmt is not None and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    if display is None:
        display = STDIN_NAME if str(path) == STDIN else str(path)
    with open_source(path, display) as source:
        if isinstance(source, Problem):
            return ImportReport(rejected=1, problems=[source])
        if fmt is None and export_marker(source.head):
            data = source.whole()
            if isinstance(data, Problem):
                return ImportReport(rejected=1, problems=[data])
            return restore_data(store, data, display)
        origin = source_name(path, display)
        return import_results(store, parse_source(source, display, origin, fmt), display)


def import_results(store: Store, results: Iterable[ParseResult], display: str) -> ImportReport:
    """Add each parsed batch of ``results`` in a transaction of its own, as it comes: the
    path every import takes. An error reading the input ``display`` mid-way is reported,
    the batches before it kept."""
    total = ImportReport()
    results = iter(results)
    while True:
        try:
            result = next(results, None)
        except OSError as exc:
            problem = Problem(display, 0, f"cannot read the rest: {exc.strerror or exc}")
            total.add(ImportReport(rejected=1, problems=[problem]))
            break
        if result is None:
            break
        total.add(store.import_result(result))
    return total


def bundled_paths() -> list[tuple[str, Path]]:
    """(display name, real path) of each bundled corpus file, wherever the package lives."""
    root = resources.files("topiclens.assets")
    out = []
    for name in BUNDLED_CORPUS:
        with resources.as_file(root / name) as real:
            out.append((f"bundled:{name}", Path(real)))
    return out


def import_bundled(store: Store) -> ImportReport:
    total = ImportReport()
    for display, path in bundled_paths():
        result = parse_file(path, display=display, origin=display)
        total.add(store.import_result(result))
    return total


def ensure_corpus(store: Store) -> ImportReport | None:
    """On a first start (an empty store), import the bundled corpus; else do nothing."""
    if store.count_entries():
        return None
    return import_bundled(store)
