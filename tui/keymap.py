"""The user's keymap file: binding ids mapped to keys, e.g. ``toggle-bookmark = "x"``.

It lives next to the store when $TOPICLENS_HOME is set, else in the platform's config
directory (``~/.config/topiclens/keymap.toml`` on Linux). Unknown ids, keys Textual does
not know and keys another binding already has are reported with their line, never fatal:
the bindings concerned keep their default keys.
"""

from __future__ import annotations

import os
import re
from enum import Enum
from pathlib import Path

from topiclens.files import open_regular, read_capped
from topiclens.paths import ENV_HOME
from topiclens.text import terminal_text

from .commands import ALL, BY_ID, SCREEN_BINDING_IDS

KEYMAP_FILENAME = "keymap.toml"


def keymap_path() -> Path:
    env = os.environ.get(ENV_HOME)
    if env:
        return Path(env).expanduser() / KEYMAP_FILENAME
    from platformdirs import user_config_dir

    return Path(user_config_dir("topiclens", appauthor=False)) / KEYMAP_FILENAME


# Keys Textual binds itself (focus, the command palette, quit, copy): never taken over.
RESERVED: dict[str, str] = {
    "tab": "the next pane",
    "shift+tab": "the previous pane",
    "ctrl+p": "the command palette",
    "ctrl+q": "quit",
    "ctrl+c": "copy",
}
_MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
# a binding id at the start of a line of the file (bare or quoted), for the line numbers
# patterns compiled by re (and kept in its cache) when a keymap file is read, not at start
_ID_LINE = r"""^\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_-]+))\s*="""


def normal_key(key: str) -> str | None:
    """The key as Textual names it in its bindings (``?`` -> ``question_mark``), or None
    when Textual knows no such key (``ctrl+zz``)."""
    from textual.keys import REPLACED_KEYS, Keys, key_to_character

    *mods, base = key.split("+") if key != "+" else ["+"]
    if not base or any(m not in _MODIFIERS for m in mods):
        return None
    if len(base) == 1:
        named = _key_name(base)
        if named is None:
            return None
        base = named
    elif base not in REPLACED_KEYS and not key_to_character(base) and base not in _named(Keys):
        return None
    return "+".join([*mods, base])


def _key_name(character: str) -> str | None:
    """The name Textual gives a one-character key in a binding (``?`` -> ``question_mark``),
    from Textual's own reading of a binding's keys; None for one it refuses (``,``)."""
    from textual.binding import Binding, InvalidBinding

    try:
        (binding,) = Binding.make_bindings([Binding(character, "")])
    except (InvalidBinding, ValueError):
        return None
    return binding.key


def _named(keys: type[Enum]) -> set[str]:
    """The key names of Textual's ``Keys`` without their modifiers (``pageup``, ``f5``)."""
    return {k.value.rpartition("+")[2] for k in keys}


def _lines(text: str) -> dict[str, int]:
    """Binding id -> the line it is set on (the first, for an id set twice)."""
    found: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.match(_ID_LINE, line)
        if match:
            found.setdefault(next(g for g in match.groups() if g is not None), number)
    return found


# A keymap names a few dozen bindings in a few kilobytes: a larger file is not read (it
# would cost the first frame), nor one nested deeper than a keymap ever is.
MAX_KEYMAP_BYTES = 64 * 1024
MAX_NESTING = 16
# unknown ids are reported one by one up to this many, then as one line
UNKNOWN_SHOWN = 5


def read_keymap_file(path: Path) -> bytes | None:
    """The keymap file's bytes, None when there is none; OSError (its ``strerror`` says
    why) for anything but a regular file of at most MAX_KEYMAP_BYTES. Never waits: a FIFO
    is opened without blocking and refused, a device (a link to /dev/zero) is refused."""
    try:
        with open_regular(path) as (fd, info):
            data = read_capped(fd, info, MAX_KEYMAP_BYTES)
    except FileNotFoundError:
        return None
    if data is None:
        raise OSError(0, f"larger than {MAX_KEYMAP_BYTES // 1024} KB")
    return data


_OUTSIDE_STRINGS = r"""#.*|"(?:[^"\\]|\\.)*"|'[^']*'|[^"'#]+|."""


def _too_deep(text: str) -> int | None:
    """The line where arrays and inline tables nest deeper than MAX_NESTING, None when
    they never do (brackets in strings and comments are not counted)."""
    depth = 0
    for number, line in enumerate(text.splitlines(), start=1):
        for part in re.findall(_OUTSIDE_STRINGS, line):
            if part[0] in "#\"'":
                continue
            for ch in part:
                if ch in "[{":
                    depth += 1
                    if depth > MAX_NESTING:
                        return number
                elif ch in "]}":
                    depth = max(0, depth - 1)
    return None


def _type_name(value: object) -> str:
    names = {str: "a string", bool: "true/false", int: "a number", float: "a number"}
    names |= {list: "an array", dict: "a table"}
    return next((n for t, n in names.items() if isinstance(value, t)), "a date or time")


