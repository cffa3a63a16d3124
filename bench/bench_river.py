"""What the reader's All unread list costs: its first page (what the reader reads when it is
opened, along the date index), the next page (read as the cursor nears the end), and the
whole list in one query, on a store of N generated entries with a third of them read.

    python bench/bench_river.py --n 100000 --repeat 5

Each query is timed ``--repeat`` times and the best is kept; compare the ratios of one
run, never figures of different runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_mute_triggers import entries
from topiclens.store import Store
from topiclens.tui.views import RIVER_PAGE


def best(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, Store.open_dir(Path(tmp)) as store:
        store.add_entries(entries(args.n))
        store.set_read_many(store.entry_ids()[::3])
        first = store.river_rows(RIVER_PAGE)
        figures = {
            f"first page ({RIVER_PAGE} rows)": best(
                args.repeat, lambda: store.river_rows(RIVER_PAGE)
            ),
            "next page": best(
                args.repeat, lambda: store.river_rows(RIVER_PAGE, after=first[-1][0])
            ),
            f"whole river ({len(store.river_rows()):,} rows)": best(args.repeat, store.river_rows),
        }
    base = next(iter(figures.values()))
    print(f"All unread on {args.n:,} entries, best of {args.repeat}:")
    for what, seconds in figures.items():
        print(f"  {what:<28} {seconds * 1000:9.1f} ms  x{seconds / base:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
