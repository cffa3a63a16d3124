"""jieba's dictionary with ours merged in, cached in a form quick to read.

jieba keeps its dictionary (about 500,000 words and prefixes) in a marshal file that takes
0.35-0.8 s to load, and our user dictionary is added word by word after that. Cached as
one UTF-8 block of words and one array of frequencies, the merged dictionary loads in
about a fifth of the time: a cold start on the bundled corpus, and every worker of a
bulk tokenization, wait for it (docs/clustering.md, "jieba's dictionary").
"""

from __future__ import annotations

import hashlib
from contextlib import suppress
from importlib import resources
from pathlib import Path
from typing import Any

from .tokenize import read_asset

_DICT_MAGIC = b"topiclens-jieba-dictionary-1\n"


def load_jieba() -> Any:
    """A ``jieba.Tokenizer`` holding jieba's dictionary and ours (``userdict.txt``),
    from the cache when it is whole, else built and cached."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    tk = jieba.Tokenizer()
    cache = cache_path()
    if not read_dictionary(tk, cache):
        with resources.as_file(
            resources.files("topiclens.assets").joinpath("userdict.txt")
        ) as path:
            tk.load_userdict(str(path))
        write_dictionary(tk, cache)
    return tk


def cache_path() -> Path:
    """Where the merged dictionary is cached: the temporary directory (where jieba keeps
    its own cache), named by user and by everything it is made from (jieba's version and
    dictionary file, our user dictionary)."""
    import os
    import tempfile

    import jieba

    digest = hashlib.sha256(jieba.__version__.encode())
    dict_file = Path(jieba.__file__).with_name(jieba.DEFAULT_DICT_NAME)
    with suppress(OSError):
        st = dict_file.stat()
        digest.update(f"{dict_file}:{st.st_size}:{st.st_mtime_ns}".encode())
    digest.update(read_asset("userdict.txt").encode("utf-8"))
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"topiclens-jieba-{uid}-{digest.hexdigest()[:16]}.cache"


def read_dictionary(tk: Any, path: Path) -> bool:
    """Fill jieba tokenizer ``tk`` from the cache; False (and ``tk`` untouched) when the
    cache is missing or not whole."""
    from array import array

    try:
        data = path.read_bytes()
    except OSError:
        return False
    if not data.startswith(_DICT_MAGIC):
        return False
    try:
        head_end = data.index(b"\n", len(_DICT_MAGIC))
        total, count, size = (int(x) for x in data[len(_DICT_MAGIC) : head_end].split())
        words = data[head_end + 1 : head_end + 1 + size].decode("utf-8").split("\n")
        freqs = array("I")
        freqs.frombytes(data[head_end + 1 + size :])
    except (ValueError, UnicodeDecodeError):
        return False
    if len(words) != count or len(freqs) != count:
        return False
    tk.FREQ = dict(zip(words, freqs.tolist(), strict=True))
    tk.total = total
    tk.initialized = True
    return True


def write_dictionary(tk: Any, path: Path) -> None:
    """Cache ``tk``'s dictionary; quietly nothing when it cannot be written."""
    import os
    import tempfile
    from array import array

    words = list(tk.FREQ)
    if any("\n" in w for w in words) or max(tk.FREQ.values(), default=0) >= 2**32:
        return
    block = "\n".join(words).encode("utf-8")
    head = _DICT_MAGIC + f"{int(tk.total)} {len(words)} {len(block)}\n".encode()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(head)
            out.write(block)
            out.write(array("I", tk.FREQ.values()).tobytes())
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            with suppress(OSError):
                os.unlink(tmp)
