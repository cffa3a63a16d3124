"""The terms tying each entry to its topic (:func:`entry_terms`): each of the row's terms
weighed by its TF-IDF value times the topic's weight, best first (ties in column order),
a term inside another one picked already left out, at most ``top``. Checked against that
rule written out row by row, on rows with ties, zeros and near-duplicate terms."""

from __future__ import annotations

import random

import numpy as np
import scipy.sparse as sp
from topiclens.clustering.naming import entry_terms
from topiclens.clustering.tokenize import default_tokenizer

TOKENS = [
    "kv", "kv cache", "cache", "paged attention", "attention", "prefix caching", "vllm",
    "speculative decoding", "draft model", "decoding", "gpu", "kernel", "flashattention",
    "quantization", "int4", "awq", "gptq", "batching", "continuous batching", "scheduler",
]  # fmt: skip


def _written_out(tfidf, labels, weights, vocab_tokens, vocab, top):  # type: ignore[no-untyped-def]
    out = []
    for i, c in enumerate(labels.tolist()):
        row = tfidf.getrow(i)
        values = [row.data[k] * weights[c][j] for k, j in enumerate(row.indices.tolist())]
        picked: list[str] = []
        compact: list[str] = []
        for k in sorted(range(len(values)), key=values.__getitem__, reverse=True):
            if values[k] <= 0:
                break
            label = vocab.display(vocab_tokens[row.indices[k]])
            x = label.replace(" ", "").lower()
            if any(x in y or y in x for y in compact):
                continue
            picked.append(label)
            compact.append(x)
            if len(picked) >= top:
                break
        out.append(picked)
    return out


def test_entry_terms_follow_the_rule_row_by_row():
    rng = random.Random(7)
    vocab = default_tokenizer().vocab
    n, width, topics = 60, len(TOKENS), 4
    dense = np.zeros((n, width), dtype=np.float32)
    for i in range(n):
        for j in rng.sample(range(width), rng.randint(0, 9)):
            dense[i, j] = rng.choice([0.5, 0.25, 0.125, 0.3])  # (ties on purpose)
    tfidf = sp.csr_matrix(dense)
    weights = {
        c: np.array([rng.choice([0.0, 1.0, 2.0, 0.5]) for _ in range(width)]) for c in range(topics)
    }
    labels = np.array([rng.randrange(topics) for _ in range(n)])
    labels[:3] = 2  # (a topic no row is in is fine: 3 may have none)
    for top in (1, 3, 5):
        got = entry_terms(tfidf, labels, weights, TOKENS, vocab, top=top)
        assert got == _written_out(tfidf, labels, weights, TOKENS, vocab, top)
    assert any(len(terms) > 1 for terms in got) and any(not terms for terms in got)
    # only the rows' own topics matter: the weights as a matrix give the same
    matrix = np.vstack([weights[c] for c in range(topics)])
    assert entry_terms(tfidf, labels, matrix, TOKENS, vocab) == got
