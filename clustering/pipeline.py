"""The clustering pipeline over a store: tokens (cached), topics, identity kept.

- :func:`cluster_store` re-clusters every entry and writes the result in one transaction;
  new clusters are matched to the old topics (same anchor, else most shared entries), so
  a topic keeps its id, and a name the user gave it, across re-clusters.
- :func:`assign_new` puts freshly imported entries into their nearest topic at once.
- :func:`ensure_topics` is the first start: bundled corpus, then topics.

Tokens are cached in the store per entry, keyed by the entry's id (a hash of its title,
summary and comment) and the tokenizer version: each entry is tokenized once, ever (until
the tokenizer changes).
"""

from __future__ import annotations

import hashlib
import io
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .anchors import load_anchors

if TYPE_CHECKING:
    from topiclens.store.db import Store

Progress = Callable[[str, float], None]
MODEL_FORMAT = "topiclens-topic-model-1"
MATCH_MIN_JACCARD = 0.2
_SEP = "\x1f"


@dataclass(slots=True)
class ClusterReport:
    entries: int = 0
    topics: int = 0
    tokenized: int = 0  # entries tokenized now
    cached: int = 0  # entries whose tokens came from the cache
    anchored: list[str] = field(default_factory=list)  # anchors that won a topic
    kept_ids: int = 0  # topics that kept the id of an old topic
    seconds: dict[str, float] = field(default_factory=dict)


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(slots=True)
class TokenIds:
    """Every doc's tokens as ids, CSR style: doc ``i`` is ``ids[indptr[i]:indptr[i + 1]]``
    (numpy ``uint32``), each id an index into ``vocab``."""

    ids: Any
    indptr: Any
    vocab: list[str]

    def __len__(self) -> int:
        return len(self.indptr) - 1

    def docs(self) -> list[list[str]]:
        """Token lists (each distinct token one shared string object)."""
        at = self.vocab.__getitem__
        flat = self.ids.tolist()
        bounds = self.indptr.tolist()
        return [list(map(at, flat[lo:hi])) for lo, hi in itertools.pairwise(bounds)]

    def counts(self, extra: Sequence[Sequence[str]] | None = None) -> Any:
        """Raw term counts (:class:`model.TokenCounts`), with ``extra`` feature-only
        tokens per doc appended as more columns."""
        import numpy as np
        import scipy.sparse as sp

        from .model import TokenCounts, raw_counts

        n = len(self)
        m = sp.csr_matrix(
            (np.ones(len(self.ids), dtype=np.float32), self.ids.astype(np.int32), self.indptr),
            shape=(n, len(self.vocab)),
        )
        if extra is None:
            return TokenCounts(m, self.vocab)
        more, more_vocab = raw_counts(extra)
        return TokenCounts(sp.hstack([m, more], format="csr"), [*self.vocab, *more_vocab])


def entry_token_ids(
    store: Store,
    ids: Sequence[str],
    progress: Callable[[float], None] | None = None,
) -> tuple[TokenIds, int]:
    """Token ids of the entries ``ids``, from the cache where it holds them for this
    tokenizer version; the rest are tokenized (on every core when many) and cached.
    Returns (token ids, how many entries were tokenized now).

    An entry's id is a hash of its title, summary and comment, so an id names one text
    forever: the cache needs no other check, and entries whose tokens are cached are
    never read (a re-cluster of 100,000 cached entries reads no text)."""
    import numpy as np

    from .tokenize import decode, iter_tokenize, tokenizer_version

    version = tokenizer_version()
    blobs: list[bytes | None] = [None] * len(ids)
    position = {eid: i for i, eid in enumerate(ids)}
    for eid, _, blob in store.iter_cached_tokens(version):
        i = position.get(eid)
        if i is not None:
            blobs[i] = blob
    missing = [i for i, b in enumerate(blobs) if b is None]
    texts = dict(store.entry_texts([ids[i] for i in missing])) if missing else {}
    missing = [i for i in missing if ids[i] in texts]  # an id not stored has no tokens
    batch: list[tuple[int, list[str]]] = []

    def flush() -> None:
        rows = [(ids[i], content_hash(texts[ids[i]]), version, toks) for i, toks in batch]
        for (i, _), blob in zip(batch, store.put_tokens(rows), strict=True):
            blobs[i] = blob
        batch.clear()

    fresh = iter_tokenize([texts[ids[i]] for i in missing], progress=progress)
    for i, blob in zip(missing, fresh, strict=True):
        batch.append((i, decode(blob)))
        if len(batch) >= 5000:
            flush()
    if batch:
        flush()
    done = [b or b"" for b in blobs]
    indptr = np.zeros(len(done) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, done), dtype=np.int64, count=len(done)) // 4, out=indptr[1:])
    ids_array = np.frombuffer(b"".join(done), dtype=np.uint32)
    return TokenIds(ids_array, indptr, store.token_vocab()), len(missing)


