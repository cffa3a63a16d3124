"""Reading a small file named by a user or a feed (a keymap, a ``file://`` feed) so that it
can never hang or exhaust the reader: regular files only, opened without waiting, read up
to a cap."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager


class NotRegular(OSError):
    """The path names something other than a regular file (its ``kind`` says what)."""

    def __init__(self, kind: str) -> None:
        super().__init__(0, kind)
        self.kind = kind


@contextmanager
def open_regular(path: str | os.PathLike[str]) -> Iterator[tuple[int, os.stat_result]]:
    """The open file descriptor of ``path`` and its ``fstat``. Opening never waits (a FIFO
    would wait for a writer; O_NONBLOCK opens it at once, then it is refused), and anything
    but a regular file raises :class:`NotRegular` ("a directory" or "not a regular file")."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular("a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file")
        yield fd, info
    finally:
        os.close(fd)


def read_capped(fd: int, info: os.stat_result, limit: int) -> bytes | None:
    """The file's bytes, None when it holds more than ``limit``. It is read to its end
    rather than to ``st_size``, so a file growing meanwhile still meets the cap."""
    if info.st_size > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    while chunk := os.read(fd, min(1024 * 1024, limit + 1)):
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)
