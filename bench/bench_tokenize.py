"""CPU per entry of the tokenizer (``Tokenizer.tokens_and_bigrams``), this checkout
against another, alternated in one process.

The other checkout (``--base``, e.g. a worktree at main) has its ``clustering`` package
loaded under another name, so both tokenizers run side by side on the same texts, in
turn, round after round: a load that changes during the run weighs on both alike. Each
measured pass uses a fresh tokenizer (as a worker process does; jieba's dictionary
loaded before the clock starts) over every text once, and reports process CPU time per
entry. Corpora: (a) the bundled corpus, (b) ``--n`` entries from ``bench/gen_corpus.py``,
and any ``--jsonl`` file of entries (title, summary, comment). The outputs of the two
are compared too: the bench stops if they differ.

    python bench/bench_tokenize.py --base /work/wt/main-base
    python bench/bench_tokenize.py --base ../main --n 20000 --rounds 5 --jsonl csl.jsonl
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
from topiclens.clustering import tokenize as new_tokenize
from topiclens.store.importer import bundled_paths
from topiclens.store.parsers import parse_file
from topiclens.store.text import entry_text

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_corpus import generate  # noqa: E402


def load_base(checkout: Path) -> ModuleType:
    """``clustering.tokenize`` of another checkout, as the module of a package named
    ``_base_clustering`` (its relative imports, such as jieba's dictionary loader, are
    that checkout's too)."""
    package = "_base_clustering"
    folder = checkout / "clustering"
    spec = importlib.util.spec_from_file_location(
        package, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None:
        raise SystemExit(f"bench_tokenize: no clustering package in {checkout}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    spec.loader.exec_module(module)
    return importlib.import_module(f"{package}.tokenize")


def corpora(n: int, jsonl: list[Path]) -> dict[str, list[str]]:
    out = {"bundled": [e.text() for _, path in bundled_paths() for e in parse_file(path).entries]}
    out[f"gen_corpus {n}"] = [
        entry_text(it["title"], it["summary"], it["comment"]) for it in generate(n, 0)
    ]
    for path in jsonl:
        rows = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
        out[path.name] = [
            entry_text(r.get("title", ""), r.get("summary", ""), r.get("comment", "")) for r in rows
        ]
    return out


def one_pass(module: ModuleType, texts: list[str]) -> tuple[float, list[Any]]:
    """CPU seconds of a fresh tokenizer's ``tokens_and_bigrams`` over ``texts``, and what
    it made."""
    tk = module.Tokenizer()
    tk.jieba()
    gc.collect()
    t0 = time.process_time()
    made = [tk.tokens_and_bigrams(t) for t in texts]
    return time.process_time() - t0, made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--n", type=int, default=20000, help="gen_corpus entries (20000)")
    parser.add_argument("--rounds", type=int, default=3, help="passes of each (3)")
    parser.add_argument("--jsonl", type=Path, action="append", default=[], help="more entries")
    args = parser.parse_args()
    old = load_base(args.base.resolve())
    print(f"base: {old.__file__}\nthis: {new_tokenize.__file__}")
    print(f"load before: {os.getloadavg()[0]:.2f}")
    for name, texts in corpora(args.n, args.jsonl).items():
        # the bundled corpus is small: several passes a round, so that a round is measurable
        repeat = max(1, 2000 // len(texts))
        times: dict[str, list[float]] = {"old": [], "new": []}
        for r in range(args.rounds):
            order = [("old", old), ("new", new_tokenize)]
            for label, module in order if r % 2 == 0 else order[::-1]:
                spent = 0.0
                for _ in range(repeat):
                    seconds, made = one_pass(module, texts)
                    spent += seconds
                times[label].append(spent / (repeat * len(texts)))
                if label == "old":
                    expected = made
                elif made != expected:
                    raise SystemExit(f"bench_tokenize: {name}: the two checkouts differ")
                del made
        old_us = statistics.median(times["old"]) * 1e6
        new_us = statistics.median(times["new"]) * 1e6
        rounds = ", ".join(
            f"{a * 1e6:.0f}/{b * 1e6:.0f}" for a, b in zip(times["old"], times["new"], strict=True)
        )
        print(
            f"{name} ({len(texts)} entries): old {old_us:.1f} us, new {new_us:.1f} us an entry"
            f" (median of {args.rounds}; new/old {new_us / old_us:.3f}; rounds old/new: {rounds})"
        )
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
