"""Topics a reader can trust: the spectral step on crisp and overlapping groups, cohesion and
mixed topics, anchor names only where the entries use the anchor's terms, readable
keyword names, and the "also" topics an entry centrally discusses."""

from __future__ import annotations

import random

import pytest
from topiclens.clustering import TopicModel
from topiclens.clustering.anchors import Anchor
from topiclens.clustering.cohesion import MIXED_BELOW
from topiclens.clustering.naming import readable
from topiclens.clustering.tokenize import vocabulary


def _crisp(n_groups: int = 20, per: int = 30) -> list[list[str]]:
    """Short titles in crisp keyword groups: each names its group's word, plus two words
    from a pool every group draws from."""
    rng = random.Random(0)
    pool = [f"w{j}" for j in range(150)]
    return [
        [f"group{g}", f"kind{g}", *rng.sample(pool, 2)] for g in range(n_groups) for _ in range(per)
    ]


def _overlapping(n_groups: int = 20, per: int = 30) -> list[list[str]]:
    """Longer texts whose groups only lean towards their own words: most words come from
    a shared pool."""
    rng = random.Random(1)
    pool = [f"w{j}" for j in range(300)]
    docs = []
    for g in range(n_groups):
        own = [f"g{g}_{j}" for j in range(15)]
        for _ in range(per):
            docs.append(rng.sample(pool, 12) + rng.sample(own, 2))
    return docs


@pytest.mark.slow
def test_spectral_step_recovers_every_crisp_keyword_group_on_every_seed():
    # KMeans on the LSA vectors alone merges two of these groups (and splits a third) on
    # about half the seeds; on the spectral embedding every seed finds the 20 groups
    from sklearn.metrics import adjusted_rand_score

    docs = _crisp()
    groups = [g for g in range(20) for _ in range(30)]
    for seed in range(12):
        model = TopicModel(20, random_state=seed, n_similar=0).fit(None, tokens=docs)
        assert model.spectral_ is True
        assert adjusted_rand_score(groups, model.labels_) > 0.99, seed


@pytest.mark.slow
def test_spectral_step_kept_on_overlapping_text():
    model = TopicModel(20, random_state=0, n_similar=0).fit(None, tokens=_overlapping())
    assert model.silhouette_ is not None
    assert model.spectral_ is True


@pytest.mark.slow
def test_spectral_forced_either_way_measures_nothing_or_keeps_the_step():
    docs = _crisp()
    off = TopicModel(20, spectral=False, random_state=0, n_similar=0).fit(None, tokens=docs)
    assert off.silhouette_ is None and off.spectral_ is False
    on = TopicModel(20, spectral=True, random_state=0, n_similar=0).fit(None, tokens=docs)
    assert on.spectral_ is True and on.silhouette_ is not None


def _anchored_docs() -> list[list[str]]:
    """Three subjects of twelve entries, plus entries about wires clustered with coding."""
    a = [["rans", "entropy coding", "compression", f"a{i}"] for i in range(12)]
    b = [["nvlink", "interconnect", "nvswitch", f"b{i}"] for i in range(12)]
    c = [["speculative decoding", "draft model", f"c{i}"] for i in range(12)]
    return a + b + c


WIRES = Anchor("Wires", ("NVLink",), (("nvlink", "interconnect"),))
CODING = Anchor("Coding", ("rANS",), (("rans",),))


def test_cohesion_is_high_for_one_subject_and_mixed_topics_say_so():
    docs = _anchored_docs()
    # two topics for three subjects: one of them holds two subjects
    model = TopicModel(2, max_share=None, random_state=0, n_similar=0).fit(None, tokens=docs)
    assert all(0.0 <= v <= 1.0 for v in model.cohesion_)
    # find the topics by their members, never by label values: which two subjects KMeans
    # merges depends on the BLAS it runs on
    subjects_in = [{i // 12 for i, c in enumerate(model.labels_) if c == t} for t in range(2)]
    assert sorted(map(len, subjects_in)) == [1, 2], subjects_in  # no subject split
    pure = next(t for t in range(2) if len(subjects_in[t]) == 1)
    both = next(t for t in range(2) if len(subjects_in[t]) == 2)
    assert model.cohesion_[pure] > model.cohesion_[both]
    assert model.cohesion_[both] < MIXED_BELOW and model.mixed_[both]
    assert not model.mixed_[pure]
    assert model.topic_names_[both].startswith("Mixed: ")
    # three topics for three subjects: none is mixed
    three = TopicModel(3, max_share=None, random_state=0, n_similar=0).fit(None, tokens=docs)
    assert not any(three.mixed_) and min(three.cohesion_) > 0.5


def test_anchor_names_a_topic_only_when_most_entries_use_its_terms():
    docs = _anchored_docs()
    # an anchor whose terms four entries of the coding subject mention
    for i in range(4):
        docs[i] = [*docs[i], "megakernel"]
    mega = Anchor("Megakernels", ("megakernel",), (("megakernel",),))
    model = TopicModel(3, anchors=[mega, WIRES], max_share=None, random_state=0).fit(
        None, tokens=docs
    )
    coding = int(model.labels_[0])
    # 4 of 12 use "megakernel": the topic carries the seed but is named from its keywords
    assert model.topic_anchors_[coding] == "Megakernels"
    assert model.topic_names_[coding] != "Megakernels"
    assert "Megakernels" not in model.topic_names_
    assert model.topic_names_[int(model.labels_[12])] == "Wires"


def test_entries_are_also_in_the_anchored_topics_they_centrally_discuss():
    docs = _anchored_docs()
    # two coding entries that are as much about NVLink: also in Wires
    for i in (0, 1):
        docs[i] = [*docs[i], "nvlink", "nvlink", "interconnect"]
    # one that mentions NVLink once: not a subject
    docs[2] = [*docs[2], "nvlink"]
    model = TopicModel(3, anchors=[WIRES], max_share=None, random_state=0).fit(None, tokens=docs)
    wires = model.topic_names_.index("Wires")
    assert int(model.labels_[0]) != wires
    for i in (0, 1):
        assert [c for c, _ in model.also_[i]] == [wires]
        assert 0.5 <= model.also_[i][0][1] <= 1.0
    assert model.also_[2] == []
    # never its own topic, and no anchor no also
    assert all(c != int(model.labels_[i]) for i, rows in enumerate(model.also_) for c, _ in rows)
    plain = TopicModel(3, max_share=None, random_state=0).fit(None, tokens=docs)
    assert all(rows == [] for rows in plain.also_)
    # new entries go through the same function, and survive saving
    loaded = TopicModel.from_bytes(model.to_bytes())
    placed = loaded.place(None, tokens=[docs[0], docs[2]])
    assert [c for c, _ in placed.also[0]] == [wires] and placed.also[1] == []
    assert loaded.cohesion_ == model.cohesion_ and loaded.mixed_ == model.mixed_
    # a topic placing may not use is not an also topic either
    among = [c != wires for c in range(model.n_topics_)]
    assert loaded.place(None, tokens=[docs[0]], among=among).also == [[]]


@pytest.mark.parametrize(
    ("term", "ok"),
    [("编程", False), ("模型", False), ("流水线", True), ("cuda", True), ("kv cache", True)],
)
def test_readable_name_terms(term: str, ok: bool):
    assert readable(term, vocabulary()) is ok
