from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from topiclens.cli import main
from topiclens.store.importer import bundled_paths

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets"
DIGEST = ASSETS / "000_628a9e309749597c.txt"
LISTING = ASSETS / "002_e2969eaa9c23cb58.txt"


@pytest.fixture(scope="session")
def clustered_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory holding the bundled corpus grouped into topics, made once per test
    process (clustering it takes seconds): tests change only their copy (``bundled_home``)."""
    from topiclens.clustering.pipeline import cluster_store
    from topiclens.store import Store
    from topiclens.store.importer import import_bundled

    home = tmp_path_factory.mktemp("clustered-bundled")
    with Store.open_dir(home) as store:
        import_bundled(store)
        cluster_store(store)
    return home


@pytest.fixture
def bundled_home(clustered_home: Path, tmp_path: Path) -> Path:
    """This test's own copy of :func:`clustered_home`."""
    copy = tmp_path / "home"
    shutil.copytree(clustered_home, copy)
    return copy


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data directory, also set as $TOPICLENS_HOME so nothing touches the real one."""
    home = tmp_path / "data"
    monkeypatch.setenv("TOPICLENS_HOME", str(home))
    return home


CliResult = tuple[int, str, str]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], data_dir: Path) -> Callable[..., CliResult]:
    """Run the topiclens command in-process: returns (exit status, stdout, stderr)."""

    def run(*args: str) -> CliResult:
        status = main(["--data-dir", str(data_dir), *args])
        out, err = capsys.readouterr()
        return status, out, err

    return run


def dump_store(db: Path) -> dict[str, list[tuple]]:
    """Every row of every table, for row-for-row comparisons."""
    conn = sqlite3.connect(db)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}
    finally:
        conn.close()


def integrity(db: Path) -> str:
    """``PRAGMA integrity_check`` of the store file, through a fresh connection."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def bundled() -> list[Path]:
    return [p for _, p in bundled_paths()]


# --- the reader (helper D): a store with fixed topics, stable whatever clustering does ---

READER_TOPICS: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    (1, "Speculative decoding 投机解码", ("投机", "speculative", "draft", "eagle")),
    (2, "MoE and GPU kernels", ("moe", "专家", "kernel", "内核", "cuda")),
    (3, "KV cache 缓存", ("kv", "缓存", "cache", "显存")),
    (4, "Serving and inference", ("推理", "serving", "vllm", "sglang")),
    (5, "Everything else", ()),
)


def make_reader_store(data_dir: Path) -> Path:
    """The bundled corpus with topics made by fixed keyword rules (not by clustering), so
    reader tests and snapshots stay the same when the clustering is tuned."""
    from topiclens.store import Store, Topic
    from topiclens.store.importer import import_bundled

    with Store.open_dir(data_dir) as store:
        import_bundled(store)
        members: dict[int, list[str]] = {tid: [] for tid, _, _ in READER_TOPICS}
        assignments: dict[str, tuple[int, float, list[str]]] = {}
        for entry in store.entries():
            text = entry.text().lower()
            for tid, _, words in READER_TOPICS:
                hits = [w for w in words if w in text]
                if hits or not words:
                    assignments[entry.id] = (tid, 0.1 * len(hits), hits)
                    members[tid].append(entry.id)
                    break
        similar = {
            eid: [(other, 0.5) for other in ids if other != eid][:3]
            for ids in members.values()
            for eid in ids
        }
        topics = [
            Topic(tid, name, [(w, 1.0) for w in words] or [("misc", 1.0)], len(members[tid]))
            for tid, name, words in READER_TOPICS
        ]
        store.replace_topics(topics, assignments, similar)
        return store.path


@pytest.fixture
def reader_store(data_dir: Path) -> Path:
    """Path of a store holding the bundled corpus and fixed reader topics."""
    return make_reader_store(data_dir)
