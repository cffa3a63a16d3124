"""Time bookmark export and restore through the real code path.

Builds a store of ``--entries`` entries (bench/gen_corpus.py, imported as JSON Lines),
bookmarks ``--bookmarks`` of them (every third with a note), spreads them over 20 topics,
then times ``render`` for each format, ``export_bookmarks`` to a file, and restoring the JSON
export into a fresh store (``import_file``, the path ``topiclens import`` takes). Prints the
median of ``--repeat`` runs and the sizes.

    python bench/export_bench.py --entries 20000 --bookmarks 2000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_corpus import generate, write
from topiclens.store import Store, Topic
from topiclens.store.export import FORMATS, export_bookmarks, render
from topiclens.store.importer import import_file


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    times = []
    result: object = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--bookmarks", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        corpus = root / "corpus.jsonl"
        write(generate(args.entries, seed=0, fmt="jsonl"), "jsonl", corpus)
        with Store.open_dir(root / "store") as store:
            import_file(store, corpus)
            ids = [e.id for e in store.entries()]
            step = max(1, len(ids) // args.bookmarks)
            marked = ids[::step][: args.bookmarks]
            for n, eid in enumerate(marked):
                store.set_bookmark(eid, True, f"note {n}: 稍后细读" if n % 3 == 0 else None)
            topics = [Topic(t, f"topic {t}", [("w", 1.0)], 0) for t in range(1, 21)]
            store.replace_topics(
                topics, {eid: (1 + n % 20, 0.5, ["w"]) for n, eid in enumerate(ids)}
            )
            print(
                f"store: {store.count_entries()} entries, {len(store.bookmarks())} bookmarks, "
                f"20 topics; median of {args.repeat} runs"
            )
            for fmt in (f.name for f in FORMATS):
                seconds, data = timed(lambda fmt=fmt: render(store, fmt), args.repeat)
                assert isinstance(data, bytes)
                print(f"render {fmt:<5} {seconds * 1000:8.1f} ms  {len(data) / 1e6:6.2f} MB")
            target = root / "out.json"
            seconds, _ = timed(
                lambda: export_bookmarks(store, "json", target, force=True), args.repeat
            )
            print(f"export_bookmarks json to a file (atomic, fsync) {seconds * 1000:8.1f} ms")

        def restore() -> object:
            with (
                tempfile.TemporaryDirectory(dir=root) as fresh_dir,
                Store.open_dir(fresh_dir) as fresh,
            ):
                report = import_file(fresh, target)
                assert report.rejected == 0 and report.bookmarks_restored == len(marked)
                return report

        seconds, _ = timed(restore, args.repeat)
        print(f"restore the JSON export into a fresh store {seconds * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