def entry_tokens(
    store: Store,
    ids: Sequence[str],
    progress: Callable[[float], None] | None = None,
) -> tuple[list[list[str]], int]:
    """:func:`entry_token_ids` as token lists."""
    tids, tokenized = entry_token_ids(store, ids, progress)
    return tids.docs(), tokenized


def bigram_extras(texts: Sequence[str]) -> list[list[str]] | None:
    """Feature-only character bigrams for each text when the corpus is small enough for
    them to be cheap (up to ``model.SPECTRAL_MAX`` entries), else None. They double the
    features, so large corpora (where time matters most) go without."""
    from .model import SPECTRAL_MAX
    from .tokenize import default_tokenizer

    if len(texts) > SPECTRAL_MAX:
        return None
    bigrams = default_tokenizer().bigrams
    return [bigrams(t) for t in texts]


def anchor_term_tokens(store: Store, anchors: Sequence[Any]) -> dict[str, list[str]]:
    """Every anchor term's tokens, cached in the store's meta for the tokenizer version:
    a re-cluster with every entry's tokens cached then never loads jieba's dictionary
    (about a second)."""
    import json

    from .tokenize import default_tokenizer

    tk = default_tokenizer()
    try:
        cached = json.loads(store.get_meta("clustering.anchor_tokens") or "{}")
    except ValueError:
        cached = {}
    terms: dict[str, list[str]] = (
        cached.get("terms", {}) if cached.get("version") == tk.version else {}
    )
    missing = [t for a in anchors for t in a.terms if t not in terms]
    if missing:
        for term in missing:
            terms[term] = tk(term)
        store.set_meta(
            "clustering.anchor_tokens",
            json.dumps({"version": tk.version, "terms": terms}, ensure_ascii=False),
        )
    return terms


def _match_topics(
    store: Store,
    members: list[list[str]],
    anchors: list[str | None],
    kept: list[int | None],
) -> tuple[list[int], list[bool], int]:
    """An id for each new cluster: the id of the user-named topic it carries on, else of
    the old topic it shares an anchor or enough entries with (Jaccard >=
    MATCH_MIN_JACCARD), else a new, never used id."""
    old_topics = {t.id: t for t in store.topics()}
    old_assign = store.assignments()
    old_sizes: dict[int, int] = {}
    for tid in old_assign.values():
        old_sizes[tid] = old_sizes.get(tid, 0) + 1
    ids: list[int | None] = [None] * len(members)
    used: set[int] = set()
    for c, tid in enumerate(kept):
        if tid is not None and tid in old_topics:
            ids[c] = tid
            used.add(tid)
    for c, anchor in enumerate(anchors):
        if anchor is None or ids[c] is not None:
            continue
        for t in old_topics.values():
            if t.anchor == anchor and t.id not in used:
                ids[c] = t.id
                used.add(t.id)
                break
    pairs = []
    for c, ents in enumerate(members):
        if ids[c] is not None:
            continue
        overlap: dict[int, int] = {}
        for eid in ents:
            tid = old_assign.get(eid)
            if tid is not None and tid not in used:
                overlap[tid] = overlap.get(tid, 0) + 1
        for tid, n in overlap.items():
            jaccard = n / (len(ents) + old_sizes.get(tid, 0) - n)
            if jaccard >= MATCH_MIN_JACCARD:
                pairs.append((jaccard, n, c, tid))
    for _, _, c, tid in sorted(pairs, key=lambda p: (-p[0], -p[1], p[2], p[3])):
        if ids[c] is None and tid not in used:
            ids[c] = tid
            used.add(tid)
    high = max([0, *old_topics, int(store.get_meta("clustering.max_topic_id") or 0)])
    final: list[int] = []
    for i in ids:
        if i is None:
            high += 1
            i = high
        final.append(i)
    store.set_meta("clustering.max_topic_id", str(high))
    named = [i is not None and i in old_topics and old_topics[i].user_named for i in ids]
    return final, named, sum(1 for i in ids if i is not None)


