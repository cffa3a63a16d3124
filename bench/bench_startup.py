"""First frame of the reader against an empty Textual app's first frame, in one run.

Each start is a fresh Python process in a real pseudo-terminal (120x34), timed from spawn
to Textual's ``Ready`` event (sent once the first frame has been written to the terminal).
Starts of the different apps are interleaved and the median of each is reported with its
ratio to the empty app. Stores are built once under bench/out/ (gitignored):

    python bench/bench_startup.py                 # empty app, first start, bundled corpus
    python bench/bench_startup.py --store100k bench/out/store100k   # and 100,000 entries
    python bench/bench_startup.py --compare ../main    # and another checkout's reader

``--compare`` times the reader of another checkout (run by its ``.venv/bin/python``, started
as that checkout's own bench starts it) in the same run, interleaved, for a before/after
on a busy machine.

``--instructions N`` also counts the instructions each start runs until its first frame,
N starts of each under valgrind (``--tool=cachegrind --cache-sim=no``, the process ended at
the frame): unlike wall and CPU time, the count hardly moves with the machine's load (a few
percent between starts, from the event loop's timing), so it tells a change of a few
milliseconds from noise on a shared machine. Each start takes 15-30 s.

The reader's process starts as ``topiclens`` does (``cli/commands.py``, ``cmd_read``): the
garbage collector off from its imports to its first frame.

The 100k store comes from the clustering issue's generator:
    python bench/gen_corpus.py --n 100000 --format jsonl -o bench/out/100k.jsonl
    topiclens --data-dir bench/out/store100k import bench/out/100k.jsonl
    topiclens --data-dir bench/out/store100k cluster
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import pty
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"
SIZE = (120, 34)
PYCACHE = OUT / "pycache"
CACHE = OUT / "cache"

RUNNER = r"""
import os, sys, time
mode, marker = sys.argv[1], sys.argv[2]

def done(app):
    with open(marker, "w") as f:
        f.write(f"{time.time()!r} {time.process_time()!r}")
    app.exit()

if mode == "empty":
    from textual.app import App

    class Empty(App):
        def on_ready(self):
            done(self)

    Empty().run()
else:
    import gc

    gc.disable()  # as `topiclens` does before its imports (cli/commands.py, cmd_read)
    from pathlib import Path
    from topiclens.store import Store
    from topiclens.tui.app import TopicLensApp

    class Reader(TopicLensApp):
        def on_ready(self):
            if mode == "first":
                # the first frame of a first start says its stage (in the empty list);
                # the worker keeps importing, which is not what this measures
                assert self.screen.entry_list.empty_text.endswith("…") or self.screen.topics
            else:
                assert self.screen.entry_list.rows, "no entries on the first frame"
            done(self)
            super().on_ready()  # what follows the frame (not counted: done ends the count)

    with Store.open_dir(sys.argv[3]) as store:
        Reader(store, keymap_file=Path(marker + ".keymap.toml"), poll_interval=3600).run()
    if mode == "first":
        os._exit(0)  # do not wait for the import worker
