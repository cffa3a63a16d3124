"""When a key's last frame reaches the terminal, with nothing forcing frames.

bench_reader.py times a key until its work is done and then composites the frame itself;
a terminal gets the frames Textual draws at its own pace instead (60 a second at most), and
a key whose panes ask for their repaint at different moments takes two frames, the second
one a frame period or more after the first. This runs the real app headless (120x34) on a
store, sends each key as bench_reader.py does, lets the app draw on its own, and prints, per
kind of key, the time from the key to the last frame it caused and how many frames that
took: topic switches back to visited topics (the topics walked down, then back up), then
cursor moves and page downs in the largest topic.

    python bench/bench_frames.py bench/out/store100k
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from key_timing import headless_reader, p95
from textual import events
from textual.pilot import Pilot
from topiclens.store import Store
from topiclens.tui.model import View

QUIET = 0.12  # seconds after a key with no frame of its own to come (several frame periods)

Sample = tuple[float, int]  # (ms from the key to its last frame, frames it took)


async def frames_of(pilot: Pilot[None], key: str, frames: list[float]) -> Sample:
    """Send ``key``, let the app run until its workers are done and QUIET has passed, and
    give the time to the last frame drawn meanwhile and the number of frames."""
    app = pilot.app
    del frames[:]
    start = time.perf_counter()
    app._driver.send_message(events.Key(key, key if len(key) == 1 else None))  # type: ignore[union-attr]
    await asyncio.sleep(QUIET)
    while any(not w.is_finished for w in app.workers):
        await asyncio.sleep(0.01)
    await asyncio.sleep(QUIET / 2)
    last = (frames[-1] - start) * 1000 if frames else 0.0
    return last, len(frames)


def report(name: str, samples: list[Sample]) -> None:
    times = [t for t, _ in samples]
    counts = [n for _, n in samples]
    print(
        f"  {name:<28} key to its last frame: median {statistics.median(times):5.1f} "
        f"p95 {p95(times):5.1f} ms | frames per key: median {statistics.median(counts):.0f} "
        f"most {max(counts)} | {len(samples)} keys"
    )


async def run(store_dir: Path, moves: int) -> None:
    with Store.open_dir(store_dir) as store:
        topics = store.topics()
        async with headless_reader(store) as (pilot, screen):
            start = View("topic", topics[0].id)
            screen.topic_list.select_view(start)
            screen.show_view(start, wait=True)
            screen.topic_list.focus()
            await pilot.pause(QUIET)
            frames: list[float] = []
            compositor = screen._compositor
            update = compositor.render_update

            def recorded(*args: object, **kwargs: object) -> object:
                drawn = update(*args, **kwargs)  # type: ignore[arg-type]
                if drawn is not None:
                    frames.append(time.perf_counter())
                return drawn

            compositor.render_update = recorded  # type: ignore[method-assign]
            for _ in range(len(topics) - 1):
                await frames_of(pilot, "j", frames)
            back = [await frames_of(pilot, "k", frames) for _ in range(len(topics) - 1)]
            big = max(range(len(topics)), key=lambda i: topics[i].size)
            for _ in range(big):
                await frames_of(pilot, "j", frames)
            await frames_of(pilot, "l", frames)
            down = [await frames_of(pilot, "j", frames) for _ in range(moves)]
            pages = [await frames_of(pilot, "pagedown", frames) for _ in range(20)]
    print(f"{len(topics)} topics; frames drawn by the app (load average {os.getloadavg()[0]:.1f}):")
    report("topic switch, back up", back)
    report("cursor move (j in entries)", down)
    report("page down", pages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path, help="data directory of a clustered store")
    parser.add_argument("--moves", type=int, default=40, help="cursor moves to time")
    args = parser.parse_args()
    asyncio.run(run(args.store, args.moves))


if __name__ == "__main__":
    main()