def cluster_store(
    store: Store,
    *,
    k: int | None = None,
    anchors_path: Path | None = None,
    random_state: int = 0,
    progress: Progress | None = None,
) -> ClusterReport:
    """Re-cluster every entry in the store and write topics, assignments (with score and
    the terms tying each entry to its topic), similar entries and the fitted model."""
    from topiclens.store.models import Topic

    from .model import SPECTRAL_MAX, fit_topics
    from .tokenize import default_tokenizer, tokenizer_version

    report = ClusterReport()
    t0 = time.perf_counter()

    def say(stage: str, fraction: float) -> None:
        if progress:
            progress(stage, fraction)

    anchors = load_anchors(anchors_path)
    say("tokenize", 0.0)
    ids = store.entry_ids()
    report.entries = len(ids)
    if not ids:
        raise ValueError("the store has no entries to cluster; import some first")
    tids, report.tokenized = entry_token_ids(
        store, ids, progress=lambda f: say("tokenize", 0.5 * f)
    )
    report.cached = len(ids) - report.tokenized
    # feature-only bigrams, on corpora small enough for them (their texts are read here)
    extra = (
        bigram_extras([text for _, text in store.entry_texts(ids)])
        if len(ids) <= SPECTRAL_MAX
        else None
    )
    report.seconds["tokenize"] = time.perf_counter() - t0

    # topics the user named must last: their entries seed them like anchors
    position = {eid: i for i, eid in enumerate(ids)}
    named = [t.id for t in store.topics() if t.user_named]
    kept = [
        (tid, [position[e] for e in store.topic_entry_ids(tid) if e in position]) for tid in named
    ]
    fit = fit_topics(
        tids.counts(extra),
        k=k,
        anchors=anchors,
        random_state=random_state,
        tokenizer=default_tokenizer(),
        progress=lambda stage, f: say(stage, f),
        kept=kept,
        anchor_tokens=anchor_term_tokens(store, anchors),
    )
    report.seconds.update(fit.stages)
    t1 = time.perf_counter()
    n_topics = len(fit.names)
    members: list[list[str]] = [[] for _ in range(n_topics)]
    for i, c in enumerate(fit.labels.tolist()):
        members[c].append(ids[i])
    topic_ids, user_named, report.kept_ids = _match_topics(store, members, fit.anchors, fit.kept)
    topics = [
        Topic(
            id=topic_ids[c],
            name=fit.names[c],
            keywords=[(w, round(v, 6)) for w, v in fit.keywords[c]],
            size=len(members[c]),
            user_named=user_named[c],
            anchor=fit.anchors[c],
        )
        for c in range(n_topics)
    ]
    labels = fit.labels.tolist()
    scores = fit.scores.tolist()
    assignments = {
        eid: (topic_ids[c], s, t)
        for eid, c, s, t in zip(ids, labels, scores, fit.terms, strict=True)
    }
    similar = {
        eid: [(ids[j], s) for j, s in near] for eid, near in zip(ids, fit.similar, strict=True)
    }
    say("store", 0.95)
    # topics and the model that places new entries land in one transaction
    model = (tokenizer_version(), _dump_model(fit, topic_ids, ids, [c for c in labels]))
    store.replace_topics(topics, assignments, similar, model=model)
    report.seconds["store"] = time.perf_counter() - t1
    report.topics = n_topics
    report.anchored = [a for a in fit.anchors if a]
    report.seconds["total"] = time.perf_counter() - t0
    say("done", 1.0)
    return report


# --- the fitted model, for entries imported later ----------------------------------------


