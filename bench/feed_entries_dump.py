"""Every feed entry the parse worker makes, written to a file, so two versions of the code
can be compared entry by entry (a change meant to save time must not change one entry).

    python bench/feed_entries_dump.py OUT.pickle [FOLDER ...]
    python bench/feed_entries_dump.py --compare OLD.pickle NEW.pickle

For each file under the folders (default: tests/data), it records what
:func:`topiclens.feeds.refresh.parse_fetched` makes of the file served with the headers
its leading comment names (as feedparser's own test harness sends them): the parsed feed
(every field of every entry, the problems, or the refusal) and the store's items (each
entry's row and its content as stored, compressed and hashed) and the tokens, at a fixed
time. Run it once with each version's environment, then compare the two files.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import pickle
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HEADER = re.compile(rb"^Header:\s*([A-Za-z-]+):\s*(.*?)\s*$", re.MULTILINE)
NOW = _dt.datetime(2026, 12, 1, tzinfo=_dt.UTC)


def _plain(value: Any) -> Any:
    """``value`` as plain tuples, lists and scalars (dataclasses by their fields)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *(
            (f.name, _plain(getattr(value, f.name))) for f in dataclasses.fields(value)
        ))  # fmt: skip
    if isinstance(value, tuple | list):
        return tuple(_plain(v) for v in value)
    return value


def record(path: Path) -> Any:
    """What the parse worker makes of the file at ``path``."""
    from topiclens.feeds.fetch import Fetched, Validators
    from topiclens.feeds.refresh import parse_fetched
    from topiclens.store.feed_parse import NotAFeed, parse_feed
    from topiclens.store.models import Feed

    data = path.read_bytes()
    headers = {k.decode().lower(): v.decode("latin-1") for k, v in HEADER.findall(data[:4096])}
    url = headers.pop("content-location", "http://127.0.0.1:9/feeds/" + path.name)
    try:
        parsed: Any = _plain(parse_feed(data, url=url, path=path.name, headers=headers, now=NOW))
    except NotAFeed as exc:
        parsed = f"NotAFeed: {exc}"
    except Exception as exc:  # (recorded: the same error both ways is the same result)
        parsed = f"{type(exc).__name__}: {exc}"
    fetched = Fetched(url, url, None, 200, data, headers, Validators(), None, None)
    worker = parse_fetched(Feed(1, url), fetched, NOW.timestamp())
    check = worker.check
    items = tuple(
        (_plain(it.entry), tuple(it.content), it.stored) for it in check.items
    )  # (the check's own fields but its items)
    fields = tuple(
        (f.name, getattr(check, f.name))
        for f in dataclasses.fields(check)
        if f.name not in ("items", "checked_at")
    )
    return parsed, fields, items, tuple(worker.tokens), tuple(worker.bigrams), worker.tokenizer


def dump(out: Path, folders: list[Path]) -> None:
    import topiclens

    print(f"topiclens from {Path(topiclens.__file__).parent}", file=sys.stderr)
    paths = sorted(p for folder in folders for p in folder.rglob("*") if p.is_file())
    results = {}
    for path in paths:
        results[str(path)] = record(path)
    out.write_bytes(pickle.dumps(results))
    entries = sum(len(r[2]) for r in results.values())
    print(f"{len(results)} files, {entries} entries written to {out}", file=sys.stderr)


def compare(old_path: Path, new_path: Path) -> int:
    old = pickle.loads(old_path.read_bytes())
    new = pickle.loads(new_path.read_bytes())
    files = entries = 0
    differ: list[str] = []
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        files += 1
        if a is None or b is None:
            differ.append(f"{name}: only in {'new' if a is None else 'old'}")
            continue
        entries += max(len(a[2]), len(b[2]))
        if a[0] != b[0]:
            differ.append(f"{name}: the parsed feed differs")
        if a[1] != b[1]:
            differ.append(f"{name}: the feed's check differs")
        if len(a[2]) != len(b[2]):
            differ.append(f"{name}: {len(a[2])} entries, then {len(b[2])}")
        for i, (x, y) in enumerate(zip(a[2], b[2], strict=False)):
            if x != y:
                differ.append(f"{name}: entry {i} differs")
        if a[3:] != b[3:]:
            differ.append(f"{name}: the tokens differ")
    print(f"compared {files} files, {entries} entries: {len(differ)} mismatches")
    for line in differ[:50]:
        print("  " + line)
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args()
    if args.compare:
        return compare(*args.paths)
    dump(args.paths[0], args.paths[1:] or [ROOT / "tests" / "data"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
