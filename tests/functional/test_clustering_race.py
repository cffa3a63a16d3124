"""Import and re-cluster at the same time: both finish, and every entry ends
up in a topic, whichever of the two writes first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import bundled, write_digest
from topiclens.clustering import Stage, assign_new, cluster_store
from topiclens.store import Store
from topiclens.store.importer import import_file

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("processes")]


def test_entries_imported_while_the_model_fits_join_the_new_topics(tmp_path: Path):
    data_dir = tmp_path / "d"
    with Store.open_dir(data_dir) as store, Store.open_dir(data_dir) as other:
        import_file(store, write_digest(tmp_path / "a.txt", 120))
        cluster_store(store, k=4)
        late = write_digest(tmp_path / "b.txt", 30, start=500, tag="Late")
        imported: list[str] = []

        def import_meanwhile(stage: str, _fraction: float) -> None:
            # another process imports and places its entries with the old model while
            # this re-cluster is between reading the entries and writing its topics
            if stage == Stage.KMEANS and not imported:
                imported.extend(import_file(other, late).new_ids)
                assign_new(other, imported)

        cluster_store(store, k=6, progress=import_meanwhile)
        assert len(imported) == 30
        assert store.count_entries() == 150
        assert store.unassigned_ids() == []
        assert sum(t.size for t in store.topics()) == 150


def test_a_recluster_landing_before_the_assignments_are_written(tmp_path: Path):
    data_dir = tmp_path / "d"
    with Store.open_dir(data_dir) as store, Store.open_dir(data_dir) as other:
        for path in bundled():
            import_file(store, path)
        cluster_store(store, k=12)
        new = import_file(store, write_digest(tmp_path / "b.txt", 30, start=500)).new_ids
        write = store.add_assignments
        refused: list[list[str]] = []
        # the other process read its entry list before these were imported, and finished
        # before the import committed: its re-cluster neither fits nor places them
        listed = other.entry_ids
        other.entry_ids = lambda: [i for i in listed() if i not in set(new)]  # type: ignore[method-assign]
        other.unassigned_ids = list  # type: ignore[method-assign]

        def recluster_first(*args, **kwargs):
            # its re-cluster (6 topics where there were 12: ids vanish) commits after
            # this process read the saved model and before it writes
            if not refused:
                cluster_store(other, k=6, random_state=7)
            refused.append(write(*args, **kwargs))
            return refused[-1]

        store.add_assignments = recluster_first  # type: ignore[method-assign]
        assert assign_new(store, new) == 30
        assert refused[0] and refused[-1] == []  # refused rows were placed with the new model
        assert len(refused) == 2
        assert store.unassigned_ids() == []
        assert {t.id for t in store.topics()} >= set(store.assignments().values())


def test_import_and_cluster_commands_at_once(tmp_path: Path):
    data_dir = tmp_path / "d"
    base = [sys.executable, "-m", "topiclens", "--data-dir", str(data_dir)]
    subprocess.run([*base, "import", str(write_digest(tmp_path / "a.txt", 400))], check=True)
    subprocess.run([*base, "cluster"], check=True, capture_output=True)
    files = [write_digest(tmp_path / f"n{i}.txt", 40, start=1000 * (i + 1)) for i in range(3)]
    cluster = subprocess.Popen([*base, "cluster", "--k", "7"], stderr=subprocess.PIPE, text=True)
    for f in files:
        done = subprocess.run([*base, "import", str(f)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    _, err = cluster.communicate(timeout=300)
    assert cluster.returncode == 0, err
    assert "Traceback" not in err
    with Store.open_dir(data_dir) as store:
        assert store.count_entries() == 520
        assert store.unassigned_ids() == []
