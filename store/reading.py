"""Reading an input once: any readable stream (a file, standard input, a pipe, a FIFO,
process substitution) is opened once and read front to back.

Its head is read before anything looks at it, so sniffing the format never costs a second
open (which loses a pipe's data and hangs on a FIFO). A document (a feed, an export) is
then read whole, up to the import limit; a file of lines is read a line at a time, and
the limit holds for each line, so memory does not grow with the file."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from .models import Problem
from .text import has_surrogates

Line = tuple[int, str]  # (1-based line number, text without line end)

BOM = b"\xef\xbb\xbf"
LIMIT_ENV = "TOPICLENS_MAX_IMPORT_BYTES"
DEFAULT_LIMIT = 256 << 20  # 256 MiB: far above any line or feed, far below a machine's memory
_CHUNK = 1 << 20
HEAD_BYTES = 1 << 20  # what is read before the format is told: whole for a small file
# the text given for a line longer than the limit: no decoded line holds a lone high
# surrogate, so it is never mistaken for one, and it marks the line as one never stored
OVER_LIMIT = "\udcff\ud800(a line longer than the import limit)"
STDIN = "-"  # the path that means standard input
STDIN_NAME = "<stdin>"  # how problems name it

_NON_ASCII = re.compile(rb"[\x80-\xff]")


def import_limit() -> int:
    """The longest line of a file of lines, and the largest document (a feed, an export),
    in bytes: ``TOPICLENS_MAX_IMPORT_BYTES`` or 256 MiB."""
    raw = os.environ.get(LIMIT_ENV, "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return DEFAULT_LIMIT


def _size(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n} bytes"


def _read_capped(fh: BinaryIO, limit: int) -> bytes | None:
    """Everything ``fh`` holds, or None when it holds more than ``limit`` bytes."""
    parts: list[bytes] = []
    total = 0
    while chunk := fh.read(min(_CHUNK, limit + 1 - total)):
        parts.append(chunk)
        total += len(chunk)
        if total > limit:
            return None
    return b"".join(parts)


def read_source(path: str | Path, display: str, limit: int | None = None) -> bytes | Problem:
    """The bytes of ``path`` (``-`` is standard input), read once; a :class:`Problem` when
    it cannot be read or is larger than ``limit`` (default :func:`import_limit`)."""
    limit = import_limit() if limit is None else limit
    try:
        if str(path) == STDIN:
            data = _read_capped(sys.stdin.buffer, limit)
        else:
            with open(path, "rb") as fh:  # one open: a pipe or a FIFO gives its data once
                data = _read_capped(fh, limit)
    except FileNotFoundError:
        return Problem(display, 0, "no such file")
    except IsADirectoryError:
        return Problem(display, 0, "is a directory; name the files inside it")
    except OSError as exc:
        return Problem(display, 0, f"cannot read: {exc.strerror or exc}")
    if data is None:
        return _too_large(display, limit)
    return data


def _too_large(display: str, limit: int) -> Problem:
    return Problem(
        display,
        0,
        f"larger than the import limit of {_size(limit)}; split the file, or raise the "
        f"limit with the environment variable {LIMIT_ENV}=BYTES",
    )


class Source:
    """An input opened once: its first :data:`HEAD_BYTES` read (enough to tell its
    format), the rest read on demand, whole (:meth:`whole`) or a line at a time
    (:meth:`lines`)."""

    def __init__(self, fh: BinaryIO, display: str) -> None:
        self.display = display
        self._fh = fh
        parts: list[bytes] = []
        total = 0
        while total < HEAD_BYTES and (chunk := fh.read(HEAD_BYTES - total)):
            parts.append(chunk)
            total += len(chunk)
        self.head = b"".join(parts)
        self.complete = total < HEAD_BYTES  # a head shorter than that is the whole input

    def whole(self, limit: int | None = None) -> bytes | Problem:
        """Everything the input holds, or a :class:`Problem` when it is larger than
        ``limit`` (default :func:`import_limit`)."""
        limit = import_limit() if limit is None else limit
        if self.complete:
            return self.head if len(self.head) <= limit else _too_large(self.display, limit)
        rest = _read_capped(self._fh, limit - len(self.head)) if limit >= len(self.head) else None
        if rest is None:
            return _too_large(self.display, limit)
        return self.head + rest

    def lines(self, limit: int | None = None) -> Iterator[Line]:
        """(number, text) of each line, read as it is needed. A line longer than ``limit``
        bytes (default :func:`import_limit`) is given as :data:`OVER_LIMIT`, never held
        whole. Line ends: LF, CRLF, or CR alone when the head has no LF (old Mac tools
        write it); a BOM at the start is dropped."""
        limit = import_limit() if limit is None else limit
        end = b"\r" if b"\n" not in self.head and b"\r" in self.head else b"\n"
        pending = bytearray(self.head.removeprefix(BOM))
        number = 0
        scanned = 0  # bytes of ``pending`` known to hold no line end
        skipping = False  # inside a line over the limit: its bytes are dropped as read
        eof = self.complete
        while True:
            start = 0
            while (cut := pending.find(end, max(start, scanned))) >= 0:
                number += 1
                yield number, self._text(pending, start, cut, limit, skipping)
                skipping = False
                start = cut + 1
            del pending[:start]
            scanned = len(pending)
            if eof:
                break
            if len(pending) > limit:
                skipping = True
                pending.clear()
                scanned = 0
            chunk = self._fh.read(_CHUNK)
            if chunk:
                pending += chunk
            else:
                eof = True
        yield number + 1, self._text(pending, 0, len(pending), limit, skipping)

    @staticmethod
    def _text(data: bytearray, start: int, cut: int, limit: int, skipping: bool) -> str:
        if skipping or cut - start > limit:
            return OVER_LIMIT
        text = data[start:cut].decode("utf-8", errors="surrogateescape")
        return text.removesuffix("\r")


@contextmanager
def open_source(path: str | Path, display: str) -> Iterator[Source | Problem]:
    """The input at ``path`` (``-`` is standard input) opened once, as a :class:`Source`,
    or a :class:`Problem` when it cannot be opened or its head cannot be read."""
    fh: BinaryIO | None = None
    opened: Source | Problem
    try:
        # one open: a pipe or a FIFO gives its data once
        fh = sys.stdin.buffer if str(path) == STDIN else open(path, "rb")  # noqa: SIM115
        opened = Source(fh, display)
    except FileNotFoundError:
        opened = Problem(display, 0, "no such file")
    except IsADirectoryError:
        opened = Problem(display, 0, "is a directory; name the files inside it")
    except OSError as exc:
        opened = Problem(display, 0, f"cannot read: {exc.strerror or exc}")
    try:
        yield opened
    finally:
        if fh is not None and str(path) != STDIN:
            fh.close()


def source_name(path: str | Path, display: str) -> str:
    """Where entries came from, as stored: a regular file's full path; for standard
    input, a pipe or a FIFO (whose /dev/fd path means nothing later), ``display``."""
    if str(path) == STDIN or not Path(path).is_file():
        return display
    return str(Path(path).resolve())


def _utf16_hint(data: bytes) -> str | None:
    """Why the bytes look like UTF-16 (a byte-order mark, or a NUL beside every ASCII
    letter), or None."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "it starts with a UTF-16 byte-order mark"
    head = data[:4096]
    if len(head) >= 4:
        even, odd = head[0::2], head[1::2]
        if even.count(0) > 0.4 * len(even) or odd.count(0) > 0.4 * len(odd):
            return "every other byte is NUL, as in UTF-16 text"
    return None


