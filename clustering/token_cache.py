"""Every entry's tokens, made once and cached in the store.

Tokenizing (jieba) is the slow part of clustering, so each entry is tokenized once, ever
(until the tokenizer changes): on every core when there are many, then cached in the
store's ``token_cache`` as ids into one token table, keyed by the entry's id (itself a
hash of the entry's text) and the tokenizer version. A re-cluster reads the ids back as
arrays (:class:`TokenIds`) and counts them without making a string per token.
"""

from __future__ import annotations

import itertools
import json
import signal
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from .anchors import Anchor
from .tokenize import Tokenizer, default_tokenizer, tokenizer_version

if TYPE_CHECKING:
    from topiclens.store.db import Store

    from .features import TokenCounts

SEP = "\x1f"  # between tokens in a blob (never inside a token: control characters go)
PARALLEL_MIN = 2000  # below this many texts, starting workers costs more than it saves
TEXT_WINDOW = 20_000  # texts read from the store at a time while tokenizing
BY_ID_MAX = 5000  # up to this many entries, their cached tokens are looked up by id
ANCHOR_TOKENS_KEY = "clustering.anchor_tokens"
T = TypeVar("T")


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

    def counts(self) -> TokenCounts:
        """Raw term counts, straight from the ids (no string per token)."""
        import numpy as np
        import scipy.sparse as sp

        from .features import TokenCounts

        # a copy: the store's token list grows while a refresh caches more tokens, and the
        # columns must stay the tokens they were counted as
        vocab = list(self.vocab)
        m = sp.csr_matrix(
            (np.ones(len(self.ids), dtype=np.float32), self.ids.astype(np.int32), self.indptr),
            shape=(len(self), len(vocab)),
        )
        return TokenCounts(m, vocab)


def entry_token_ids(
    store: Store,
    ids: Sequence[str],
    progress: Callable[[float], None] | None = None,
    known: Mapping[str, bytes] | None = None,
) -> tuple[TokenIds, int]:
    """Token ids of the entries ``ids``, from the cache where it holds them for this
    tokenizer version; the rest are tokenized (on every core when many) and cached.
    Returns (token ids, how many entries were tokenized now). ``known`` holds entries'
    token ids as caching them gave them (:meth:`Store.put_tokens`), by id: not read again.

    An entry's id is a hash of its title, summary and comment, so an id names one text
    forever: the cache needs no other check, and entries whose tokens are cached are
    never read (a re-cluster of 100,000 cached entries reads no text)."""
    import numpy as np

    version = tokenizer_version()
    known = known or {}
    blobs: list[bytes | None] = [known.get(eid) for eid in ids]
    position = {eid: i for i, eid in enumerate(ids) if blobs[i] is None}
    # a few entries (a refresh's new ones) are looked up by id; many, in one pass over
    # the cache
    unknown = list(position)
    few = unknown if len(unknown) <= BY_ID_MAX else None
    for eid, _, blob in store.iter_cached_tokens(version, ids=few) if unknown else ():
        i = position.get(eid)
        if i is not None:
            blobs[i] = blob
    missing = [i for i, b in enumerate(blobs) if b is None]
    tokenized = 0
    batch: list[tuple[int, list[str]]] = []

    def flush() -> None:
        # the content-hash column is unused (the entry id names the text) but required
        rows = [(ids[i], "", version, toks) for i, toks in batch]
        for (i, _), blob in zip(batch, store.put_tokens(rows), strict=True):
            blobs[i] = blob
        batch.clear()

    # the texts are read TEXT_WINDOW at a time: a million of them would not fit in memory
    found: list[int] = []  # the missing entries the store holds (an id not stored has none)

    def windows() -> Iterator[list[str]]:
        for lo in range(0, len(missing), TEXT_WINDOW):
            part = missing[lo : lo + TEXT_WINDOW]
            texts = dict(store.entry_texts([ids[i] for i in part]))
            here = [i for i in part if ids[i] in texts]
            found.extend(here)
            yield [texts[ids[i]] for i in here]

    # (none missing, as for a refresh's new entries: no tokenizer is made)
    fresh = iter_tokenize_windows(windows(), len(missing), progress=progress) if missing else ()
    for blob in fresh:
        batch.append((found[tokenized], decode(blob)))
        tokenized += 1
        if len(batch) >= 5000:
            flush()
    if batch:
        flush()
    done = [b or b"" for b in blobs]
    indptr = np.zeros(len(done) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, done), dtype=np.int64, count=len(done)) // 4, out=indptr[1:])
    ids_array = np.frombuffer(b"".join(done), dtype=np.uint32)
    return TokenIds(ids_array, indptr, store.token_vocab()), tokenized


