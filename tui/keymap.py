"""The user's keymap file: binding ids mapped to keys, e.g. ``toggle-bookmark = "x"``.

It lives next to the store when $TOPICLENS_HOME is set, else in the platform's config
directory (``~/.config/topiclens/keymap.toml`` on Linux). Unknown ids and bad values are
reported, never fatal: the reader opens with its default keys.
"""

from __future__ import annotations

import os
from pathlib import Path

from topiclens.paths import ENV_HOME

from .commands import BY_ID, SCREEN_BINDING_IDS

KEYMAP_FILENAME = "keymap.toml"


def keymap_path() -> Path:
    env = os.environ.get(ENV_HOME)
    if env:
        return Path(env).expanduser() / KEYMAP_FILENAME
    from platformdirs import user_config_dir

    return Path(user_config_dir("topiclens", appauthor=False)) / KEYMAP_FILENAME


def load_keymap(path: Path) -> tuple[dict[str, str], list[str]]:
    """(binding id -> keys, problems). A missing file is an empty keymap."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [f"{path}: cannot read the keymap ({exc.strerror})"]
    import tomllib  # only when there is a keymap file: it costs a start without one

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return {}, [f"{path}: not UTF-8 text; default keys used"]
    except tomllib.TOMLDecodeError as exc:
        return {}, [f"{path}: {exc}; default keys used"]
    table = data.get("keymap", data)
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in table.items():
        if binding_id not in BY_ID and binding_id not in SCREEN_BINDING_IDS:
            problems.append(f"{path}: unknown binding id {binding_id!r}")
        elif not isinstance(keys, str) or not keys.strip():
            problems.append(f'{path}: {binding_id} needs keys as a string, e.g. "x,ctrl+b"')
        else:
            keymap[binding_id] = ",".join(k.strip() for k in keys.split(",") if k.strip())
    return keymap, problems
