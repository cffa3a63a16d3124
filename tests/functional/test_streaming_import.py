"""Files of lines are read and committed a batch at a time: a file of any size imports, the
size limit holds for one line, and a line over it is one ``file:line:`` error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from helpers import generated_lines
from topiclens.store import Store, parsers
from topiclens.store.reading import HEAD_BYTES, LIMIT_ENV

LIMIT = 4096  # bytes: far below each test file, above each of its lines
BATCH = 5000  # entries a batch here: files of a few batches stay small


@pytest.fixture(autouse=True)
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsers, "BATCH_ENTRIES", BATCH)


def _rows(n: int, start: int = 0) -> list[bytes]:
    return [
        orjson.dumps({"title": f"Streamed entry {i}", "summary": f"stream {i}: " + "words " * 12})
        for i in range(start, start + n)
    ]


def _origin_lines(data_dir: Path) -> dict[str, int]:
    with Store.open_dir(data_dir) as store:
        return {e.title: e.origin_line for e in store.entries()}


def test_a_file_far_over_the_limit_imports_in_batches(cli, data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv(LIMIT_ENV, str(LIMIT))
    n = 2 * BATCH + 123  # three batches, the last one short
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"\n".join(_rows(n)) + b"\n")
    assert path.stat().st_size > max(HEAD_BYTES, 100 * LIMIT)
    status, out, err = cli("import", str(path))
    assert (status, err) == (0, "")
    assert f"{n} new, 0 already known, 0 rejected" in out
    lines = _origin_lines(data_dir)
    assert len(lines) == n
    # numbered across batches as in the file
    assert lines["Streamed entry 0"] == 1 and lines[f"Streamed entry {n - 1}"] == n


def test_a_digest_whose_entries_cross_the_batch_and_head_boundaries(cli, data_dir, tmp_path):
    n = 2 * BATCH + 7
    path = tmp_path / "big.txt"
    text = "\n".join(generated_lines(n)) + "\n"
    path.write_text(text, encoding="utf-8")
    assert path.stat().st_size > HEAD_BYTES  # read past its head
    status, out, err = cli("import", str(path))
    assert (status, err) == (0, "")
    assert f"{n} new, 0 already known, 0 rejected" in out
    with Store.open_dir(data_dir) as store:
        origins = sorted(e.origin_line for e in store.entries())
    assert origins == list(range(1, 3 * n, 3))  # every header, none lost at a boundary


def test_an_over_long_line_is_one_error_and_the_rest_imports(cli, data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv(LIMIT_ENV, str(LIMIT))
    rows = _rows(3000)
    huge = orjson.dumps({"title": "Huge", "summary": "x" * (HEAD_BYTES + 5 * LIMIT)})
    rows.insert(1999, huge)  # line 2000: begins in the head and ends far past it
    rows.insert(10, orjson.dumps({"title": "Long", "summary": "y" * 2 * LIMIT}))  # line 11
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(rows) + b"\n")
    status, out, err = cli("import", str(path))
    assert status == 1
    assert "3000 new, 0 already known, 2 rejected" in out
    assert err.splitlines() == [
        f"error: {path}:11: line longer than the import limit of 4096 bytes; entry skipped "
        f"(raise the limit with the environment variable {LIMIT_ENV}=BYTES)",
        f"error: {path}:2001: line longer than the import limit of 4096 bytes; entry skipped "
        f"(raise the limit with the environment variable {LIMIT_ENV}=BYTES)",
    ]
    lines = _origin_lines(data_dir)
    assert "Huge" not in lines and "Long" not in lines
    assert lines["Streamed entry 1998"] == 2000 and lines["Streamed entry 1999"] == 2002


def test_an_over_long_line_in_a_digest_costs_only_its_entry(cli, data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv(LIMIT_ENV, str(LIMIT))
    lines = generated_lines(40)
    lines[3 * 20 + 1] = "长" * LIMIT  # the summary of entry 20 (line 62)
    path = tmp_path / "digest.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out, err = cli("import", str(path))
    assert status == 1
    assert "39 new, 0 already known, 1 rejected" in out
    assert err.startswith(f"error: {path}:62: line longer than the import limit")


@pytest.mark.slow
def test_standard_input_streams_past_the_limit(data_dir: Path, tmp_path: Path):
    n = 3000
    data = b"\n".join(_rows(n)) + b"\n" + b'{"title": "' + b"z" * 2 * LIMIT + b'"}\n'
    env = {**_environ(), LIMIT_ENV: str(LIMIT)}
    proc = subprocess.run(
        [sys.executable, "-m", "topiclens", "--data-dir", str(data_dir), "import", "-"],
        input=data,
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert f"{n} new, 0 already known, 1 rejected" in proc.stdout.decode()
    assert proc.stderr.decode().startswith(
        f"error: <stdin>:{n + 1}: line longer than the import limit of 4096 bytes"
    )
    assert len(_origin_lines(data_dir)) == n


def _environ() -> dict[str, str]:
    import os

    return dict(os.environ)