def entry_tokens(
    store: Store,
    ids: Sequence[str],
    progress: Callable[[float], None] | None = None,
) -> tuple[list[list[str]], int]:
    """:func:`entry_token_ids` as token lists."""
    tids, tokenized = entry_token_ids(store, ids, progress)
    return tids.docs(), tokenized


def tokenized_anchors(store: Store, anchors: Sequence[Anchor]) -> list[Anchor]:
    """The anchors with their terms' tokens, cached in the store's meta for the
    tokenizer version: a re-cluster with every entry's tokens cached then never loads
    jieba's dictionary (about a second)."""
    tk = default_tokenizer()
    try:
        cached = json.loads(store.get_meta(ANCHOR_TOKENS_KEY) or "{}")
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
            ANCHOR_TOKENS_KEY,
            json.dumps({"version": tk.version, "terms": terms}, ensure_ascii=False),
        )
    return [replace(a, tokens=tuple(tuple(terms[t]) for t in a.terms)) for a in anchors]


def term_tokens(store: Store, terms: Sequence[str]) -> list[list[str]]:
    """Each term's tokens (cached in the store's meta with the anchors' tokens); terms
    that make no token are left out."""
    (anchor,) = tokenized_anchors(store, [Anchor("terms", tuple(terms))])
    return [list(t) for t in anchor.tokens or () if t]


# --- bulk tokenizing, one tokenizer per worker process ---------------------------------


def encode(tokens: list[str]) -> bytes:
    return SEP.join(tokens).encode("utf-8")


def decode(blob: bytes) -> list[str]:
    return blob.decode("utf-8").split(SEP) if blob else []


_WORKER: Tokenizer | None = None


def _init_worker() -> None:
    global _WORKER
    # Ctrl-C is the parent's to handle: a worker dying of it prints a traceback per process
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER = Tokenizer()
    _WORKER.jieba()


def _work(texts: list[str]) -> list[bytes]:
    # blobs, not lists: the parent unpickles one object per text instead of hundreds
    assert _WORKER is not None
    return [encode(_WORKER(t)) for t in texts]


def iter_tokenize(
    texts: list[str],
    *,
    processes: int | None = None,
    progress: Callable[[float], None] | None = None,
) -> Iterator[bytes]:
    """Each text's tokens as an encoded blob (:func:`decode` reads it), in order, as they
    are ready; on every core (one jieba per worker process) when there are enough texts
    to pay for starting the workers. ``progress(done_fraction)`` is called from the
    calling thread."""
    return iter_tokenize_windows([texts], len(texts), processes=processes, progress=progress)


def iter_tokenize_windows(
    windows: Iterable[list[str]],
    n: int,
    *,
    processes: int | None = None,
    progress: Callable[[float], None] | None = None,
) -> Iterator[bytes]:
    """:func:`iter_tokenize` of texts that come a window at a time (about ``n`` in all),
    with one set of workers for them all."""
    import os

    workers = processes if processes is not None else (os.cpu_count() or 1)
    done = 0
    if n < PARALLEL_MIN or workers <= 1:
        tk = default_tokenizer()
        step = max(1, n // 20)
        for texts in windows:
            for t in texts:
                yield encode(tk(t))
                done += 1
                if progress and done % step == 0:
                    progress(min(1.0, done / n))
        return
    import multiprocessing

    chunk = 250
    # spawn, not fork: the reader calls this from a thread, and forking a threaded
    # process can deadlock
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(workers, initializer=_init_worker) as pool:
        queued = (
            pool.imap(_work, [texts[i : i + chunk] for i in range(0, len(texts), chunk)])
            for texts in windows
        )
        # the next window is read and queued before this one's results are taken, so the
        # workers never wait while the texts are read (at most two windows are held)
        for parts in _one_ahead(queued):
            for part in parts:
                yield from part
                done += len(part)
                if progress:
                    progress(min(1.0, done / n))


def _one_ahead(items: Iterator[T]) -> Iterator[T]:
    """``items`` in order, each yielded once the next one has been taken."""
    held: list[T] = []
    for item in items:
        yield from held
        held = [item]
    yield from held
