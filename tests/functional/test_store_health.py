"""A store that is not right: a damaged file, a file that is not SQLite, another program's
database, a store from a newer schema, a read-only data directory, a full disk.

Each gives a one-line message that says what to do (through the real command line, exit
status 2, no traceback), the file is left untouched and nothing is half-written."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from helpers import dump_store, integrity, write_digest
from topiclens.store import SCHEMA_VERSION, Store, StoreError
from topiclens.store.db import STORE_FILENAME
from topiclens.store.importer import import_file


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def _refused(cli, data_dir: Path, *fragments: str) -> None:
    """Both a read and a write command refuse with a message holding ``fragments``, and
    leave every file in the data directory as it was (no -wal, -shm or journal added)."""
    before = _files(data_dir)
    for args in (("entries",), ("import", str(data_dir.parent / "new.txt"))):
        status, out, err = cli(*args)
        assert status == 2, (args, out, err)
        assert err.startswith(f"topiclens: {data_dir / STORE_FILENAME}: "), err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        for fragment in fragments:
            assert fragment in err, (fragment, err)
        assert _files(data_dir) == before, args


@pytest.fixture
def new_file(tmp_path: Path) -> Path:
    return write_digest(tmp_path / "new.txt", 5, tag="New")


@pytest.fixture
def seeded(cli, data_dir: Path, tmp_path: Path) -> Path:
    """A closed store (its WAL folded in) with 400 entries, a bookmark with a note and a
    read mark."""
    status, _, err = cli("import", str(write_digest(tmp_path / "seed.txt", 400)))
    assert status == 0, err
    with Store.open_dir(data_dir) as store:
        first = store.entries()[0].id
        store.set_note(first, "keep this")
        store.set_read(first)
    assert not (data_dir / f"{STORE_FILENAME}-wal").exists()
    return data_dir / STORE_FILENAME


def test_a_file_that_is_not_sqlite(cli, data_dir: Path, new_file: Path):
    data_dir.mkdir()
    (data_dir / STORE_FILENAME).write_bytes(b"my diary, not a database\n" * 200)
    _refused(cli, data_dir, "not a topiclens store", "move it aside", "--data-dir")


def test_another_programs_sqlite_database(cli, data_dir: Path, new_file: Path):
    data_dir.mkdir()
    conn = sqlite3.connect(data_dir / STORE_FILENAME)
    conn.execute("CREATE TABLE diary (day TEXT, text TEXT)")
    conn.execute("INSERT INTO diary VALUES ('monday', 'rain')")
    conn.commit()
    conn.close()
    _refused(cli, data_dir, "another program", "not a topiclens store", "--data-dir")


def test_a_store_from_a_newer_schema(cli, data_dir: Path, seeded: Path, new_file: Path):
    conn = sqlite3.connect(seeded)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    _refused(cli, data_dir, "newer topiclens", f"schema {SCHEMA_VERSION + 1}", "upgrade")


def _page(db: Path, table: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)
        ).fetchone()[0]
    finally:
        conn.close()


def test_a_damaged_store(cli, data_dir: Path, seeded: Path, new_file: Path):
    # scribble over the root page of the entries table: the header still says SQLite
    page = _page(seeded, "entries")
    data = bytearray(seeded.read_bytes())
    start = (page - 1) * 4096
    data[start : start + 4096] = bytes(range(256)) * 16
    seeded.write_bytes(bytes(data))
    before = _files(data_dir)
    status, _, err = cli("entries")
    assert status == 2
    assert "is damaged" in err and "left untouched" in err, err
    assert ".recover" in err and "topiclens import backup.json" in err, err
    assert "Traceback" not in err
    assert _files(data_dir) == before


def test_a_store_damaged_in_its_first_page(cli, data_dir: Path, seeded: Path, new_file: Path):
    data = bytearray(seeded.read_bytes())
    data[100:4096] = b"\xa5" * (4096 - 100)  # the schema page, behind an intact header
    seeded.write_bytes(bytes(data))
    _refused(cli, data_dir, "is damaged", ".recover", "backup.json")


def test_a_data_dir_below_a_file(cli, tmp_path: Path):
    (tmp_path / "plain").write_text("x")
    status, _, err = cli("--data-dir", str(tmp_path / "plain" / "sub"), "entries")
    assert status == 2
    assert "cannot create the data directory" in err and "writable --data-dir" in err
    assert (tmp_path / "plain").read_text() == "x"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_data_dir_by_permissions(cli, data_dir: Path, seeded: Path, new_file: Path):
    before = dump_store(seeded)
    data_dir.chmod(0o555)
    try:
        _refused(cli, data_dir, "read-only", f"Make {data_dir} writable")
    finally:
        data_dir.chmod(0o755)
    assert dump_store(seeded) == before


# --- a read-only data directory and a full disk: real mounts (root only) -----------------


def _remount(point: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(point)], check=True)


def test_a_read_only_data_dir(cli, mount: Path, tmp_path: Path):
    home = mount / "d"
    status, _, _ = cli(
        "--data-dir", str(home), "import", str(write_digest(tmp_path / "a.txt", 200))
    )
    assert status == 0
    with Store.open_dir(home) as store:
        store.set_note(store.entries()[3].id, "mine")
    before = dump_store(home / STORE_FILENAME)
    files = _files(home)
    _remount(mount, "ro")
    new = write_digest(tmp_path / "b.txt", 5, tag="New")
    for args in (("entries",), ("import", str(new))):
        status, _, err = cli("--data-dir", str(home), *args)
        assert status == 2, err
        assert "read-only" in err and f"Make {home} writable" in err, err
        assert "Traceback" not in err
    _remount(mount, "rw")
    assert _files(home) == files
    assert dump_store(home / STORE_FILENAME) == before
    # a new data directory on a read-only disk
    _remount(mount, "ro")
    status, _, err = cli("--data-dir", str(mount / "other"), "entries")
    assert status == 2 and "cannot create the data directory (Read-only file system)" in err


@pytest.mark.slow
def test_a_full_disk(cli, mount: Path, tmp_path: Path):
    home = mount / "d"
    status, _, _ = cli(
        "--data-dir", str(home), "import", str(write_digest(tmp_path / "a.txt", 300))
    )
    assert status == 0
    with Store.open_dir(home) as store:
        store.set_note(store.entries()[0].id, "mine")
    before = dump_store(home / STORE_FILENAME)
    big = write_digest(tmp_path / "big.txt", 4000, start=1000, tag="Big")  # about 2 MB
    status, out, err = cli("--data-dir", str(home), "import", str(big))
    assert status == 2 and out == ""
    assert "the disk holding it is full" in err and "Free some space" in err, err
    assert "Traceback" not in err
    # room again: what was there is intact, and the same import simply runs again
    _remount(mount, "size=16m")
    assert integrity(home / STORE_FILENAME) == "ok"
    assert dump_store(home / STORE_FILENAME) == before
    status, out, _ = cli("--data-dir", str(home), "import", str(big))
    assert status == 0 and "4000 new" in out
    assert integrity(home / STORE_FILENAME) == "ok"


# --- the same without mounts: SQLite's own size limit stands in for a full disk ---------


@pytest.mark.slow
def test_a_full_store_rolls_back_and_goes_on(tmp_path: Path):
    with Store.open_dir(tmp_path / "d") as store:
        import_file(store, write_digest(tmp_path / "a.txt", 200))
        first = store.entries()[0].id
        store.set_note(first, "mine")
        before = dump_store(store.path)
        pages = store.query("PRAGMA page_count")[0][0]
        store.query(f"PRAGMA max_page_count = {pages + 8}")
        with pytest.raises(StoreError, match="the disk holding it is full") as failed:
            import_file(store, write_digest(tmp_path / "big.txt", 2000, start=500))
        # earlier commits stay: the message must not claim that everything was undone
        assert "rolled back" not in str(failed.value)
        assert "what was saved before it" in str(failed.value)
        assert store.count_entries() == 200
        assert store.query("PRAGMA integrity_check")[0][0] == "ok"
        # the connection is usable again: no transaction left open
        store.set_bookmark(store.entries()[1].id, True)
        assert len(store.bookmarks()) == 2
        store.set_bookmark(store.entries()[1].id, False)
        assert dump_store(store.path) == before
        store.query("PRAGMA max_page_count = 1073741823")
        report = import_file(store, tmp_path / "big.txt")
        assert report.new == 2000 and store.count_entries() == 2200
