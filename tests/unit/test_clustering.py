"""The tokenizer and the clustering model: facts a reader of the topics relies on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from topiclens.clustering import TopicModel
from topiclens.clustering.anchors import AnchorsError, load_anchors, parse_anchors
from topiclens.clustering.naming import distinct_terms, topic_name
from topiclens.clustering.partition import MAX_SHARE, auto_k
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


# --- the model: TopicModel ---------------------------------------------------------------


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
    assert topic_name(["prefill", "decode"]) == "Prefill & decode"
    assert topic_name(["KV cache"]) == "KV cache"


def _toy_docs() -> list[list[str]]:
    a = [["rans", "entropy coding", "compression", f"a{i}"] for i in range(12)]
    b = [["nvlink", "interconnect", "nvswitch", f"b{i}"] for i in range(12)]
    c = [["speculative decoding", "draft model", f"c{i}"] for i in range(12)]
    return a + b + c


def _toy_texts() -> list[str]:
    """Raw texts of three clear subjects, twelve each, in both languages."""
    a = [f"rANS 熵编码 entropy coding and lossless compression, note {i}" for i in range(12)]
    b = [f"NVLink 与 NVSwitch 互联 interconnect bandwidth, rack {i}" for i in range(12)]
    c = [f"投机解码 speculative decoding with a draft model, trial {i}" for i in range(12)]
    return a + b + c


def test_fit_is_deterministic_and_separates_clear_groups():
    docs = _toy_docs()
    one = TopicModel(3, random_state=3, max_share=None).fit(None, tokens=docs)
    two = TopicModel(3, random_state=3, max_share=None).fit(None, tokens=docs)
    assert one.labels_.tolist() == two.labels_.tolist()
    assert one.topic_names_ == two.topic_names_
    groups = [set(one.labels_[i : i + 12].tolist()) for i in (0, 12, 24)]
    assert all(len(g) == 1 for g in groups) and len(set.union(*groups)) == 3


def test_no_cluster_holds_more_than_the_cap():
    docs = [["same", "words", "here"] for _ in range(40)] + _toy_docs()[:6]
    model = TopicModel(2, random_state=0).fit(None, tokens=docs)
    sizes = [int((model.labels_ == c).sum()) for c in range(model.n_topics_)]
    assert max(sizes) <= MAX_SHARE * len(docs)


def test_anchor_names_the_cluster_it_wins(tk: Tokenizer):
    from topiclens.clustering.anchors import Anchor

    docs = _toy_docs()
    anchors = [Anchor("Wires", ("NVLink", "互联")), Anchor("Nothing here", ("zzz-none",))]
    model = TopicModel(3, anchors=anchors, tokenizer=tk).fit(None, tokens=docs)
    c = int(model.labels_[12])
    assert model.topic_names_[c] == "Wires" and model.topic_anchors_[c] == "Wires"
    assert "Nothing here" not in model.topic_names_
    # an anchor's terms already tokenized (as the pipeline caches them) act the same
    known = [Anchor(a.name, a.terms, tuple(tuple(tk(t)) for t in a.terms)) for a in anchors]
    again = TopicModel(3, anchors=known).fit(None, tokens=docs)
    assert again.topic_names_ == model.topic_names_


def test_pinned_groups_carry_on_as_topics():
    docs = _toy_docs()
    model = TopicModel(3, random_state=0).fit(None, tokens=docs, pinned={41: range(12, 20), 7: []})
    assert model.topic_pinned_[int(model.labels_[12])] == 41
    assert sorted(k for k in model.topic_pinned_ if k is not None) == [41]


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
    model = TopicModel(2, random_state=0, bigrams=True, tokenizer=tk).fit(texts)
    assert any(t.startswith(BIGRAM_MARK) for t in model.get_feature_names_out())
    shown = [w for kws in model.keywords_ for w, _ in kws] + [w for ts in model.terms_ for w in ts]
    shown += [t for kws in model.term_weights_ for t in kws] + model.topic_names_
    shown += [w for ts in model.place(texts[:3]).terms for w in ts]
    assert shown and not any(BIGRAM_MARK in w for w in shown)
    assert len({int(model.labels_[0]), int(model.labels_[10])}) == 2


def test_a_term_in_almost_every_entry_weighs_next_to_nothing():
    import math

    import numpy as np
    from topiclens.clustering.features import fit_features

    docs = [[*d, "common"] for d in _toy_docs()[:-1]] + [_toy_docs()[-1]]
    fitted, f = fit_features(docs, lsa_dims=None, random_state=0)
    common, rare = fitted.vocab.index("common"), fitted.vocab.index("rans")
    n = len(docs)
    # BM25's idf: log(1 + (n - df + 0.5) / (df + 0.5))
    assert fitted.idf[common] == pytest.approx(math.log1p(1.5 / (n - 1 + 0.5)), rel=1e-5)
    assert fitted.idf[rare] == pytest.approx(math.log1p((n - 12 + 0.5) / 12.5), rel=1e-5)
    row = f.tfidf[0].toarray().ravel()
    assert 0 < row[common] < 0.05 * row[rare]
    assert np.linalg.norm(row) == pytest.approx(1.0, rel=1e-5)


def test_new_entries_are_weighed_and_projected_as_in_the_fit():
    import numpy as np
    from topiclens.clustering.features import features_in, fit_features

    docs = [d + ["rans"] * (i % 3) for i, d in enumerate(_toy_docs())]
    for dims in (None, 4):
        fitted, f = fit_features(docs, lsa_dims=dims, random_state=0)
        new = features_in(docs[:6], fitted)
        assert np.allclose(new.tfidf.toarray(), f.tfidf[:6].toarray(), atol=1e-6)
        assert np.allclose(new.vectors, np.asarray(f.vectors[:6]), atol=1e-5)


@pytest.mark.slow
def test_spectral_step_separates_clear_groups_deterministically():
    import numpy as np

    docs = [d + [f"x{j}" for j in range(i % 5)] for i, d in enumerate(_toy_docs() * 20)]
    model = TopicModel(3, random_state=1, max_share=None, spectral=True)
    one = model.fit(None, tokens=docs).labels_.tolist()
    assert model.fit(None, tokens=docs).labels_.tolist() == one
    kind = [i % 36 // 12 for i in range(len(docs))]
    assert len({(k, c) for k, c in zip(kind, one, strict=True)}) == 3
    assert len(set(one)) == 3
    # the spectral step's diffusion does the neighbours' averaging: no smoothing first
    raw = TopicModel(3, random_state=1, max_share=None, spectral=True, smoothing=False)
    raw.fit(None, tokens=docs)
    assert raw.labels_.tolist() == one
    assert np.allclose(raw.cluster_centers_, model.cluster_centers_, atol=1e-6)


def test_spectral_embedding_weighs_eigenvectors_by_eigenvalue_to_the_steps():
    import numpy as np
    from topiclens.clustering.neighbours import spectral_embedding

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


# --- the estimator contract (scikit-learn's shape) -----------------------------------------


def test_params_round_trip_and_clone():
    from sklearn.base import clone

    model = TopicModel(7, random_state=4, spectral=False)
    params = model.get_params()
    assert params["n_topics"] == 7 and params["random_state"] == 4 and params["lsa_dims"] == "auto"
    again = TopicModel().set_params(**params)
    assert again.get_params() == params
    assert clone(model).get_params() == params
    assert repr(model) == "TopicModel(n_topics=7, random_state=4, spectral=False)"
    with pytest.raises(ValueError, match="Invalid parameter 'k'"):
        model.set_params(k=3)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_topics": 0}, r"'n_topics' parameter of TopicModel must be an int in the range"),
        ({"n_topics": "many"}, r"'n_topics' .* a str among \{'auto'\}\. Got 'many'"),
        ({"max_share": 1.5}, r"'max_share' .* in the range \(0\.0, 1\.0\] or None"),
        ({"spectral": "yes"}, r"'spectral' .* instance of 'bool'.* a str among \{'auto'\}"),
        ({"smoothing": 1}, r"'smoothing'"),
        ({"anchors": ["KV cache"]}, r"'anchors' .* list or tuple of Anchor"),
        ({"lsa_dims": 2.5}, r"'lsa_dims'"),
    ],
)
def test_an_invalid_parameter_is_a_clear_error_at_fit(params: dict, message: str):
    from sklearn.utils._param_validation import InvalidParameterError

    model = TopicModel(**params)  # stored as given: nothing checked yet
    with pytest.raises(InvalidParameterError, match=message):
        model.fit(_toy_texts())


def test_fit_on_raw_strings_returns_self_and_sets_the_fitted_attributes():
    texts = _toy_texts()
    model = TopicModel(3, random_state=0, max_share=None)
    assert model.fit(texts) is model
    n, k = len(texts), model.n_topics_
    assert k == 3 and model.labels_.shape == (n,)
    assert set(model.labels_.tolist()) == {0, 1, 2}
    assert model.cluster_centers_.shape[0] == k
    assert len(model.topic_names_) == len(model.keywords_) == len(model.topic_anchors_) == k
    assert all(model.keywords_) and all(name.strip() for name in model.topic_names_)
    assert len(model.vocabulary_) == len(model.idf_) == len(model.get_feature_names_out())
    assert model.components_ is None or model.components_.shape[1] == len(model.vocabulary_)
    assert len(model.scores_) == len(model.terms_) == len(model.similar_) == n
    assert all(0 < len(near) <= 5 for near in model.similar_)
    # the three subjects are three topics
    groups = [set(model.labels_[i : i + 12].tolist()) for i in (0, 12, 24)]
    assert all(len(g) == 1 for g in groups) and len(set.union(*groups)) == 3


def test_predict_places_the_fits_own_texts_in_their_topics():
    from sklearn.exceptions import NotFittedError

    texts = _toy_texts()
    model = TopicModel(3, random_state=0, max_share=None).fit(texts)
    assert (model.predict(texts) == model.labels_).mean() >= 0.9
    fresh = ["a new note on rANS entropy coding", "NVSwitch 互联 at rack scale"]
    got = model.predict(fresh).tolist()
    assert got == [int(model.labels_[0]), int(model.labels_[12])]
    with pytest.raises(NotFittedError, match="not fitted yet"):
        TopicModel().predict(fresh)


def test_saved_model_predicts_the_same_and_rejects_other_formats():
    import io

    import numpy as np

    texts = _toy_texts()
    model = TopicModel(3, random_state=0, max_share=None).fit(texts)
    loaded = TopicModel.from_bytes(model.to_bytes())
    assert loaded.get_params() == model.get_params()
    assert loaded.topic_names_ == model.topic_names_
    fresh = [*texts[::5], "投机解码的草稿模型", "compression of weights"]
    a, b = model.place(fresh), loaded.place(fresh)
    assert a.labels.tolist() == b.labels.tolist() and a.terms == b.terms
    assert a.scores == b.scores and a.similar == b.similar
    with pytest.raises(ValueError, match="not a saved topic model"):
        TopicModel.from_bytes(b"not a model at all")
    buf = io.BytesIO()
    np.savez(buf, format=np.frombuffer(b"topiclens-topic-model-99", dtype=np.uint8))
    with pytest.raises(ValueError, match="format 99"):
        TopicModel.from_bytes(buf.getvalue())


@pytest.mark.slow
def test_importing_clustering_loads_no_heavy_library():
    """What the reader imports as it starts; the estimator module (a scikit-learn
    estimator) is imported only when a model fits or is loaded."""
    modules = ", ".join(
        f"topiclens.clustering.{m}"
        for m in (
            "pipeline",
            "saved",
            "corrections",
            "features",
            "naming",
            "neighbours",
            "partition",
            "search",
            "tokenize",
        )
    )
    code = (
        f"import sys, topiclens.clustering, {modules}\n"
        "from topiclens.clustering import Stage, cluster_store\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('sklearn', 'jieba', 'numpy', 'scipy', 'textual'))\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


@pytest.mark.slow
def test_the_estimator_loads_scikit_learn_and_not_jieba():
    code = (
        "import sys\n"
        "from topiclens.clustering import TopicModel\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'jieba', 'textual'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['sklearn']", done.stdout


def test_stage_names_are_the_progress_strings():
    from topiclens.clustering import Stage

    assert [str(s) for s in Stage] == [
        "import",
        "tokenize",
        "features",
        "neighbours",
        "kmeans",
        "name",
        "similar",
        "assign",
        "store",
        "done",
    ]
    assert Stage.KMEANS == "kmeans" and {"kmeans": 1}[Stage.KMEANS] == 1


@pytest.mark.slow
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
