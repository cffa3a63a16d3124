"""Refreshing feeds: fetch them concurrently, parse, store each in one transaction, and
place the new entries into their topics at once.

:func:`refresh` is what ``topiclens refresh`` and the reader's refresh run (the reader from
a worker thread: it reports each finished feed through ``progress``). Per feed:

- 200: parsed; new entries added, changed ones updated in place, validators stored;
- 304: nothing parsed; the validators of the 304 stored (the ones sent, when it has none);
- 301/308 on every hop: the feed's URL becomes the new one (302/307 leave it);
- 410: the feed is marked gone and not fetched again until it is added again;
- 429/503: the feed waits as long as ``Retry-After`` asks (at most a week), alone;
- any other failure: its error is stored and its entries are kept.

New entries then join their topics through the existing placement
(:func:`topiclens.clustering.ensure_topics`: the saved model, no re-cluster; a store that
has never been grouped is grouped once). Placing one entry does not depend on the others,
so the entries of the feeds stored so far are placed in batches while later feeds
download and parse; what is left is placed at the end. Topics come from what an entry
says, never from its feed's name or folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from topiclens.store.feed_entries import feed_scope, item, not_a_feed, with_stored
from topiclens.store.feeds import FeedCheck
from topiclens.store.models import Feed

from .fetch import MAX_RETRY_AFTER, Fetched, Limits, Validators, fetch_all

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController
    from topiclens.clustering.saved import SavedModels
    from topiclens.store import Store
    from topiclens.store.feed_parse import ParsedFeed

log = logging.getLogger(__name__)

# What happened to one feed in a refresh (FeedResult.outcome).
CHANGED = "changed"  # new or updated entries (or a new URL)
UNCHANGED = "unchanged"  # downloaded, nothing new in it
NOT_MODIFIED = "not modified"  # a 304: nothing downloaded
FAILED = "failed"  # an error, stored with the feed
SKIPPED = "skipped"  # not fetched: gone, or waiting as its server asked


@dataclass(frozen=True, slots=True)
class FeedResult:
    """One feed's part of a refresh."""

    feed_id: int
    name: str  # what the feed is called (after this refresh)
    url: str  # its URL (after this refresh)
    outcome: str  # CHANGED, UNCHANGED, NOT_MODIFIED, FAILED or SKIPPED
    status: int = 0  # the final HTTP status (0: no response, or not fetched)
    new: int = 0
    updated: int = 0
    error: str | None = None  # why it failed, or why it was skipped
    moved_to: str | None = None  # its new URL, after a permanent redirect
    retry_until: float | None = None  # when its server asked to be asked again
    new_ids: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        return self.outcome == FAILED


@dataclass(frozen=True, slots=True)
class TopicCount:
    """How many new entries went into one topic (``topic_id`` None: into none yet)."""

    topic_id: int | None
    name: str
    count: int


@dataclass(frozen=True, slots=True)
class RefreshProgress:
    """Where a refresh is: ``done`` of ``total`` feeds finished, ``feed`` the one just
    finished; ``placing`` once every feed is in and the new entries join their topics."""

    done: int
    total: int
    feed: FeedResult | None = None
    placing: bool = False


ProgressCallback = Callable[[RefreshProgress], None]


