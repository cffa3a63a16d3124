"""How well topics stay put when entries arrive: a re-cluster that continues the last
model against one that starts over (``topiclens cluster`` against ``cluster --fresh``).

For each labelled corpus, one run: 95 % of its texts (at least 5 left out, chosen by
``--seed``) go into a store, ``cluster_store`` groups them as ``topiclens cluster``
does; the other 5 % are added and placed as ``topiclens import`` places them
(``assign_new``); then the store is clustered again, once continuing (a copy of the
store) and once fresh (another copy). Printed per corpus and way:

- **kept**: the share of the first entries whose topic id is the same after the second
  re-cluster (the issue's "entries that keep their topic");
- **ARI**: adjusted Rand index of the first entries' topics, before against after;
- **NMI**: the second clustering against the corpus's labels (quality: a continued
  re-cluster should not be worse than a fresh one);
- what the continued re-cluster reported changing, in its one line.

    python bench/bench_stability.py [--seed 0] [--only NAME] [--share 0.05] [--corpora DIR]

Corpora: the bundled corpus (our reference labels, bench/corpora/bundled-labels.jsonl)
and those of bench/bench_quality.py (``../shared/corpora``; debian-crisp when built),
each at the quality suite's k and with an automatic k.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_quality import CORPORA, LABELS, SHARED, Corpus, load

MIN_ADDED = 5


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    corpus: Corpus | None  # None: the bundled corpus
    k: int | None  # None: automatic


def cases(shared: Path) -> list[Case]:
    out = [Case("bundled", None, None)]
    for c in CORPORA:
        if c.path.is_relative_to(SHARED):
            c = replace(c, path=shared / c.path.relative_to(SHARED))
        if c.name in ("csl-titles", "csl-discipline"):
            continue  # the same texts as csl-category; kept out to keep the run short
        out.append(Case(f"{c.name} --k {c.k}", c, c.k))
        out.append(Case(f"{c.name} auto k", c, None))
    return out


def _entries(case: Case, tmp: Path) -> tuple[list[Any], dict[str, str]]:
    """The case's entries and each one's label."""
    from topiclens.store import Store
    from topiclens.store.importer import import_bundled
    from topiclens.store.models import Entry
    from topiclens.store.text import entry_id

    if case.corpus is None:
        store = Store.open_dir(tmp / "bundled")
        import_bundled(store)
        entries = store.entries()
        store.close()
        rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()]
        labels = {r["id"]: r["topic"] for r in rows if r}
        return [e for e in entries if e.id in labels], labels
    records, truth = load(case.corpus)
    entries = [Entry(id=entry_id(t, s), title=t, summary=s) for t, s in records]
    return entries, {e.id: label for e, label in zip(entries, truth, strict=True)}


def run(case: Case, share: float, seed: int) -> dict[str, Any] | None:
    import numpy as np
    from sklearn.metrics import adjusted_rand_score as ari
    from sklearn.metrics import normalized_mutual_info_score as nmi
    from topiclens.clustering.pipeline import assign_new, cluster_store
    from topiclens.store import Store

    if case.corpus is not None and not case.corpus.path.exists():
        print(f"{case.name:<26} skipped: {case.corpus.path} not found")
        return None
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        entries, labels = _entries(case, tmp)
        order = np.random.default_rng(seed).permutation(len(entries))
        n_added = max(MIN_ADDED, round(share * len(entries)))
        first = [entries[i] for i in order[n_added:]]
        added = [entries[i] for i in order[:n_added]]
        base = tmp / "base"
        store = Store.open_dir(base)
        store.add_entries(first)
        t0 = time.perf_counter()
        cluster_store(store, k=case.k, random_state=seed)
        first_seconds = time.perf_counter() - t0
        before = store.assignments()
        store.close()
        result: dict[str, Any] = {"n": len(entries), "added": n_added, "first": first_seconds}
        old = [e.id for e in first]
        for way in ("fresh", "continued"):
            home = tmp / way
            shutil.copytree(base, home)
            store = Store.open_dir(home)
            new_ids, _ = store.add_entries(added)
            assign_new(store, new_ids)  # as `topiclens import` places new entries
            t0 = time.perf_counter()
            report = cluster_store(store, k=case.k, random_state=seed, fresh=way == "fresh")
            seconds = time.perf_counter() - t0
            after = store.assignments()
            store.close()
            kept = sum(1 for e in old if after.get(e) == before[e]) / len(old)
            scored = [e.id for e in entries if e.id in after]
            result[way] = {
                "kept": kept,
                "ari": ari([before[e] for e in old], [after[e] for e in old]),
                "nmi": nmi([labels[e] for e in scored], [after[e] for e in scored]),
                "topics": report.topics,
                "seconds": seconds,
                "changes": report.changes or "",
            }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--share", type=float, default=0.05, help="share of entries added")
    parser.add_argument("--only", default=None, help="run only the cases whose name has this")
    parser.add_argument(
        "--corpora", type=Path, default=SHARED, help=f"the shared corpora (default: {SHARED})"
    )
    args = parser.parse_args(argv)
    chosen = [c for c in cases(args.corpora) if args.only is None or args.only in c.name]
    if not chosen:
        sys.stderr.write(f"bench_stability: no case named {args.only!r}\n")
        return 2
    print(
        f"add {args.share:.0%} of the entries (at least {MIN_ADDED}) after a first cluster, "
        f"then cluster again; seed {args.seed}. kept: first entries keeping their topic id; "
        "ARI: their topics before/after; NMI: all entries against the labels"
    )
    print(
        f"{'store':<26} {'n':>5}  {'fresh kept':>10} {'ARI':>5} {'NMI':>5}  "
        f"{'cont. kept':>10} {'ARI':>5} {'NMI':>5}  {'s fresh/cont.':>13}  what changed"
    )
    worst: list[float] = []
    for case in chosen:
        r = run(case, args.share, args.seed)
        if r is None:
            continue
        f, c = r["fresh"], r["continued"]
        worst.append(c["kept"])
        print(
            f"{case.name:<26} {r['n']:>5}  {f['kept']:>10.0%} {f['ari']:>5.2f} {f['nmi']:>5.3f}  "
            f"{c['kept']:>10.0%} {c['ari']:>5.2f} {c['nmi']:>5.3f}  "
            f"{f['seconds']:>6.1f}/{c['seconds']:<6.1f}  {c['changes']}",
            flush=True,
        )
    if worst:
        print(f"lowest share kept by a continued re-cluster: {min(worst):.0%} (target 90%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
