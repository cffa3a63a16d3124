"""How long the reader takes to show, and to quit, a store holding huge text.

Each case is the bundled corpus in three fixed topics (no clustering) plus one hostile
value: a title of 100 KB or 1.2 MB (one word: the worst case for wrapping), a title of
50 MB, a topic name of 10 MB (stored with SQL, as a store from before names were bounded
holds it), reached with the cursor. The real app runs headless (120x34); each time is from
the start of the app (or the key) until every worker has finished and the screen has
been drawn again. Compare each case with the plain store of the same run.

    python bench/bench_hostile_reader.py
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot
from topiclens.store import Entry, Store, Topic
from topiclens.store.importer import import_bundled
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.model import View
from topiclens.tui.workers import DIALOG

HUGE_ID = "00000000000000ab"


def make_store(home: Path) -> Path:
    """The bundled corpus in three topics by position; topic 1 is the largest."""
    with Store.open_dir(home) as store:
        import_bundled(store)
        ids = store.entry_ids()
        parts = {1: ids[: len(ids) // 2], 2: ids[len(ids) // 2 : 3 * len(ids) // 4]}
        parts[3] = ids[3 * len(ids) // 4 :]
        topics = [Topic(t, f"Topic {t}", [("w", 1.0)], len(parts[t])) for t in parts]
        assignments = {e: (t, 0.5, []) for t, members in parts.items() for e in members}
        store.replace_topics(topics, assignments)
        return store.path


def add_title(db: Path, title: str) -> None:
    with Store(db) as store:
        store.add_entries([Entry(HUGE_ID, title, "a summary", date="2099-01-01")])
        store.add_assignments({HUGE_ID: (1, 0.5, [])})


def set_name(db: Path, name: str) -> None:
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE topics SET name = ? WHERE id = 3", (name,))
    conn.close()


async def settled(pilot: Pilot[None]) -> None:
    for _ in range(2):
        work = [w for w in pilot.app.workers if w.group != DIALOG]
        if work:
            await pilot.app.workers.wait_for_complete(work)
        await pilot.pause()


async def to_topic_3(app: TopicLensApp, pilot: Pilot[None]) -> None:
    screen = app.screen
    assert isinstance(screen, MainScreen)
    screen.topic_list.focus()
    while screen.state.view != View("topic", 3):
        await pilot.press("j")
        await settled(pilot)


def measure(db: Path, then: Callable[..., object] | None) -> tuple[float, float, float]:
    """(seconds to the first settled frame, to the cursor's move when ``then``, to quit)."""

    async def go() -> tuple[float, float, float]:
        with Store(db) as store:
            app = TopicLensApp(store, keymap_file=db.parent / "none.toml", poll_interval=600)
            start = time.perf_counter()
            async with app.run_test(size=(120, 34)) as pilot:
                await settled(pilot)
                shown = time.perf_counter() - start
                start = time.perf_counter()
                if then is not None:
                    await then(app, pilot)
                moved = time.perf_counter() - start
                start = time.perf_counter()
                await pilot.press("q")
                await pilot.pause()
                assert not app.is_running
                return shown, moved, time.perf_counter() - start

    return asyncio.run(go())


CASES: dict[str, tuple[Callable[[Path], None] | None, Callable[..., object] | None]] = {
    "plain store": (None, None),
    "plain store, cursor to topic 3": (None, to_topic_3),
    "a 100 KB title (one word)": (lambda db: add_title(db, "x" * 100_000), None),
    "a 1.2 MB title (one word)": (lambda db: add_title(db, "x" * 1_200_000), None),
    "a 50 MB title": (lambda db: add_title(db, "长标题 " * 12_500_000), None),
    "a 10 MB topic name, cursor to it": (lambda db: set_name(db, "名" * 10_000_000), to_topic_3),
}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = make_store(Path(tmp) / "base")
        for n, (name, (change, then)) in enumerate(CASES.items()):
            home = Path(tmp) / f"case{n}"
            home.mkdir()
            db = home / base.name
            db.write_bytes(base.read_bytes())
            if change is not None:
                change(db)
            shown, moved, quit_ = measure(db, then)
            print(f"{shown:7.2f} s shown {moved:7.2f} s moved {quit_:6.2f} s quit  {name}")


if __name__ == "__main__":
    main()
