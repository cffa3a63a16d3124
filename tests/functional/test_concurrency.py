"""Two processes at once: imports side by side, bookmarks toggled from two processes, a
reader reading while an import or a re-cluster writes. Every process is a real one
(the command line, or tests/workers/act.py on the public Store API); no "database is
locked" reaches anyone, no write is lost, and the end state is what the operations imply."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from helpers import ACT, write_digest
from topiclens.store import Store
from topiclens.store.importer import import_file

TIMEOUT = 120
ROUNDS = 60

pytestmark = pytest.mark.xdist_group("processes")


def act(*args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(ACT), *map(str, args)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def topiclens(data_dir: Path, *args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "topiclens", "--data-dir", str(data_dir), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> str:
    """Wait for a process; it must succeed and say nothing on stderr (no lock errors)."""
    out, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, err
    assert err == "", err
    return out


def started(*procs: subprocess.Popen[str]) -> None:
    """Wait until every process has its store open, then let them all go at once."""
    for proc in procs:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()


def seed(data_dir: Path, tmp_path: Path, n: int) -> None:
    with Store.open_dir(data_dir) as store:
        assert import_file(store, write_digest(tmp_path / "seed.txt", n, tag="Seed")).new == n


_REPORT = re.compile(r"^(\S+): (\d+) new, (\d+) already known, (\d+) rejected$", re.M)


@pytest.mark.slow
def test_imports_at_once_into_a_fresh_store(tmp_path: Path):
    """Four imports start together on a data directory that does not exist yet: one
    creates the store, the others wait for it; overlapping entries land once."""
    home = tmp_path / "d"
    a = write_digest(tmp_path / "a.txt", 2000, start=0)
    b = write_digest(tmp_path / "b.txt", 2000, start=1500)
    c = write_digest(tmp_path / "c.txt", 2000, start=3000)
    procs = [topiclens(home, "import", path) for path in (a, b, c, a)]
    reports = [_REPORT.findall(finish(p)) for p in procs]
    assert all(len(r) == 1 for r in reports), reports
    new = sum(int(r[0][1]) for r in reports)
    known = sum(int(r[0][2]) for r in reports)
    assert (new, known) == (5000, 3000)
    with Store.open_dir(home) as store:
        assert store.count_entries() == 5000
        assert store.query("PRAGMA integrity_check")[0][0] == "ok"


def _check_toggles(lines: list[str], store: Store) -> None:
    """Toggles of one entry, however interleaved, alternate on, off, on…: so each entry
    is bookmarked iff it was toggled an odd number of times, and it was turned on
    ceil(T/2) times. A lost or stale write breaks one of the two."""
    toggles: Counter[str] = Counter()
    turned_on: Counter[str] = Counter()
    for line in lines:
        eid, state = line.split()
        toggles[eid] += 1
        turned_on[eid] += int(state)
    assert store.bookmark_ids() == {eid for eid, t in toggles.items() if t % 2}
    assert all(turned_on[eid] == (t + 1) // 2 for eid, t in toggles.items()), turned_on


def _repeats(lines: list[str]) -> int:
    last: dict[str, str] = {}
    repeats = 0
    for line in lines:
        eid, state = line.split()
        repeats += last.get(eid) == state
        last[eid] = state
    return repeats


@pytest.mark.slow
def test_two_processes_toggle_bookmarks_a_thousand_times(data_dir: Path, tmp_path: Path):
    seed(data_dir, tmp_path, 20)
    # one walks 7 entries, the other 3: three entries are toggled by both
    one, two = act("toggle", data_dir, 1000, 7), act("toggle", data_dir, 1000, 3)
    started(one, two)
    per_process = [finish(one).splitlines(), finish(two).splitlines()]
    lines = per_process[0] + per_process[1]
    assert len(lines) == 2000
    # they really took turns: a process that toggled an entry twice in a row saw the
    # same state twice, because the other one toggled it in between
    assert sum(_repeats(out) for out in per_process) > 0
    with Store.open_dir(data_dir) as store:
        _check_toggles(lines, store)
        # 1000 = 7 * 142 + 6 and 1000 = 3 * 333 + 1: worked out by hand, as a cross-check
        ids = sorted(e.id for e in store.entries())
        counts = [143 + 334, 143 + 333, 143 + 333, 143, 143, 143, 142]
        assert store.bookmark_ids() == {ids[i] for i, t in enumerate(counts) if t % 2}


def _watch(data_dir: Path, stop: Path) -> subprocess.Popen[str]:
    watcher = act("watch", data_dir, stop)
    assert watcher.stdout is not None
    assert watcher.stdout.readline().startswith("snap ")  # it is reading before we write
    return watcher


def _snapshots(out: str) -> tuple[list[tuple[int, ...]], int]:
    snaps = [tuple(map(int, ln.split()[1:])) for ln in out.splitlines() if ln.startswith("snap")]
    changes = int(out.splitlines()[-1].split()[1])
    return snaps, changes


@pytest.mark.slow
def test_reader_open_while_two_imports_run(data_dir: Path, tmp_path: Path):
    seed(data_dir, tmp_path, 100)
    stop = tmp_path / "stop"
    watcher = _watch(data_dir, stop)
    a = write_digest(tmp_path / "a.txt", 1500, start=10_000)
    b = write_digest(tmp_path / "b.txt", 2500, start=20_000)
    imports = [topiclens(data_dir, "import", a), topiclens(data_dir, "import", b)]
    for proc in imports:
        assert "0 already known, 0 rejected" in finish(proc)
    stop.touch()
    snaps, changes = _snapshots(finish(watcher))
    # the reader saw each import whole or not at all, and noticed them without reopening
    assert {s[0] for s in snaps} <= {100, 1600, 2600, 4100}
    assert snaps[-1][0] == 4100
    assert changes >= 1


@pytest.mark.slow
def test_reader_and_bookmarks_while_a_recluster_runs(data_dir: Path, tmp_path: Path):
    seed(data_dir, tmp_path, 300)
    stop = tmp_path / "stop"
    watcher = _watch(data_dir, stop)
    recluster = act("recluster", data_dir, ROUNDS, 5)
    toggler = act("toggle", data_dir, 300, 11)
    started(recluster, toggler)
    rounds = finish(recluster).split()
    toggles = finish(toggler).splitlines()
    stop.touch()
    snaps, changes = _snapshots(finish(watcher))
    assert rounds == [str(g) for g in range(ROUNDS)]
    # every snapshot holds one whole clustering result: all 300 entries assigned, the
    # topic sizes adding up, every topic name from one round; never a half-written one
    assert all(s[1] in (0, 300) and s[2] == s[1] and s[3] == (s[1] > 0) for s in snaps), [
        s for s in snaps if not (s[1] in (0, 300) and s[2] == s[1])
    ]
    assert snaps[-1][1] == 300 and changes >= 1
    # it read while the rounds were being written, not just before and after
    assert len({s[5] for s in snaps}) >= 3, {s[5] for s in snaps}
    with Store.open_dir(data_dir) as store:
        assert {t.name for t in store.topics()} == {f"g{ROUNDS - 1}-t{t}" for t in range(1, 6)}
        assert sum(t.size for t in store.topics()) == 300
        _check_toggles(toggles, store)
        assert store.query("PRAGMA integrity_check")[0][0] == "ok"


def test_a_writer_waits_for_a_lock_and_says_so_when_it_is_held_too_long(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Another process holding the write lock: a write waits for it; past the timeout it
    fails with a message saying what to do, nothing written, the store still usable."""
    import sqlite3
    import threading

    import topiclens.store.db as db
    import topiclens.store.errors as errors

    seed(data_dir, tmp_path, 5)
    monkeypatch.setattr(errors, "BUSY_TIMEOUT_MS", 300)
    monkeypatch.setattr(errors, "RETRY_SECONDS", 0.3)
    holder = sqlite3.connect(
        data_dir / db.STORE_FILENAME, isolation_level=None, check_same_thread=False
    )
    with Store.open_dir(data_dir) as store:
        eid = store.entries()[0].id
        holder.execute("BEGIN IMMEDIATE")
        release = threading.Timer(0.1, lambda: holder.execute("COMMIT"))
        release.start()
        store.set_bookmark(eid, True)  # waits the 0.1 s out
        release.join()
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(db.StoreError, match=r"kept the store locked .* try again"):
            store.set_bookmark(eid, False)
        holder.execute("ROLLBACK")
        assert store.bookmark_ids() == {eid}
        store.set_bookmark(eid, False)
        assert store.bookmark_ids() == set()
    holder.close()


