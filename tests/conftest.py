from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from topiclens.store.importer import bundled_paths

from topiclens.cli import main

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets"
DIGEST = ASSETS / "000_628a9e309749597c.txt"
LISTING = ASSETS / "002_e2969eaa9c23cb58.txt"


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


def bundled() -> list[Path]:
    return [p for _, p in bundled_paths()]
