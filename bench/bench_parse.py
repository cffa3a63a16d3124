"""The CPU a parse worker of a refresh spends per feed, for two (or more) versions of
topiclens side by side in one run: :func:`topiclens.feeds.refresh.parse_fetched` on the
feeds bench's feeds (200 feeds of 50 entries, as ``bench/bench_feeds.py`` writes them),
after importing :mod:`topiclens.feeds.parse_preload` as the workers' fork server does.

    python bench/bench_parse.py [--old /path/to/base/.venv/bin/python] [--rounds 3]
                                [--folder FEEDS] [--instructions [--feeds 20]]

Each interpreter is another worktree's environment (``import topiclens`` finds that
worktree); this one's interpreter runs the new version. Two measures:

- CPU time (``time.process_time``) per feed over every feed, after a first pass over 10
  (jieba's dictionary loaded, the memos warm as in a worker that has parsed a few feeds);
  versions alternate round by round (old, new; then new, old), and the medians and their
  ratio are printed, with the load average beside every figure;
- with ``--instructions``, instructions per feed counted by valgrind
  (``--tool=cachegrind --cache-sim=no``), which a shared machine's load does not change:
  the difference of two runs (3 feeds; then 3 and ``--feeds`` more), over ``--feeds``.

FOLDER holds the feeds (default: written afresh to a temporary folder with
``bench_feeds.write_feeds``); each is served with the content type its name gives.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_feeds import write_feeds  # noqa: E402
from side_by_side import compiling_env, load, say_versions  # noqa: E402
from side_by_side import instructions as counted  # noqa: E402

RUN = """
import mimetypes, sys, time
from pathlib import Path
import topiclens.feeds.parse_preload  # (as the parse workers' fork server)
from topiclens.feeds.fetch import Fetched, Validators
from topiclens.feeds.refresh import parse_fetched
from topiclens.store.models import Feed
folder, mode, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
paths = sorted(folder.iterdir(), key=lambda p: (len(p.stem), p.stem)) if folder.is_dir() else []
def run(chosen):
    for p in chosen:
        url = "http://127.0.0.1:9/" + p.name
        kind = mimetypes.guess_type(p.name)[0] or "application/xml"
        f = Fetched(url, url, None, 200, p.read_bytes(), {"content-type": kind},
                    Validators(None, None), None, None)
        parse_fetched(Feed(1, url), f, 1764547200.0)
if mode == "cpu":
    run(paths[:10])
    t = time.process_time()
    run(paths)
    print((time.process_time() - t) / len(paths))
else:
    run(paths[: 3 + count])
"""


def cpu_per_feed(python: str, folder: Path) -> float:
    """CPU seconds per feed of ``parse_fetched``, in a fresh process."""
    done = subprocess.run(
        [python, "-c", RUN, str(folder), "cpu", "0"],
        capture_output=True, text=True, check=True, env=compiling_env(),
    )  # fmt: skip
    return float(done.stdout.strip().splitlines()[-1])


def instructions(python: str, folder: Path, count: int) -> int:
    """Instructions valgrind counts for the imports and ``3 + count`` feeds."""
    return counted([python, "-c", RUN, str(folder), "instructions", str(count)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", action="append", default=[], help="an old version's python")
    parser.add_argument("--folder", type=Path, help="the feeds (default: written afresh)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--instructions", action="store_true", help="count with valgrind")
    parser.add_argument("--feeds", type=int, default=20, help="feeds counted by valgrind")
    args = parser.parse_args()
    versions = {f"old{i + 1}" if len(args.old) > 1 else "old": p for i, p in enumerate(args.old)}
    versions["new"] = sys.executable
    say_versions(versions)
    for python in versions.values():
        # (a first run writes the bytecode caches, so that no count includes compiling)
        subprocess.run(
            [python, "-c", RUN, "/nonexistent", "instructions", "0"], env=compiling_env()
        )
    work = Path(tempfile.mkdtemp(prefix="topiclens-parse-"))
    try:
        folder = args.folder
        if folder is None:
            folder = work / "feeds"
            folder.mkdir()
            write_feeds(folder, 200, 50)
        results: dict[str, list[float]] = {name: [] for name in versions}
        for r in range(args.rounds):
            order = list(versions) if r % 2 == 0 else list(reversed(versions))
            for name in order:
                before = load()
                if args.instructions:
                    base = instructions(versions[name], folder, 0)
                    value = (instructions(versions[name], folder, args.feeds) - base) / args.feeds
                    said = f"{value / 1e6:8.2f} M instructions per feed"
                else:
                    value = cpu_per_feed(versions[name], folder)
                    said = f"{value * 1000:7.2f} ms CPU per feed"
                results[name].append(value)
                print(f"round {r + 1} {name:>4}: {said} ({before})", flush=True)
        median = {name: sorted(v)[len(v) // 2] for name, v in results.items()}
        unit = "M instructions" if args.instructions else "ms CPU"
        scale = 1e-6 if args.instructions else 1000
        print(f"medians over {args.rounds} rounds ({load()} at the end):")
        for name, value in median.items():
            ratio = value / median[next(iter(versions))]
            print(f"  {name:>4}: {value * scale:8.2f} {unit} per feed, {ratio:.3f} of the first")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