def test_new_assignments_to_a_topic_replaced_meanwhile(tmp_path: Path):
    """An import placing new entries in topics that a re-cluster (another connection)
    replaced since: no FOREIGN KEY error; the rows whose topic exists are written and the
    others come back for the caller to place again."""
    from topiclens.store import Topic

    data_dir = tmp_path / "d"
    with Store.open_dir(data_dir) as store, Store.open_dir(data_dir) as other:
        import_file(store, write_digest(tmp_path / "a.txt", 6))
        ids = [e.id for e in store.entries()]
        old = {i: (1 if n < 3 else 2, 0.5, []) for n, i in enumerate(ids[:4])}
        store.replace_topics([Topic(1, "One", [], 3), Topic(2, "Two", [], 1)], old)
        # the other process re-clusters: topic 1 is gone, topic 3 is new
        other.replace_topics(
            [Topic(2, "Two", [], 2), Topic(3, "Three", [], 2)],
            {i: (3 if n < 2 else 2, 0.5, []) for n, i in enumerate(ids[:4])},
        )
        # this one still places the new entries by what it read before
        missed = store.add_assignments({ids[4]: (1, 0.9, ["x"]), ids[5]: (2, 0.8, [])})
        assert missed == [ids[4]]
        assert store.assignments() == {
            ids[0]: 3, ids[1]: 3, ids[2]: 2, ids[3]: 2, ids[5]: 2
        }  # fmt: skip
        assert {t.id: t.size for t in store.topics()} == {2: 3, 3: 2}
        assert ids[5] in [r[0] for r in store.topic_rows(2)]
        assert store.unassigned_ids() == [ids[4]]
        assert store.add_assignments({ids[4]: (3, 0.7, [])}) == []
        assert store.unassigned_ids() == []
