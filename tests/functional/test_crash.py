"""Crashes: a process killed with SIGKILL in the middle of an import, of a burst of
bookmark writes, of a re-cluster. Afterwards the store passes ``PRAGMA integrity_check``,
every write that had returned is there, nothing of the interrupted one is, and the
interrupted import simply runs again."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ACT, dump_store, integrity, write_digest
from topiclens.store import Store
from topiclens.store.db import STORE_FILENAME
from topiclens.store.importer import import_file

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("processes")]


def spawn(*args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, *map(str, args)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill(proc: subprocess.Popen[str]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL


@pytest.fixture
def store_path(data_dir: Path, tmp_path: Path) -> Path:
    """A store with 200 entries, three bookmarks (one with a note) and a read mark."""
    with Store.open_dir(data_dir) as store:
        import_file(store, write_digest(tmp_path / "seed.txt", 200, tag="Seed"))
        ids = sorted(e.id for e in store.entries())
        store.set_note(ids[0], "mine")
        store.set_bookmark(ids[1], True)
        store.set_bookmark(ids[2], True)
        store.set_read(ids[3])
        return store.path


def test_killed_inside_the_import_transaction(data_dir: Path, store_path: Path, tmp_path: Path):
    before = dump_store(store_path)
    big = write_digest(tmp_path / "big.txt", 8000, start=1000)
    wal = store_path.with_name(STORE_FILENAME + "-wal")
    wal_before = wal.stat().st_size if wal.exists() else 0
    proc = spawn(ACT, "hold-import", data_dir, big, 7000)
    assert proc.stdout is not None
    assert proc.stdout.readline() == "inside 7000\n"
    # 6,300 rows are written, not committed; hundreds of KB of their pages have spilled
    # from the cache into the WAL: the killed transaction left real bytes on disk
    assert wal.stat().st_size > wal_before + 200_000
    kill(proc)
    assert integrity(store_path) == "ok"
    assert dump_store(store_path) == before
    # the same import simply runs again, whole
    status = subprocess.run(
        [sys.executable, "-m", "topiclens", "--data-dir", str(data_dir), "import", str(big)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert status.returncode == 0, status.stderr
    assert "8000 new, 0 already known, 0 rejected" in status.stdout
    assert integrity(store_path) == "ok"
    with Store(store_path) as store:
        assert store.count_entries() == 8200


_REPORT = re.compile(r"^\S+: 1500 new, 0 already known, 0 rejected$")


def test_killed_in_the_middle_of_a_cli_import(data_dir: Path, store_path: Path, tmp_path: Path):
    """The real command, four files of 1,500 entries, killed once the first is reported:
    files land whole or not at all, and running the same command again finishes the job."""
    files = [write_digest(tmp_path / f"f{k}.txt", 1500, start=10_000 * (k + 1)) for k in range(4)]
    proc = spawn("-m", "topiclens", "--data-dir", data_dir, "import", *files)
    assert proc.stdout is not None
    assert _REPORT.match(proc.stdout.readline().strip())
    kill(proc)
    assert integrity(store_path) == "ok"
    with Store(store_path) as store:
        landed = store.count_entries() - 200
        assert landed % 1500 == 0 and 1500 <= landed < 6000, landed
        assert len(store.bookmarks()) == 3
    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "topiclens",
            "--data-dir",
            str(data_dir),
            "import",
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert f"total: {6000 - landed} new, {landed} already known, 0 rejected" in again.stdout
    with Store(store_path) as store:
        assert store.count_entries() == 6200
    assert integrity(store_path) == "ok"


def test_killed_in_a_burst_of_bookmark_writes(data_dir: Path, store_path: Path, tmp_path: Path):
    with Store(store_path) as store:
        import_file(store, write_digest(tmp_path / "more.txt", 1800, start=5000))
        order = sorted(e.id for e in store.entries())
        earlier = {b.entry_id: b.note for b in store.bookmarks()}
    proc = spawn(ACT, "bookmark", data_dir, "burst")
    assert proc.stdout is not None
    returned = [proc.stdout.readline().strip() for _ in range(300)]
    kill(proc)
    assert returned == order[:300]
    assert integrity(store_path) == "ok"
    with Store(store_path) as store:
        marks = {b.entry_id: b.note for b in store.bookmarks()}
    # every bookmark whose write had returned is there, with its note; the writes are a
    # prefix of the order they were made in (no holes); a note set before is overwritten
    # only by a write that was made
    assert all(marks[eid] == "burst" for eid in returned)
    done = [eid for eid in order if marks.get(eid) == "burst"]
    assert done == order[: len(done)] and len(done) >= 300
    assert all(marks[eid] == note for eid, note in earlier.items() if eid not in done)
    assert set(marks) == set(done) | set(earlier)


def test_killed_in_the_middle_of_reclustering(data_dir: Path, store_path: Path, tmp_path: Path):
    proc = spawn(ACT, "recluster", data_dir, 100_000, 7)
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline() == "ready\n"
    proc.stdin.write("go\n")
    proc.stdin.flush()
    rounds = [proc.stdout.readline().strip() for _ in range(20)]
    kill(proc)
    assert rounds == [str(g) for g in range(20)]
    assert integrity(store_path) == "ok"
    with Store(store_path) as store:
        topics = store.topics()
        generations = {t.name.split("-")[0] for t in topics}
        # one whole clustering result: the last committed round, every entry in it
        assert len(generations) == 1 and int(generations.pop()[1:]) >= 19
        assert len(topics) == 7 and sum(t.size for t in topics) == 200
        assert len(store.assignments()) == 200
        assert len(store.bookmarks()) == 3
