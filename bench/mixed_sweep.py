"""Which topics each mixed threshold would flag, on every corpus of bench/bench_quality.py.

For each corpus and seed the product clusters as the suite does (``cluster_store(store,
k=K)`` on a fresh copy of the tokenized store); then, for each threshold, it counts the
topics whose cohesion is below it, how many of those are label-mixed (purity, the share
of a topic's majority label, below 0.5), and the share of entries they hold. The mixed
mark changes no entry's topic at a given k, so the suite's NMI ratio cannot choose the
threshold; this table is the evidence instead.

    python bench/mixed_sweep.py [--seeds 3] [--only NAME]
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path

import bench_quality as bq

THRESHOLDS = (0.30, 0.35, 0.40, 0.45, 0.50)


def topics_per_seed(
    fill: bq.Callable[[bq.Any], list[str]], k: int | None, seeds: list[int]
) -> list[tuple[dict[str, int], dict[int, tuple[int, float | None]]]]:
    """Each seed's (entry id -> topic id, topic id -> (size, cohesion))."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        base, ids, _ = bq.tokenized_store(fill, Path(tmp))
        for seed in seeds:
            store = bq.clustered_copy(base, k, seed)
            topic = store.assignments()
            topics = {t.id: (t.size, t.cohesion) for t in store.topics()}
            store.close()
            out.append(({i: topic[i] for i in ids}, topics))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--only", default=None)
    args = parser.parse_args()
    seeds = list(range(args.seeds))
    print(
        "threshold: topics flagged (label-mixed among them, purity < 0.5), share of entries "
        f"flagged; summed over seeds {seeds}"
    )
    print(f"{'corpus':<22}" + "".join(f"{t:>16.2f}" for t in THRESHOLDS))
    rows = bq.bundled_rows()
    runs = [(c, None) for c in bq.CORPORA] + [(bq.BUNDLED, 18), (bq.BUNDLED, None)]
    for corpus, k in runs:
        name = corpus.name if corpus.name != "bundled" else f"bundled k={k or 'auto'}"
        if args.only not in (None, corpus.name):
            continue
        if corpus.name == "bundled":
            fill, truth_of = bq.bundled_filler(rows), {r["id"]: r["topic"] for r in rows}
            k_fit = k
        elif not corpus.path.exists():
            print(f"{name:<22} skipped: {corpus.path} not found")
            continue
        else:
            from topiclens.store.text import entry_id

            records, labels = bq.load(corpus)
            fill = bq.records_filler(records)
            truth_of = {entry_id(t, s): lab for (t, s), lab in zip(records, labels, strict=True)}
            k_fit = corpus.k
        cells = []
        per_seed = topics_per_seed(fill, k_fit, seeds)
        for threshold in THRESHOLDS:
            flagged = mixed = held = total = 0
            for topic, topics in per_seed:
                members: dict[int, list[str]] = {}
                for eid, tid in topic.items():
                    members.setdefault(tid, []).append(truth_of[eid])
                total += len(topic)
                for tid, labels_in in members.items():
                    cohesion = topics[tid][1]
                    if cohesion is None or cohesion >= threshold:
                        continue
                    flagged += 1
                    held += len(labels_in)
                    purity = Counter(labels_in).most_common(1)[0][1] / len(labels_in)
                    mixed += purity < 0.5
            cells.append(f"{flagged:>4} ({mixed:>3}) {held / total:>4.0%}")
        print(f"{name:<22}" + "".join(f"{c:>16}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
