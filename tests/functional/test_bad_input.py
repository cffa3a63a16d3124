"""Every kind of bad input: a one-line message naming the file and line, the good entries
kept, a non-zero exit status, and nothing already in the store lost or changed."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest
from helpers import DIGEST, HOSTILE_CORPUS, HOSTILE_FILES, LISTING, dump_store
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
    # everything that was there is there, unchanged; only the file's good entries are
    # added, and the file's path when any is
    for table, rows in before.items():
        assert set(rows) <= set(after[table]), table
        if table not in ("entries", "origin_files"):
            assert after[table] == rows, table
    assert len(after["entries"]) == len(before["entries"]) + kept
    assert len(after["origin_files"]) == len(before["origin_files"]) + (kept > 0)


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


def test_a_nul_byte_rejects_only_its_entry(cli, seeded, tmp_path):
    data = b"line one\nline two\n\x00\x01\x02\xff binary"
    _check(cli, seeded, _write(tmp_path, "blob.bin", data), 3, "NUL byte", kept=1)
    lines = _fresh_digest(3)
    raw = [ln.encode() for ln in lines]
    raw[4] += b"\x00"  # the second entry's summary
    _check(cli, seeded, _write(tmp_path, "nul.txt", b"\n".join(raw)), 5, "NUL byte", kept=2)


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


# --- the hostile corpus (tests/data/hostile; written by its make_corpus.py) -------------


@pytest.fixture
def store(tmp_path: Path):
    from topiclens.store import Store

    with Store.open_dir(tmp_path / "store") as s:
        yield s


def test_the_corpus_files_are_what_make_corpus_writes():
    assert (HOSTILE_FILES / "hostile.jsonl").read_bytes() == HOSTILE_CORPUS.jsonl()
    assert (HOSTILE_FILES / "hostile_digest.txt").read_bytes() == HOSTILE_CORPUS.digest()
    assert (HOSTILE_FILES / "hostile_listing.txt").read_bytes() == HOSTILE_CORPUS.listing()
    assert (HOSTILE_FILES / "export_deep.json").read_bytes() == HOSTILE_CORPUS.export_deep()


@pytest.mark.parametrize(
    "name, fmt, expected",
    [
        ("hostile.jsonl", "jsonl", HOSTILE_CORPUS.JSONL_EXPECTED),
        ("hostile_digest.txt", "digest", HOSTILE_CORPUS.DIGEST_EXPECTED),
        ("hostile_listing.txt", "listing", HOSTILE_CORPUS.LISTING_EXPECTED),
    ],
)
def test_hostile_files_import_their_good_entries_exactly(store, name, fmt, expected):
    from topiclens.store.importer import import_file
    from topiclens.store.parsers import parse_file

    path = HOSTILE_FILES / name
    assert parse_file(path).format == fmt
    new, problems = expected
    report = import_file(store, path)
    assert report.new == new and report.rejected == len(problems)
    assert [p.line for p in report.problems] == [line for line, _ in problems]
    for problem, (line, fragment) in zip(report.problems, problems, strict=True):
        assert str(problem).startswith(f"{path}:{line}: ") and fragment in problem.message
        assert not any("\udc80" <= c <= "\udcff" for c in problem.message)
    # the text is kept exactly as imported: escapes, bidi controls and markup included
    stored = "\n".join(e.text() + e.source + e.category for e in store.entries())
    for needle in (
        HOSTILE_CORPUS.OSC52,
        HOSTILE_CORPUS.OSC0,
        HOSTILE_CORPUS.CLEAR,
        HOSTILE_CORPUS.BIDI,
        "[@click=app.quit]",
    ):
        if needle in path.read_text(encoding="utf-8", errors="replace"):
            assert needle in stored, needle


@pytest.mark.parametrize("name", sorted(HOSTILE_CORPUS.MORE))
def test_line_ends_and_one_line_files_are_read_for_what_they_are(store, name):
    from topiclens.store.importer import import_file
    from topiclens.store.parsers import parse_file

    path = HOSTILE_FILES / name
    write, fmt, new, problems = HOSTILE_CORPUS.MORE[name]
    assert path.read_bytes() == write()
    assert parse_file(path).format == fmt
    report = import_file(store, path)
    assert report.new == new and report.rejected == len(problems), report.problems
    for problem, (line, fragment) in zip(report.problems, problems, strict=True):
        assert problem.line == line and fragment in problem.message, problem
        assert "truncated entry" not in problem.message
        assert "beyond 64 bits" not in problem.message


def test_cr_line_ends_give_the_entries_of_lf_line_ends(store, tmp_path):
    from topiclens.store.parsers import parse_file

    lf = tmp_path / "lf.txt"
    lf.write_bytes(HOSTILE_CORPUS.cr_digest().replace(b"\r", b"\n"))
    by_cr, by_lf = parse_file(HOSTILE_FILES / "hostile_cr.txt"), parse_file(lf)
    assert [e.id for e in by_cr.entries] == [e.id for e in by_lf.entries]
    assert [e.origin_line for e in by_cr.entries] == [1, 4]


def test_hostile_json_lines_are_stored_as_written(store):
    from topiclens.store.importer import import_file

    import_file(store, HOSTILE_FILES / "hostile.jsonl")
    by_title = {e.title: e for e in store.entries()}
    for line in HOSTILE_CORPUS.jsonl().split(b"\n")[:4]:
        obj = orjson.loads(line)
        entry = by_title[obj["title"]]
        assert (entry.summary, entry.comment) == (obj["summary"], obj.get("comment", ""))
    assert by_title["largest 64-bit integer"].extra == {"count": (1 << 63) - 1}


@pytest.mark.parametrize("name", [*sorted(HOSTILE_CORPUS.EXPORTS), "export_deep.json"])
def test_hostile_exports_refuse_their_bad_bookmark_and_exports_keep_working(store, name):
    from topiclens.store.export import format_names, render
    from topiclens.store.importer import import_file

    import_file(store, HOSTILE_FILES / "hostile_digest.txt")
    store.set_note(store.entries()[0].id, "mine")
    before = dump_store(store.path)
    report = import_file(store, HOSTILE_FILES / name)
    fragment = (
        HOSTILE_CORPUS.EXPORTS[name][1]
        if name in HOSTILE_CORPUS.EXPORTS
        else HOSTILE_CORPUS.EXPORT_DEEP_EXPECTED
    )
    good = (
        len(HOSTILE_CORPUS.EXPORTS[name][0]) - 1 if name in HOSTILE_CORPUS.EXPORTS else 0
    )  # one bad each
    assert report.rejected == 1 and report.new == good
    assert fragment in report.problems[0].message, report.problems
    assert str(report.problems[0]).startswith(f"{HOSTILE_FILES / name}:")
    text = (HOSTILE_FILES / name).read_text(encoding="utf-8")  # the bad bookmark's entry is last
    assert report.problems[0].line == text[: text.rindex('"entry":')].count("\n") + 1
    if good:
        assert len(store.bookmarks()) == len(before["bookmarks"]) + good
    else:
        assert dump_store(store.path) == before
    for fmt in format_names():
        assert render(store, fmt)


def test_a_millisecond_time_is_explained(store):
    from topiclens.store.importer import import_file

    report = import_file(store, HOSTILE_FILES / "export_milliseconds.json")
    assert "divide it by 1000" in report.problems[0].message
    assert "2025-11-30" in report.problems[0].message


# --- detection and forced formats -----------------------------------------------------------


def test_an_english_listing_of_short_lines_is_a_listing_and_says_so(tmp_path):
    from topiclens.store.parsers import parse_file

    lines = []
    for i in range(6):
        lines += [f"Speculative decoding part {i}", f"How draft models speed up run {i}"]
    path = _write(tmp_path, "en.txt", "\n".join(lines).encode())
    result = parse_file(path)
    assert result.format == "listing" and len(result.entries) == 6 and not result.problems
    assert [e.title for e in result.entries][:2] == lines[0:3:2]
    assert len(result.notes) == 1 and "--format digest" in result.notes[0].message
    # a real digest is still a digest, and says nothing
    result = parse_file(DIGEST)
    assert result.format == "digest" and not result.notes and not result.problems


def test_an_english_listing_imports_every_pair(store, tmp_path):
    from topiclens.store.importer import import_file

    lines = []
    for i in range(50):
        lines += [f"GPU kernels weekly {i}", f"A short note on fused attention number {i}"]
    report = import_file(store, _write(tmp_path, "en.txt", "\n".join(lines).encode()))
    assert (report.new, report.rejected) == (50, 0)
    assert len(report.notes) == 1 and str(report.notes[0]).startswith(f"{tmp_path}/en.txt: ")


def test_a_forced_format(store, tmp_path):
    from topiclens.store.importer import import_file
    from topiclens.store.parsers import FORMATS, parse_file

    assert FORMATS == ("digest", "listing", "jsonl", "feed")
    # a digest read as a listing: pairs of lines, whatever they look like
    result = parse_file(DIGEST, fmt="listing")
    assert result.format == "listing" and not result.notes
    assert result.entries[0].title == DIGEST_LINES[0]
    # a listing forced to be a digest is read as one (and mostly rejected)
    assert parse_file(LISTING, fmt="digest").format == "digest"
    jsonl = _write(tmp_path, "a.txt", b'{"title": "a", "summary": "b"}\n')
    assert import_file(store, jsonl, fmt="jsonl").new == 1
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        import_file(store, jsonl, fmt="xml")
    # a digest forced to be a feed: one problem saying what it is, nothing stored
    report = import_file(store, DIGEST, fmt="feed")
    assert report.new == 0 and len(report.problems) == 1
    assert "not a feed" in report.problems[0].message


# --- encodings ----------------------------------------------------------------------------


def test_a_gbk_file_gets_one_clear_error(store, tmp_path):
    from topiclens.store.importer import import_file

    path = _write(tmp_path, "gbk.txt", "\n".join(_fresh_digest(4)).encode("gbk"))
    report = import_file(store, path)
    assert report.new == 0 and len(report.problems) == 1
    message = str(report.problems[0])
    assert message.startswith(f"{path}:1: not valid UTF-8") and "iconv -f GB18030" in message
    assert not any("\udc80" <= c <= "\udcff" for c in message)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_file_gets_a_hint(store, tmp_path, encoding):
    from topiclens.store.importer import import_file

    path = _write(tmp_path, "u16.txt", "\n".join(_fresh_digest(2)).encode(encoding))
    report = import_file(store, path)
    assert report.new == 0 and len(report.problems) == 1
    assert "UTF-16" in report.problems[0].message and "iconv -f UTF-16" in str(report.problems[0])


# --- any readable stream, read once -------------------------------------------------------


def _jsonl_lines(n: int) -> bytes:
    rows = [{"title": f"Piped entry {i}", "summary": f"about pipe number {i}"} for i in range(n)]
    return b"\n".join(orjson.dumps(r) for r in rows) + b"\n"


@pytest.mark.slow
@pytest.mark.parametrize("path", ["-", "/dev/stdin"])
def test_a_pipe_into_the_command_imports_every_entry(data_dir: Path, path: str):
    data = _jsonl_lines(2000)  # far more than the 4 KB once sniffed and lost
    proc = subprocess.run(
        [sys.executable, "-m", "topiclens", "--data-dir", str(data_dir), "import", path],
        input=data,
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"2000 new, 0 already known, 0 rejected" in proc.stdout
    from topiclens.store import Store

    with Store.open_dir(data_dir) as s:
        assert s.count_entries() == 2000


def _feed(path: str, data: bytes) -> threading.Thread:
    def write() -> None:
        with open(path, "wb") as fh:
            for start in range(0, len(data), 1000):  # in pieces, as a slow writer would
                fh.write(data[start : start + 1000])
                fh.flush()

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _import_within(store, path: str, seconds: float = 60):
    from topiclens.store.importer import import_file

    out = []
    worker = threading.Thread(target=lambda: out.append(import_file(store, path)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"import of {path} hangs"
    return out[0]


def test_a_fifo_is_read_once_and_does_not_hang(store, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = _feed(str(fifo), _jsonl_lines(500))
    report = _import_within(store, str(fifo))
    writer.join(10)
    assert (report.new, report.rejected) == (500, 0)


def test_process_substitution_reads_every_line(store):
    """``import <(head -3 f)``: a /dev/fd path to a pipe, whose data can be read only once."""
    read, write = os.pipe()
    data = _jsonl_lines(3)

    def feed() -> None:
        with os.fdopen(write, "wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        report = _import_within(store, f"/dev/fd/{read}")
    finally:
        writer.join(10)
        os.close(read)
    assert (report.new, report.rejected) == (3, 0)
    # a pipe's /dev/fd path is kept as named, not resolved to a meaningless /proc link
    assert {e.origin_file for e in store.entries()} == {f"/dev/fd/{read}"}


def test_standard_input_by_its_name(store, monkeypatch, tmp_path):
    from topiclens.store.importer import import_file

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_jsonl_lines(5) + b"[1]\n")))
    report = import_file(store, "-")
    assert report.new == 5 and [str(p) for p in report.problems] == [
        "<stdin>:6: expected a JSON object, got a list"
    ]


def test_the_size_limit_holds_for_a_line_not_the_file(store, monkeypatch, tmp_path):
    from topiclens.store.importer import import_file
    from topiclens.store.reading import DEFAULT_LIMIT, LIMIT_ENV

    assert DEFAULT_LIMIT == 256 << 20
    monkeypatch.setenv(LIMIT_ENV, "10000")
    big = _write(tmp_path, "big.jsonl", _jsonl_lines(1000))
    assert big.stat().st_size > 50_000
    assert import_file(store, big).new == 1000
    # an endless line of NUL bytes is told from its head, not read to its end
    report = import_file(store, Path("/dev/zero"))
    assert report.new == 0 and len(report.problems) == 1
    assert str(report.problems[0]).startswith("/dev/zero: not UTF-8")


def test_a_binary_file_gets_one_error(store, tmp_path):
    from topiclens.store.importer import import_file

    blob = bytes(range(256)) * 40  # NUL bytes on most lines, not UTF-16
    report = import_file(store, _write(tmp_path, "blob.bin", blob))
    assert report.new == 0 and len(report.problems) == 1
    assert "binary data (NUL bytes): not a text file" in str(report.problems[0])
