"""The text an entry gives the tokenizer says each part once: a title the summary opens
with, or one derived from the summary, is not counted twice."""

from __future__ import annotations

from pathlib import Path

from topiclens.store import Store
from topiclens.store.models import Entry
from topiclens.store.text import entry_id, entry_text, repeats_title


def test_a_title_the_summary_opens_with_counts_once() -> None:
    title = "Paged attention for long contexts"
    summary = "Paged attention for long contexts, measured on eight GPUs."
    assert entry_text(title, summary) == summary


def test_a_lead_in_before_the_repeated_title_still_counts_it_once() -> None:
    title = "NVIDIA 开源的 Kubernetes 控制器 NVCRE"
    summary = "文章介绍 NVIDIA 开源的 Kubernetes 控制器 NVCRE，用于在生产 AI 负载落地前验证集群。"
    assert entry_text(title, summary) == summary


def test_case_white_space_and_a_cut_title_do_not_hide_the_repeat() -> None:
    assert repeats_title("Speculative  Decoding at scale", "speculative decoding at scale: how")
    cut = "如何用 Transformer Engine 高效训…"
    assert repeats_title(cut, "如何用 Transformer Engine 高效训练模型")


def test_a_different_title_is_kept() -> None:
    title = "Why KV caches grow"
    summary = "A look at memory use during decoding; why KV caches grow is the second part."
    assert not repeats_title(title, summary)
    assert entry_text(title, summary, "my note") == f"{title}\n{summary}\nmy note"


def test_a_derived_title_is_left_out() -> None:
    summary = "文章介绍投机解码的草稿模型选择。"
    assert entry_text("投机解码的草稿模型选择", summary, title_given=False) == summary
    # a derived title that no longer matches the summary's start is still the summary's
    assert entry_text("something else", summary, title_given=False) == summary


def test_the_store_and_the_entry_give_the_same_text(tmp_path: Path) -> None:
    store = Store.open_dir(tmp_path)
    rows = [
        ("Ring attention", "Ring attention splits the sequence across GPUs."),
        ("Ring attention", "Context parallelism splits the sequence across GPUs."),
    ]
    ids = [entry_id(t, s) for t, s in rows]
    store.add_entries(Entry(id=i, title=t, summary=s) for i, (t, s) in zip(ids, rows, strict=True))
    texts = dict(store.entry_texts(ids))
    entries = {e.id: e for e in store.entries(ids)}
    store.close()
    assert texts[ids[0]] == rows[0][1]
    assert texts[ids[1]] == "\n".join(rows[1])
    assert all(entries[i].text() == texts[i] for i in ids)