@dataclass(slots=True)
class RefreshSummary:
    """What a refresh brought: each feed's result, and where the new entries went."""

    feeds: list[FeedResult] = field(default_factory=list)
    topics: list[TopicCount] = field(default_factory=list)  # most new entries first
    seconds: float = 0.0
    unplaced: str | None = None  # why new entries are in no topic, when the grouping failed

    @property
    def new(self) -> int:
        return sum(r.new for r in self.feeds)

    @property
    def updated(self) -> int:
        return sum(r.updated for r in self.feeds)

    @property
    def new_ids(self) -> list[str]:
        return [eid for r in self.feeds for eid in r.new_ids]

    @property
    def failed(self) -> list[FeedResult]:
        return [r for r in self.feeds if r.failed]

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.feeds if r.outcome == outcome)

    def line(self) -> str:
        """One line for people: "312 new entries from 14 feeds; 2 failed", or what an
        unchanged refresh did ("no new entries: 14 feeds not modified, nothing
        downloaded")."""
        sources = sum(1 for r in self.feeds if r.new)
        if self.new:
            text = f"{self.new} new {_plural(self.new, 'entry', 'entries')} from {sources} "
            text += _plural(sources, "feed", "feeds")
        else:
            text = "no new entries"
        details = []
        if self.updated:
            details.append(f"{self.updated} updated in place")
        not_modified = self.count(NOT_MODIFIED)
        if not_modified and not_modified == len(self.feeds):
            details.append(f"{_feeds(not_modified)} not modified, nothing downloaded")
        elif not_modified:
            details.append(f"{_feeds(not_modified)} not modified")
        if self.count(SKIPPED):
            details.append(f"{_feeds(self.count(SKIPPED))} skipped")
        if not self.feeds:
            details.append("no feeds to refresh")
        if details:
            text += (": " if not self.new else ", ") + ", ".join(details)
        if self.failed:
            text += f"; {len(self.failed)} failed"
        return text

    def toast(self, shown: int = 3) -> str:
        """What arrived and where, in one line: "31 new: 12 in KV cache, 9 in Speculative
        decoding, 10 in 4 other topics". Plain text holding topic names (data): shown as
        text, never as markup."""
        if not self.new:
            return self.line()
        parts = [f"{t.count} in {t.name}" for t in self.topics[:shown]]
        rest = self.topics[shown:]
        if rest:
            others = sum(t.count for t in rest)
            parts.append(f"{others} in {len(rest)} other {_plural(len(rest), 'topic', 'topics')}")
        text = f"{self.new} new"
        if parts:
            text += ": " + ", ".join(parts)
        if self.failed:
            text += f"; {len(self.failed)} {_plural(len(self.failed), 'feed', 'feeds')} failed"
        return text


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _feeds(n: int) -> str:
    return f"{n} {_plural(n, 'feed', 'feeds')}"


# --- one feed: what a fetch found, as the store keeps it -----------------------------------


def check_of(feed: Feed, fetched: Fetched, now: float) -> FeedCheck:
    """What ``fetched`` (a fetch of ``feed``) found: parsed and made into store entries
    when it is a 200. Pure work on bytes, no store: it can run in any thread or process."""
    v = fetched.validators
    if fetched.not_modified:
        return FeedCheck(
            now, True, moved_to=fetched.moved_to, etag=v.etag, last_modified=v.last_modified
        )
    if not fetched.ok:
        wait = fetched.retry_after
        return FeedCheck(
            now,
            False,
            error=fetched.error or f"HTTP {fetched.status}",
            gone=fetched.gone,
            retry_until=None if wait is None else now + min(max(wait, 0.0), MAX_RETRY_AFTER),
        )
    from topiclens.store.feed_parse import NotAFeed, parse_feed  # (not for a 304: it costs)

    try:
        parsed = parse_feed(fetched.body or b"", url=fetched.url, headers=fetched.headers)
    except NotAFeed as exc:
        return FeedCheck(now, False, error=not_a_feed(exc))
    except Exception as exc:  # a parser's bug on hostile bytes: this feed fails, alone
        return FeedCheck(now, False, error=f"cannot read the feed ({type(exc).__name__}: {exc})")
    return parsed_check(feed, fetched, parsed, now)


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parsed 200 of one feed: what to store, and each of its items' tokens."""

    check: FeedCheck
    tokens: list[bytes]  # each item's tokens (token_cache.encode) in item order, or none
    tokenizer: str  # the version of the tokenizer that made them
    bigrams: list[bytes] = field(default_factory=list)  # each item's bigram features, encoded


def parse_fetched(feed: Feed, fetched: Fetched, now: float) -> Parsed:
    """:func:`check_of` a 200, and the tokens and bigram features of its entries' texts:
    tokenizing is most of placing an entry, and made here it runs on every core while
    other feeds download (bigrams with the tokens: the text is folded once for both)."""
    from topiclens.clustering.token_cache import encode
    from topiclens.clustering.tokenize import default_tokenizer, tokenizer_version

    check = check_of(feed, fetched, now)
    try:
        tokenizer = default_tokenizer()
        made = [tokenizer.tokens_and_bigrams(it.entry.text()) for it in check.items]
        tokens = [encode(t) for t, _ in made]
        return Parsed(check, tokens, tokenizer_version(), [encode(b) for _, b in made])
    except Exception:  # a tokenizer's bug: the entries are stored, and tokenized when placed
        log.exception("tokenizing the entries of %s failed", fetched.url)
        return Parsed(check, [], "")


