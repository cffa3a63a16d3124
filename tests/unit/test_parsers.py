"""Field-level facts about the bundled corpus, and the parsers' handling of odd input."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from helpers import DIGEST, LISTING
from hypothesis import example, given, settings
from hypothesis import strategies as st
from topiclens.store.parsers import detect_format, parse_file, read_lines
from topiclens.store.text import (
    TITLE_MAX_CHARS,
    derive_title,
    detect_language,
    entry_id,
)
from topiclens.text import HAN, cell_width


@pytest.fixture(scope="module")
def digest():
    return parse_file(DIGEST)


@pytest.fixture(scope="module")
def listing():
    return parse_file(LISTING)


def test_bundled_counts(digest, listing):
    assert (digest.format, len(digest.entries), digest.problems) == ("digest", 87, [])
    assert (listing.format, len(listing.entries), listing.problems) == ("listing", 22, [])


def test_digest_first_entry(digest):
    first = digest.entries[0]
    assert first.category == "工程实践"
    assert first.source == "NVIDIA Technical Blog"
    assert first.date == "2026-09-28"
    assert first.summary.startswith("NVIDIA DSX MaxLPS 通过策略驱动的动态功率共享")
    assert first.comment.startswith("推荐收录：文章给出了同一 264.4 kW 预算下")
    assert first.comment.endswith("实际部署前需在自身负载和供电边界下复测。")
    assert first.origin_line == 1
    assert first.lang == "zh"
    assert first.title == "NVIDIA DSX MaxLPS 通过策略驱动的动态功率共享"
    assert first.title_given is False


def test_digest_entry_without_date(digest):
    undated = [e for e in digest.entries if e.date is None]
    assert len(undated) == 1
    (e,) = undated
    assert (e.category, e.source, e.origin_line) == ("工程实践", "美团技术团队", 25)
    assert e.summary.startswith("美团技术团队介绍统一推荐基座大模型 MTFM")
    assert e.title == "统一推荐基座大模型 MTFM"


def test_digest_source_with_spaces_and_dash(digest):
    e = next(e for e in digest.entries if e.origin_line == 43)
    assert (e.category, e.source, e.date) == ("技术文章", "知乎 - 鹅厂架构师", "2026-09-17")


def test_digest_last_entry_without_final_newline(digest):
    last = digest.entries[-1]
    assert last.origin_line == 259
    assert (last.category, last.source, last.date) == (
        "科研议题",
        "Stanford Hazy Research",
        "2022-01-17",
    )
    assert last.comment.endswith("但适用范围受限于 GEMM 网络和特定硬件。")
    assert last.title == "Pixelated Butterfly 稀疏训练方法"


def test_listing_first_and_last(listing):
    first, last = listing.entries[0], listing.entries[-1]
    assert first.title == "GPU 读取内存时发生了什么"
    assert first.summary.startswith("RTX 4090 上 LDG.E 指令的硬件执行路径追踪")
    assert (first.source, first.date, first.origin_line, first.comment) == ("", None, 1, "")
    assert last.title == "Parallel Primitives for Multi-Agent Workflows"
    assert (
        last.summary
        == "Exploring coordination patterns from parallel computing for multi-agent LLM systems"
    )
    assert last.lang == "en"


def test_listing_noise_removed_and_glued_title_fixed(listing):
    titles = [e.title for e in listing.entries]
    assert "拆分式 LLM 推理服务：何时比聚合式更好" in titles
    assert not any(t.startswith(("收藏", "点赞", "评论")) for t in titles)
    assert not any(e.summary in ("评论", "点赞", "收藏") for e in listing.entries)
    e = listing.entries[1]
    assert e.title == "拆分式 LLM 推理服务：何时比聚合式更好"
    assert e.origin_line == 5
    assert e.summary.startswith("有三个可核查的条件")


def test_listing_english_and_chinese_languages(listing):
    langs = {e.title: e.lang for e in listing.entries}
    assert langs["InfiniBand, RoCE, and All That"] == "en"
    assert langs["宽与深：边际上的推测解码思考"] == "zh"


def test_ids_stable_and_unique(digest, listing):
    ids = [e.id for e in digest.entries + listing.entries]
    assert len(set(ids)) == 109
    assert all(len(i) == 16 for i in ids)
    again = parse_file(DIGEST)
    assert [e.id for e in again.entries] == [e.id for e in digest.entries]
    # runs of white space and composed/decomposed accents do not change the id
    assert entry_id("A  b\n", " X\ty") == entry_id("A b", "X y")
    assert entry_id("Cafe\u0301", "x") == entry_id("Caf\u00e9", "x")
    assert entry_id("KV cache", "x") != entry_id("KV cache", "y")


def test_titles_are_whole_clauses(digest):
    # stored whole (no 56-cell cut): each is a clause of its summary, without the "…"
    assert max(cell_width(e.title) for e in digest.entries) > 56
    for e in digest.entries:
        assert 0 < len(e.title) <= TITLE_MAX_CHARS and not e.title.endswith("…")
        assert e.title in " ".join(e.summary.split()), e.title
        for lead in ("文章介绍", "本文", "这篇文章", "该文"):
            assert not e.title.startswith(lead), e.title


def test_derive_title_lead_ins():
    assert derive_title("这篇文章介绍了 KV 缓存的分页管理，以及它的代价。") == "KV 缓存的分页管理"
    assert derive_title("本文由 NVIDIA 工程师撰写，介绍开源工具 Topograph 如何调度。") == (
        "开源工具 Topograph 如何调度"
    )
    # the whole first real clause is kept (views cut it to their room), up to a bound
    whole = "如何用 NVIDIA Transformer Engine 与 BioNeMo 配方高效训练 Evo 2 这样的大型生物基础模型"
    assert cell_width(whole) > 56
    assert derive_title(f"本文介绍了{whole}，并给出了吞吐数据。") == whole
    assert derive_title("文章介绍" + "很长的标题" * 30) == "很长的标题" * 30
    bounded = derive_title("文章介绍" + "很长的标题" * 100)
    assert bounded.endswith("…") and len(bounded) == TITLE_MAX_CHARS
    assert bounded.startswith("很长的标题" * 30)


def plain_language(text: str) -> str:
    """detect_language as first written: both counts by regular expressions."""
    cjk = sum(map(len, re.findall(f"[{HAN}][{HAN}]*", text)))
    words = len(re.findall(r"[A-Za-z][A-Za-z0-9\-_.+]*", text))
    if cjk == 0 and words == 0:
        return "en"
    share = cjk / (cjk + 2 * words)
    return "zh" if share >= 0.7 else "en" if share <= 0.15 else "mixed"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="aZ09-_.+ \t\n,é中文\ud800\u3000?", max_size=40))
@example("中文 a-1 1-a 12 _x x.y ż中")
def test_language_is_told_as_by_the_plain_patterns(text: str):
    assert detect_language(text) == plain_language(text)


def test_detect_language():
    assert detect_language("The economics of speculative decoding") == "en"
    assert detect_language("投机解码的经济学：草稿模型何时划算") == "zh"
    assert detect_language("Speculative decoding 投机解码 with draft models 草稿") == "mixed"


def test_bom_and_crlf(tmp_path: Path):
    text = LISTING.read_text(encoding="utf-8").replace("\n", "\r\n")
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    result = parse_file(path)
    assert result.problems == []
    assert [(e.title, e.summary) for e in result.entries] == [
        (e.title, e.summary) for e in parse_file(LISTING).entries
    ]


def test_jsonl_fields_and_extra(tmp_path: Path):
    path = tmp_path / "x.jsonl"
    rows = [
        {
            "title": "KV cache paging",
            "summary": "How paged KV works.",
            "source": "Blog",
            "date": "2026/01/02",
            "category": "c",
            "comment": "good",
            "url": "https://e.x/1",
            "id": "ext-1",
            "discipline": "计算机",
        },
        {"title": "第二篇", "summary": "专家并行的通信"},
    ]
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in rows))
    result = parse_file(path)
    assert result.format == "jsonl" and result.problems == []
    a, b = result.entries
    assert (a.source, a.date, a.category, a.comment, a.url) == (
        "Blog",
        "2026-01-02",
        "c",
        "good",
        "https://e.x/1",
    )
    assert a.extra == {"discipline": "计算机", "id": "ext-1"}
    assert (a.origin_line, b.origin_line) == (1, 2)
    assert b.lang == "zh" and b.date is None


def test_format_detected_from_content_not_name(tmp_path: Path):
    path = tmp_path / "looks.jsonl"
    path.write_bytes(DIGEST.read_bytes())
    assert parse_file(path).format == "digest"
    lines, _, _ = read_lines(LISTING, "x")
    assert detect_format(lines) == "listing"


def test_detection_of_a_listing_whose_lines_pass_as_headers():
    from topiclens.store.parsers import choose_format

    pairs = [(1, "GPU kernels weekly"), (2, "A note on fused attention"), (3, "Serving news")]
    fmt, note = choose_format([*pairs, (4, "What changed in vLLM this week")])
    assert fmt == "listing" and note and "--format digest" in note
    lines, _, _ = read_lines(DIGEST, "x")
    assert choose_format(lines) == ("digest", None)
    lines, _, _ = read_lines(LISTING, "x")
    assert choose_format(lines) == ("listing", None)


@pytest.mark.parametrize(
    "raw, message",
    [
        (b'{"a": ' + b"[" * 65 + b"]" * 65 + b"}", "nested 66 levels deep (at most 64)"),
        (b"[" * 2000 + b"]" * 2000, "nested deeper than 64 levels"),
        (b'{"a": {"b": [1, 9223372036854775808]}}', "'a.b[1]' is an integer beyond 64 bits"),
        (b'{"a": -9223372036854775809}', "'a' is an integer beyond 64 bits"),
        (b'{"a": 1' + b"0" * 5000 + b"}", "an integer beyond 64 bits"),
        (b'{"a": ', "malformed JSON"),
    ],
)
def test_json_that_parses_but_cannot_be_stored(raw: bytes, message: str):
    from topiclens.store import jsonvalues

    with pytest.raises(jsonvalues.Invalid, match=re.escape(message)):
        jsonvalues.loads(raw)
    digits = b'{"a": 9223372036854775807, "b": -9223372036854775808, "c": "12345678901234567890"}'
    assert jsonvalues.loads(digits)["a"] == (1 << 63) - 1
    assert jsonvalues.depth(jsonvalues.loads(b"[" * 64 + b"]" * 64)) == 64
