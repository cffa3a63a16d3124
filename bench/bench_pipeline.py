"""Speed and memory of the clustering pipeline, measured on the real path.

    python bench/bench_pipeline.py --bundled        # cold: a fresh process and store
    python bench/bench_pipeline.py --n 100000       # synthetic corpus (bench/gen_corpus.py)

--bundled times ``topiclens --data-dir EMPTY topics`` in a fresh process: import the 109
bundled entries, tokenize, cluster, store. Target: under 3 s wall.

--n N generates N entries (fixed seed), then in fresh processes:
  1. jieba alone: ``jieba.lcut`` of every entry's text (the text clustering reads) on a
     pool of every core, same HMM setting as the product, worker start included;
  2. the whole pipeline: ``import_file`` + ``cluster_store`` (tokenize, features, KMeans,
     names, similar entries, store) into an empty store;
  3. a re-cluster of that store, every token from the cache.
It prints each figure, the ratio pipeline / jieba (target <= 1.3), the re-cluster time
(target < 15 s) and peak memory (target < 2 GB: the main process, and the largest worker).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _peak_mb() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return me, kids


# --- stages, each run in its own process ------------------------------------------------


def _jieba_worker_init() -> None:
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()


def _jieba_cut(texts: list[str]) -> int:
    import jieba
    from topiclens.clustering.tokenize import USE_HMM

    return sum(len(jieba.lcut(t, HMM=USE_HMM)) for t in texts)


def stage_jieba(corpus: Path) -> dict:
    import multiprocessing

    from topiclens.store.parsers import parse_file

    texts = [e.text() for e in parse_file(corpus).entries]
    t0 = time.perf_counter()
    chunks = [texts[i : i + 250] for i in range(0, len(texts), 250)]
    with multiprocessing.get_context("spawn").Pool(
        os.cpu_count() or 1, initializer=_jieba_worker_init
    ) as pool:
        tokens = sum(pool.imap(_jieba_cut, chunks))
    return {"seconds": time.perf_counter() - t0, "texts": len(texts), "tokens": tokens}


def stage_pipeline(corpus: Path, home: Path) -> dict:
    from topiclens.clustering import cluster_store
    from topiclens.store import Store
    from topiclens.store.importer import import_file

    t0 = time.perf_counter()
    with Store.open_dir(home) as store:
        report = import_file(store, corpus)
        t_import = time.perf_counter() - t0
        cluster = cluster_store(store)
    total = time.perf_counter() - t0
    me, kids = _peak_mb()
    return {
        "seconds": total,
        "import": t_import,
        "stages": cluster.seconds,
        "entries": report.new,
        "topics": cluster.topics,
        "tokenized": cluster.tokenized,
        "peak_mb": me,
        "worker_peak_mb": kids,
    }


def stage_recluster(home: Path) -> dict:
    from topiclens.clustering import cluster_store
    from topiclens.store import Store

    t0 = time.perf_counter()
    with Store.open_dir(home) as store:
        cluster = cluster_store(store)
    me, kids = _peak_mb()
    return {
        "seconds": time.perf_counter() - t0,
        "stages": cluster.seconds,
        "tokenized": cluster.tokenized,
        "cached": cluster.cached,
        "peak_mb": me,
        "worker_peak_mb": kids,
    }


def _run_stage(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--stage", *args], capture_output=True, text=True
    )
    if done.returncode:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"stage {args[0]} failed")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- main -------------------------------------------------------------------------------


def bench_bundled(repeat: int) -> None:
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "topiclens", "--data-dir", tmp, "topics"],
                check=True,
                capture_output=True,
            )
            times.append(time.perf_counter() - t0)
    print(
        "bundled corpus, cold (fresh process and store; import + tokenize + cluster + store): "
        + ", ".join(f"{t:.2f} s" for t in times)
        + f"; best {min(times):.2f} s (target < 3 s)"
    )


def _fmt_stages(stages: dict) -> str:
    return ", ".join(f"{k} {v:.1f}" for k, v in stages.items() if k != "total")


def bench_n(n: int, fmt: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / f"corpus.{fmt}"
        gen = [str(HERE / "gen_corpus.py"), "--n", str(n), "--format", fmt, "--seed", "0"]
        subprocess.run(
            [sys.executable, *gen, "-o", str(corpus)],
            check=True,
            capture_output=True,
        )
        print(
            f"corpus: {n} entries ({fmt}, {corpus.stat().st_size / 1e6:.0f} MB), "
            f"{os.cpu_count()} cores"
        )
        jb = _run_stage("jieba", str(corpus))
        print(f"jieba alone, all cores:          {jb['seconds']:7.1f} s ({jb['tokens']} tokens)")
        home = Path(tmp) / "home"
        pipe = _run_stage("pipeline", str(corpus), str(home))
        print(
            f"whole pipeline (import+cluster): {pipe['seconds']:7.1f} s "
            f"(import {pipe['import']:.1f}; {_fmt_stages(pipe['stages'])}); "
            f"{pipe['topics']} topics"
        )
        print(
            f"ratio pipeline / jieba:          {pipe['seconds'] / jb['seconds']:7.2f} "
            "(target <= 1.3)"
        )
        re = _run_stage("recluster", str(home))
        print(
            f"re-cluster, cached tokens:       {re['seconds']:7.1f} s "
            f"({re['cached']} cached, {re['tokenized']} tokenized; "
            f"{_fmt_stages(re['stages'])}) (target < 15 s)"
        )
        print(
            f"peak memory: pipeline {pipe['peak_mb']:.0f} MB (largest worker "
            f"{pipe['worker_peak_mb']:.0f} MB), re-cluster {re['peak_mb']:.0f} MB "
            "(target < 2048 MB)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundled", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n", type=int)
    parser.add_argument("--format", choices=("jsonl", "digest", "listing"), default="jsonl")
    parser.add_argument("--stage", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stage:
        name, *rest = args.stage
        fn = {"jieba": stage_jieba, "pipeline": stage_pipeline, "recluster": stage_recluster}
        result = fn[name](*(Path(r) for r in rest))
        print(json.dumps(result))
        return 0
    if args.bundled:
        bench_bundled(args.repeat)
    if args.n:
        bench_n(args.n, args.format)
    if not (args.bundled or args.n):
        parser.print_help()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
