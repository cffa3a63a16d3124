"""Every kind of bad input: a one-line message naming the file and line, the good entries
kept, a non-zero exit status, and nothing already in the store lost or changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import DIGEST, LISTING, dump_store
from topiclens.store.db import STORE_FILENAME

DIGEST_LINES = DIGEST.read_text(encoding="utf-8").split("\n")


@pytest.fixture
def seeded(cli, data_dir: Path) -> Path:
    """A store holding the bundled corpus and a bookmark with a note."""
    status, out, _ = cli("import", str(DIGEST), str(LISTING))
    assert status == 0, out
    from topiclens.store import Store

    with Store.open_dir(data_dir) as store:
        first = store.entries()[0].id
        store.set_note(first, "keep this")
        store.set_read(first)
    return data_dir / STORE_FILENAME


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _check(cli, seeded: Path, path: Path, line: int, fragment: str, kept: int) -> None:
    before = dump_store(seeded)
    status, out, err = cli("import", str(path))
    assert status != 0
    messages = [m for m in err.splitlines() if m.startswith("error: ")]
    assert messages, err
    where = f"{path}:{line}: " if line else f"{path}: "
    assert any(m.startswith(f"error: {where}") and fragment in m for m in messages), err
    assert f"{kept} new" in out
    after = dump_store(seeded)
    # everything that was there is there, unchanged; only the file's good entries are added
    for table, rows in before.items():
        assert set(rows) <= set(after[table]), table
        if table != "entries":
            assert after[table] == rows, table
    assert len(after["entries"]) == len(before["entries"]) + kept


def _fresh_digest(n: int) -> list[str]:
    """n digest entries nobody has imported yet (three lines each)."""
    lines = []
    for i in range(n):
        lines += [
            f"工程实践 Test Blog 2026/01/{i + 1:02d}",
            f"文章介绍第 {i} 种 KV 缓存压缩方法，并给出测量。",
            f"推荐收录：第 {i} 篇的数据可信，适合推理工程师。",
        ]
    return lines


def test_empty_file(cli, seeded, tmp_path):
    _check(cli, seeded, _write(tmp_path, "empty.txt", b""), 0, "empty file", kept=0)


def test_whitespace_only_file(cli, seeded, tmp_path):
    _check(cli, seeded, _write(tmp_path, "blank.txt", b"\n  \n\t\n"), 0, "empty file", kept=0)


def test_binary_file(cli, seeded, tmp_path):
    data = b"line one\nline two\n\x00\x01\x02\xff binary"
    _check(cli, seeded, _write(tmp_path, "blob.bin", data), 3, "binary", kept=0)


def test_gbk_file(cli, seeded, tmp_path):
    data = "\n".join(_fresh_digest(2)).encode("gbk")
    _check(cli, seeded, _write(tmp_path, "gbk.txt", data), 1, "not valid UTF-8", kept=0)


def test_gbk_line_inside_utf8_file_keeps_the_rest(cli, seeded, tmp_path):
    lines = _fresh_digest(3)
    raw = [ln.encode("utf-8") for ln in lines]
    raw[4] = lines[4].encode("gbk")  # the second entry's summary
    _check(cli, seeded, _write(tmp_path, "mixed.txt", b"\n".join(raw)), 5, "GB18030", kept=2)


def test_truncated_last_entry(cli, seeded, tmp_path):
    lines = _fresh_digest(3)[:-1]  # the last entry lost its comment
    data = "\n".join(lines).encode()
    _check(cli, seeded, _write(tmp_path, "cut.txt", data), 7, "truncated", kept=2)


def test_truncated_listing(cli, seeded, tmp_path):
    data = "标题一\n摘要一，说的是 NVLink。\n标题二\n".encode()
    _check(cli, seeded, _write(tmp_path, "cut-listing.txt", data), 3, "truncated", kept=1)


def test_header_that_does_not_parse(cli, seeded, tmp_path):
    lines = _fresh_digest(3)
    lines[3] = "工程实践"  # a header with no source
    data = "\n".join(lines).encode()
    _check(cli, seeded, _write(tmp_path, "badheader.txt", data), 4, "expected a header", kept=2)


def test_header_with_impossible_date(cli, seeded, tmp_path):
    lines = _fresh_digest(3)
    lines[6] = "工程实践 Test Blog 2026/13/45"
    data = "\n".join(lines).encode()
    _check(cli, seeded, _write(tmp_path, "baddate.txt", data), 7, "invalid date", kept=2)


def test_malformed_json_line(cli, seeded, tmp_path):
    data = (
        b'{"title": "A new one", "summary": "about NVSwitch"}\n'
        b'{"title": "broken", "summary": \n'
        b'{"title": "Another", "summary": "about MoE kernels"}\n'
        b'{"summary": "no title"}\n'
    )
    path = _write(tmp_path, "bad.jsonl", data)
    _check(cli, seeded, path, 2, "malformed JSON", kept=2)
    _status, _, err = cli("import", str(path))
    assert f"{path}:4: missing 'title'" in err


def test_directory(cli, seeded, tmp_path):
    _check(cli, seeded, tmp_path, 0, "is a directory", kept=0)


def test_missing_path(cli, seeded, tmp_path):
    _check(cli, seeded, tmp_path / "nope.txt", 0, "no such file", kept=0)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(cli, seeded, tmp_path):
    path = _write(tmp_path, "secret.txt", b"x\ny\n")
    path.chmod(0)
    _check(cli, seeded, path, 0, "cannot read", kept=0)


def test_good_and_bad_files_together(cli, seeded, tmp_path):
    good = _write(tmp_path, "good.txt", "\n".join(_fresh_digest(2)).encode())
    status, out, err = cli("import", str(tmp_path / "missing.txt"), str(good))
    assert status == 1
    assert "total: 2 new, 0 already known, 1 rejected" in out
    assert "missing.txt: no such file" in err
