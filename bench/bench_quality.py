"""Topic quality across every labelled corpus: the product against plain scikit-learn.

For each corpus below, one run prints the product's NMI, the plain baseline's NMI on the
same texts with the same seeds, their ratio, and at the end the worst ratio (the target:
at least 1.05x on every corpus).

- **product**: :func:`product_labels`, the command line's own path, ``topiclens cluster
  --k K``: the records go into a store as entries (title, summary), the store gives the
  text the tokenizer sees (``Store.entry_texts``) and its token cache the tokens, and
  ``cluster_store(store, k=K)`` clusters them with the bundled anchors, as the command
  does. Each seed clusters a fresh copy of the tokenized store, so no seed carries on
  another's model.
- **plain baseline**, as a practitioner writes it: ``TfidfVectorizer(sublinear_tf=True,
  min_df=2)`` with English stop words (English corpora) or on jieba's words (Chinese:
  ``jieba.lcut``, joined by spaces), then ``KMeans(n_clusters=k, n_init=4)``, on the same
  text as the product's (title and summary joined by a line end).

Labels never reach the features: they are read from the corpus file and used to score.
Texts that are the same (same title and summary, white space aside) are one entry in the
store; both sides cluster the same de-duplicated list, each text scored with its first
record's label. After the table, each corpus's landing topic: the cohesion of the topic
the reader opens on (the first one not mixed in the store's order) per seed, beside the
one a size-only order would give, and the share of entries in mixed topics. The
``bundled`` row is the bundled corpus against our reference labels
(bench/corpora/bundled-labels.jsonl) at k = its 18 reference topics; the report after the
table is the bundled corpus as a user gets it (automatic k), once per seed.

    python bench/bench_quality.py [--seeds 3] [--only NAME]   # NAME "bundled": the report

Corpora are read from ``../shared/corpora`` beside the repository; ``debian-crisp`` and
``debian-titles`` (short English titles in 20 classes, with and without the crispness
filter) are made on the machine by ``bench/corpora/debian_synopses.py`` and skipped, with
a line saying so, where they are not.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# shared/ beside the repository, or beside the folder of its worktrees
SHARED = (
    next(
        (p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()),
        ROOT.parent / "shared",
    )
    / "corpora"
)


@dataclass(frozen=True, slots=True)
class Landing:
    """One seed's topic list: the cohesion of the topic the reader opens on, under the
    store's order and under the order of coherent-then-mixed by size alone, and the share
    of entries in mixed topics."""

    cohesion: float
    by_size: float
    mixed_share: float


def landing(topics: Sequence[Any]) -> Landing:
    """The reader's landing topic in ``topics`` (the store's order): the first one not
    mixed (``tui.views.first_topic``), beside the one the size-only order would give."""
    coherent = [t for t in topics if not t.mixed] or list(topics)
    by_size = min(coherent, key=lambda t: (-t.size, t.id))
    total = sum(t.size for t in topics)
    return Landing(
        coherent[0].cohesion or 0.0,
        by_size.cohesion or 0.0,
        sum(t.size for t in topics if t.mixed) / total,
    )


def tokenized_store(
    fill: Callable[[Any], list[str]], folder: Path
) -> tuple[Path, list[str], dict[str, str]]:
    """A store in ``folder`` that ``fill(store)`` fills (returning the entry ids to score),
    tokenized once so that every seed's copy finds the cache: its folder, the ids, and the
    texts the store gives the tokenizer."""
    from topiclens.clustering.token_cache import entry_token_ids
    from topiclens.store import Store

    base = folder / "base"
    store = Store.open_dir(base)
    ids = fill(store)
    texts = dict(store.entry_texts(ids))
    entry_token_ids(store, ids)
    store.close()
    return base, ids, texts


def clustered_copy(base: Path, k: int | None, seed: int) -> Any:
    """A copy of the store ``base`` clustered as ``topiclens cluster --k K`` does with this
    seed, open (the caller closes it)."""
    from topiclens.clustering.pipeline import cluster_store
    from topiclens.store import Store

    copy = base.parent / f"seed{seed}"
    shutil.copytree(base, copy)
    store = Store.open_dir(copy)
    cluster_store(store, k=k, random_state=seed)
    return store


def product_labels(
    fill: Callable[[Any], list[str]],
    k: int,
    seeds: Sequence[int],
    landings: list[Landing] | None = None,
) -> tuple[list[list[int]], list[str]]:
    """The product's topic of each entry, once per seed, through ``cluster_store(store,
    k=k)`` (``topiclens cluster --k K``) on a fresh store that ``fill(store)`` fills
    (returning the entry ids to score); and the texts the store gives the tokenizer.
    Each seed's :class:`Landing` goes into ``landings`` when given."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        base, ids, texts = tokenized_store(fill, Path(tmp))
        for seed in seeds:
            store = clustered_copy(base, k, seed)
            topic = store.assignments()
            if landings is not None:
                landings.append(landing(store.topics()))
            store.close()
            out.append([topic[i] for i in ids])
    return out, [texts[i] for i in ids]


