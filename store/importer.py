"""Importing files into the store: parse, then one transaction per file."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .db import Store
from .models import ImportReport
from .parsers import parse_file

# The user's corpus, shipped byte for byte in assets/ and imported on a first start.
BUNDLED_CORPUS: tuple[str, ...] = ("000_628a9e309749597c.txt", "002_e2969eaa9c23cb58.txt")


def import_file(store: Store, path: str | Path, display: str | None = None) -> ImportReport:
    """Parse one file and add its good entries in one transaction. Problems are reported,
    never raised; what the store held before is left as it was. A topiclens JSON export
    (recognised from its content) is restored: its entries and bookmarks come back."""
    from .restore import looks_like_export, restore_file

    if looks_like_export(path):
        return restore_file(store, path, display=display)
    result = parse_file(path, display=display)
    return store.import_result(result)


def import_paths(store: Store, paths: list[str]) -> list[tuple[str, ImportReport]]:
    return [(p, import_file(store, p)) for p in paths]


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
