"""An entry belongs to an anchor's topic when the anchor is what it is about, not when
it names the anchor's subject as one component."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from topiclens.clustering.aboutness import Leads, lead
from topiclens.clustering.anchor_topics import (
    Evidence,
    about_anchor,
    gather_into_anchors,
    split_off_rest,
)

VOCAB = ["kv", "vllm", "release", "offload", "graphics", "render"]
TERMS = {"KV cache": {"kv"}}

ABOUT = "KV offload for long contexts\nPages move to the host. Release soon."
COMPONENT = (
    "vLLM release 0.28 for Apple silicon\nIt ports the scheduler. It adds paged kv, a server."
)
GRAPHICS = "Render graphics faster\nA graphics pipeline that can render more."


def _tokenize(text: str) -> list[str]:
    words = text.lower().replace(",", " ").replace(".", " ").split()
    return [w for w in words if w in VOCAB]


def _matrices(texts: list[str]) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Raw counts and unit TF-IDF rows (idf 1) of ``texts`` over VOCAB."""
    counts = np.zeros((len(texts), len(VOCAB)))
    for i, text in enumerate(texts):
        for token in _tokenize(text):
            counts[i, VOCAB.index(token)] += 1
    weights = np.where(counts > 0, 1 + np.log(np.maximum(counts, 1)), 0)
    weights /= np.linalg.norm(weights, axis=1, keepdims=True)
    return sp.csr_matrix(weights), sp.csr_matrix(counts)


def test_the_lead_is_the_title_and_the_summarys_opening_sentence() -> None:
    assert lead(ABOUT) == "KV offload for long contexts\nPages move to the host"
    assert lead(COMPONENT) == "vLLM release 0.28 for Apple silicon\nIt ports the scheduler"
    assert (
        lead("文章介绍 KV 缓存卸载，面向长上下文。其后讨论调度。")
        == "文章介绍 KV 缓存卸载，面向长上下文"
    )
    assert lead("One sentence only") == "One sentence only"


def test_a_single_mention_makes_an_entry_about_the_anchor_only_in_its_lead() -> None:
    texts = [ABOUT, COMPONENT, "Paged kv in vLLM\nA release of the server."]
    tfidf, counts = _matrices(texts)
    members = np.arange(len(texts))
    # each says "kv" once, and it weighs a third or more of each one's heaviest word
    assert counts[:, 0].toarray().ravel().tolist() == [1, 1, 1]
    named = Leads(texts, _tokenize).name(members, {"kv"})
    assert named.tolist() == [True, False, True]
    about = about_anchor(tfidf, counts, [0], np.arange(len(VOCAB)), members, named)
    assert about.tolist() == [True, False, True]
    # without the texts, one mention counts wherever it is
    assert about_anchor(tfidf, counts, [0], np.arange(len(VOCAB)), members).all()


def test_entries_that_name_the_anchor_as_a_component_leave_its_topic() -> None:
    """Two write-ups about the KV cache and two release notes that list it among their
    parts, all in the anchor's cluster 0, beside a graphics cluster."""
    texts = [
        ABOUT,
        ABOUT + " More kv.",
        COMPONENT,
        COMPONENT + " Release notes.",
        GRAPHICS,
        GRAPHICS,
    ]
    tfidf, counts = _matrices(texts)
    vectors = tfidf.toarray()
    labels = np.array([0, 0, 0, 0, 1, 1])
    evidence = Evidence(TERMS, tfidf, counts, VOCAB, vectors, Leads(texts, _tokenize))
    out = split_off_rest(labels, ["KV cache", None], [None, None], evidence)
    assert out[:2].tolist() == [0, 0]  # about the KV cache: the anchor keeps them
    assert out[2] == out[3] == 2  # the release notes: a topic of their own
    assert out[4:].tolist() == [1, 1]


def test_an_entry_of_a_mixed_topic_joins_the_anchor_it_centrally_discusses() -> None:
    tfidf = sp.csr_matrix(
        np.asarray(
            [
                [1.0, 0.2, 0, 0, 0, 0],  # the anchor's own entries
                [1.0, 0, 0.3, 0, 0, 0],
                [0.9, 0, 0, 0, 1.0, 0],  # in the mixed cluster: about the KV cache too
                [0.2, 0, 0, 1.0, 0, 0],  # names it, no more
                [0, 0, 0, 0, 1.0, 0.1],  # graphics
                [0, 1.0, 0, 0, 0, 0.1],
            ]
        )
    )
    counts = sp.csr_matrix((tfidf.toarray() > 0).astype(np.int64) * 2)
    vectors = np.asarray(
        [[1, 0, 0], [1, 0.1, 0], [0, 1, 0], [0, 0, 1], [0.7, 0.7, 0], [0, 0.7, 0.7]]
    )
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    labels = np.array([0, 0, 1, 1, 1, 1])  # cluster 1 shares nothing: mixed
    evidence = Evidence(TERMS, tfidf, counts, VOCAB, vectors)
    out = gather_into_anchors(labels, ["KV cache", None], [None, None], evidence)
    assert out.tolist() == [0, 0, 0, 1, 1, 1]
    # a cluster the user pinned keeps its entries
    kept = gather_into_anchors(labels, ["KV cache", None], [None, 7], evidence)
    assert kept.tolist() == labels.tolist()


def test_an_entry_not_about_its_anchor_joins_the_anchor_it_is_about() -> None:
    """An entry in the graphics anchor's cluster that never says graphics but centrally
    discusses the KV cache: the KV cache is what it is about."""
    tfidf = sp.csr_matrix(
        np.asarray(
            [
                [1.0, 0.2, 0, 0, 0, 0],  # the KV cache's own entries
                [1.0, 0, 0.3, 0, 0, 0],
                [0, 0, 0, 0, 1.0, 0.3],  # graphics
                [0, 0, 0.2, 0, 1.0, 0.5],
                [0.8, 0, 0, 1.0, 0, 0.4],  # in the graphics cluster, about the KV cache
            ]
        )
    )
    counts = sp.csr_matrix((tfidf.toarray() > 0).astype(np.int64) * 2)
    vectors = np.asarray([[1, 0, 0], [1, 0.1, 0], [0, 1, 0], [0, 1, 0.1], [0.1, 1, 0.3]])
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    labels = np.array([0, 0, 1, 1, 1])
    terms = {"KV cache": {"kv"}, "Graphics": {"graphics"}}
    evidence = Evidence(terms, tfidf, counts, VOCAB, vectors)
    out = gather_into_anchors(labels, ["KV cache", "Graphics"], [None, None], evidence)
    assert out.tolist() == [0, 0, 1, 1, 0]
