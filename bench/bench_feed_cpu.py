"""The CPU a first refresh of the feeds bench costs, two versions of topiclens alternated in
one run (robust to a shared machine's load: CPU time, and the ratio of runs made side by
side).

    python bench/bench_feed_cpu.py --old /path/to/base/.venv/bin/python [--rounds 3]

``--old`` is the interpreter of the version to compare with (another worktree's
environment, where ``import topiclens`` finds that worktree); this one's interpreter runs
the new. Each round, for the old then the new (then new then old in the next round):

- the parse worker's CPU per feed: :func:`topiclens.feeds.refresh.parse_fetched` on every
  feed of the bench (200 feeds of 50 entries, as ``bench/bench_feeds.py`` writes them), in
  one process, after a first pass over 10 feeds (jieba's dictionary loaded);
- ``topiclens refresh`` of a copy of one store (the bundled corpus grouped into topics,
  every feed subscribed) from ``python -m http.server``: wall time, and the CPU of the
  refresh's own process and of the processes under it (the fork server and the parse
  workers), read from /proc as ``bench/bench_feeds.py`` reads them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_feeds import WARM, prepare_store, serve, timed, write_feeds  # noqa: E402
from side_by_side import compile_imports, load, say_versions  # noqa: E402

WORKER = """
import sys, time
from pathlib import Path
from topiclens.feeds.fetch import Fetched, Validators
from topiclens.feeds.refresh import parse_fetched
from topiclens.store.models import Feed
paths = sorted(Path(sys.argv[1]).iterdir())
bodies = [(p.name, p.read_bytes()) for p in paths]
def run(chosen):
    for name, body in chosen:
        url = "http://127.0.0.1:9/" + name
        f = Fetched(url, url, None, 200, body, {"content-type": "application/xml"},
                    Validators(), None, None)
        parse_fetched(Feed(1, url), f, 1764547200.0)
run(bodies[:10])
t = time.process_time()
run(bodies)
print((time.process_time() - t) / len(bodies))
"""


def worker_cpu(python: str, site: Path) -> float:
    """CPU seconds per feed of the parse worker's function, in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run(
        [python, "-c", WORKER, str(site)], capture_output=True, text=True, check=True, env=env
    )
    return float(out.stdout.strip().splitlines()[-1])


def refresh_cpu(python: str, home: Path) -> tuple[float, float, float, str]:
    """A first ``topiclens refresh`` of ``home``: wall seconds, CPU seconds of its own
    process and of every process under it, and its summary line."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    run = timed([python, "-m", "topiclens", "--data-dir", str(home), "refresh"], env)
    said = run.said() if run.status == 0 else f"exit {run.status}: {run.said()}"
    return run.seconds, run.own_cpu, run.cpu - run.own_cpu, said


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the interpreter of the old version")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--feeds", type=int, default=200)
    parser.add_argument("--entries", type=int, default=50)
    parser.add_argument("--no-refresh", action="store_true", help="the worker's CPU only")
    parser.add_argument("--no-worker", action="store_true", help="the refresh only")
    args = parser.parse_args()
    versions = {"old": args.old, "new": sys.executable}
    say_versions(versions)
    compile_imports(versions, WARM)
    work = Path(tempfile.mkdtemp(prefix="topiclens-feed-cpu-"))
    server = None
    try:
        site = work / "site"
        site.mkdir()
        names = write_feeds(site, args.feeds, args.entries)
        server, port = serve(site)
        home = work / "store"
        if not args.no_refresh:
            prepare_store(home, [f"http://127.0.0.1:{port}/{n}" for n in names])
        results: dict[str, dict[str, list[float]]] = {v: {} for v in versions}
        for r in range(args.rounds):
            order = list(versions) if r % 2 == 0 else list(reversed(versions))
            for name in order:
                got = results[name]
                if not args.no_worker:
                    before = load()
                    cpu = worker_cpu(versions[name], site)
                    got.setdefault("worker", []).append(cpu)
                    print(f"round {r + 1} {name}: parse worker {cpu * 1000:6.1f} ms CPU per "
                          f"feed ({before})", flush=True)  # fmt: skip
                if not args.no_refresh:
                    copy = work / f"store-{name}-{r}"
                    shutil.copytree(home, copy)
                    before = load()
                    wall, here, under, said = refresh_cpu(versions[name], copy)
                    shutil.rmtree(copy, ignore_errors=True)
                    for key, value in (("wall", wall), ("main", here), ("under", under)):
                        got.setdefault(key, []).append(value)
                    got.setdefault("cpu", []).append(here + under)
                    print(f"round {r + 1} {name}: refresh {wall:5.2f} s wall, CPU "
                          f"{here + under:5.2f} s ({here:.2f} s main + {under:.2f} s workers) "
                          f"({before}) {said}", flush=True)  # fmt: skip
        print(f"medians over {args.rounds} rounds, new / old ({load()} at the end):")
        for key in ("worker", "cpu", "main", "under", "wall"):
            if key not in results["new"]:
                continue
            old = sorted(results["old"][key])[args.rounds // 2]
            new = sorted(results["new"][key])[args.rounds // 2]
            print(f"  {key:<6} old {old:8.4f}  new {new:8.4f}  ratio {new / old:.3f}")
        return 0
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
