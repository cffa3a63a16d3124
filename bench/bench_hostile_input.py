"""How long the parsers take on hostile input, through the real entry point.

Each case is written to a temporary file and read with ``parse_file`` (best of three);
a parser that is quadratic or measures a huge line character by character shows here.

    python bench/bench_hostile_input.py
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from topiclens.store.parsers import parse_file

HEADER = "工程实践 Some Blog 2026/01/02"
SUMMARY = "文章介绍了一种 KV 缓存压缩方法，并给出在 H100 上的测量。"
COMMENT = "推荐收录：数据可信。"

CASES: dict[str, Callable[[], str]] = {
    "20,000 header lines, nothing else": lambda: "\n".join([HEADER] * 20_000),
    "a digest entry with a 2,000,000-character summary": lambda: "\n".join(
        [HEADER, "字" * 2_000_000, COMMENT]
    ),
    "a listing with two 2,000,000-character lines": lambda: "\n".join(
        ["字" * 2_000_000, "字" * 2_000_000, "c"]
    ),
    "30,000 digest entries, one stray line after the first": lambda: "\n".join(
        [HEADER, SUMMARY, COMMENT, "无法解析的一行，不是标题。"]
        + [f"{HEADER}\n{SUMMARY}{i}\n{COMMENT}" for i in range(30_000)]
    ),
    "100,000 lines of random-looking JSON": lambda: "\n".join(
        f'{{"title": "t{i}", "summary": ' + ("[" * (i % 50)) for i in range(100_000)
    ),
}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "input.txt"
        for name, make in CASES.items():
            path.write_text(make(), encoding="utf-8")
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                result = parse_file(path)
                best = min(best, time.perf_counter() - start)
            size = path.stat().st_size / 1e6
            print(
                f"{best:7.3f} s  {size:6.1f} MB  {result.format:<8} {len(result.entries):>6} "
                f"entries {len(result.problems):>6} problems  {name}"
            )


if __name__ == "__main__":
    main()
