"""Every figure of a store of N entries in one run: import, cluster and re-cluster (time
and peak memory), the reader's first frame against an empty Textual app, its key latencies
(``bench_reader.py``, then again with the store evicted from the page cache before each
first visit) and what takes the store's space, as built and after ``topiclens compact``.

    python bench/bench_scale.py --n 100000
    python bench/bench_scale.py --n 1000000 --runs 3

The corpus (``gen_corpus.py``, JSON Lines, seed 0) and the store are kept under
bench/out/scale-N/ and reused by the next run: an existing store of N entries with topics
is not built again (its import and cluster figures are then not printed; ``--rebuild``
builds it anew). Each step runs as ``topiclens`` does, in a fresh process; its peak
memory is that process's (and the largest of its workers', when it starts any).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"

# runs one topiclens command in this process and prints its peak memory and its workers'
STEP = r"""
import resource, sys
from topiclens.cli import main
status = main(sys.argv[1:])
me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"PEAK {me:.0f} {kids:.0f}", file=sys.stderr)
sys.exit(status)
"""


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def step(name: str, *args: str) -> None:
    """Run ``topiclens ARGS`` in a fresh process; print its wall time and peak memory."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", STEP, *args], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{name} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    peak = next(line for line in proc.stderr.splitlines() if line.startswith("PEAK"))
    me, kids = map(float, peak.split()[1:])
    workers = f", largest worker {kids:,.0f} MB" if kids else ""
    print(f"  {name:<34} {seconds:8.1f} s   peak {me:,.0f} MB{workers}   ({load()})")
    sys.stdout.flush()


def has_store(store: Path, n: int) -> bool:
    db = store / "topiclens.db"
    if not db.exists():
        return False
    with closing(sqlite3.connect(db)) as conn:  # (sqlite3's own context manager leaves it open)
        entries = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
        topics = conn.execute("SELECT count(*) FROM topics").fetchone()[0]
    return entries == n and topics > 0


def build(n: int, home: Path, rebuild: bool) -> Path:
    corpus, store = home / "corpus.jsonl", home / "store"
    home.mkdir(parents=True, exist_ok=True)
    if not corpus.exists():
        print(f"generating {n:,} entries into {corpus} (not timed)")
        subprocess.run(
            [sys.executable, str(HERE / "gen_corpus.py"), "--n", str(n), "-o", str(corpus)],
            check=True,
        )
    if rebuild:
        shutil.rmtree(store, ignore_errors=True)
    if has_store(store, n):
        print(f"reusing {store} ({n:,} entries with topics): no import or cluster figures")
        return store
    shutil.rmtree(store, ignore_errors=True)
    size = corpus.stat().st_size / (1 << 20)
    print(f"building {store}:")
    step(f"import ({size:,.0f} MiB of JSON Lines)", "--data-dir", str(store), "import", str(corpus))
    step("cluster", "--data-dir", str(store), "cluster")
    return store


def startup(store: Path, runs: int) -> None:
    sys.path.insert(0, str(HERE))
    from bench_startup import start_once

    start_once("empty", None)  # warm the file cache and the bytecode (not timed)
    start_once("reader", store)
    empty, reader = [], []
    for _ in range(runs):
        empty.append(start_once("empty", None))
        reader.append(start_once("reader", store))
    wall = statistics.median(w for w, _ in reader) / statistics.median(w for w, _ in empty)
    cpu = statistics.median(c for _, c in reader) / statistics.median(c for _, c in empty)
    print(
        f"  first frame / empty app's, median of {runs}: wall {wall:.2f}x, CPU {cpu:.2f}x"
        f"   ({load()})"
    )


def space(store: Path) -> None:
    db = store / "topiclens.db"
    total = sum(p.stat().st_size for p in store.glob("topiclens.db*"))
    print(f"  store: {total / (1 << 20):,.0f} MiB on disk ({db.name} and its WAL); by table:")
    with closing(sqlite3.connect(db)) as conn:  # compact refuses a store left open
        rows = conn.execute(
            "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 10"
        ).fetchall()
    for name, size in rows:
        print(f"    {name:<32} {size / (1 << 20):8,.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, required=True, help="entries")
    parser.add_argument("--runs", type=int, default=5, help="starts of each app (default 5)")
    parser.add_argument("--moves", type=int, default=100, help="cursor moves to time")
    parser.add_argument("--rebuild", action="store_true", help="build the store anew")
    parser.add_argument("--no-recluster", action="store_true", help="skip the re-cluster")
    args = parser.parse_args()
    home = OUT / f"scale-{args.n}"
    print(f"bench_scale --n {args.n:,} on {os.cpu_count()} cores ({load()})")
    store = build(args.n, home, args.rebuild)
    if not args.no_recluster:
        step("re-cluster (tokens from the cache)", "--data-dir", str(store), "cluster")
    startup(store, args.runs)
    print("  reader keys (bench_reader.py):")
    sys.stdout.flush()
    reader = [sys.executable, str(HERE / "bench_reader.py"), str(store), "--moves", str(args.moves)]
    subprocess.run(reader, check=True)
    print("  reader keys, the store evicted from the page cache before each first visit:")
    sys.stdout.flush()
    subprocess.run([*reader, "--cold"], check=True)
    space(store)
    # the store as a user keeps it after `topiclens compact` (new stores use 4 KiB pages)
    step("compact", "--data-dir", str(store), "compact")
    space(store)


if __name__ == "__main__":
    main()
