"""The topic list's order, which decides the topic the reader opens on: clear topics
(cohesion at least ``CLEAR_FROM``, or unknown) largest first, then the other coherent
ones, then the mixed ones."""

from __future__ import annotations

from pathlib import Path

from topiclens.store import Store, Topic
from topiclens.store.topics import CLEAR_FROM
from topiclens.tui.views import first_topic


def _topics_of_sizes(store: Store, topics: list[Topic]) -> None:
    """Writes ``topics``, giving each as many of the store's entries as its size."""
    ids = iter(e.id for e in store.entries())
    assigned = {next(ids): (t.id, 0.5, []) for t in topics for _ in range(t.size)}
    store.replace_topics(topics, assigned)


def test_a_clear_topic_comes_before_a_larger_loosely_coherent_one(store: Store):
    topics = [
        Topic(1, "Mixed: power, ads, jetson", [("power", 1.0)], 20, cohesion=0.1, mixed=True),
        Topic(2, "GPU kernels & GEMM", [("gemm", 1.0)], 16, cohesion=0.55),
        Topic(3, "KV cache", [("kv", 1.0)], 8, cohesion=0.61),
        Topic(4, "Interconnects", [("nvlink", 1.0)], 6),  # cohesion unknown: not demoted
        Topic(5, "Speculative decoding", [("draft", 1.0)], 10, cohesion=CLEAR_FROM),
        Topic(6, "Attention & kernels", [("attention", 1.0)], 4, cohesion=0.45),
        Topic(7, "Mixed: ads, cpu", [("ads", 1.0)], 3, cohesion=0.2, mixed=True),
    ]
    assert sum(t.size for t in topics) <= len(store.entries())
    _topics_of_sizes(store, topics)
    got = store.topics()
    # clear, largest first; then coherent below the bar, largest first; then mixed
    assert [t.id for t in got] == [5, 3, 4, 2, 6, 1, 7]
    assert first_topic(got).name == "Speculative decoding"
    assert [t.id for t in store.visible_topics()] == [t.id for t in got]


def test_with_no_clear_topic_the_largest_coherent_one_comes_first(store: Store):
    topics = [
        Topic(1, "Mixed: power, ads", [("power", 1.0)], 20, cohesion=0.1, mixed=True),
        Topic(2, "GPU kernels & GEMM", [("gemm", 1.0)], 6, cohesion=0.55),
        Topic(3, "Attention & kernels", [("attention", 1.0)], 9, cohesion=0.45),
    ]
    _topics_of_sizes(store, topics)
    got = store.topics()
    assert [t.id for t in got] == [3, 2, 1]
    assert first_topic(got).id == 3


def test_the_clustered_bundled_corpus_opens_on_a_clear_topic(clustered_home: Path):
    """The rule on a real fit, whatever the labels KMeans gives: the list's groups come in
    order, and when any topic is clear the first one listed is."""
    with Store.open_dir(clustered_home) as store:
        got = store.topics()

    def group(t: Topic) -> int:
        if t.mixed:
            return 2
        return 0 if t.cohesion is None or t.cohesion >= CLEAR_FROM else 1

    assert [group(t) for t in got] == sorted(group(t) for t in got)
    for g in (0, 1, 2):
        sizes = [t.size for t in got if group(t) == g]
        assert sizes == sorted(sizes, reverse=True)
    assert any(group(t) == 0 for t in got)
    landing = first_topic(got)
    assert landing is not None and landing.cohesion is not None
    assert landing.cohesion >= CLEAR_FROM
