"""Build a synthetic corpus of N entries by recombining the bundled entries' sentences.

Each generated entry starts from one bundled entry (so it stays on one subject), keeps a
random subset of its sentences in order and mixes in one or two sentences from another
entry; titles come from the base entry. The output is deterministic for a given seed and
readable by ``topiclens import`` in any of the three formats.

    python bench/gen_corpus.py --n 100000 --format jsonl --seed 0 -o /tmp/corpus.jsonl
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import orjson
from topiclens.store.importer import bundled_paths
from topiclens.store.parse_text import parse_header
from topiclens.store.parsers import parse_file

_SENTENCE = re.compile(r"(?<=[。！？!?])|(?<=\.)\s+")
_CJK_PUNCT = re.compile(r"[，。；！？、：]")


@dataclass(slots=True)
class Seed:
    title: str
    summary: list[str]
    comment: list[str]
    source: str
    category: str


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def load_seeds() -> list[Seed]:
    seeds: list[Seed] = []
    for display, path in bundled_paths():
        for e in parse_file(path, display=display).entries:
            seeds.append(
                Seed(
                    title=e.title,
                    summary=sentences(e.summary),
                    comment=sentences(e.comment),
                    source=e.source or "Synthetic",
                    category=e.category or "工程实践",
                )
            )
    if not seeds:
        raise SystemExit("gen_corpus: the bundled corpus has no entries")
    return seeds


def _pick(rng: random.Random, items: list[str], low: int) -> list[str]:
    if len(items) <= low:
        return list(items)
    k = rng.randint(low, len(items))
    keep = sorted(rng.sample(range(len(items)), k))
    return [items[i] for i in keep]


def generate(n: int, seed: int, fmt: str = "jsonl") -> list[dict[str, str]]:
    """``n`` distinct entries; distinct as ``fmt`` sees them (a listing keeps no comment)."""
    rng = random.Random(seed)
    seeds = load_seeds()
    pool = [s for seed_ in seeds for s in seed_.summary]
    start = dt.date(2024, 1, 1)
    seen: set[tuple[str, str, str]] = set()
    out: list[dict[str, str]] = []
    while len(out) < n:
        base = rng.choice(seeds)
        summary = _pick(rng, base.summary, 1)
        for _ in range(rng.randint(1, 2)):
            summary.insert(rng.randint(0, len(summary)), rng.choice(pool))
        comment = _pick(rng, base.comment, 1) if base.comment else []
        item = {
            "title": base.title,
            "summary": " ".join(summary),
            "comment": " ".join(comment),
        }
        key = (item["title"], item["summary"], item["comment"] if fmt != "listing" else "")
        if key in seen:
            continue
        seen.add(key)
        item["source"] = base.source
        item["category"] = base.category
        item["date"] = (start + dt.timedelta(days=rng.randrange(1000))).isoformat()
        out.append(item)
    return out


def _paragraph(text: str) -> str:
    """A digest body line must not look like a header: give it sentence punctuation."""
    return text if _CJK_PUNCT.search(text) else text + "。"


def write(items: list[dict[str, str]], fmt: str, out: Path) -> None:
    with out.open("w", encoding="utf-8") as f:
        if fmt == "jsonl":
            for item in items:
                f.write(orjson.dumps(item).decode() + "\n")
        elif fmt == "digest":
            for item in items:
                date = item["date"].replace("-", "/")
                f.write(f"{item['category']} {item['source']} {date}\n")
                f.write(_paragraph(item["summary"]) + "\n")
                f.write(_paragraph(item["comment"] or item["title"]) + "\n")
        elif fmt == "listing":
            # the format is detected from content: start with a title that cannot be a header
            first = next(
                (i for i, it in enumerate(items) if isinstance(parse_header(it["title"]), str)), 0
            )
            items = [items[first], *items[:first], *items[first + 1 :]]
            for item in items:
                f.write(item["title"] + "\n")
                f.write(_paragraph(item["summary"]) + "\n")
        else:
            raise ValueError(f"unknown format {fmt!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="number of entries")
    parser.add_argument("--format", choices=("jsonl", "digest", "listing"), default="jsonl")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    items = generate(args.n, args.seed, args.format)
    write(items, args.format, args.output)
    sys.stderr.write(f"wrote {len(items)} {args.format} entries to {args.output}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
