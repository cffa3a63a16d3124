"""Topic names keep the casing the texts use, and never use a curator's verdict words."""

from __future__ import annotations

import pytest
from topiclens.clustering import TopicModel
from topiclens.clustering.naming import surface_forms, topic_name
from topiclens.clustering.tokenize import Tokenizer, vocabulary


@pytest.fixture(scope="module")
def tk() -> Tokenizer:
    return Tokenizer()


def test_only_the_names_first_letter_is_made_a_capital() -> None:
    assert topic_name(["CPU", "cache"]) == "CPU & cache"
    assert topic_name(["cache", "CPU"]) == "Cache & CPU"
    assert topic_name(["NVFP4", "model"]) == "NVFP4 & model"
    assert topic_name(["vLLM", "paged attention"]) == "vLLM & paged attention"
    assert topic_name(["分布式", "checkpoint"]) == "分布式 & checkpoint"


def test_a_plural_counts_for_its_singular_token() -> None:
    # the tokenizer makes "models" the token "model": one shouted "MODEL" is not its form
    texts = ["NVFP4 models", "small models and big models", "MODEL ZOO", "NVFP4 kernels"]
    assert surface_forms(texts, ["model", "nvfp4"]) == {"nvfp4": "NVFP4"}


def test_a_fitted_topic_is_named_as_its_texts_write_it() -> None:
    cpu = [f"CPU offload of the cache, run {i}, CPU threads and cache lines" for i in range(12)]
    raft = [f"Raft consensus and leader election, trial {i}, Raft log" for i in range(12)]
    texts = cpu + raft
    model = TopicModel(2, random_state=0, max_share=None).fit(texts)
    name = model.topic_names_[int(model.labels_[0])]
    assert "CPU" in name and "Cpu" not in name, name
    assert name in ("CPU & cache", "Cache & CPU", "CPU & offload", "Offload & CPU"), name


def test_curator_words_are_no_tokens(tk: Tokenizer) -> None:
    assert "参考价值" in vocabulary().curator and "推荐阅读" in vocabulary().curator
    tokens = tk("CUDA 编程指南，很有参考价值，强烈推荐，干货满满，值得一读，推荐阅读")
    assert "cuda" in tokens
    for verdict in ("参考价值", "参考价", "强烈推荐", "干货", "值得一读", "推荐阅读"):
        assert verdict not in tokens, (verdict, tokens)


def test_a_topic_is_never_named_by_a_curator_word() -> None:
    # every entry of the first group carries the verdict; it would be the group's top term
    cuda = [f"CUDA 核函数 优化 第{i}篇，参考价值很高，值得一读。" for i in range(12)]
    raft = [f"Raft 共识 与 leader 选举 第{i}篇，参考价值很高。" for i in range(12)]
    model = TopicModel(2, random_state=0, max_share=None).fit(cuda + raft)
    for name, keywords in zip(model.topic_names_, model.keywords_, strict=True):
        assert "参考" not in name and "值得" not in name, name
        assert not any("参考" in w or "值得" in w for w, _ in keywords), keywords