def _dump_model(fit: Any, topic_ids: list[int], ids: list[str], labels: list[int]) -> bytes:
    import numpy as np

    f = fit.features
    kw_tokens = [[t for t, _ in kws] for kws in fit.keyword_tokens]
    kw_weights = [[w for _, w in kws] for kws in fit.keyword_tokens]
    buf = io.BytesIO()
    np.savez(
        buf,
        format=np.frombuffer(MODEL_FORMAT.encode(), dtype=np.uint8),
        vocab=np.frombuffer(_SEP.join(f.vocab).encode("utf-8"), dtype=np.uint8),
        idf=f.idf.astype(np.float32),
        components=(
            f.components if f.components is not None else np.zeros((0, 0), dtype=np.float32)
        ),
        centroids=fit.centroids.astype(np.float32),
        topic_ids=np.asarray(topic_ids, dtype=np.int64),
        kw_tokens=np.frombuffer(
            "\x1e".join(_SEP.join(t) for t in kw_tokens).encode("utf-8"), dtype=np.uint8
        ),
        kw_weights=np.asarray(
            [w + [0.0] * (50 - len(w)) for w in kw_weights], dtype=np.float32
        ).reshape(len(kw_weights), 50),
        doc_ids=np.frombuffer(_SEP.join(ids).encode("ascii"), dtype=np.uint8),
        doc_vectors=np.asarray(f.vectors, dtype=np.float16)
        if f.components is not None
        else np.zeros((0, 0), dtype=np.float16),
    )
    return buf.getvalue()


@dataclass(slots=True)
class _Model:
    vocab: list[str]
    idf: Any
    components: Any
    centroids: Any
    topic_ids: list[int]
    keywords: list[dict[str, float]]
    doc_ids: list[str]
    doc_vectors: Any


def _load_model(blob: bytes) -> _Model | None:
    import numpy as np

    try:
        z = np.load(io.BytesIO(blob), allow_pickle=False)
        if bytes(z["format"]).decode() != MODEL_FORMAT:
            return None
        kw_raw = bytes(z["kw_tokens"]).decode("utf-8")
        weights = z["kw_weights"]
        keywords = []
        for c, part in enumerate(kw_raw.split("\x1e")):
            toks = part.split(_SEP) if part else []
            keywords.append({t: float(weights[c, i]) for i, t in enumerate(toks)})
        comps = z["components"]
        doc_raw = bytes(z["doc_ids"]).decode("ascii")
        return _Model(
            vocab=bytes(z["vocab"]).decode("utf-8").split(_SEP),
            idf=z["idf"],
            components=comps if comps.size else None,
            centroids=z["centroids"],
            topic_ids=[int(t) for t in z["topic_ids"]],
            keywords=keywords,
            doc_ids=doc_raw.split(_SEP) if doc_raw else [],
            doc_vectors=z["doc_vectors"],
        )
    except (ValueError, KeyError, OSError, UnicodeDecodeError):
        return None


