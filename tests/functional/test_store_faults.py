"""A store replaced under a running process, and a full disk under the reader's keys: every
write is refused with a StoreError that says what happened (never a sqlite3 error, never a
write through a stale handle), and nothing is corrupted."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import DIGEST, HOSTILE_FILES, dump_store, integrity
from topiclens.store import Store, StoreError, StoreReplaced
from topiclens.store.importer import import_file


def _other_store(tmp_path: Path) -> Path:
    """A second store, of other entries (the hostile digest's three)."""
    hostile = HOSTILE_FILES / "hostile_digest.txt"
    with Store.open_dir(tmp_path / "other") as other:
        import_file(other, hostile)
        other.toggle_bookmark(other.entry_ids()[0])
    return tmp_path / "other" / "topiclens.db"


def _replace(source: Path, target: Path) -> None:
    """``cp source new.db && mv new.db target``: a new file (a new inode) at the path."""
    fresh = target.with_name("new.db")
    shutil.copyfile(source, fresh)
    os.replace(fresh, target)


def test_a_store_replaced_under_a_running_process_is_never_written_through(
    reader_store: Path, tmp_path: Path
):
    other = _other_store(tmp_path)
    expected = dump_store(other)
    store = Store(reader_store)
    try:
        entry_id = store.entry_ids()[0]
        store.toggle_bookmark(entry_id)  # the WAL beside the path holds this store's pages
        seen = store.external_changes()
        _replace(other, reader_store)
        with pytest.raises(StoreReplaced, match=r"replaced by another .* Nothing was written"):
            store.toggle_bookmark(store.entry_ids()[1])
        # the new file is open now, and read as it is: none of the old store's pages
        assert store.count_entries() == 3
        assert store.external_changes() != seen
        assert dump_store(reader_store) == expected
        # writes go on, to the new file
        new_id = store.entry_ids()[1]
        store.toggle_bookmark(new_id)
        assert store.delete_entry(store.entry_ids()[2]) is not None
    finally:
        store.close()
    assert integrity(reader_store) == "ok"
    with Store(reader_store) as again:
        assert again.count_entries() == 2 and new_id in again.bookmark_ids()


def test_a_store_moved_away_is_not_written_to(reader_store: Path):
    with Store(reader_store) as store:
        entry_id = store.entry_ids()[0]
        moved = reader_store.with_name("moved.db")
        os.replace(reader_store, moved)
        with pytest.raises(StoreReplaced, match=r"moved or deleted .* Nothing was written"):
            store.set_read(entry_id)
        os.replace(moved, reader_store)  # put back: the same file, writes go on
        store.set_read(entry_id)
        assert entry_id in store.read_ids()


def test_a_store_replaced_by_a_file_that_is_no_store(reader_store: Path):
    with Store(reader_store) as store:
        entry_id = store.entry_ids()[0]
        junk = reader_store.with_name("junk")
        junk.write_bytes(b"not a database at all, not even close " * 100)
        os.replace(junk, reader_store)
        with pytest.raises(StoreReplaced, match="cannot use"):
            store.toggle_bookmark(entry_id)


# --- a full disk under the reader's keys: b, d, r, A, C -----------------------------------


def _fill(folder: Path) -> Path:
    """Fill the disk holding ``folder`` to the last byte; returns the filler file."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (1 << 16, 1 << 12, 1 << 8, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    return filler


def _keys(store: Store, ids: list[str]) -> dict[str, Callable[[], object]]:
    """The store calls behind the reader's keys."""
    return {
        "b": lambda: store.toggle_bookmark(ids[0], topic_id=None),
        "d": lambda: store.delete_entry(ids[1]),
        "r": lambda: store.set_read(ids[2]),
        "A": lambda: store.set_read_many(ids[3:40]),
        "C": lambda: store.mark_all_read(),
    }


def test_a_full_disk_under_every_key_is_a_store_error(mount: Path, tmp_path: Path):
    home = mount / "d"
    with Store.open_dir(home) as store:
        import_file(store, DIGEST)
    before = dump_store(home / "topiclens.db")
    with Store.open_dir(home) as store:
        ids = store.entry_ids()
        filler = _fill(mount)
        try:
            for key, call in _keys(store, ids).items():
                try:
                    call()
                except StoreError as exc:
                    assert "the disk holding it is full" in str(exc), (key, exc)
                except sqlite3.Error as exc:  # pragma: no cover - the defect
                    pytest.fail(f"{key}: a sqlite3 error reached the caller: {exc!r}")
                else:
                    pytest.fail(f"{key}: a write on a full disk succeeded")
        finally:
            filler.unlink()
        assert dump_store(home / "topiclens.db") == before
        # room again: the same keys work
        for call in _keys(store, ids).values():
            call()
    assert integrity(home / "topiclens.db") == "ok"


def test_the_mount_fixture_really_fills(mount: Path):
    filler = _fill(mount)
    with pytest.raises(OSError) as failed:
        (mount / "more").write_bytes(b"x" * 4096)
    assert failed.value.errno == errno.ENOSPC
    filler.unlink()
    subprocess.run(["sync"], check=False)