"""


def start_once(
    mode: str,
    store_dir: Path | None,
    python: str = sys.executable,
    runner: str = RUNNER,
    interpreter: str | None = None,
) -> tuple[float, float]:
    """Seconds from spawning the process to its first frame, and the CPU seconds the
    process used until then (less sensitive to other work on the machine). ``python``
    runs it; ``interpreter``, when that is a wrapper, is the Python it runs."""
    with tempfile.TemporaryDirectory() as tmp:
        marker = Path(tmp) / "ready"
        args = [python, "-c", runner, mode, str(marker)]
        if store_dir is not None:
            args.append(str(store_dir))
        leader, follower = pty.openpty()
        os.set_blocking(leader, False)
        import fcntl
        import struct
        import termios

        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(SIZE[0])}
        env["LINES"] = str(SIZE[1])
        # `pip install .` byte-compiles the package; an editable checkout under
        # PYTHONDONTWRITEBYTECODE would compile topiclens from source on every start
        # (~50 ms) while Textual's bytecode is cached: compile both once, like pip does.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
        # the reader keeps its parsed CSS there after a first frame: the warm-up start
        # leaves it for the measured ones, as a user's first start does for the next (a
        # first start, in a fresh data dir, has a fresh cache dir too); one cache dir for
        # each interpreter, as a kept parse names the checkout its CSS was read from
        kept = CACHE / hashlib.sha256((interpreter or python).encode()).hexdigest()[:12]
        env["XDG_CACHE_HOME"] = str(kept if mode != "first" else Path(store_dir) / "cache")
        start = time.time()
        proc = subprocess.Popen(
            args, stdin=follower, stdout=follower, stderr=follower, env=env, close_fds=True
        )
        os.close(follower)
        try:
            while proc.poll() is None:
                ready, _, _ = select.select([leader], [], [], 0.05)
                if ready:
                    try:
                        os.read(leader, 65536)
                    except OSError:
                        break
            proc.wait(timeout=60)
        finally:
            os.close(leader)
        if not marker.exists():
            status = proc.returncode
            raise SystemExit(f"{mode}: the app exited without a first frame (status {status})")
        wall, cpu = map(float, marker.read_text().split())
        return wall - start, cpu


def instructions_once(
    mode: str, store_dir: Path | None, python: str = sys.executable, runner: str = RUNNER
) -> int:
    """The instructions (valgrind's I refs) one start runs from its spawn to its
    first frame: the runner ends the process there, so quitting is not counted."""
    ended = runner.replace("    app.exit()", "    os._exit(0)  # counted to the first frame")
    if ended == runner:
        raise SystemExit("the runner has no `app.exit()` to end the count at the first frame")
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "valgrind.log"
        wrapper = Path(tmp) / "python"
        wrapper.write_text(
            "#!/bin/sh\nexec valgrind --tool=cachegrind --cache-sim=no "
            f'--cachegrind-out-file=/dev/null --log-file={log} {python} "$@"\n'
        )
        wrapper.chmod(0o755)
        start_once(mode, store_dir, str(wrapper), ended, interpreter=python)
        found = re.search(r"I\s+refs:\s+([\d,]+)", log.read_text())
        if found is None:
            raise SystemExit(f"valgrind reported no instruction count:\n{log.read_text()}")
        return int(found[1].replace(",", ""))


def bundled_store() -> Path:
    """bench/out/bundled: the bundled corpus, grouped into topics by the real clustering."""
    path = OUT / "bundled"
    if (path / "topiclens.db").exists():
        return path
    from topiclens.clustering import ensure_topics
    from topiclens.store import Store
    from topiclens.store.importer import ensure_corpus

    with Store.open_dir(path) as store:
        ensure_corpus(store)
        ensure_topics(store)
    return path


def runner_of(checkout: Path) -> str:
    """The RUNNER of ``checkout``'s own copy of this bench: its reader started its way."""
    spec = importlib.util.spec_from_file_location(
        "compared_bench_startup", checkout / "bench" / "bench_startup.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.RUNNER)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="starts of each app (default 7)")
    parser.add_argument("--store100k", type=Path, help="a store with 100,000 entries and topics")
    parser.add_argument(
        "--compare", type=Path, metavar="CHECKOUT", help="also time another checkout's reader"
    )
    parser.add_argument(
        "--instructions",
        type=int,
        default=0,
        metavar="N",
        help="also count each app's instructions to its first frame, N starts under valgrind",
    )
    args = parser.parse_args()

    bundled = bundled_store()
    here = (sys.executable, RUNNER)
    cases: list[tuple[str, str, Path | None, tuple[str, str]]] = [
        ("empty Textual app", "empty", None, here),
        ("reader, bundled corpus", "reader", bundled, here),
        ("reader, first start (empty store)", "first", None, here),
    ]
    if args.store100k is not None:
        cases.append(("reader, 100,000 entries", "reader", args.store100k, here))
    if args.compare is not None:
        other = (str(args.compare / ".venv" / "bin" / "python"), runner_of(args.compare))
        cases.append(("compared: bundled corpus", "reader", bundled, other))
        if args.store100k is not None:
            cases.append(("compared: 100,000 entries", "reader", args.store100k, other))
    times: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _, _ in cases}
    load_before = os.getloadavg()[0]
    # warm the file cache and compile every module once (not timed)
    for _name, mode, store, (python, runner) in cases:
        if mode != "first":
            start_once(mode, store, python, runner)
    for _ in range(args.runs):
        for name, mode, store, (python, runner) in cases:
            if mode == "first":
                fresh = Path(tempfile.mkdtemp(prefix="topiclens-first-"))
                try:
                    times[name].append(start_once(mode, fresh, python, runner))
                finally:
                    shutil.rmtree(fresh, ignore_errors=True)
            else:
                times[name].append(start_once(mode, store, python, runner))
    base_wall = statistics.median(w for w, _ in times["empty Textual app"])
    base_cpu = statistics.median(c for _, c in times["empty Textual app"])
    load = f"{load_before:.1f}-{os.getloadavg()[0]:.1f}"
    print(
        f"first frame, median of {args.runs} starts each, {SIZE[0]}x{SIZE[1]} pty "
        f"(load average {load}); wall from spawn, CPU of the process until then:"
    )
    for name, _, _, _ in cases:
        walls = [w for w, _ in times[name]]
        wall = statistics.median(walls)
        cpu = statistics.median(c for _, c in times[name])
        spread = f"{min(walls):.3f}-{max(walls):.3f}"
        print(
            f"  {name:<36} wall {wall:6.3f} s ({spread}) ratio {wall / base_wall:4.2f}x"
            f" | CPU {cpu:6.3f} s ratio {cpu / base_cpu:4.2f}x"
        )
    if args.instructions:
        count_instructions(cases, args.instructions)


def count_instructions(
    cases: list[tuple[str, str, Path | None, tuple[str, str]]], runs: int
) -> None:
    """Print each app's median instructions to its first frame and its ratio to the empty
    app's (the first start, whose store is made anew each time, is left out)."""
    counts: dict[str, list[int]] = {name: [] for name, mode, _, _ in cases if mode != "first"}
    for _ in range(runs):
        for name, mode, store, (python, runner) in cases:
            if mode != "first":
                counts[name].append(instructions_once(mode, store, python, runner))
    base = statistics.median(counts["empty Textual app"])
    print(f"instructions to the first frame, median of {runs} starts each under valgrind:")
    for name, found in counts.items():
        median = statistics.median(found)
        spread = f"{min(found) / 1e6:.0f}-{max(found) / 1e6:.0f}M"
        print(f"  {name:<36} {median / 1e6:7.0f}M ({spread}) ratio {median / base:4.2f}x")


if __name__ == "__main__":
    main()