def assign_new(store: Store, entry_ids: Sequence[str]) -> int:
    """Put entries into their nearest existing topic now, without a re-cluster (the
    topics stay as they are; run :func:`cluster_store` to rethink them). Entries already
    in a topic are left alone. Returns how many were assigned."""
    import numpy as np

    from .model import SMOOTH_NEIGHBOURS, TOP_SIMILAR, TOP_TERMS, smooth
    from .tokenize import BIGRAM_MARK, default_tokenizer, vocabulary

    saved = store.topic_model()
    if saved is None or not entry_ids:
        return 0
    model = _load_model(saved[1])
    if model is None:
        return 0
    live = {t.id for t in store.topics()}
    assigned = store.assignments()
    todo = [e for e in store.entries(list(dict.fromkeys(entry_ids))) if e.id not in assigned]
    if not todo:
        return 0
    from .model import transform

    docs, _ = entry_tokens(store, [e.id for e in todo])
    if any(t.startswith(BIGRAM_MARK) for t in model.vocab[:1]):
        # the model was fitted with bigrams (they sort first in its vocabulary)
        bigrams = default_tokenizer().bigrams
        docs = [[*d, *bigrams(e.text())] for d, e in zip(docs, todo, strict=True)]
    tfidf, vectors = transform(docs, model.vocab, model.idf, model.components)
    dense = np.asarray(vectors.todense()) if hasattr(vectors, "todense") else vectors
    doc_vecs = (
        model.doc_vectors.astype(np.float32)
        if model.doc_vectors.size and model.components is not None
        else None
    )
    near_idx = near_sim = None
    if doc_vecs is not None and len(doc_vecs):
        # the entry's nearest clustered entries: its similar entries, and (as in the fit)
        # the neighbours its vector is smoothed towards before choosing a topic
        m = min(len(doc_vecs), max(TOP_SIMILAR, min(SMOOTH_NEIGHBOURS, len(doc_vecs) // 50)))
        near_idx = np.zeros((len(todo), m), dtype=np.int64)
        near_sim = np.zeros((len(todo), m), dtype=np.float32)
        for start in range(0, len(todo), 512):
            block = dense[start : start + 512] @ doc_vecs.T
            top = np.argpartition(-block, m - 1, axis=1)[:, :m]
            val = np.take_along_axis(block, top, axis=1)
            order = np.argsort(-val, axis=1, kind="stable")
            near_idx[start : start + 512] = np.take_along_axis(top, order, axis=1)
            near_sim[start : start + 512] = np.take_along_axis(val, order, axis=1)
        k_smooth = min(m, SMOOTH_NEIGHBOURS, max(3, len(doc_vecs) // 50))
        dense = smooth(
            np.vstack([dense, doc_vecs]),
            np.vstack(
                [near_idx[:, :k_smooth] + len(dense), np.full((len(doc_vecs), k_smooth), -1)]
            ),
        )[: len(todo)]
    sims = dense @ model.centroids.T
    # only topics that still exist (a topic can be gone since the model was saved)
    alive = np.asarray([tid in live for tid in model.topic_ids])
    if not alive.any():
        return 0
    sims[:, ~alive] = -np.inf
    best = sims.argmax(axis=1)
    vocab = vocabulary()
    out: dict[str, tuple[int, float, list[str]]] = {}
    similar: dict[str, list[tuple[str, float]]] = {}
    for r, e in enumerate(todo):
        c = int(best[r])
        kws = model.keywords[c]
        lo, hi = tfidf.indptr[r], tfidf.indptr[r + 1]
        weighted = sorted(
            (
                (float(tfidf.data[j]) * kws.get(model.vocab[tfidf.indices[j]], 0.0), j)
                for j in range(lo, hi)
            ),
            key=lambda p: (-p[0], p[1]),
        )
        terms: list[str] = []
        for w, j in weighted:
            if w <= 0 or len(terms) >= TOP_TERMS:
                break
            label = vocab.display(model.vocab[tfidf.indices[j]])
            if label not in terms:
                terms.append(label)
        score = float(sims[r, c]) if np.isfinite(sims[r, c]) else 0.0
        out[e.id] = (model.topic_ids[c], score, terms)
        if near_idx is not None and near_sim is not None:
            similar[e.id] = [
                (model.doc_ids[j], round(float(v), 6))
                for j, v in zip(near_idx[r, :TOP_SIMILAR], near_sim[r, :TOP_SIMILAR], strict=True)
            ]
    store.add_assignments(out, similar)
    return len(out)


def ensure_topics(store: Store, progress: Progress | None = None) -> bool:
    """On a first start: an empty store gets the bundled corpus; entries without topics
    get clustered; entries left out of existing topics join their nearest one. Returns
    True if it did any of that."""
    from topiclens.store.importer import ensure_corpus

    did = False
    if store.count_entries() == 0:
        if progress:
            progress("import", 0.0)
        did = ensure_corpus(store) is not None
    if store.count_entries() == 0:
        return did
    if not store.topics():
        cluster_store(store, progress=progress)
        return True
    missing = store.unassigned_ids()
    if missing:
        if progress:
            progress("assign", 0.5)
        if assign_new(store, missing):
            did = True
        elif store.topic_model() is None:
            cluster_store(store, progress=progress)
            did = True
    return did
