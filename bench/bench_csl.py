"""Topic quality on real labelled data: CSL (Chinese scientific abstracts).

Imports the JSON Lines file into a temporary store with the product's importer, clusters
it as ``cluster_store`` does (tokens from the store's token cache, the texts for the
feature-only bigrams, ``TopicModel.fit``: TF-IDF with BM25 idf, LSA, spectral embedding,
KMeans, the 30 % cap) at k = 13 and k = 67, and prints
NMI and ARI against the ``category`` and ``discipline`` labels, mean and spread over 5
seeds. The labels are read from the store only after clustering,
to score; the features come from ``Store.entry_texts()`` (title, summary, comment) alone.

    python bench/bench_csl.py [PATH] [--seeds 5] [--lsa-dims 200] [--n-init 4]
        [--no-bigrams] [--no-spectral] [--no-smooth] [--no-cap]

The bundled anchors are about AI infrastructure, not CSL's 13 disciplines, so the bench
runs without anchors (an anchors file may be passed with --anchors).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CSL = ROOT / ".." / "shared" / "corpora" / "csl" / "csl-2000.jsonl"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_CSL)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--ks", default="13,67", help="comma-separated k values")
    parser.add_argument("--lsa-dims", type=int, default=None, help="0 turns LSA off")
    parser.add_argument("--n-init", type=int, default=None)
    parser.add_argument("--anchors", type=Path, default=None)
    parser.add_argument(
        "--no-smooth", action="store_true", help="no neighbour smoothing (with --no-spectral)"
    )
    parser.add_argument("--no-cap", action="store_true", help="no 30 %% cap on a topic's share")
    parser.add_argument("--no-bigrams", action="store_true", help="word tokens only")
    parser.add_argument("--no-spectral", action="store_true", help="KMeans on LSA vectors")
    args = parser.parse_args(argv)

    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
    from topiclens.clustering import TopicModel
    from topiclens.clustering.anchors import load_anchors
    from topiclens.clustering.token_cache import entry_token_ids
    from topiclens.store import Store
    from topiclens.store.importer import import_file

    if not args.path.exists():
        sys.stderr.write(f"bench_csl: {args.path}: no such file\n")
        return 2
    anchors = load_anchors(args.anchors) if args.anchors else []
    model = TopicModel(
        anchors=anchors,
        lsa_dims="auto" if args.lsa_dims is None else (args.lsa_dims or None),
        n_init=args.n_init or "auto",
        smoothing=not args.no_smooth,
        bigrams=False if args.no_bigrams else "auto",
        spectral=False if args.no_spectral else "auto",
        max_share=None if args.no_cap else TopicModel().max_share,
    )
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open_dir(tmp)
        report = import_file(store, args.path)
        if report.rejected:
            sys.stderr.write(f"bench_csl: {report.rejected} lines rejected\n")
        items = store.entry_texts()
        t0 = time.perf_counter()
        tids, _ = entry_token_ids(store, [eid for eid, _ in items])
        texts = [text for _, text in items]
        t_tok = time.perf_counter() - t0
        # labels: read only now, to score
        by_id = {e.id: e for e in store.entries()}
        labels = {
            "category": [by_id[i].category for i, _ in items],
            "discipline": [str(by_id[i].extra.get("discipline", "")) for i, _ in items],
        }
        store.close()
    n = len(items)
    print(f"CSL: {n} entries from {args.path.name}; tokenized in {t_tok:.1f} s")
    print(f"pipeline: product tokenizer and token cache, {model!r}")
    ks = [int(x) for x in args.ks.split(",")]
    for k in ks:
        scores: dict[str, list[float]] = {}
        t0 = time.perf_counter()
        for seed in range(args.seeds):
            model.set_params(n_topics=k, random_state=seed).fit(texts, tokens=tids.counts())
            pred = model.labels_.tolist()
            if k == ks[0] and seed == 0:
                lsa = "off" if model.components_ is None else model.components_.shape[0]
                print(f"  as fitted: LSA {lsa}, bigrams {'on' if model.bigrams_ else 'off'}")
            for name, truth in labels.items():
                scores.setdefault(f"NMI {name}", []).append(
                    normalized_mutual_info_score(truth, pred)
                )
                scores.setdefault(f"ARI {name}", []).append(adjusted_rand_score(truth, pred))
        secs = (time.perf_counter() - t0) / args.seeds
        parts = [
            f"{key} {statistics.mean(v):.3f} ± {statistics.pstdev(v):.3f}"
            for key, v in scores.items()
        ]
        print(f"k={k:<3} ({args.seeds} seeds, {secs:.1f} s each): " + "; ".join(parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
