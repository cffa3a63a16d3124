"""What the mute triggers cost an import: the store's write of N generated entries
(``store.add_entries``, the path ``topiclens import`` takes) into a fresh store, with no
mute rule (no trigger: the store's own state), with the triggers but no rule (as every
store had them before they were made with the first rule), and with one words rule.

    python bench/bench_mute_triggers.py --n 100000 --repeat 3

Each setting is timed ``--repeat`` times, interleaved, and the best is kept; compare the
ratios of one run, never figures of different runs.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gen_corpus import generate
from topiclens.store import Entry, Store
from topiclens.store.migrations import MUTE_TRIGGERS
from topiclens.store.text import entry_id

SETTINGS = ("no rule (no trigger)", "no rule, triggers made", "one words rule")


def entries(n: int) -> list[Entry]:
    return [
        Entry(
            id=entry_id(item["title"], item["summary"], item["comment"]),
            title=item["title"],
            summary=item["summary"],
            comment=item["comment"],
            source=item["source"],
            category=item["category"],
            date=item["date"],
        )
        for item in generate(n, seed=0)
    ]


def timed(setting: str, rows: list[Entry], where: Path) -> float:
    with Store.open_dir(where) as store:
        if setting == SETTINGS[2]:
            store.add_mute_rule("words", "zebra crossing")  # matches none of the corpus
        path = store.path
    if setting == SETTINGS[1]:
        with sqlite3.connect(path) as conn:
            for sql in MUTE_TRIGGERS.values():
                conn.execute(sql)
    with Store(path) as store:
        start = time.perf_counter()
        store.add_entries(rows)
        return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rows = entries(args.n)
    best = dict.fromkeys(SETTINGS, float("inf"))
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeat):
            for i, setting in enumerate(SETTINGS):
                best[setting] = min(best[setting], timed(setting, rows, Path(tmp) / f"{r}-{i}"))
    base = best[SETTINGS[0]]
    print(f"add_entries of {args.n:,} entries, best of {args.repeat}:")
    for setting in SETTINGS:
        print(f"  {setting:<24} {best[setting]:7.2f} s  x{best[setting] / base:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
