"""How fast the reader answers keys on a big store: cursor moves and topic switches.

Runs the real app headless (120x34) on a store and times each key from the moment the
key event is sent until every widget has handled every message it caused, every worker has
finished, and the screen has been composited again: the handler, the store queries and the
repaint (bench/key_timing.py, shared with bench_feeds.py). Prints the median, the 95th
percentile and the worst of each kind of key, wall and CPU, the wall p95 against its
target: 50 ms for a topic not shown before, one frame at 60 Hz (16.7 ms) for the others.
``--cold`` drops the store from the OS page cache before each first visit, as after a
reboot (or a day of other work).

    python bench/bench_reader.py bench/out/store100k      # after building it:
    python bench/gen_corpus.py --n 100000 --format jsonl -o bench/out/100k.jsonl
    topiclens --data-dir bench/out/store100k import bench/out/100k.jsonl
    topiclens --data-dir bench/out/store100k cluster
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from key_timing import Sample, headless_reader, p95
from key_timing import key_to_frame as timed
from topiclens.store import Store
from topiclens.tui.model import View

FIRST_VISIT_MS = 50.0  # a topic's first page read from the store
FRAME_MS = 1000 / 60  # every other key: what is in memory, shown within one frame


def report(name: str, samples: list[Sample], target: float = FRAME_MS) -> None:
    walls = sorted(w for w, _ in samples)
    cpus = sorted(c for _, c in samples)
    verdict = "ok" if p95(walls) <= target else "SLOW"
    print(
        f"  {name:<34} wall median {statistics.median(walls):5.1f} p95 {p95(walls):5.1f} "
        f"worst {walls[-1]:5.1f} ms | CPU median {statistics.median(cpus):5.1f} "
        f"p95 {p95(cpus):5.1f} ms | {len(samples)} keys, wall p95/target "
        f"{p95(walls) / target:4.2f} {verdict}"
    )


def evict(store_dir: Path) -> None:
    """Drop the store's own file pages from the OS page cache (posix_fadvise DONTNEED:
    only these files, nothing else on the machine), so the next read comes from disk."""
    for path in store_dir.glob("topiclens.db*"):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def cold_reads(store_dir: Path, topic_id: int, repeat: int = 3) -> list[float]:
    """Milliseconds to read a topic's rows with nothing of the store in the page cache."""
    times = []
    for _ in range(repeat):
        evict(store_dir)
        with Store.open_dir(store_dir) as store:
            start = time.perf_counter()
            store.topic_rows(topic_id)
            times.append((time.perf_counter() - start) * 1000)
    return times


async def run(store_dir: Path, moves: int, cold: bool = False) -> None:
    with Store.open_dir(store_dir) as store:
        entries = store.count_entries()
        topics = store.topics()
        async with headless_reader(store) as (pilot, screen):
            app = pilot.app
            # the topic list puts clear topics first, so the largest is found by size
            big = max(range(len(topics)), key=lambda i: topics[i].size)
            print(
                f"{entries:,} entries in {len(topics)} topics; largest topic "
                f"{topics[big].size:,} entries, smallest {min(t.size for t in topics):,}"
            )
            first_ids = {t.id: store.topic_rows(t.id)[0][0] for t in topics}
            # the walk starts on the first topic, whatever place the store's last reader
            # left (it opens where that one was)
            start = View("topic", topics[0].id)
            screen.topic_list.select_view(start)
            screen.show_view(start, wait=True)
            screen.topic_list.focus()
            await app.workers.wait_for_complete()
            await pilot.pause()

            def showing(index: int) -> Callable[[], bool]:
                tid = topics[index].id
                return lambda: (
                    screen.state.view is not None
                    and screen.state.view.topic_id == tid
                    and bool(screen.entry_list.rows)
                    and screen.entry_list.rows[0][0] == first_ids[tid]
                    and screen.detail is not None
                    and screen.detail.entry.id == first_ids[tid]
                )

            def at(index: int) -> Callable[[], bool]:
                rows = screen.entry_list.rows
                return lambda: (
                    screen.entry_list.cursor == index
                    and screen.detail is not None
                    and screen.detail.entry.id == rows[index][0]
                )

            # topic switches: down through every topic and back up (the focus starts there)
            switches, revisits = [], []
            for i in range(1, len(topics)):
                if cold:  # a topic not read since the machine started (or long ago)
                    evict(store_dir)
                switches.append(await timed(pilot, "j", showing(i)))
            for i in range(len(topics) - 2, -1, -1):
                revisits.append(await timed(pilot, "k", showing(i)))
            # cursor moves in the largest topic's entry list (the walk ended on the first)
            for i in range(1, big + 1):
                await timed(pilot, "j", showing(i))
            await pilot.press("l")
            n = len(screen.entry_list.rows)
            page = screen.entry_list.scrollable_content_region.height - 1
            down = [await timed(pilot, "j", at(i)) for i in range(1, min(moves, n - 1) + 1)]
            pages = []
            for _ in range(20):
                target = min(n - 1, screen.entry_list.cursor + page)
                pages.append(await timed(pilot, "pagedown", at(target)))
            ends = []
            for _ in range(10):
                ends.append(await timed(pilot, "G", at(n - 1)))
                ends.append(await timed(pilot, "g", at(0)))
    cold_ms = cold_reads(store_dir, topics[big].id)
    print(
        f"the largest topic's {topics[big].size:,} rows read cold (store evicted from the page "
        f"cache): {', '.join(f'{t:.0f}' for t in cold_ms)} ms"
    )
    print(
        f"key to frame, target {FIRST_VISIT_MS:.0f} ms for a first visit"
        f"{' (store evicted from the page cache before each)' if cold else ''}, "
        f"{FRAME_MS:.1f} ms for the others (load average {os.getloadavg()[0]:.1f}):"
    )
    report("topic switch, first visit", switches, FIRST_VISIT_MS)
    report("topic switch, back up (visited)", revisits)
    report("cursor move (j in entries)", down)
    report("page down", pages)
    report("bottom/top of the largest topic", ends)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process (the reader and the bench): {peak:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path, help="data directory of a clustered store")
    parser.add_argument("--moves", type=int, default=200, help="cursor moves to time")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="evict the store from the OS page cache before each first visit",
    )
    args = parser.parse_args()
    asyncio.run(run(args.store, args.moves, args.cold))


if __name__ == "__main__":
    main()
