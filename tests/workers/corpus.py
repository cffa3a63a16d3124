"""Made-up digest entries in any number, for tests that need a large or a fresh file.

Every entry is unique (its index is in the summary and the comment), so n entries import
as exactly n new ones."""

from __future__ import annotations

from pathlib import Path

TOPICS = (
    "KV 缓存压缩",
    "MoE 内核",
    "投机解码",
    "NVLink 互连",
    "FlashAttention 内核",
    "推理服务调度",
)


def digest_lines(n: int, start: int = 0, tag: str = "Gen") -> list[str]:
    lines: list[str] = []
    for i in range(start, start + n):
        topic = TOPICS[i % len(TOPICS)]
        lines += [
            f"工程实践 {tag} Blog 2026/{i % 12 + 1:02d}/{i % 28 + 1:02d}",
            f"文章介绍第 {i} 种{topic}方法，给出在 H100 上的测量与对比，并讨论部署时的取舍。",
            f"推荐收录：第 {i} 篇（{tag}）的数据可信，适合做推理系统的工程师。",
        ]
    return lines


def write_digest(path: Path, n: int, start: int = 0, tag: str = "Gen") -> Path:
    path.write_text("\n".join(digest_lines(n, start, tag)) + "\n", encoding="utf-8")
    return path