def _gbk_whole(data: bytes, lines: list[Line], bad: set[int]) -> bool:
    """True when the whole file is in GBK/GB18030 rather than UTF-8 with a stray line: no
    line holds valid non-ASCII UTF-8, most lines do not decode, and the bytes read as
    GB18030."""
    if not bad:
        return False
    valid_non_ascii = any(
        n not in bad and _NON_ASCII.search(t.encode("utf-8", "surrogateescape")) for n, t in lines
    )
    if valid_non_ascii:
        return False
    nonblank = sum(1 for _, t in lines if t.strip())
    if len(bad) < 0.5 * nonblank:
        return False
    try:
        data.decode("gb18030")
    except UnicodeDecodeError:
        return False
    return True


GBK_HINT = "it reads as GBK/GB18030: convert it with `iconv -f GB18030 -t UTF-8`"


def split_lines(
    data: bytes, display: str, whole: bool = True
) -> tuple[list[Line], list[Problem], set[int]]:
    """The lines of ``data``, problems that stop it from being read at all, and the
    numbers of lines that cannot be stored (not UTF-8, or holding a NUL byte): the entries
    touching them are rejected, the rest are read. ``whole=False``: ``data`` is the head
    of a larger input (blank, it is no empty file)."""
    hint = _utf16_hint(data)
    if hint:
        message = f"not UTF-8: {hint}; convert it with `iconv -f UTF-16 -t UTF-8`"
        return [], [Problem(display, 0, message)], set()
    data = data.removeprefix(BOM)
    if whole and not data.strip():
        return [], [Problem(display, 0, "empty file: no entries")], set()
    text = data.decode("utf-8", errors="surrogateescape")
    # line ends: LF, CRLF, or CR alone in a file that has no LF (old Mac tools write it)
    end = "\r" if "\n" not in text and "\r" in text else "\n"
    lines: list[Line] = []
    bad: set[int] = set()
    for number, raw in enumerate(text.split(end), start=1):
        raw = raw.removesuffix("\r")
        if "\x00" in raw or has_surrogates(raw):
            bad.add(number)
        lines.append((number, raw))
    nul = [n for n, t in lines if "\x00" in t]
    if len(nul) > 0.5 * sum(1 for _, t in lines if t.strip()):
        # most lines hold NUL bytes: a binary file, one error rather than one a line
        return [], [Problem(display, nul[0], "binary data (NUL bytes): not a text file")], set()
    if _gbk_whole(data, lines, bad):
        first = min(bad)
        return [], [Problem(display, first, f"not valid UTF-8: {GBK_HINT}")], set()
    return lines, [], bad


def line_problem(display: str, line: int, raw: str) -> Problem:
    """Why the line ``raw`` cannot be stored: a NUL byte, or bytes that are not UTF-8
    (with a hint when they read as GBK)."""
    if raw == OVER_LIMIT:
        return Problem(
            display,
            line,
            f"line longer than the import limit of {_size(import_limit())}; entry skipped "
            f"(raise the limit with the environment variable {LIMIT_ENV}=BYTES)",
        )
    if "\x00" in raw:
        return Problem(display, line, "binary data (NUL byte); entry skipped")
    blob = raw.encode("utf-8", errors="surrogateescape")
    hint = ""
    try:
        blob.decode("gb18030")
        hint = f"; {GBK_HINT}"
    except UnicodeDecodeError:
        pass
    return Problem(display, line, f"not valid UTF-8{hint}")
