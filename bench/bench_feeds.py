"""Refreshing feeds, measured on the real path, against a local HTTP server.

    python bench/bench_feeds.py                 # 200 feeds of 50 entries (about 66 KB each)
    python bench/bench_feeds.py --feeds 20      # a quicker look
    python bench/bench_feeds.py --keys-only     # only the key latency during a refresh
    python bench/bench_feeds.py --keys-only --key-rounds 1   # keys during one refresh

It writes N feeds (fixed seed; English WordPress-style RSS with content:encoded, Atom, and
Chinese RSSHub-style RSS, about AI infrastructure) into a temporary folder served by
``python -m http.server`` (which answers If-Modified-Since with 304), subscribes a store
holding the bundled corpus, already grouped into topics, to every feed, then times, each in
a fresh process measured from outside (interpreter start and imports included; the
modules compiled to bytecode first, as an installed package's are):

1. ``topiclens refresh``: fetch, parse, store every feed and place every new entry into
   its topic (the saved model, no re-cluster); its wall time and peak memory (ru_maxrss);
2. ``topiclens refresh`` again: every feed answers 304, nothing is parsed or stored;
3. where newsboat is installed, ``newsboat -x reload`` twice on the same URLs (its own
   temporary urls, config and cache; its default settings), and the ratios.

Targets (a 2-core machine): first refresh under 10 s and within 3x newsboat's first
reload; second under 1 s; peak memory under 300 MB; the reader's key latency during a
refresh (KEY LATENCY DURING A REFRESH below: the real reader, ctrl+r, topic switches and
cursor moves timed key to frame, over five refreshes) under 16.7 ms at the 95th percentile.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import html
import json
import os
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from email.utils import format_datetime
from pathlib import Path
from typing import TYPE_CHECKING

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))  # for key_timing, shared with bench_reader.py

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.worker import Worker

# --- the feeds: AI-infrastructure text in English and Chinese -------------------------------

TOPICS: dict[str, list[str]] = {
    "KV cache": [
        "Paged attention stores the KV cache in fixed-size blocks, so memory fragmentation "
        "stays under four percent even with thousands of concurrent sequences.",
        "Prefix caching lets requests that share a system prompt reuse the same KV blocks "
        "instead of recomputing the prefill for every user.",
        "Quantizing the KV cache to FP8 halves its footprint and lets the scheduler admit "
        "twice as many sequences before it has to preempt.",
        "Offloading cold KV blocks to host memory over PCIe keeps long-context sessions "
        "alive without evicting them from the batch.",
        "The eviction policy matters: LRU over blocks beats per-sequence eviction when "
        "many agents share long tool descriptions.",
    ],
    "Speculative decoding": [
        "A small draft model proposes several tokens that the target model verifies in one "
        "forward pass, cutting decode latency by two to three times.",
        "EAGLE drafts at the feature level and reaches acceptance rates above 0.8 on chat "
        "workloads, where n-gram drafting stalls.",
        "Tree attention verifies several candidate continuations at once, trading a little "
        "compute for a longer accepted prefix.",
        "Speculative decoding pays off at small batch sizes; at large batches the verifier "
        "is already compute bound and the gain vanishes.",
        "Medusa heads add extra decoding heads to the base model, so no separate draft "
        "model has to be served.",
    ],
    "Mixture of experts": [
        "Expert parallelism spreads the experts of an MoE layer across GPUs, and all-to-all "
        "communication becomes the bottleneck at scale.",
        "Load balancing losses keep the router from sending most tokens to a handful of "
        "experts during training.",
        "Grouped GEMM kernels run every expert's matrix multiply in one launch, which "
        "matters when each expert sees only a few tokens.",
        "DeepSeek-style fine-grained experts with shared experts reach dense-model quality "
        "at a fraction of the active parameters.",
    ],
    "GPU kernels": [
        "FlashAttention tiles the attention computation so the softmax never leaves shared "
        "memory, turning a memory-bound kernel into a compute-bound one.",
        "Writing the kernel in Triton took a day; matching cuBLAS on Hopper required warp "
        "specialization and TMA loads.",
        "A persistent megakernel fuses the whole decoder layer and removes launch overhead, "
        "which dominates at batch size one.",
        "Profiling with Nsight Compute showed the kernel stalled on long scoreboard "
        "dependencies, so we double-buffered the loads.",
    ],
    "Inference serving": [
        "Continuous batching admits new requests at every decoding step instead of waiting "
        "for the whole batch to finish.",
        "Disaggregated serving runs prefill and decode on separate GPU pools, so long "
        "prompts no longer stall token generation for everyone else.",
        "The router places requests by prefix affinity, which raised the cache hit rate "
        "from 30 to 70 percent in production.",
        "Chunked prefill splits long prompts into pieces that interleave with decode steps "
        "and keeps inter-token latency flat.",
    ],
    "Quantization": [
        "FP8 weights with per-channel scales keep accuracy within half a point on MMLU "
        "while doubling throughput on H100.",
        "AWQ protects the salient weight channels found from activation statistics before "
        "rounding the rest to four bits.",
        "Microscaling formats such as MXFP4 share one exponent per block of 32 values and "
        "are native on Blackwell tensor cores.",
    ],
    "Distributed training": [
        "Fully sharded data parallelism splits parameters, gradients and optimizer state "
        "across ranks and gathers each layer just in time.",
        "Pipeline parallelism with interleaved stages shrinks the bubble to a few percent "
        "on a 64-stage run.",
        "Checkpointing asynchronously to object storage let the job resume within minutes "
        "after a node failure instead of an hour.",
        "NCCL all-reduce over NVLink reaches 450 GB/s, but across nodes InfiniBand becomes "
        "the limit for tensor parallelism.",
    ],
}

LEADS = [
    "This post walks through",
    "We describe",
    "In this article we look at",
    "A deep dive into",
    "Lessons learned from",
    "Benchmarks and notes on",
]
ENGLISH_FEEDS = [
    "vLLM Blog",
    "PyTorch Blog",
    "Hugging Face Blog",
    "BAIR Blog",
    "SemiAnalysis",
    "NVIDIA Technical Blog",
    "LMSYS Blog",
    "Together AI Blog",
]
CHINESE_FEEDS = ["知乎专栏：大模型推理", "机器之心", "量子位", "InfoQ 中文", "美团技术团队"]


def chinese_sentences() -> list[str]:
    """The bundled corpus's Chinese summaries, cut into sentences: real AI-infrastructure
    Chinese to build the Chinese feeds from."""
    sys.path.insert(0, str(ROOT))
    from topiclens.store.importer import bundled_paths
    from topiclens.store.parsers import parse_file

    out = []
    for _, path in bundled_paths():
        for e in parse_file(path).entries:
            for part in (e.summary + e.comment).split("。"):
                if len(part) > 12:
                    out.append(part.strip() + "。")
    return out


def _paragraphs(rng: random.Random, topic: str, zh: list[str] | None, n: int) -> list[str]:
    if zh is not None:
        return ["".join(rng.sample(zh, 2)) for _ in range(n)]
    bank = TOPICS[topic]
    return [" ".join(rng.sample(bank, 2)) for _ in range(n)]


def _content_html(rng: random.Random, paragraphs: list[str], link: str) -> str:
    parts = [f"<p>{html.escape(p)}</p>" for p in paragraphs]
    parts.insert(1, f'<p>See <a href="{link}#details">the details</a> and the figure below.</p>')
    parts.append(
        "<pre><code>python -m vllm.entrypoints.openai.api_server \\\n"
        "  --model meta-llama/Llama-3.1-8B --enable-prefix-caching</code></pre>"
    )
    if rng.random() < 0.5:
        parts.append('<p><img src="/images/figure.png" alt="throughput by batch size"></p>')
    return "\n".join(parts)


def make_feed(n: int, entries: int, zh_bank: list[str], rng: random.Random) -> tuple[str, str]:
    """Feed ``n``: (file name, document). A third are Chinese RSS, the rest English RSS
    (WordPress style, content:encoded) or Atom (Jekyll style)."""
    zh = n % 3 == 2
    atom = not zh and n % 3 == 1
    pool = CHINESE_FEEDS if zh else ENGLISH_FEEDS
    title = f"{pool[n % len(pool)]} #{n}"
    site = f"https://blog{n}.example.org"
    start = _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC)
    items = []
    for k in range(entries):
        topic = rng.choice(list(TOPICS))
        paras = _paragraphs(rng, topic, zh_bank if zh else None, 2)
        when = start + _dt.timedelta(hours=7 * k + n)
        link = f"{site}/posts/{k}"
        if zh:
            head = paras[0][: rng.randint(14, 24)]
            etitle = head.rstrip("，。；：")
        else:
            etitle = f"{rng.choice(LEADS)} {topic.lower()}: part {k}"
        summary = paras[0][:240]
        content = _content_html(rng, paras, link)
        if atom:
            items.append(
                f"<entry><title>{html.escape(etitle)}</title>"
                f'<link href="{link}"/><id>{link}</id>'
                f"<updated>{when.isoformat()}</updated>"
                f"<summary>{html.escape(summary)}</summary>"
                f'<content type="html">{html.escape(content)}</content></entry>'
            )
        else:
            items.append(
                f"<item><title>{html.escape(etitle)}</title><link>{link}</link>"
                f'<guid isPermaLink="true">{link}</guid>'
                f"<pubDate>{format_datetime(when)}</pubDate>"
                f"<description>{html.escape(summary)}</description>"
                f"<content:encoded><![CDATA[{content}]]></content:encoded></item>"
            )
    body = "\n".join(items)
    if atom:
        doc = (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            f'<feed xmlns="http://www.w3.org/2005/Atom"><title>{html.escape(title)}</title>'
            f'<link href="{site}/"/><id>{site}/</id><updated>{start.isoformat()}</updated>\n'
            f"{body}\n</feed>\n"
        )
        return f"feed{n}.atom", doc
    doc = (
        '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>'
        f"<title>{html.escape(title)}</title><link>{site}/</link>"
        f"<description>{html.escape(title)}</description>\n{body}\n</channel></rss>\n"
    )
    return f"feed{n}.xml", doc


def write_feeds(folder: Path, count: int, entries: int) -> list[str]:
    rng = random.Random(18)
    zh_bank = chinese_sentences()
    names = []
    for n in range(count):
        name, doc = make_feed(n, entries, zh_bank, rng)
        (folder / name).write_text(doc, encoding="utf-8")
        names.append(name)
    return names


# --- the server and the measured runs ------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(folder: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
         "--directory", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return server, port
        except OSError:
            time.sleep(0.05)
    server.kill()
    raise SystemExit("the local HTTP server did not start")


def _hwm_kb(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM), 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid: int) -> float | None:
    """The process's own CPU seconds so far (user + system, its threads included, not its
    children's), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, ValueError, IndexError):
        return None


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started, from any of its threads (each lists its own)."""
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in threads:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found.extend(int(p) for p in f.read().split())
        except (OSError, ValueError):
            continue
    return found


@dataclass
class Run:
    seconds: float
    cpu: float  # user + system CPU seconds of the process and of every process under it
    own_cpu: float  # the part of ``cpu`` that is the process's own
    load: float  # the machine's load average (1 minute) when it started
    main_mb: float  # peak RSS of the process run
    worker_mb: float  # peak RSS of the largest process it started (0: none)
    status: int
    output: str

    def said(self) -> str:
        """The line of its output that sums it up."""
        lines = self.output.strip().splitlines()
        return next((x for x in lines if "new entr" in x), lines[-1] if lines else "")


def timed(cmd: list[str], env: dict[str, str] | None = None) -> Run:
    """Run ``cmd`` in a fresh process: its wall time, its CPU time and that of every
    process under it, and the peak RSS of it and of the largest process under it, each
    read every 10 ms from /proc until it ends (VmHWM; CPU as last read, so each process's
    last 10 ms may be missed). (ru_maxrss of a child is no good here: Linux carries the
    parent's peak into it; nor is the CPU time wait4 gives: it leaves out processes the
    command did not wait for, such as the workers of a fork server.)"""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    peaks: dict[int, int] = {}
    cpus: dict[int, float] = {}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            tree = [proc.pid]
            for pid in tree:
                tree.extend(_children(pid))
            for pid in tree:
                peaks[pid] = max(peaks.get(pid, 0), _hwm_kb(pid))
                cpus[pid] = max(cpus.get(pid, 0.0), _cpu_of(pid) or 0.0)
            time.sleep(0.01)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    assert proc.stdout is not None
    output = proc.stdout.read().decode("utf-8", "replace")
    _, status, _ = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    watcher.join()
    main = peaks.pop(proc.pid, 0) / 1024
    # every process as last read (the command's own time from wait4 would count again
    # the workers it waited for)
    cpu = sum(cpus.values())
    worker = max(peaks.values(), default=0) / 1024
    return Run(seconds, cpu, cpus.get(proc.pid, 0.0), load, main, worker, proc.returncode, output)


def prepare_store(home: Path, urls: list[str]) -> None:
    """The bundled corpus grouped into topics (as after the reader's first start) and
    every feed subscribed; not timed."""
    from topiclens.clustering import cluster_store
    from topiclens.store import Store
    from topiclens.store.importer import import_bundled

    with Store.open_dir(home) as store:
        import_bundled(store)
        cluster_store(store)
        for url in urls:  # as an OPML import subscribes: nothing fetched yet
            store.add_feed(url)


# What a refresh imports: compiled once before the timed runs, as an installed package is
# (this environment may set PYTHONDONTWRITEBYTECODE, which would time the compiler instead).
WARM = (
    "import topiclens.cli.feed_commands, topiclens.feeds.refresh, topiclens.store.feed_parse, "
    "topiclens.clustering.pipeline, topiclens.clustering.estimator, "
    "topiclens.clustering.token_cache"
)


def topiclens_runs(home: Path) -> list[Run]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", WARM], check=True, env=env)
    cmd = [sys.executable, "-m", "topiclens", "--data-dir", str(home), "refresh"]
    return [timed(cmd, env), timed(cmd, env)]


def newsboat_runs(work: Path, urls: list[str]) -> list[Run] | None:
    newsboat = shutil.which("newsboat")
    if newsboat is None:
        return None
    (work / "urls").write_text("\n".join(urls) + "\n", encoding="utf-8")
    (work / "config").write_text("", encoding="utf-8")
    cmd = [newsboat, "-u", str(work / "urls"), "-c", str(work / "cache.db"),
           "-C", str(work / "config"), "-x", "reload"]  # fmt: skip
    env = dict(os.environ, HOME=str(work))
    return [timed(cmd, env), timed(cmd, env)]


def _counts(store_home: Path) -> tuple[int, int]:
    from topiclens.store import Store

    with Store.open_dir(store_home) as store:
        feeds = store.feeds()
        unplaced = store.count_unassigned()
        return sum(f.entries for f in feeds), unplaced


def _version(cmd: list[str]) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except OSError:
        return "?"
    return (done.stdout or done.stderr).splitlines()[0] if (done.stdout or done.stderr) else "?"


# --- KEY LATENCY DURING A REFRESH ----------------------------------------------------------
# The real reader, headless at 120x34 on a copy of the store before its first refresh:
# ctrl+r starts the refresh of every feed (from this bench's server), and while its worker
# runs, topic switches (j and k in the topic list) are timed key by key as
# bench/bench_reader.py times them (bench/key_timing.py): from sending the key until every
# message it caused is handled, every other worker is done and the frame is composited.
# The refresh's own worker is the one not waited for: it is what the keys run beside.

KEY_TARGET_MS = 16.7


# "switch" (j/k in the topics), "move" (j/k in the entries): each key's (wall ms, CPU ms of
# the reader's process, its threads included)
Times = dict[str, list[tuple[float, float]]]


async def keys_during_refresh(home: Path, idle_keys: int = 40) -> tuple[Times, Times, int, str]:
    """Key-to-frame times of topic switches and cursor moves: first with the reader idle,
    then while it refreshes every feed; with how many came while new entries were being
    placed, and what the refresh said."""
    from key_timing import headless_reader, key_to_frame
    from topiclens.store import Store
    from topiclens.tui.widgets import KeyFooter
    from topiclens.tui.workers import FEEDS

    with Store.open_dir(home) as store:
        async with headless_reader(store, poll_interval=2.0) as (pilot, screen):
            app = pilot.app
            topics = screen.topics
            state = {"topic": 0, "step": 1, "row": 0, "row_step": 1}

            def showing(index: int) -> Callable[[], bool]:
                tid = topics[index].id
                return lambda: (
                    screen.state.view is not None
                    and screen.state.view.topic_id == tid
                    and screen.detail is not None
                    and screen.entry_list.cursor is not None
                    and screen.entry_list.cursor < len(screen.entry_list.rows)
                    # the entry under the cursor: its first, unless new entries came above
                    and screen.detail.entry.id
                    == screen.entry_list.rows[screen.entry_list.cursor][0]
                )

            def at(index: int, shown: str) -> Callable[[], bool]:
                """The cursor on row ``index`` and its entry shown; or, when new entries
                arrived above it during the key (the cursor keeps to its entry, so its
                row changes), any other entry under the cursor shown."""

                def reached() -> bool:
                    cursor, rows = screen.entry_list.cursor, screen.entry_list.rows
                    if cursor is None or screen.detail is None or cursor >= len(rows):
                        return False
                    moved = cursor == index or rows[0][0] != shown
                    return moved and screen.detail.entry.id == rows[cursor][0]

                return reached

            async def switch(refresh: Worker[object] | None) -> tuple[float, float]:
                if not 0 <= state["topic"] + state["step"] < len(topics):
                    state["step"] = -state["step"]
                state["topic"] += state["step"]
                key = "j" if state["step"] > 0 else "k"
                besides = [refresh] if refresh else []
                return await key_to_frame(pilot, key, showing(state["topic"]), besides)

            async def move(refresh: Worker[object] | None) -> tuple[float, float]:
                rows = len(screen.entry_list.rows)
                if not 0 <= state["row"] + state["row_step"] < min(rows, 8):
                    state["row_step"] = -state["row_step"]
                state["row"] += state["row_step"]
                key = "j" if state["row_step"] > 0 else "k"
                besides = [refresh] if refresh else []
                first = screen.entry_list.rows[0][0]
                sample = await key_to_frame(pilot, key, at(state["row"], first), besides)
                state["row"] = screen.entry_list.cursor or 0  # where it is now
                return sample

            async def round_of_keys(times: Times, refresh: Worker[object] | None) -> None:
                """A topic switch, then six cursor moves in its entries (h and l, which
                move the focus, untimed); during a refresh, only while it runs (its end
                reads the store again, moving the cursor with its entry mid-round)."""

                def over() -> bool:
                    return refresh is not None and refresh.is_finished

                if over():
                    return
                times["switch"].append(await switch(refresh))
                await pilot.press("l")
                state["row"], state["row_step"] = screen.entry_list.cursor or 0, 1
                for _ in range(6):
                    if over():
                        break
                    times["move"].append(await move(refresh))
                await pilot.press("h")

            idle: Times = {"switch": [], "move": []}
            for _ in range(idle_keys // 7 + 1):
                await round_of_keys(idle, None)
            await pilot.press("ctrl+r")
            refresh = next((w for w in app.workers if w.group == FEEDS), None)
            if refresh is None:
                raise SystemExit(f"no refresh running: {[n.message for n in app._notifications]}")
            busy: Times = {"switch": [], "move": []}
            placing = 0
            while not refresh.is_finished:
                await round_of_keys(busy, refresh)
                # (the code before had no footer progress: run against it, none is seen)
                progress = getattr(screen.query_one(KeyFooter), "progress", None)
                if progress and "Placing" in progress[0]:
                    placing += 7
                await asyncio.sleep(0.05)  # a person's pace is slower; this is a burst
            await refresh.wait()
            await pilot.pause()
            said = [str(n.message) for n in app._notifications if n.title == "Feeds"]
    return idle, busy, placing, (said[-1] if said else "")


def _stats(times: list[float]) -> tuple[float, float, float]:
    from key_timing import p95

    ordered = sorted(times)
    return ordered[len(ordered) // 2], p95(ordered), ordered[-1]


def key_latency(home: Path, rounds: int = 1) -> None:
    """The keys of :func:`keys_during_refresh`, ``rounds`` times (each in a process of its
    own, on a fresh copy of ``home``, the store before its first refresh), printed
    together: a refresh sees 20 to 30 topic switches, whose p95 is their second slowest."""
    load = os.getloadavg()[0]
    idle: Times = {"switch": [], "move": []}
    busy: Times = {"switch": [], "move": []}
    placing, said, switch_p95s = 0, "", []
    for n in range(rounds):
        copy = home.with_name(f"{home.name}-round-{n}")
        shutil.copytree(home, copy)
        try:
            # each refresh in a reader of its own process, as a user's first refresh after
            # the reader starts: nothing kept in memory from an earlier round
            out = subprocess.run(
                [sys.executable, __file__, "--keys-round", str(copy)],
                capture_output=True,
                text=True,
            )
            if out.returncode:
                raise SystemExit(out.stderr.strip()[-800:] or out.stdout.strip()[-800:])
            one_idle, one_busy, one_placing, said = json.loads(out.stdout.splitlines()[-1])
        finally:
            shutil.rmtree(copy, ignore_errors=True)
        for kind in idle:
            idle[kind] += one_idle[kind]
            busy[kind] += one_busy[kind]
        placing += one_placing
        if one_busy["switch"]:
            switch_p95s.append(_stats([wall for wall, _ in one_busy["switch"]])[1])
    print(
        f"key to frame in the reader, idle then during a refresh of every feed (ctrl+r; "
        f"{rounds} {'refresh' if rounds == 1 else 'refreshes, their keys together'}; "
        f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after; target p95 < "
        f"{KEY_TARGET_MS} ms during the refresh; a key's CPU time is the reader's, its "
        "threads included: what the key costs on a core to spare):"
    )
    for kind, label in (("move", "cursor move (j/k in entries)"), ("switch", "topic switch")):
        for when, samples in (("idle", idle[kind]), ("refreshing", busy[kind])):
            if not samples:
                print(f"  {label:<30} {when:<10} no key: the refresh ended first")
                continue
            median, p95, worst = _stats([wall for wall, _ in samples])
            cpu_median, cpu_p95, _ = _stats([cpu for _, cpu in samples])
            verdict = "" if when == "idle" else ("  ok" if p95 < KEY_TARGET_MS else "  SLOW")
            print(
                f"  {label:<30} {when:<10} median {median:5.1f} p95 {p95:5.1f} worst "
                f"{worst:6.1f} ms | CPU median {cpu_median:4.1f} p95 {cpu_p95:4.1f} ms "
                f"({len(samples)} keys){verdict}"
            )
    every = [wall for wall, _ in busy["move"] + busy["switch"]]
    if every:
        print(f"  every key during the refresh: p95 {_stats(every)[1]:.1f} ms ({len(every)} "
              f"keys, about {placing} while new entries were being placed)")  # fmt: skip
    if rounds > 1:
        each = ", ".join(f"{p:.1f}" for p in switch_p95s)
        print(f"  topic switches during each refresh alone: p95 {each} ms")
    print(f"    the reader's toast: {said}")


# --- where the time goes --------------------------------------------------------------------


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def phases(home: str) -> None:
    """In this process: a first refresh of ``home`` in its two parts, each with its wall
    time and CPU time (this process's, and its worker processes'), and the load average:
    until every feed is stored (new entries are placed in batches meanwhile), then the
    placing of what is left."""
    from topiclens.feeds.refresh import RefreshProgress, refresh
    from topiclens.store import Store

    me = resource.RUSAGE_SELF
    marks: list[tuple[float, float, float]] = []
    # the parse workers' CPU, read from /proc: they may be a fork server's children, which
    # this process never waits for (so RUSAGE_CHILDREN would not count them)
    workers: dict[int, float] = {}
    watching = [0.0]  # the watcher's own CPU, not the refresh's
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            tree = _children(os.getpid())
            for pid in tree:
                tree.extend(_children(pid))
            for pid in tree:
                workers[pid] = max(workers.get(pid, 0.0), _cpu_of(pid) or 0.0)
            watching[0] = time.thread_time()
            time.sleep(0.01)

    def here() -> float:
        return _cpu(me) - watching[0]

    def seen(step: RefreshProgress) -> None:
        if step.placing:
            marks.append((time.perf_counter(), here(), sum(workers.values())))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    with Store.open_dir(home) as store:
        t0, c0, k0 = time.perf_counter(), here(), 0.0
        summary = refresh(store, progress=seen)
        t2, c2, k2 = time.perf_counter(), here(), sum(workers.values())
    done.set()
    watcher.join()
    t1, c1, k1 = marks[0] if marks else (t2, c2, k2)
    print(f"  (load average {os.getloadavg()[0]:.1f} at the end)")
    print(f"  fetch, parse and tokenize, store, and place in batches meanwhile: {t1 - t0:6.2f} s "
          f"wall, CPU {c1 - c0:.2f} s here + {k1 - k0:.2f} s in parse workers")  # fmt: skip
    print(f"  then place what is left of the {len(summary.new_ids)} new entries: {t2 - t1:6.2f} s "
          f"wall, CPU {c2 - c1:.2f} s")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--feeds", type=int, default=200)
    parser.add_argument("--entries", type=int, default=50)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument(
        "--keys-only", action="store_true", help="only the key latency during a refresh"
    )
    parser.add_argument(
        "--key-rounds",
        type=int,
        # one refresh sees 20 to 30 topic switches, whose p95 is the second slowest
        default=5,
        help="refreshes to time keys during, their keys taken together (default 5)",
    )
    parser.add_argument("--phases", metavar="STORE", help=argparse.SUPPRESS)  # (internal)
    parser.add_argument("--keys-round", metavar="STORE", help=argparse.SUPPRESS)  # (internal)
    args = parser.parse_args()
    if args.phases:
        phases(args.phases)
        return 0
    if args.keys_round:  # one round of key_latency's, printed as JSON on the last line
        print(json.dumps(asyncio.run(keys_during_refresh(Path(args.keys_round)))))
        return 0
    work = Path(tempfile.mkdtemp(prefix="topiclens-bench-feeds-"))
    server = None
    try:
        site = work / "site"
        site.mkdir()
        names = write_feeds(site, args.feeds, args.entries)
        sizes = [(site / n).stat().st_size for n in names]
        server, port = serve(site)
        urls = [f"http://127.0.0.1:{port}/{n}" for n in names]
        home = work / "store"
        prepare_store(home, urls)
        shutil.copytree(home, work / "store-for-phases")
        shutil.copytree(home, work / "store-for-keys")
        if args.keys_only:
            key_latency(work / "store-for-keys", args.key_rounds)
            return 0
        print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
        average = sum(sizes) / len(sizes) / 1024
        print(f"feeds: {len(names)} of {args.entries} entries, {average:.1f} KB each on average "
              f"({sum(sizes) / 1e6:.1f} MB), served by python -m http.server")  # fmt: skip
        print(
            "store: the bundled corpus grouped into topics; new entries join them (no re-cluster)"
        )
        first, second = topiclens_runs(home)
        stored, unplaced = _counts(home)
        for label, run in (("first", first), ("second", second)):
            print(f"topiclens refresh, {label}: {run.seconds:6.2f} s (CPU {run.cpu:.2f} s, load "
                  f"{run.load:.1f})  peak {run.main_mb:6.1f} MB (largest worker "
                  f"{run.worker_mb:.1f} MB)  exit {run.status}")  # fmt: skip
            print(f"    says: {run.said()}")
        print(f"    {stored} entries from the feeds stored, {unplaced} entries in no topic")
        peak = max(first.main_mb, second.main_mb)
        print(f"peak memory of a refresh: {peak:.1f} MB (target < 300 MB)")
        print(f"targets: first < 10 s: {'yes' if first.seconds < 10 else 'NO'}; "
              f"second < 1 s: {'yes' if second.seconds < 1 else 'NO'}")  # fmt: skip
        nb_work = work / "newsboat"
        nb_work.mkdir()
        nb = newsboat_runs(nb_work, urls)
        if nb is None:
            print("newsboat: not installed (apt-get install newsboat), no comparison")
        else:
            print(_version(["newsboat", "--version"]))
            for label, run in zip(("first", "second"), nb, strict=True):
                print(f"newsboat -x reload, {label}: {run.seconds:6.2f} s (CPU {run.cpu:.2f} s, "
                      f"load {run.load:.1f})  peak {run.main_mb:6.1f} MB  exit "
                      f"{run.status}")  # fmt: skip
            print(f"ratio topiclens / newsboat: first {first.seconds / nb[0].seconds:.2f}x "
                  f"(target <= 3x), second {second.seconds / nb[1].seconds:.2f}x")  # fmt: skip
        print("where a first refresh's time goes (again, in one process, measured inside):")
        out = subprocess.run(
            [sys.executable, __file__, "--phases", str(work / "store-for-phases")],
            capture_output=True,
            text=True,
            env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        )
        print(out.stdout.rstrip() or out.stderr.strip()[-400:])
        key_latency(work / "store-for-keys", args.key_rounds)
        return 0
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
