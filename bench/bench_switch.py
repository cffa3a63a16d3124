"""Topic switches in the reader as bench_feeds.py plays them, many of them, with no refresh.

bench_feeds.py times six idle topic switches (the first visits) and, during a refresh, as
many as the refresh lasts, on a machine the refresh keeps busy. This plays the same round
of keys on a store, idle, as often as asked: a topic switch (j or k in the topics, walking
down and back up), then ``l`` and ``h`` (the focus into the entries and back, untimed, as
bench_feeds.py moves it around its cursor moves). Each switch is timed from the key to its
frame as bench_feeds.py times it (bench/key_timing.py: the handler, every message and
worker it caused, the read-ahead of the next topic included, and the frame composited),
wall and CPU (the reader's process, its threads included). Run it for two versions in
turn and compare the CPU figures: they move least with the machine's load. The first
visit of each topic (its entry read from the store, every line drawn anew) is shown apart
from the switches back to a topic seen before: during a refresh in bench_feeds.py most
switches are first visits, and they make its p95.

    python bench/bench_switch.py STORE_DIR --keys 120
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from key_timing import Sample, headless_reader, key_to_frame, p95
from topiclens.store import Store
from topiclens.tui.model import View


async def switches(store_dir: Path, keys: int) -> list[tuple[bool, Sample]]:
    """Each switch's (first visit of its topic, key-to-frame time)."""
    with Store.open_dir(store_dir) as store:
        async with headless_reader(store) as (pilot, screen):
            app = pilot.app
            topics = screen.topics
            start = View("topic", topics[0].id)  # whatever place the store remembers
            screen.topic_list.select_view(start)
            screen.show_view(start, wait=True)
            screen.topic_list.focus()
            await app.workers.wait_for_complete()
            await pilot.pause()
            index, step = 0, 1
            samples = []
            seen = {topics[0].id}
            for _ in range(keys):
                if not 0 <= index + step < len(topics):
                    step = -step
                index += step
                wanted = topics[index].id

                def shown(wanted: int = wanted) -> bool:
                    view = screen.state.view
                    return (
                        view is not None
                        and view.topic_id == wanted
                        and screen.detail is not None
                        and screen.entry_list.current_id == screen.detail.entry.id
                    )

                sample = await key_to_frame(pilot, "j" if step > 0 else "k", shown)
                samples.append((wanted not in seen, sample))
                seen.add(wanted)
                await pilot.press("l")
                await pilot.press("h")
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path, help="data directory of a clustered store")
    parser.add_argument("--keys", type=int, default=120, help="topic switches to time")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="topiclens-bench-switch-"))
    try:  # on a copy: the reader writes its place into the store
        shutil.copytree(args.store, work / "store")
        samples = asyncio.run(switches(work / "store", args.keys))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not samples:
        return
    print(f"topic switch, then l and h (untimed); load average {os.getloadavg()[0]:.1f}:")
    for label, kept in (
        ("every switch", samples),
        ("first visits", [s for s in samples if s[0]]),
        ("seen before", [s for s in samples if not s[0]]),
    ):
        if not kept:
            continue
        walls = [w for _, (w, _) in kept]
        cpus = [c for _, (_, c) in kept]
        print(
            f"  {label:<13} wall median {statistics.median(walls):5.1f} p95 {p95(walls):5.1f} "
            f"ms | CPU median {statistics.median(cpus):5.1f} p95 {p95(cpus):5.1f} mean "
            f"{statistics.mean(cpus):5.1f} ms | {len(kept)} keys"
        )


if __name__ == "__main__":
    main()
