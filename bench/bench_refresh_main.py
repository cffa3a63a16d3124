"""The main process's own work in a first refresh of the feeds bench, without the network
or the parse workers, so it can be counted exactly: two versions of topiclens side by side.

    python bench/bench_refresh_main.py --old /path/to/base/.venv/bin/python [--rounds 3]
    python bench/bench_refresh_main.py --old ... --valgrind     # instructions, not CPU time

The feeds are those of ``bench/bench_feeds.py`` (200 of 50 entries), each parsed once, in
this process's interpreter, by :func:`topiclens.feeds.refresh.parse_fetched` (what a parse
worker hands back), and kept in a pickle. The store holds the bundled corpus grouped into
topics, every feed subscribed. Then, for the old version and the new (alternated, each in
a fresh process on a fresh copy of the store), the two parts of a refresh's main process:

- ``store``: every feed's parsed fetch stored as a refresh stores it (``store_check``,
  then its new entries' tokens cached, ``_cache_tokens``);
- ``place``: the 10,000 new entries placed into their topics by the refresh's placing
  thread (``_Placing``), handed each feed's as the refresh hands them over, in batches
  of 500, then what is left at the end as the refresh places it.

Each part is timed by its CPU time (storing: its thread's; placing: the process's), or
with ``--valgrind`` counted in instructions (``valgrind --tool=cachegrind
--cache-sim=no``: the run to the end of the part less the run to its start, so the
interpreter's start and imports are not counted).
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

from bench_feeds import WARM, prepare_store, write_feeds  # noqa: E402
from side_by_side import compile_imports, compiling_env, say_versions  # noqa: E402
from side_by_side import instructions as counted  # noqa: E402

PARSE = """
import pickle, sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from topiclens.feeds.fetch import Fetched, Validators
from topiclens.feeds.refresh import parse_fetched
from topiclens.store import Store

def one(job):
    feed, path = job
    body = Path(path).read_bytes()
    f = Fetched(feed.url, feed.url, None, 200, body, {"content-type": "application/xml"},
                Validators(), None, None)
    parsed = parse_fetched(feed, f, 1764547200.0)
    # (what storing reads of the fetch: no body)
    return feed, Fetched(feed.url, feed.url, None, 200, None, {}, Validators(), None, None), parsed

if __name__ == "__main__":
    home, site, out = sys.argv[1:4]
    with Store.open_dir(home) as store:
        feeds = store.feeds()
    jobs = [(f, str(Path(site) / f.url.rsplit("/", 1)[1])) for f in feeds]
    with ProcessPoolExecutor(2) as pool:
        done = list(pool.map(one, jobs))
    Path(out).write_bytes(pickle.dumps(done, protocol=pickle.HIGHEST_PROTOCOL))
"""

PART = """
import pickle, sys, time
from topiclens.feeds import refresh as R
from topiclens.store import Store

home, parsed_path, part, upto = sys.argv[1:5]
done = pickle.loads(open(parsed_path, "rb").read())
with Store.open_dir(home) as store:
    import topiclens.clustering.pipeline, topiclens.clustering.placing, scipy.sparse
    store.topics(); store.token_vocab()
    if upto == "start":
        sys.exit(0)
    t = time.thread_time()
    made = []
    for feed, fetched, parsed in done:
        result = R.store_check(store, feed, fetched, parsed.check)
        if parsed.tokens and result.new_ids:
            made.append((result.new_ids, R._cache_tokens(store, parsed, result.new_ids)))
    stored = time.thread_time() - t
    placed = 0.0
    if part == "place":
        # the refresh's placing thread, handed each feed's new entries as the refresh hands
        # them over, a batch of PLACE_BATCH at a time (the next once it took this one)
        t = time.process_time()
        placing = R._Placing(store)
        waiting = 0
        for ids, kept in made:
            if isinstance(kept, tuple):  # (token ids as cached, bigram features)
                placing.add(ids, kept[1], kept[0])
            else:  # (bigram features alone)
                placing.add(ids, kept)
            waiting += len(ids)
            if waiting >= R.PLACE_BATCH:
                while placing._waiting:
                    time.sleep(0.002)
                waiting = 0
        placing.join()
        if hasattr(placing, "finish"):
            placing.finish()
        summary = R.RefreshSummary()
        R.place_new(store, summary)
        placed = time.process_time() - t
        assert store.count_unassigned() == 0
    if part == "place" and upto == "check":  # (where every entry went: not counted)
        import hashlib
        rows = store.query("SELECT entry_id, topic_id, round(score, 6), terms, similar "
                           "FROM topic_assignments ORDER BY entry_id")
        print("placed", hashlib.sha256(repr(rows).encode()).hexdigest()[:16])
    print(f"{stored:.4f} {placed:.4f} {sum(len(ids) for ids, _ in made)}")
