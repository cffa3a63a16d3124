"""An anchor's cluster gives a topic of their own to its entries not about the anchor."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from topiclens.clustering.anchor_topics import Evidence, split_off_rest

VOCAB = ["kv", "vllm", "release", "offload", "graphics", "render"]
TERMS = {"KV cache": {"kv"}}


def _corpus(about: int, mention: int, coherent: bool = True):
    """``about`` entries whose heaviest word is the anchor's, ``mention`` entries naming it
    in passing, all in cluster 0 (the anchor's); four graphics entries in cluster 1."""
    rows, vectors = [], []
    rng = np.random.default_rng(0)
    for _ in range(about):
        rows.append([1.0, 0.1, 0, 0.6, 0, 0])
        vectors.append([1.0, 0.1, 0, 0, 0, 0])
    for _ in range(mention):
        rows.append([0.1, 1.0, 0.7, 0, 0, 0])
        vectors.append([0.1, 1.0, 0, 0, 0, 0] if coherent else rng.normal(size=6))
    for _ in range(4):
        rows.append([0, 0, 0, 0, 1.0, 0.8])
        vectors.append([0, 0, 0, 0, 1.0, 0.2])
    v = np.asarray(vectors, dtype=np.float64)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    labels = np.array([0] * (about + mention) + [1] * 4)
    tfidf = sp.csr_matrix(np.asarray(rows))
    counts = sp.csr_matrix((np.asarray(rows) > 0).astype(np.int64))
    return labels, tfidf, counts, v


def _split(labels, tfidf, counts, v, pinned=(None, None)):
    evidence = Evidence(TERMS, tfidf, counts, VOCAB, v)
    return split_off_rest(labels, ["KV cache", None], list(pinned), evidence)


def test_entries_that_only_mention_the_anchor_become_their_own_topic() -> None:
    labels, tfidf, counts, v = _corpus(about=2, mention=4)
    out = _split(labels, tfidf, counts, v)
    assert out[:2].tolist() == [0, 0]  # about the KV cache: the anchor keeps them
    assert out[2:6].tolist() == [2, 2, 2, 2]  # vLLM release notes: a topic of their own
    assert out[6:].tolist() == [1, 1, 1, 1]


def test_a_cluster_mostly_about_its_anchor_stays_whole() -> None:
    labels, tfidf, counts, v = _corpus(about=4, mention=3)
    assert _split(labels, tfidf, counts, v).tolist() == labels.tolist()


def test_a_topic_the_user_pinned_stays_whole() -> None:
    labels, tfidf, counts, v = _corpus(about=2, mention=4)
    assert _split(labels, tfidf, counts, v, (7, None)).tolist() == labels.tolist()


def test_a_rest_that_shares_little_stays() -> None:
    labels, tfidf, counts, v = _corpus(about=2, mention=4, coherent=False)
    assert _split(labels, tfidf, counts, v).tolist() == labels.tolist()


def test_too_small_a_rest_stays() -> None:
    labels, tfidf, counts, v = _corpus(about=1, mention=1)
    assert _split(labels, tfidf, counts, v).tolist() == labels.tolist()


def test_latin_terms_show_as_the_texts_write_them() -> None:
    from topiclens.clustering.naming import surface_forms, topic_name

    texts = [
        "vLLM on a CPU",
        "the vLLM engine and TensorRT",
        "vllm-metal",
        "Graphics, cpu and graphics",
        "Kubernetes and Kubernetes or kubernetes",
    ]
    words = ["vllm", "tensorrt", "cpu", "graphics", "kubernetes", "absent"]
    # "Graphics" only starts a sentence; "Kubernetes" is how most uses write it
    assert surface_forms(texts, words) == {
        "vllm": "vLLM",
        "tensorrt": "TensorRT",
        "cpu": "CPU",
        "kubernetes": "Kubernetes",
    }
    assert surface_forms(None, ["vllm"]) == {}
    assert topic_name(["video", "vLLM"]) == "Video & vLLM"
    assert topic_name(["flame graphs", "CPU"]) == "Flame graphs & CPU"


def test_about_counts_the_anchors_weight_not_a_mention() -> None:
    from topiclens.clustering.anchor_topics import about_anchor

    labels, tfidf, counts, _ = _corpus(about=2, mention=4)
    members = np.flatnonzero(labels == 0)
    about = about_anchor(tfidf, counts, [0], np.arange(len(VOCAB)), members)
    assert about.tolist() == [True, True, False, False, False, False]


def test_a_topic_whose_own_entries_are_all_about_it_asks_as_much_of_its_also_entries() -> None:
    from topiclens.clustering.membership import also_topics, fit_also

    vocab = ["kv", "vllm", "render"]

    def rows(own_share: float) -> tuple:
        # three own entries of topic 0 (the anchor's term at ``own_share`` of their
        # heaviest word), and one entry of topic 1 where it weighs 0.6
        m = [[own_share, 1.0, 0], [own_share, 1.0, 0], [own_share, 1.0, 0], [0.6, 0, 1.0]]
        tfidf = sp.csr_matrix(np.asarray(m))
        counts = sp.csr_matrix((np.asarray(m) > 0).astype(np.int64) * 2)
        return tfidf, counts, np.array([0, 0, 0, 1])

    for own_share, bar, listed in ((1.0, 0.7, []), (0.6, 0.5, [(0, 0.6)])):
        tfidf, counts, labels = rows(own_share)
        also, bars = fit_also(tfidf, counts, vocab, [["kv"], []], labels)
        assert bars == [bar, 0.5]
        assert also[3] == listed
        # new entries are placed against the same bars
        assert also_topics(tfidf, counts, vocab, [["kv"], []], labels, bars) == also


def test_an_entry_about_many_topics_is_listed_under_its_most_central_two() -> None:
    from topiclens.clustering.membership import ALSO_MAX_TOPICS, fit_also

    vocab = ["a", "b", "c", "d"]
    # entry 0 (topic 0) uses the terms of topics 1, 2 and 3, most of 3, least of 1
    m = [[1.0, 0.6, 0.8, 0.9], [0, 1.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]]
    tfidf = sp.csr_matrix(np.asarray(m))
    counts = sp.csr_matrix((np.asarray(m) > 0).astype(np.int64) * 2)
    also, _ = fit_also(tfidf, counts, vocab, [["a"], ["b"], ["c"], ["d"]], np.arange(4))
    assert ALSO_MAX_TOPICS == 2
    assert also[0] == [(3, 0.9), (2, 0.8)]