def load_keymap(path: Path) -> tuple[dict[str, str], list[str]]:
    """(binding id -> keys, problems). A missing file is an empty keymap. Each problem is
    ``path:LINE: what is wrong`` (``path: ...`` for the whole file); a binding with a
    problem keeps its default keys, and a file that cannot be read leaves them all."""
    try:
        raw = read_keymap_file(path)
    except OSError as exc:
        return {}, [f"{path}: cannot read the keymap ({exc.strerror}); default keys used"]
    if raw is None:
        return {}, []
    import tomllib  # only when there is a keymap file: it costs a start without one

    try:
        text = raw.decode("utf-8-sig")  # a byte order mark some editors write is no error
    except UnicodeDecodeError:
        return {}, [f"{path}: not UTF-8 text; default keys used"]
    deep = _too_deep(text)
    if deep is not None:
        return {}, [f"{path}:{deep}: nested deeper than {MAX_NESTING} levels; default keys used"]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        what = str(exc).replace(at.group(), "").strip() if at else str(exc)
        return {}, [f"{path}:{at.group(1) if at else 0}: {what}; default keys used"]
    except RecursionError:  # nesting the count above missed: never a crash
        return {}, [f"{path}: nested too deep; default keys used"]
    lines = _lines(text)
    table = data.get("keymap", data)
    if not isinstance(table, dict):
        what = _type_name(table)
        message = f"'keymap' must be a table of binding ids, not {what}; default keys used"
        return {}, [f"{path}:{lines.get('keymap', 0)}: {message}"]
    keymap: dict[str, list[str]] = {}
    problems: list[tuple[int, str]] = []
    unknown_ids: list[str] = []

    def report(binding_id: str, message: str) -> None:
        problems.append((lines.get(binding_id, 0), f"{binding_id}: {message}"))

    for binding_id, keys in table.items():
        if binding_id not in BY_ID and binding_id not in SCREEN_BINDING_IDS:
            unknown_ids.append(binding_id)
        elif not isinstance(keys, str):
            what = _type_name(keys)
            report(
                binding_id,
                f'needs keys as a string, e.g. "x,ctrl+b", not {what}; default keys kept',
            )
        else:
            given = list(dict.fromkeys(k.strip() for k in keys.split(",") if k.strip()))
            hidden = [k for k in given if terminal_text(k) != k or any(c.isspace() for c in k)]
            unknown = [k for k in given if normal_key(k) is None]
            if not given:
                report(binding_id, 'names no key, e.g. "x,ctrl+b"; default keys kept')
            elif hidden:
                report(binding_id, f"{hidden[0]!r} holds a control character; default keys kept")
            elif unknown:
                report(binding_id, f"{unknown[0]!r} is not a key Textual knows; default keys kept")
            else:
                keymap[binding_id] = given
    for binding_id in unknown_ids[:UNKNOWN_SHOWN]:
        problems.append((lines.get(binding_id, 0), f"unknown binding id {binding_id!r}"))
    if len(unknown_ids) > UNKNOWN_SHOWN:
        rest = unknown_ids[UNKNOWN_SHOWN:]
        first = lines.get(rest[0], 0)
        message = f"{len(rest):,} more unknown binding ids, from {rest[0]!r} on"
        problems.append((first, message))
    for binding_id, message in _conflicts(keymap, lines):
        del keymap[binding_id]
        report(binding_id, message)
    problems.sort(key=lambda p: p[0])
    return (
        {i: ",".join(k) for i, k in keymap.items()},
        [f"{path}:{line}: {message}" for line, message in problems],
    )


def _conflicts(keymap: dict[str, list[str]], lines: dict[str, int]) -> list[tuple[str, str]]:
    """The remapped reader bindings that would share a key with another binding (a default
    one wins; of two remapped, the one set first), with what is wrong; dropping them brings
    their default keys back, which may take a key another remapping wanted, so it repeats."""
    rejected: list[tuple[str, str]] = []
    mine = sorted((i for i in keymap if i in BY_ID), key=lambda i: lines.get(i, 0))
    while True:
        owner: dict[str, str] = {k: f"Textual ({v})" for k, v in RESERVED.items()}
        for command in ALL:  # defaults first: they win over a remapping
            if command.id not in keymap:
                for key in command.keys.split(","):
                    owner.setdefault(normal_key(key) or key, repr(command.id))
        clash = None
        for binding_id in mine:
            for key in keymap[binding_id]:
                taken = owner.setdefault(normal_key(key) or key, repr(binding_id))
                if taken != repr(binding_id):
                    clash = binding_id, f"{key!r} is already the key of {taken}; default keys kept"
                    break
            if clash:
                break
        if clash is None:
            return rejected
        rejected.append(clash)
        mine.remove(clash[0])
        keymap = {i: k for i, k in keymap.items() if i != clash[0]}
