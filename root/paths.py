"""Where the store lives: --data-dir, else $TOPICLENS_HOME, else the platform's data dir;
and where what can be made again is kept."""

from __future__ import annotations

import os
from pathlib import Path

ENV_HOME = "TOPICLENS_HOME"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    if override is not None:
        if not str(override).strip():  # "" is a mistake, never a quiet way to the default
            raise ValueError("an empty data directory name names no folder")
        return Path(override).expanduser()
    env = os.environ.get(ENV_HOME)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("topiclens", appauthor=False))


def cache_dir() -> Path:
    """What the reader keeps to start faster and can make again: the platform's cache
    dir ($XDG_CACHE_HOME/topiclens on Linux)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("topiclens", appauthor=False))
