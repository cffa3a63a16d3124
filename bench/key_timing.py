"""Timing one key in the real reader, from sending it until its frame: the one way
bench/bench_reader.py and bench/bench_feeds.py measure key latency.

Pilot's own ``press`` is not used for timing: it sleeps until the process looks idle, which
measures the machine's load rather than the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events

if TYPE_CHECKING:
    from textual.pilot import Pilot
    from textual.worker import Worker
    from topiclens.store import Store
    from topiclens.tui.main_screen import MainScreen

Sample = tuple[float, float]  # (wall ms, CPU ms of the whole process, threads included)


async def key_to_frame(
    pilot: Pilot[None],
    key: str,
    expect: Callable[[], bool],
    besides: Collection[Worker[object]] = (),
) -> Sample:
    """Milliseconds from sending ``key`` until ``expect()`` holds, every message it caused
    is handled, the workers running (but those of ``besides``: work the key runs beside,
    such as a refresh) are done and the frame is composited; and the CPU time that took
    (what the key costs on a machine with a core to spare)."""
    app = pilot.app
    char = key if len(key) == 1 else None
    start, cpu = time.perf_counter(), time.process_time()
    app._driver.send_message(events.Key(key, char))  # type: ignore[union-attr]
    while True:
        await pilot._wait_for_screen()
        running = [w for w in app.workers if not w.is_finished and w not in besides]
        if running:
            await asyncio.gather(*(w.wait() for w in running), return_exceptions=True)
            continue
        if expect():
            break
        if time.perf_counter() - start > 10:
            raise SystemExit(f"{key}: the expected state never came")
        await asyncio.sleep(0)
    app.screen._on_timer_update()  # composite the frame now
    return (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000


@contextlib.asynccontextmanager
async def headless_reader(
    store: Store, poll_interval: float = 3600.0
) -> AsyncIterator[tuple[Pilot[None], MainScreen]]:
    """The real reader on ``store``, headless at 120x34 (no keymap file, no clustering),
    once its start has settled (every worker done): its pilot and its main screen."""
    from topiclens.tui.app import TopicLensApp
    from topiclens.tui.main_screen import MainScreen

    app = TopicLensApp(
        store, keymap_file=Path(os.devnull), cluster=False, poll_interval=poll_interval
    )
    async with app.run_test(size=(120, 34)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        yield pilot, screen


def p95(values: list[float]) -> float:
    """The 95th percentile (the nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