"""


def run_part(python: str, home: Path, parsed: Path, part: str) -> tuple[float, float, int, str]:
    """CPU seconds of storing, and of placing (``part`` "place"), in a fresh process, and
    a digest of where every entry was placed."""
    lines = subprocess.run(
        [python, "-c", PART, str(home), str(parsed), part, "check"],
        capture_output=True, text=True, check=True, env=compiling_env(),
    ).stdout.splitlines()  # fmt: skip
    placed = next((x.split()[1] for x in lines if x.startswith("placed ")), "")
    out = lines[-1].split()
    return float(out[0]), float(out[1]), int(out[2]), placed


def instructions(python: str, home: Path, parsed: Path, part: str, upto: str) -> int:
    """Instructions of a run under cachegrind, up to ``upto`` ("start" or "end")."""
    argv = [python, "-c", PART, str(home), str(parsed), part, upto]
    return counted(argv, "--trace-children=no")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the interpreter of the old version")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--feeds", type=int, default=200)
    parser.add_argument("--entries", type=int, default=50)
    parser.add_argument("--valgrind", action="store_true", help="count instructions")
    parser.add_argument("--keep", metavar="DIR", help="make (or reuse) the feeds and store here")
    args = parser.parse_args()
    versions = {"old": args.old, "new": sys.executable}
    say_versions(versions)
    compile_imports(versions, WARM + ", topiclens.clustering.placing, topiclens.clustering.naming")
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="topiclens-main-"))
    try:
        site, home, parsed = work / "site", work / "store", work / "parsed.pickle"
        if not parsed.exists():
            site.mkdir(parents=True, exist_ok=True)
            names = write_feeds(site, args.feeds, args.entries)
            prepare_store(home, [f"http://127.0.0.1:9/{n}" for n in names])
            script = work / "parse_all.py"
            script.write_text(PARSE, encoding="utf-8")
            subprocess.run(
                [sys.executable, str(script), str(home), str(site), str(parsed)],
                check=True, env=compiling_env(),
            )  # fmt: skip
        digests: dict[str, str] = {}
        results: dict[str, dict[str, list[float]]] = {
            v: {"store": [], "place": []} for v in versions
        }
        for r in range(args.rounds):
            order = list(versions) if r % 2 == 0 else list(reversed(versions))
            for name in order:
                copy = work / f"store-{name}"
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(home, copy)
                load = os.getloadavg()[0]
                if args.valgrind:
                    counts = []
                    for part, upto in (("store", "start"), ("store", "end"), ("place", "end")):
                        shutil.rmtree(copy, ignore_errors=True)
                        shutil.copytree(home, copy)
                        counts.append(instructions(versions[name], copy, parsed, part, upto))
                    stored, placed = counts[1] - counts[0], counts[2] - counts[1]
                    unit, scale = "M instructions", 1e6
                    n = args.feeds * args.entries
                else:
                    stored, placed, n, digest = run_part(versions[name], copy, parsed, "place")
                    digests[name] = digest
                    unit, scale = "s CPU", 1.0
                shutil.rmtree(copy, ignore_errors=True)
                results[name]["store"].append(stored)
                results[name]["place"].append(placed)
                print(f"round {r + 1} {name}: store {stored / scale:9.3f}, place "
                      f"{placed / scale:9.3f} {unit} ({n} new entries; load {load:.2f})",
                      flush=True)  # fmt: skip
        if digests:
            same = digests["old"] == digests["new"]
            print("every entry placed " + ("the same by both" if same else "DIFFERENTLY"))
        print(f"medians over {args.rounds} rounds, new / old (load {os.getloadavg()[0]:.2f}):")
        for key in ("store", "place"):
            old = sorted(results["old"][key])[args.rounds // 2]
            new = sorted(results["new"][key])[args.rounds // 2]
            print(f"  {key:<6} old {old:14.4f}  new {new:14.4f}  ratio {new / old:.3f}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
