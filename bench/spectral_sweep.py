"""The spectral step's graph size against the alternatives, on every labelled corpus.

For each corpus of bench/bench_quality.py, the product's features (the store's text, the
tokenizer, bigrams, TF-IDF and LSA, as ``TopicModel`` makes them; made once per corpus
and kept in bench/out/spectral-features/) are clustered by unseeded KMeans (ten starts)
in each candidate space, and NMI is printed beside the plain baseline's (three seeds):

- ``lsa``: the LSA vectors; ``smooth``: the smoothed LSA vectors;
- ``mN``: the spectral embedding of an N-neighbour graph;
- ``rS``: the same with S × n / k neighbours (15 to 100), the product's rule at S = 0.6.

    python bench/spectral_sweep.py debian-titles,debian-crisp m30,r0.6,lsa [--seeds 6]
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_quality as bq

CACHE = bq.ROOT / "bench" / "out" / "spectral-features"


def features(corpus: bq.Corpus) -> tuple[Any, list[str], list[float]]:
    """The corpus's LSA vectors (seed 0), its labels, and the baseline's NMI per seed."""
    from sklearn.metrics import normalized_mutual_info_score as nmi
    from topiclens.clustering import TopicModel

    path = CACHE / f"{corpus.name}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes())
    if corpus.name == "bundled":
        rows = bq.bundled_rows()
        truth = [r["topic"] for r in rows]
        _, texts = bq.product_labels(bq.bundled_filler(rows), corpus.k, [])
    else:
        records, truth = bq.load(corpus)
        _, texts = bq.product_labels(bq.records_filler(records), corpus.k, [])
    model = TopicModel(corpus.k, random_state=0)
    n = len(texts)
    _, f = model._fit_features(texts, None, n, model.needs_texts(n))
    base = [nmi(truth, b) for b in bq.baseline_labels(texts, corpus.k, [0, 1, 2], corpus.chinese)]
    out = (f.vectors, truth, base)
    CACHE.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(out))
    return out


def space(x: Any, k: int, variant: str, seed: int, near: Any) -> Any:
    from topiclens.clustering.neighbours import (
        SPECTRAL_NEIGHBOURS_MAX,
        SPECTRAL_NEIGHBOURS_MIN,
        smooth,
        smooth_count,
        spectral_embedding,
    )

    n = x.shape[0]
    if variant == "lsa":
        return x
    if variant == "smooth":
        return smooth(x, near[:, : smooth_count(n)])
    if variant.startswith("m"):
        return spectral_embedding(x, k, int(variant[1:]), seed)
    share = float(variant[1:])
    m = round(share * n / k)
    m = max(SPECTRAL_NEIGHBOURS_MIN, min(SPECTRAL_NEIGHBOURS_MAX, m))
    return spectral_embedding(x, k, m, seed)


def main() -> int:
    from sklearn.metrics import normalized_mutual_info_score as nmi
    from topiclens.clustering.neighbours import nearest
    from topiclens.clustering.partition import kmeans

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", help="comma-separated corpus names")
    parser.add_argument("variants", help="comma-separated: lsa, smooth, mN, rS")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    known = {c.name: c for c in [*bq.CORPORA, bq.BUNDLED]}
    for name in args.corpora.split(","):
        corpus = known[name]
        x, truth, base = features(corpus)
        b = statistics.mean(base)
        print(f"{name}: n={x.shape[0]} k={corpus.k} baseline {b:.3f}", flush=True)
        near, _ = nearest(x, None, 20)
        for variant in args.variants.split(","):
            t0 = time.perf_counter()
            scores = []
            for seed in range(args.seeds):
                labels, _ = kmeans(space(x, corpus.k, variant, seed, near), corpus.k, [], seed, 10)
                scores.append(nmi(truth, labels))
            mean = statistics.mean(scores)
            print(
                f"  {variant:<8} {mean:.3f} ± {statistics.pstdev(scores):.3f}  {mean / b:.2f}x"
                f"  {time.perf_counter() - t0:.0f} s",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