def parsed_check(feed: Feed, fetched: Fetched, parsed: ParsedFeed, now: float) -> FeedCheck:
    """What a 200 of ``feed`` found, its body parsed as ``parsed``."""
    source = feed.name or parsed.title or feed.title or feed.url
    scope = feed_scope(feed.id)
    # each content compressed and hashed here, in a parse worker, not in the process that
    # stores and places every feed's entries
    items = [
        with_stored(
            item(fe, scope=scope, feed_id=feed.id, source=source, origin=fetched.url, seen_at=now)
        )
        for fe in parsed.entries
    ]
    v = fetched.validators
    return FeedCheck(
        now,
        True,
        moved_to=fetched.moved_to,
        etag=v.etag,
        last_modified=v.last_modified,
        title=parsed.title or None,
        site_url=parsed.link,
        source=source if source != feed.display_name else None,
        items=items,
    )


def store_check(store: Store, feed: Feed, fetched: Fetched, check: FeedCheck) -> FeedResult:
    """Write ``check`` for ``feed`` in one transaction; the feed's result."""
    recorded = store.record_feed_check(feed.id, check)
    new, updated = recorded.written
    moved = check.moved_to if recorded.moved else None
    name = feed.name or check.title or feed.title or feed.url
    url = moved or feed.url
    if not check.worked:
        outcome = FAILED
    elif new or updated or moved:
        outcome = CHANGED
    else:
        outcome = NOT_MODIFIED if fetched.not_modified else UNCHANGED
    error = check.error
    if check.moved_to and not recorded.moved and check.worked:
        error = f"moved permanently to {check.moved_to}, which another feed has: kept its URL"
    return FeedResult(
        feed.id,
        name,
        url,
        outcome,
        fetched.status,
        len(new),
        len(updated),
        error,
        moved,
        check.retry_until,
        tuple(new),
    )


def skipped(feed: Feed, now: float) -> FeedResult | None:
    """The result of a feed a refresh does not fetch (gone, or waiting as its server
    asked), or None when it is to be fetched."""
    if feed.status == "gone":
        why = "gone (HTTP 410): not fetched until you add it again (topiclens feed add URL)"
        return FeedResult(feed.id, feed.display_name, feed.url, SKIPPED, error=why)
    if feed.retry_until is not None and feed.retry_until > now:
        until = time.strftime("%Y-%m-%d %H:%M", time.localtime(feed.retry_until))
        why = f"waiting until {until}, as its server asked (Retry-After)"
        return FeedResult(
            feed.id, feed.display_name, feed.url, SKIPPED, error=why, retry_until=feed.retry_until
        )
    return None


# --- a whole refresh -----------------------------------------------------------------------


def refresh(
    store: Store,
    feed_ids: Sequence[int] | None = None,
    *,
    feeds: Sequence[Feed] | None = None,
    limits: Limits | None = None,
    progress: ProgressCallback | None = None,
    place: bool = True,
    concurrency: int = 16,
    per_host: int = 4,
) -> RefreshSummary:
    """Fetch every subscribed feed (or those of ``feed_ids``, or ``feeds`` as given: the
    reader's due ones) concurrently, store each as it arrives, then place the new
    entries into their topics. Gone feeds and feeds waiting out a ``Retry-After`` are
    skipped. Never raises for a feed's problem: it is in its result (a :class:`StoreError`
    is the store's own). ``progress`` is called in the calling thread (the reader posts
    from it to its screen)."""
    started = time.perf_counter()
    now = time.time()
    chosen = list(feeds) if feeds is not None else store.feeds(feed_ids)
    summary = RefreshSummary()
    total = len(chosen)
    todo: list[Feed] = []
    for feed in chosen:
        result = skipped(feed, now)
        if result is None:
            todo.append(feed)
            continue
        summary.feeds.append(result)
        if progress:
            progress(RefreshProgress(len(summary.feeds), total, result))
    placing = _Placing(store) if place else None
    try:
        if todo:
            asyncio.run(
                _fetch_and_store(
                    store, todo, limits or Limits(), summary, progress, total, concurrency,
                    per_host, placing,
                )
            )  # fmt: skip
    finally:
        if placing:
            placing.join()
    new_ids = summary.new_ids
    if place and new_ids:
        if progress:
            progress(RefreshProgress(total, total, placing=True))
        if placing:
            placing.finish()
        place_new(store, summary)
    summary.seconds = time.perf_counter() - started
    return summary


