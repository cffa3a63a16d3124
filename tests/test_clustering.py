"""The tokenizer and the clustering model: facts a reader of the topics relies on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from topiclens.clustering.anchors import AnchorsError, load_anchors, parse_anchors
from topiclens.clustering.model import (
    MAX_SHARE,
    auto_k,
    distinct_terms,
    fit_topics,
    topic_name,
)
from topiclens.clustering.tokenize import Tokenizer, parse_concepts, surface_pattern, vocabulary


@pytest.fixture(scope="module")
def tk() -> Tokenizer:
    return Tokenizer()


# --- tokenizing ---------------------------------------------------------------------


def test_english_identifiers_kept_whole_and_lower_cased(tk: Tokenizer):
    toks = tk("DeepSeek-V4-Flash runs W4A16 kernels on GB300 with FP8; see vLLM and Qwen3.8-2.4T")
    for expected in ("deepseek-v4-flash", "w4a16", "fp8", "vllm", "qwen3.8-2.4t"):
        assert expected in toks, (expected, toks)
    assert all(t == t.lower() for t in toks)
    # no fragments of the identifiers
    assert "deepseek" not in toks and "v4" not in toks and "flash" not in toks


def test_nvlink_is_itself_and_an_interconnect(tk: Tokenizer):
    toks = tk("NVLink 与 NVSwitch")
    assert toks[:2] == ["nvlink", "interconnect"]
    assert "nvswitch" in toks


def test_numbers_and_punctuation_dropped(tk: Tokenizer):
    toks = tk("吞吐提升 49.2%，从 4.10 升到 6.12 tokens/s/W（+37.1%）！2026/09/28 8×RTX4090")
    assert not any(any(ch.isdigit() for ch in t) and not t[0].isalpha() for t in toks), toks
    assert not any(t in {"%", "，", "（", "）", "！", "/", "+", "."} for t in toks)
    assert "rtx4090" in toks  # an identifier that contains digits stays


def test_stop_words_and_digest_boilerplate_removed(tk: Tokenizer):
    text = (
        "推荐收录：文章介绍了 MoE 训练的专家并行实现，核心看点是 GroupedLinear。"
        "适合大模型训练基础设施、GPU 算子优化和 AI 工程化读者参考。the and of"
    )
    toks = tk(text)
    for boiler in ("推荐", "收录", "文章", "介绍", "核心", "看点", "适合", "读者", "参考"):
        assert boiler not in toks, (boiler, toks)
    for stop in ("the", "and", "of", "的", "了"):
        assert stop not in toks
    # the audience phrase "适合…读者" goes as a whole, subject words stay
    assert "基础设施" not in toks
    assert "moe" in toks and "expert parallelism" in toks and "grouped gemm" in toks


def test_concepts_merge_across_languages(tk: Tokenizer):
    spec = {"投机解码", "推测解码", "speculative decoding", "Speculative Decoding"}
    assert {tuple(tk(s)) for s in spec} == {("speculative decoding",)}
    assert tk("专家并行")[0] == tk("expert parallelism")[0] == "expert parallelism"
    kv = {tuple(tk(s)) for s in ("KV 缓存", "KV缓存", "kv cache", "KV-cache")}
    assert kv == {("kv cache",)}
    assert tk("互联") == tk("互连") == tk("interconnect") == ["interconnect"]


def test_tokenizer_version_changes_with_assets():
    v = vocabulary()
    assert len(v.version) == 16
    concepts, _ = parse_concepts("a\tb|c\n")
    assert "a" in concepts


def test_bad_concepts_file_names_file_and_line():
    with pytest.raises(ValueError, match=r"concepts.tsv:2"):
        parse_concepts("ok\tfine\nbroken-line-without-tab\n")
    with pytest.raises(ValueError, match="unknown broader"):
        parse_concepts("x\tx\tnowhere\n")


def test_surface_pattern_prefers_longest_and_whole_words():
    pat = surface_pattern(["kv", "kv 缓存", "ep", "推测", "推测解码"])
    assert [m.group() for m in pat.finditer("kv缓存 kv deep ep 推测解码")] == [
        "kv缓存",
        "kv",
        "ep",
        "推测解码",
    ]


# --- anchors --------------------------------------------------------------------------


def test_bundled_anchors_cover_the_four_required_topics():
    names = {a.name for a in load_anchors()}
    for required in ("Speculative decoding", "KV cache", "Interconnects"):
        assert required in names
    assert any(n.startswith("MoE kernels") for n in names)


def test_bad_anchors_file_is_a_clear_error(tmp_path: Path):
    bad = tmp_path / "a.toml"
    bad.write_text('[[anchor]]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(AnchorsError, match=rf"{bad}.*terms"):
        load_anchors(bad)
    with pytest.raises(AnchorsError, match="not valid TOML"):
        parse_anchors("[[anchor]\n", "f.toml")
    with pytest.raises(AnchorsError, match="cannot read"):
        load_anchors(tmp_path / "missing.toml")


# --- the model --------------------------------------------------------------------------


def test_auto_k_bounds():
    assert auto_k(109, 13) == 15
    assert 6 <= auto_k(500) <= 48
    assert auto_k(1_000_000) == 48
    assert auto_k(2) == 2


def test_names_have_no_near_duplicates():
    ranked = [("kv", 3.0), ("kv缓存", 2.5), ("缓存", 2.0), ("prefill", 1.0)]
    voc = vocabulary()
    kept = [w for w, _ in distinct_terms(ranked, voc, 5)]
    assert kept == ["kv", "缓存", "prefill"] or kept == ["kv", "prefill"]
    assert topic_name([("prefill", 1.0), ("decode", 0.5)]) == "Prefill / Decode"
    assert topic_name([("KV cache", 1.0)]) == "KV cache"


def _toy_docs() -> list[list[str]]:
    a = [["rans", "entropy coding", "compression", f"a{i}"] for i in range(12)]
    b = [["nvlink", "interconnect", "nvswitch", f"b{i}"] for i in range(12)]
    c = [["speculative decoding", "draft model", f"c{i}"] for i in range(12)]
    return a + b + c


def test_fit_is_deterministic_and_separates_clear_groups():
    docs = _toy_docs()
    one = fit_topics(docs, k=3, random_state=3, max_share=None)
    two = fit_topics(docs, k=3, random_state=3, max_share=None)
    assert one.labels.tolist() == two.labels.tolist()
    assert one.names == two.names
    groups = [set(one.labels[i : i + 12].tolist()) for i in (0, 12, 24)]
    assert all(len(g) == 1 for g in groups) and len(set.union(*groups)) == 3


def test_no_cluster_holds_more_than_the_cap():
    docs = [["same", "words", "here"] for _ in range(40)] + _toy_docs()[:6]
    fit = fit_topics(docs, k=2, random_state=0)
    sizes = [int((fit.labels == c).sum()) for c in range(int(fit.labels.max()) + 1)]
    assert max(sizes) <= MAX_SHARE * len(docs)


def test_anchor_names_the_cluster_it_wins(tk: Tokenizer):
    from topiclens.clustering.anchors import Anchor

    docs = _toy_docs()
    anchors = [Anchor("Wires", ("NVLink", "互联")), Anchor("Nothing here", ("zzz-none",))]
    fit = fit_topics(docs, k=3, anchors=anchors, tokenizer=tk)
    c = int(fit.labels[12])
    assert fit.names[c] == "Wires" and fit.anchors[c] == "Wires"
    assert "Nothing here" not in fit.names


def test_bigrams_shape_features_but_never_names_or_terms(tk: Tokenizer):
    from topiclens.clustering.tokenize import BIGRAM_MARK

    assert tk.bigrams("推荐收录：投机解码 abc") == [
        BIGRAM_MARK + "投机",
        BIGRAM_MARK + "机解",
        BIGRAM_MARK + "解码",
    ]
    texts = [f"稀疏注意力内核第{i}篇" for i in range(10)] + [
        f"量化推理精度第{i}篇" for i in range(10)
    ]
    docs = [tk(t) for t in texts]
    fit = fit_topics(docs, k=2, random_state=0, extra=[tk.bigrams(t) for t in texts])
    assert any(t.startswith(BIGRAM_MARK) for t in fit.features.vocab)
    shown = [w for kws in fit.keywords for w, _ in kws] + [w for ts in fit.terms for w in ts]
    shown += [t for kws in fit.keyword_tokens for t, _ in kws] + fit.names
    assert shown and not any(BIGRAM_MARK in w for w in shown)
    assert len({int(fit.labels[0]), int(fit.labels[10])}) == 2


def test_a_term_in_almost_every_entry_weighs_next_to_nothing():
    import math

    import numpy as np
    from topiclens.clustering.model import build_features

    docs = [[*d, "common"] for d in _toy_docs()[:-1]] + [_toy_docs()[-1]]
    f = build_features(docs, lsa_dims=None)
    common, rare = f.vocab.index("common"), f.vocab.index("rans")
    n = len(docs)
    # BM25's idf: log(1 + (n - df + 0.5) / (df + 0.5))
    assert f.idf[common] == pytest.approx(math.log1p(1.5 / (n - 1 + 0.5)), rel=1e-5)
    assert f.idf[rare] == pytest.approx(math.log1p((n - 12 + 0.5) / 12.5), rel=1e-5)
    row = f.tfidf[0].toarray().ravel()
    assert 0 < row[common] < 0.05 * row[rare]
    assert np.linalg.norm(row) == pytest.approx(1.0, rel=1e-5)


def test_new_entries_are_weighed_and_projected_as_in_the_fit():
    import numpy as np
    from topiclens.clustering.model import build_features, transform

    docs = [d + ["rans"] * (i % 3) for i, d in enumerate(_toy_docs())]
    for dims in (None, 4):
        f = build_features(docs, lsa_dims=dims, random_state=0)
        tfidf, vectors = transform(docs[:6], f.vocab, f.idf, f.components)
        assert np.allclose(tfidf.toarray(), f.tfidf[:6].toarray(), atol=1e-6)
        dense = vectors.toarray() if hasattr(vectors, "toarray") else vectors
        assert np.allclose(dense, np.asarray(f.vectors[:6]), atol=1e-5)


def test_spectral_step_separates_clear_groups_deterministically():
    import numpy as np

    docs = [d + [f"x{j}" for j in range(i % 5)] for i, d in enumerate(_toy_docs() * 20)]
    one = fit_topics(docs, k=3, random_state=1, max_share=None, spectral=True)
    two = fit_topics(docs, k=3, random_state=1, max_share=None, spectral=True)
    assert one.labels.tolist() == two.labels.tolist()
    kind = [i % 36 // 12 for i in range(len(docs))]
    assert len({(k, int(c)) for k, c in zip(kind, one.labels, strict=True)}) == 3
    assert len(set(one.labels.tolist())) == 3
    # the spectral step's diffusion does the neighbours' averaging: no smoothing first
    raw = fit_topics(docs, k=3, random_state=1, max_share=None, spectral=True, smoothing=False)
    assert raw.labels.tolist() == one.labels.tolist()
    assert np.allclose(raw.centroids, one.centroids, atol=1e-6)


def test_spectral_embedding_weighs_eigenvectors_by_eigenvalue_to_the_steps():
    import numpy as np
    from topiclens.clustering.model import spectral_embedding

    # a connected graph (random directions), so the top eigenvalues differ
    x = np.random.default_rng(0).normal(size=(80, 6)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    plain = spectral_embedding(x, 3, 10, 0, steps=0)
    diffused = spectral_embedding(x, 3, 10, 0, steps=3)
    assert np.allclose(np.linalg.norm(diffused, axis=1), 1.0, atol=1e-5)
    # each row is the plain row times one weight per eigenvector (eigenvalue ** 3), the
    # same for every row and smaller for a smaller eigenvalue, then made unit length
    ok = np.abs(plain).min(axis=1) > 1e-3
    assert ok.sum() > 40
    ratio = diffused[ok] / plain[ok]
    ratio /= ratio[:, -1:]
    assert np.allclose(ratio, ratio[0], atol=1e-4)
    assert 0 < ratio[0, 0] < ratio[0, 1] < 0.95 * ratio[0, 2]


def test_importing_clustering_loads_no_heavy_library():
    code = (
        "import sys, topiclens.clustering, topiclens.clustering.pipeline, "
        "topiclens.clustering.model, topiclens.clustering.tokenize\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('sklearn', 'jieba', 'numpy', 'scipy', 'textual'))\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_term_named_topics_never_repeat_an_anchor_name(tmp_path):
    """A cluster the anchors did not win is named from its own terms, never from an
    anchor's name that another topic already carries."""
    from topiclens.clustering import ensure_topics
    from topiclens.store import Store

    with Store.open_dir(tmp_path / "d") as store:
        ensure_topics(store)
        topics = store.topics()
    anchored = [t.name for t in topics if t.anchor]
    assert "Speculative decoding" in anchored
    for t in topics:
        if t.anchor:
            continue
        for name in anchored:
            assert name.lower() not in t.name.lower(), (t.name, name)
