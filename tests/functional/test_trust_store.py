"""The bundled corpus through the store, as a new user gets it: "KV cache" lists the
entries about the KV cache (primary or also), mixed topics come last, anchor names are
earned, and entries placed later get their also topics too."""

from __future__ import annotations

import json

import pytest
from helpers import ROOT
from topiclens.clustering import assign_new, cluster_store
from topiclens.clustering.anchors import load_anchors
from topiclens.clustering.cohesion import ANCHOR_MIN_USE
from topiclens.clustering.token_cache import entry_tokens, tokenized_anchors
from topiclens.store import Store
from topiclens.store.importer import import_bundled
from topiclens.store.models import Entry
from topiclens.store.text import entry_id

LABELS = ROOT / "bench" / "corpora" / "bundled-labels.jsonl"
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("topics")]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    s = Store.open_dir(tmp_path_factory.mktemp("trust"))
    import_bundled(s)
    cluster_store(s)
    return s


def _about(name: str) -> set[str]:
    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line]
    return {r["id"] for r in rows if name in r["about"]}


def test_kv_cache_lists_the_kv_cache_entries_through_also(store: Store):
    kv = next(t for t in store.topics() if t.name == "KV cache")
    primary, also = set(store.topic_entry_ids(kv.id)), set(store.also_entry_ids(kv.id))
    assert also and not primary & also
    about = _about("KV cache")
    # the lossless KV cache compression entry sits in the compression topic and is listed
    # here as well; decode context parallelism, about the KV cache, is here either way
    assert "09ece52234ba9c09" in also
    assert "59af7b28c5a8c150" in primary | also
    assert len((primary | also) & about) >= 5, sorted(about - primary - also)
    for eid in also:
        assert kv.id in {t.id for t in store.also_topics(eid)}
        assert store.assignments()[eid] != kv.id


def test_mixed_topics_come_last_and_say_so(store: Store):
    topics = store.topics()
    assert any(t.mixed for t in topics) and not topics[0].mixed
    flags = [t.mixed for t in topics]
    assert flags == sorted(flags)  # every coherent topic before every mixed one
    for t in topics:
        assert t.cohesion is not None and 0.0 <= t.cohesion <= 1.0
        assert t.name.startswith("Mixed: ") == t.mixed
    assert not any(" / " in t.name for t in topics)


def test_every_anchor_named_topic_is_mostly_about_its_anchor(store: Store):
    anchors = {a.name: a for a in tokenized_anchors(store, load_anchors())}
    named = [t for t in store.topics() if t.anchor and t.name == t.anchor]
    assert len(named) >= 8
    for t in named:
        ids = store.topic_entry_ids(t.id)
        terms = anchors[t.anchor].term_tokens(lambda text: [])
        docs, _ = entry_tokens(store, ids)
        using = sum(1 for d in docs if terms & set(d))
        assert using >= ANCHOR_MIN_USE * len(ids), (t.name, using, len(ids))


def test_placed_entries_get_their_also_topics(store: Store):
    title = "Speculative decoding meets the KV cache"
    summary = (
        "Speculative decoding with a draft model verifies many tokens per step, and the KV "
        "cache of rejected draft tokens is rolled back: KV cache layout, KV cache reuse and "
        "speculative decoding acceptance rate, measured together; KV 缓存 and 投机解码."
    )
    eid = entry_id(title, summary)
    store.add_entries([Entry(id=eid, title=title, summary=summary)])
    assert assign_new(store, [eid]) == 1
    names = {store.topic(store.assignments()[eid]).name} | {t.name for t in store.also_topics(eid)}
    assert {"Speculative decoding", "KV cache"} <= names
    assert store.also_topics(eid)
