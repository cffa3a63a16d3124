"""Time the concept-aware search (the reader's / and `topiclens entries --search`) against
the literal search it replaced, on a store you built.

    python bench/gen_corpus.py --n 100000 -o /tmp/c.jsonl
    topiclens --data-dir /tmp/d import /tmp/c.jsonl
    python bench/bench_search.py /tmp/d/topiclens.db --runs 3
"""

from __future__ import annotations

import argparse
import statistics
import time

from topiclens.clustering.search import search
from topiclens.store import Store

QUERIES = ("投机解码", "speculative decoding", "kv cache", "vllm 投机解码", "nothing-like-this")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", help="the store file (topiclens.db)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each query (median shown)")
    args = parser.parse_args()
    with Store(args.store) as store:
        print(f"{store.count_entries()} entries; median of {args.runs} runs")
        for query in QUERIES:
            times = {"concept": [], "literal": []}
            found = {}
            for _ in range(args.runs):
                for kind, run in (("concept", search), ("literal", Store.search)):
                    start = time.perf_counter()
                    found[kind] = len(run(store, query))
                    times[kind].append(time.perf_counter() - start)
            print(
                f"{query!r:24} concept {found['concept']:>6} in "
                f"{statistics.median(times['concept']):.3f} s; literal {found['literal']:>6} in "
                f"{statistics.median(times['literal']):.3f} s"
            )


if __name__ == "__main__":
    main()