def records_filler(records: Sequence[tuple[str, str]]) -> Callable[[Any], list[str]]:
    """Fills a store with one entry per (title, summary) record; returns their ids."""
    from topiclens.store.models import Entry
    from topiclens.store.text import entry_id

    def fill(store: Any) -> list[str]:
        ids = [entry_id(t, s) for t, s in records]
        store.add_entries(
            Entry(id=i, title=t, summary=s) for i, (t, s) in zip(ids, records, strict=True)
        )
        return ids

    return fill


def baseline_labels(
    texts: Sequence[str], k: int, seeds: Sequence[int], chinese: bool
) -> list[list[int]]:
    """Plain scikit-learn done right: sublinear TF-IDF of the terms in two texts or more,
    English stop words (or jieba's words for Chinese), KMeans with four starts."""
    from sklearn.cluster import KMeans
    from sklearn.feature_extraction.text import TfidfVectorizer

    if chinese:
        import jieba

        jieba.setLogLevel(60)
        texts = [" ".join(jieba.lcut(t)) for t in texts]
    vectorizer = TfidfVectorizer(
        sublinear_tf=True, min_df=2, stop_words=None if chinese else "english"
    )
    x = vectorizer.fit_transform(texts)
    return [
        KMeans(n_clusters=k, n_init=4, random_state=seed).fit(x).labels_.tolist() for seed in seeds
    ]


@dataclass(frozen=True, slots=True)
class Corpus:
    name: str
    path: Path
    label: str  # the field scored against
    k: int
    chinese: bool
    titles_only: bool = False


CSL = SHARED / "csl" / "csl-2000.jsonl"
MEDICAL = SHARED / "medical-abstracts-en" / "medical-2888.jsonl"
MADE = Path("/tmp/topiclens-corpora")  # where bench/corpora/debian_synopses.py writes
DEBIAN = MADE / "debian-crisp.jsonl"
DEBIAN_TITLES = MADE / "debian-titles.jsonl"
CORPORA = [
    Corpus("csl-category", CSL, "category", 13, chinese=True),
    Corpus("csl-discipline", CSL, "discipline", 67, chinese=True),
    Corpus("csl-titles", CSL, "discipline", 67, chinese=True, titles_only=True),
    Corpus("medical", MEDICAL, "label", 5, chinese=False),
    Corpus("medical-titles", MEDICAL, "label", 5, chinese=False, titles_only=True),
    # short English titles in 20 crisp classes, made locally (bench/corpora/README.md)
    Corpus("debian-crisp", DEBIAN, "label", 20, chinese=False, titles_only=True),
    # the same sections with no crispness filter: 2,000 titles, many not naming their class
    Corpus("debian-titles", DEBIAN_TITLES, "label", 20, chinese=False, titles_only=True),
]


def load(corpus: Corpus) -> tuple[list[tuple[str, str]], list[str]]:
    """De-duplicated (title, summary) records and each one's label."""
    seen: dict[tuple[str, str], str] = {}
    with corpus.path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                # white space folded, as the store's ids fold it: one text, one entry
                title = " ".join(row["title"].split())
                key = (title, "" if corpus.titles_only else " ".join(row["summary"].split()))
                seen.setdefault(key, str(row[corpus.label]))
    return list(seen), list(seen.values())


