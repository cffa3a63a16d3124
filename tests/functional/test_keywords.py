"""Topic keywords are words a reader would use: no pieces of longer words."""

from __future__ import annotations

import numpy as np
import pytest
from topiclens.clustering.naming import fragments
from topiclens.store import Store
from topiclens.store.importer import ensure_corpus


def test_a_piece_of_a_longer_word_is_a_fragment_where_the_word_is_used():
    vocab = ["分布", "分布式", "布式", "训练", "kv"]
    per_class = np.array(
        [
            [9.0, 6.0, 6.0, 5.0, 3.0],  # 分布式 6 of 分布's 9 uses: 分布 and 布式 are pieces
            [9.0, 2.0, 2.0, 5.0, 3.0],  # 分布 mostly on its own: a word; 布式 still a piece
            [0.0, 0.0, 0.0, 5.0, 3.0],  # neither used: nothing to hide
        ]
    )
    got = fragments(vocab, per_class)
    assert got.tolist() == [
        [True, False, True, False, False],
        [False, False, True, False, False],
        [False, False, False, False, False],
    ]


@pytest.mark.slow
def test_bundled_topics_show_whole_words(tmp_path):
    from topiclens.clustering import cluster_store

    with Store.open_dir(tmp_path) as store:
        ensure_corpus(store)
        cluster_store(store)
        shown = {w for t in store.topics() for w, _ in t.keywords}
        terms = {w for eid in store.assignments() for w in store.assignment(eid)[2]}
    # 分布式 (distributed) used to show as its pieces 分布 and 布式
    assert "布式" not in shown | terms
    assert "分布式" in shown