async def _fetch_and_store(
    store: Store,
    feeds: list[Feed],
    limits: Limits,
    summary: RefreshSummary,
    progress: ProgressCallback | None,
    total: int,
    concurrency: int,
    per_host: int,
    placing: _Placing | None,
) -> None:
    """Fetch ``feeds``; each body is parsed by :class:`_Parsers` (downloads go on
    meanwhile) and stored as soon as it is parsed; a 304 or a failure is stored at once.
    Each feed's new entries go to ``placing``."""
    by_id = {f.id: f for f in feeds}
    jobs = [(f.id, f.url, Validators(f.etag, f.last_modified)) for f in feeds]
    pending: list[asyncio.Future[None]] = []
    with _Parsers(len(feeds)) as parsers:
        parsers.start_early(feeds)

        async def finish(feed: Feed, fetched: Fetched) -> None:
            now = time.time()
            parsed = await parsers.parse(feed, fetched, now) if fetched.ok else None
            check = parsed.check if parsed else check_of(feed, fetched, now)
            result = store_check(store, feed, fetched, check)
            tokens: dict[str, bytes] = {}
            bigrams: dict[str, bytes] = {}
            if parsed and parsed.tokens and result.new_ids:
                tokens, bigrams = _cache_tokens(store, parsed, result.new_ids)
            if placing and result.new_ids:
                placing.add(result.new_ids, bigrams, tokens)
            summary.feeds.append(result)
            if progress:
                progress(RefreshProgress(len(summary.feeds), total, result))

        async for feed_id, fetched in fetch_all(
            jobs, limits, concurrency=concurrency, per_host=per_host
        ):
            pending.append(asyncio.ensure_future(finish(by_id[feed_id], fetched)))
        await asyncio.gather(*pending)