LABELS = ROOT / "bench" / "corpora" / "bundled-labels.jsonl"
# the reference's name of each named topic -> the bundled anchor that names it
NAMED = {
    "Speculative decoding": "Speculative decoding",
    "MoE kernels & expert parallelism": "MoE kernels & expert parallelism",
    "KV cache": "KV cache",
    "Interconnects & multi-GPU communication": "Interconnects",
}


# the bundled corpus at k = its reference topics, in the table beside the others
BUNDLED = Corpus("bundled", LABELS, "topic", 18, chinese=True)


def bundled_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line]


def bundled_filler(rows: Sequence[dict[str, Any]]) -> Callable[[Any], list[str]]:
    """Fills a store with the bundled corpus, as a first start imports it; returns the
    labelled entries' ids."""
    from topiclens.store.importer import import_bundled

    def fill(store: Any) -> list[str]:
        import_bundled(store)
        return [r["id"] for r in rows]

    return fill


def f1(found: set[str], truth: set[str]) -> float:
    hit = len(found & truth)
    return 0.0 if not hit else 2 * hit / (len(found) + len(truth))


def bundled(seed: int = 0) -> None:
    """The bundled corpus as a user gets it (bundled anchors, auto k, ``cluster_store``
    on a fresh store) against our hand-made labels: NMI beside the plain baseline at the
    same k, the F1 of each named topic counting its "also" entries, and how many of each
    anchor-named topic's entries use one of the anchor's terms."""
    from sklearn.metrics import normalized_mutual_info_score as nmi
    from topiclens.clustering.anchors import load_anchors
    from topiclens.clustering.pipeline import cluster_store
    from topiclens.clustering.token_cache import entry_tokens, tokenized_anchors
    from topiclens.store import Store
    from topiclens.store.importer import import_bundled

    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line]
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open_dir(tmp)
        import_bundled(store)
        t0 = time.perf_counter()
        report = cluster_store(store, random_state=seed)
        seconds = time.perf_counter() - t0
        topics = store.topics()
        primary = store.assignments()
        ids = [r["id"] for r in rows]
        texts = dict(store.entry_texts(ids))
        tokens = dict(zip(ids, entry_tokens(store, ids)[0], strict=True))
        anchors = {a.name: a for a in tokenized_anchors(store, load_anchors())}
        members = {t.id: set(store.topic_entry_ids(t.id)) for t in topics}
        also = {t.id: set(store.also_entry_ids(t.id)) for t in topics}
        store.close()
    truth = [r["topic"] for r in rows]
    prod = [primary[i] for i in ids]
    k = report.topics
    base = baseline_labels([texts[i] for i in ids], k, [seed], chinese=True)[0]
    print(
        f"bundled: {len(ids)} entries, {k} topics, {sum(map(len, also.values()))} also rows, "
        f"cluster_store {seconds:.1f} s; NMI vs bench/corpora/bundled-labels.jsonl "
        f"{nmi(truth, prod):.3f} (baseline at k={k}: {nmi(truth, base):.3f}); "
        f"seed {seed}"
    )
    land = landing(topics)
    print(
        f"  the reader opens on {topics[0].name!r}, cohesion {land.cohesion:.3f} "
        f"(by size alone: {land.by_size:.3f}); entries in mixed topics {land.mixed_share:.0%}"
    )
    for ref, anchor in NAMED.items():
        about = {r["id"] for r in rows if ref in r["about"]}
        carrier = next((t for t in topics if t.name == anchor), None)
        if carrier is None:
            print(f"  {ref:<40} no topic carries this name: F1 0")
            continue
        found = members[carrier.id] | also[carrier.id]
        print(
            f"  {ref:<40} F1 {f1(found, about):.2f} "
            f"({len(members[carrier.id])} primary + {len(also[carrier.id])} also, "
            f"{len(found & about)} of {len(about)} right)"
        )
    print("  anchor-named topics, share of entries using one of the anchor's terms (>= 60 %):")
    for t in topics:
        if t.anchor is None or t.anchor != t.name:
            continue
        terms = anchors[t.anchor].term_tokens(lambda text: [])
        using = sum(1 for e in members[t.id] if terms & set(tokens.get(e, ())))
        print(f"    {t.name:<40} {using}/{len(members[t.id])} = {using / len(members[t.id]):.0%}")
    print("  every topic, in the order the reader lists them (name, size, cohesion, mixed):")
    for t in topics:
        print(f"    {t.name:<48} {t.size:>3}  {t.cohesion or 0:.3f}  {'mixed' if t.mixed else ''}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--only", default=None, help="run only the corpus of this name")
    args = parser.parse_args(argv)
    from sklearn.metrics import normalized_mutual_info_score as nmi

    chosen = [c for c in [*CORPORA, BUNDLED] if args.only in (None, c.name)]
    if not chosen:
        names = ", ".join([c.name for c in CORPORA] + ["bundled"])
        sys.stderr.write(f"bench_quality: no corpus named {args.only!r} (one of: {names})\n")
        return 2
    seeds = list(range(args.seeds))
    print(
        "product: cluster_store(store, k=K) (topiclens cluster --k K, bundled anchors); "
        "baseline: TfidfVectorizer(sublinear_tf=True, min_df=2, English stop words or "
        f"jieba's words) + KMeans(k, n_init=4); NMI mean ± sd over seeds {seeds}"
    )
    header = f"{'corpus':<16} {'n':>5} {'k':>3}  {'product':>13}  {'baseline':>13}  ratio  time"
    print(header)
    ratios: dict[str, float] = {}
    landed: dict[str, list[Landing]] = {}
    t_all = time.perf_counter()
    for corpus in chosen:
        t0 = time.perf_counter()
        lands: list[Landing] = []
        if corpus.name == "bundled":
            rows = bundled_rows()
            truth = [r["topic"] for r in rows]
            got, texts = product_labels(bundled_filler(rows), corpus.k, seeds, lands)
        elif not corpus.path.exists():
            how = " (python bench/corpora/debian_synopses.py)" if corpus.path.parent == MADE else ""
            print(f"{corpus.name:<16} skipped: {corpus.path} not found{how}")
            continue
        else:
            records, truth = load(corpus)
            got, texts = product_labels(records_filler(records), corpus.k, seeds, lands)
        prod = [nmi(truth, p) for p in got]
        base = [nmi(truth, b) for b in baseline_labels(texts, corpus.k, seeds, corpus.chinese)]
        ratio = statistics.mean(prod) / statistics.mean(base)
        ratios[corpus.name] = ratio
        print(
            f"{corpus.name:<16} {len(truth):>5} {corpus.k:>3}  "
            f"{statistics.mean(prod):.3f} ± {statistics.pstdev(prod):.3f}  "
            f"{statistics.mean(base):.3f} ± {statistics.pstdev(base):.3f}  "
            f"{ratio:.2f}x {time.perf_counter() - t0:5.0f} s",
            flush=True,
        )
        landed[corpus.name] = lands
    print(
        "the topic the reader opens on, its cohesion per seed (target >= 0.6): the list's "
        "order / by size alone; share of entries in mixed topics"
    )
    for name, lands in landed.items():
        print(
            f"  {name:<16} "
            + " ".join(f"{x.cohesion:.3f}" for x in lands)
            + "  /  "
            + " ".join(f"{x.by_size:.3f}" for x in lands)
            + "   mixed "
            + " ".join(f"{x.mixed_share:.0%}" for x in lands)
        )
    if args.only in (None, "bundled"):
        for seed in seeds:
            bundled(seed)
    if not ratios:
        return 2
    worst = min(ratios, key=ratios.__getitem__)
    print(
        f"worst ratio {ratios[worst]:.2f}x ({worst}); target 1.05x; "
        f"total {time.perf_counter() - t_all:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
