"""How an export reaches disk: whole or not at all, and only ever over a regular file.

The data goes to a temporary file beside the target, is flushed to disk, then renamed onto
the target: a reader of the path sees the old file or the new one, never half of one.
Anything at the path that is not a regular file (a device, a FIFO, a socket, a symbolic
link, a directory) is refused, ``--force`` or not: renaming over ``/dev/full`` as root
destroys the device. Temporary files carry this process's host and id in their name, so a
later write to the same path recognises the ones a killed writer left and removes them.
No Textual here.
"""

from __future__ import annotations

import errno
import os
import re
import socket
import stat
import tempfile
from pathlib import Path

NEW_FILE_MODE = 0o644  # an export is an ordinary document: readable by everyone
_TMP_SUFFIX = ".tmp"
_TMP_TAG = "topiclens"


class ExportError(Exception):
    """An export could not be made or written; the message is one line (naming the path)."""


class ExportExists(ExportError):
    """The target file exists and overwriting was not asked for."""


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_target(path: Path, *, force: bool = False) -> os.stat_result | None:
    """The target's status if it is a regular file that may be replaced, None if nothing
    is there yet. Raises ExportError for anything that is not a regular file or a folder
    that is not there, and ExportExists for an existing file without ``force``."""
    parent = path.parent
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        if not parent.exists():
            raise ExportError(f"{path}: cannot write: the folder {parent} does not exist") from None
        if not parent.is_dir():
            raise ExportError(f"{path}: cannot write: {parent} is not a folder") from None
        return None
    except OSError as exc:
        raise ExportError(f"{path}: cannot write: {reason(exc)}") from exc
    kind = _kind(st.st_mode)
    if kind == "a directory":
        raise ExportError(f"{path}: is a directory; name a file to write")
    if kind is not None:
        raise ExportError(f"{path}: is {kind}; only a regular file is ever replaced")
    if not force:
        raise ExportExists(f"{path}: already exists; pass --force to overwrite it")
    return st


def reason(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno == errno.EROFS:
        return "read-only file system"
    return exc.strerror or str(exc)


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"


def _tmp_prefix(path: Path) -> str:
    """``.NAME.topiclens.HOST.PID.``: whose temporary file it is, for the cleanup."""
    return f".{path.name}.{_TMP_TAG}.{_host()}."


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but is someone else's
        return True
    return True


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Remove the temporary files that writers of ``path`` on this host left when they
    were killed: regular files owned by this user, named for ``path``, whose process is
    gone. Returns what was removed."""
    prefix = _tmp_prefix(path)
    removed = []
    try:
        names = os.listdir(path.parent)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(prefix) and name.endswith(_TMP_SUFFIX)):
            continue
        pid_text = name[len(prefix) :].split(".", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid():
            continue
        candidate = path.parent / name
        try:
            st = os.lstat(candidate)
            if (
                not stat.S_ISREG(st.st_mode)
                or st.st_uid != os.geteuid()
                or _pid_alive(int(pid_text))
            ):
                continue
            candidate.unlink()
        except OSError:
            continue
        removed.append(candidate)
    return removed


def write_atomic(path: Path, data: bytes, *, force: bool = False) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same directory, flushed
    to disk, then renamed into place. Raises ExportExists if ``path`` exists and not
    ``force``, and ExportError (one line naming the path) if it is not a regular file or
    cannot be written; then nothing is left behind. A replaced file keeps its permission
    bits, never its setuid, setgid or sticky bit. Returns the final path."""
    path = Path(path).expanduser()
    parent = path.parent
    old = check_target(path, force=force)
    remove_stale_temporaries(path)
    try:
        fd, tmp_name = tempfile.mkstemp(
            prefix=f"{_tmp_prefix(path)}{os.getpid()}.", suffix=_TMP_SUFFIX, dir=parent
        )
    except OSError as exc:
        raise ExportError(f"{path}: cannot write: {reason(exc)}") from exc
    tmp = Path(tmp_name)
    try:
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, stat.S_IMODE(old.st_mode) & 0o777 if old else NEW_FILE_MODE)
            if force:
                _replace_same(tmp, path)
            else:
                _link_no_clobber(tmp, path)
        except FileExistsError as exc:
            raise ExportExists(f"{path}: already exists; pass --force to overwrite it") from exc
        except OSError as exc:
            raise ExportError(f"{path}: cannot write: {reason(exc)}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(parent)
    return path


def _replace_same(tmp: Path, path: Path) -> None:
    """Rename ``tmp`` onto ``path`` unless something other than a regular file was put
    there meanwhile."""
    check_target(path, force=True)
    os.replace(tmp, path)


def _link_no_clobber(tmp: Path, path: Path) -> None:
    """Put ``tmp`` at ``path`` unless something appeared there meanwhile (a hard link fails
    on an existing name; where links are not supported, check and rename)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(path):
            raise FileExistsError(errno.EEXIST, "exists", str(path)) from None
        os.replace(tmp, path)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