def _cache_tokens(
    store: Store, parsed: Parsed, new_ids: Sequence[str]
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The tokens of a feed's new entries into the store's token cache, where placing
    them finds them. A cache, written after the feed's own transaction: an entry whose
    tokens are not there is tokenized when it is placed. Returns the new entries' token
    ids as cached, and their encoded bigram features (not cached), by id: kept in memory
    for placing them, which then reads neither from the store."""
    from topiclens.clustering.token_cache import decode
    from topiclens.clustering.tokenize import tokenizer_version

    new = set(new_ids)  # (storing set each new item's id, a taken one changed)
    rows = [
        (it.entry.id, "", parsed.tokenizer, decode(blob))
        for it, blob in zip(parsed.check.items, parsed.tokens, strict=True)
        if it.entry.id in new
    ]
    cached = store.put_tokens(rows) if rows else []
    tokens: dict[str, bytes] = {}
    if parsed.tokenizer == tokenizer_version():  # (the version placing reads the cache of)
        tokens = {row[0]: ids for row, ids in zip(rows, cached, strict=True)}
    bigrams = {
        it.entry.id: blob
        for it, blob in zip(parsed.check.items, parsed.bigrams, strict=True)
        if it.entry.id in new
    }
    return tokens, bigrams


# Parsing is most of a refresh's work (feedparser reads about 1.4 MB/s on one core here):
# a refresh of this many feeds parses on every core, in worker processes started on the
# first body to parse; fewer feeds (the reader's one, a few) parse in one thread.
PARALLEL_FEEDS = 8


def _worker_context() -> multiprocessing.context.BaseContext:
    """How parse workers start. Never by forking this process, which may have threads (a
    forked child can deadlock on a lock one of them held): from a fork server, a fresh
    process that imports what parsing needs and loads jieba's dictionary once
    (:mod:`.parse_preload`), each worker a fork of it (measured: 0.6 s of CPU less for a
    refresh with two workers than starting each fresh); where there is none, each fresh."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["topiclens.feeds.parse_preload"])
    return context


class _Parsers:
    """Where fetched bodies are parsed (:func:`parse_fetched`): a pool of processes for many
    feeds, else one thread; made on first use, so a refresh of 304s starts none, or at
    once for many feeds that cannot answer 304 (:meth:`start_early`)."""

    def __init__(self, feeds: int) -> None:
        self.processes = min(os.cpu_count() or 1, 4) if feeds >= PARALLEL_FEEDS else 1
        self._pool: Executor | None = None
        self._started: asyncio.Future[None] | None = None
        self._ready = threading.Event()  # set once _start has run, made the pool or not

    def __enter__(self) -> _Parsers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._started is not None:
            self._ready.wait()  # (a pool started early may be starting still)
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def _start(self) -> None:
        """Make the pool; for processes, start the first worker and wait until it runs."""
        try:
            if self.processes > 1:
                pool = ProcessPoolExecutor(self.processes, mp_context=_worker_context())
                self._pool = pool
                pool.submit(os.getpid).result()  # (a first task starts the first worker)
            else:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="topiclens-feed-parse")
        finally:
            self._ready.set()

    def start_early(self, feeds: Sequence[Feed]) -> None:
        """Start the worker processes now, while the first downloads run, when at least
        :data:`PARALLEL_FEEDS` of ``feeds`` have no validators: they cannot answer 304, so
        each brings a body to parse unless it fails (a first refresh after subscribing).
        Their start (about a second: the fork server imports the parser and loads
        jieba's dictionary) then runs beside the first downloads, not after them."""
        fresh = sum(1 for f in feeds if f.etag is None and f.last_modified is None)
        if self.processes > 1 and fresh >= PARALLEL_FEEDS and self._started is None:
            self._started = asyncio.get_running_loop().run_in_executor(None, self._start)

    async def parse(self, feed: Feed, fetched: Fetched, now: float) -> Parsed:
        loop = asyncio.get_running_loop()
        try:
            if self._started is None:
                # a fork server's first worker starts once the server has imported what
                # parsing needs (about a second): waited for in a thread, not on this
                # loop, so downloads go on meanwhile (measured: the loop stood still)
                self._started = loop.run_in_executor(None, self._start)
            await self._started
            assert self._pool is not None
            return await loop.run_in_executor(self._pool, parse_fetched, feed, fetched, now)
        except BrokenProcessPool as exc:  # a worker died (killed, out of memory)
            return Parsed(FeedCheck(now, False, error=f"the parser stopped ({exc})"), [], "")


# The fewest new entries placed in one batch during the downloads: each batch reads the
# saved model and writes one transaction.
PLACE_BATCH = 500


