"""How long a re-cluster takes to read every entry's cached tokens back from a store.

Opens the store (migrating it first, when this checkout's schema is newer; the migration
is timed apart), then times the real loader a re-cluster calls
(``clustering.token_cache.entry_token_ids``) on every entry's id, and prints the seconds,
the tokens read and a checksum of them, so two checkouts can be shown to read the same.

    python bench/bench_token_load.py /tmp/m1m          # the store's data directory
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from topiclens.clustering.token_cache import entry_token_ids
from topiclens.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--repeat", type=int, default=3, help="loads to time (default 3)")
    args = parser.parse_args()
    t0 = time.perf_counter()
    with Store.open_dir(args.data_dir) as store:
        opened = time.perf_counter() - t0
        ids = store.entry_ids()
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            tokens, tokenized = entry_token_ids(store, ids)
            times.append(time.perf_counter() - t0)
            if tokenized:
                raise SystemExit(f"{tokenized} entries were not cached: not a re-cluster's load")
    checksum = int(np.sum(tokens.ids, dtype=np.uint64)) ^ int(np.sum(tokens.indptr))
    print(f"open (and migrate): {opened:.2f} s")
    print(f"entries: {len(ids)}, tokens: {len(tokens.ids)}, vocab: {len(tokens.vocab)}")
    print(f"checksum: {checksum}")
    print("token load: " + ", ".join(f"{t:.2f}" for t in times) + f" s (best {min(times):.2f})")


if __name__ == "__main__":
    main()