class _Placing:
    """Places new entries into their topics during the downloads, in a thread: it first
    imports what placing needs (numpy and scipy, not scikit-learn), then,
    whenever it is free, places the new entries stored since its last batch (at least
    :data:`PLACE_BATCH`), each batch through the existing placement
    (:func:`topiclens.clustering.pipeline.assign_new`, which places nothing in a store
    with no saved model yet), with the token ids and bigram features kept of each entry
    as it was stored, so it reads neither back from the store. :meth:`finish` places those
    still waiting at the end the same way, and :func:`place_new` whatever is left then, as
    it places everything when this places nothing."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._waiting: list[str] = []
        self._bigrams: dict[str, bytes] = {}  # of the waiting entries, when made already
        self._tokens: dict[str, bytes] = {}  # their token ids as cached, when cached
        self._models: SavedModels | None = None  # the saved model, read once
        self._blas: ThreadpoolController | None = None  # the BLAS libraries, found once
        self._closed = False
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(
        self,
        new_ids: Sequence[str],
        bigrams: Mapping[str, bytes],
        tokens: Mapping[str, bytes] | None = None,
    ) -> None:
        """New entries, stored with their tokens (and by id their bigram features when
        made already, and their token ids as cached): placed with the next batch."""
        with self._changed:
            self._waiting.extend(new_ids)
            self._bigrams.update(bigrams)
            self._tokens.update(tokens or {})
            self._changed.notify()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="topiclens-placing")
            self._thread.start()

    def join(self) -> None:
        """Wait for the batch being placed; the entries still waiting are left to
        :meth:`finish`."""
        with self._changed:
            self._closed = True
            self._changed.notify()
        if self._thread is not None:
            self._thread.join()

    def finish(self) -> None:
        """After :meth:`join`, in the calling thread: place the entries still waiting as
        a batch is placed, with what is kept of them and the model read already;
        :func:`place_new` then places whatever this could not."""
        if self._thread is None or self._models is None or not self._waiting:
            return
        self._place(self._models, self._waiting, self._bigrams, self._tokens)

    def _place(
        self,
        models: SavedModels,
        ids: list[str],
        bigrams: Mapping[str, bytes],
        tokens: Mapping[str, bytes],
    ) -> None:
        """Place one batch; a failure is logged, and :func:`place_new` places the batch
        again and says what is wrong."""
        from topiclens.clustering import pipeline

        try:
            with one_blas_thread(self._blas):
                pipeline.assign_new(self._store, ids, models, bigrams, tokens)
        except Exception:
            log.exception("placing new entries during the refresh failed")

    def _next_batch(self) -> tuple[list[str], dict[str, bytes], dict[str, bytes]] | None:
        with self._changed:
            self._changed.wait_for(lambda: self._closed or len(self._waiting) >= PLACE_BATCH)
            if self._closed:
                return None
            batch, self._waiting = self._waiting, []
            bigrams, self._bigrams = self._bigrams, {}
            tokens, self._tokens = self._tokens, {}
            return batch, bigrams, tokens

    def _run(self) -> None:
        try:
            import scipy.sparse  # noqa: F401  (what the features of new entries load)
            import topiclens.clustering.pipeline
            import topiclens.clustering.placing  # noqa: F401
            from threadpoolctl import ThreadpoolController
            from topiclens.clustering.saved import SavedModels

            self._blas = ThreadpoolController()  # (after numpy and scipy are loaded)
        except Exception:  # place_new imports them again, and says what is wrong
            log.exception("preloading the placing of new entries failed")
            return
        models = self._models = SavedModels()  # (the model read once, not once a batch)
        while (batch := self._next_batch()) is not None:
            self._place(models, *batch)


@contextlib.contextmanager
def one_blas_thread(controller: ThreadpoolController | None = None) -> Iterator[None]:
    """BLAS on one thread while new entries are placed: its products are a few hundred
    rows, and OpenBLAS's other threads spin between them on a core the parse workers need
    (measured: placing 10,000 entries in batches of 500 took 4.3 s of CPU, 2.0 s on one
    thread, with the same results to the bit). ``controller``: the BLAS libraries found
    once, for one who limits batch after batch (finding them took 0.6 ms each time)."""
    import numpy  # noqa: F401  (loads the BLAS library the limit applies to)
    from threadpoolctl import ThreadpoolController

    with (controller or ThreadpoolController()).limit(limits=1, user_api="blas"):
        yield


NO_TOPIC = "no topic yet"


def place_new(store: Store, summary: RefreshSummary) -> None:
    """Put every entry in no topic into its nearest topic (the saved model; a store never
    grouped is grouped once), then count in ``summary.topics`` where its new entries
    went, most first. A store the clustering cannot group yet (too little text) keeps
    them unplaced, saying why in ``summary.unplaced``."""
    from topiclens.clustering import ensure_topics

    # one BLAS thread for placing, but not for a store's first grouping (a fit, which uses
    # every core)
    placing = one_blas_thread() if store.topics() else contextlib.nullcontext()
    try:
        with placing:
            ensure_topics(store)
    except ValueError as exc:  # the clustering's refusal: the entries wait for the next
        summary.unplaced = f"not grouped into topics yet ({exc})"
    placed = store.assignments()
    names = {t.id: t.name for t in store.topics()}
    counts: dict[int | None, int] = {}
    for eid in summary.new_ids:
        tid = placed.get(eid)
        key = tid if tid in names else None
        counts[key] = counts.get(key, 0) + 1
    rows = [
        TopicCount(tid, names[tid] if tid is not None else NO_TOPIC, n) for tid, n in counts.items()
    ]
    rows.sort(key=lambda t: (-t.count, t.topic_id is None, t.name))
    summary.topics = rows
