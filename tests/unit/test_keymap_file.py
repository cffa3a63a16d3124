"""The keymap file read the way imports are read: a size cap, regular files only, types
checked, every problem reported with the file and its line, and the default keys kept for
whatever was bad. No app: ``load_keymap`` alone."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from helpers import HOSTILE_CORPUS, HOSTILE_FILES
from topiclens.tui.keymap import MAX_KEYMAP_BYTES, UNKNOWN_SHOWN, load_keymap


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "keymap.toml"
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


def test_a_good_keymap_still_reads(tmp_path: Path):
    path = write(tmp_path, '# mine\ntoggle-bookmark = "x"\ncursor-down = "down,ctrl+n"\n')
    assert load_keymap(path) == ({"toggle-bookmark": "x", "cursor-down": "down,ctrl+n"}, [])


def test_a_byte_order_mark_is_no_error(tmp_path: Path):
    path = write(tmp_path, b'\xef\xbb\xbftoggle-bookmark = "x"\n')
    assert load_keymap(path) == ({"toggle-bookmark": "x"}, [])


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('keymap = "x"\n', "1: 'keymap' must be a table of binding ids, not a string"),
        ("\nkeymap = 5\n", "2: 'keymap' must be a table of binding ids, not a number"),
        ("keymap = [1, 2]\n", "1: 'keymap' must be a table of binding ids, not an array"),
    ],
)
def test_a_keymap_that_is_not_a_table_keeps_every_default(tmp_path: Path, text: str, problem: str):
    path = write(tmp_path, text)
    assert load_keymap(path) == ({}, [f"{path}:{problem}; default keys used"])


@pytest.mark.parametrize(
    ("value", "what"),
    [("5", "a number"), ("[1, 2]", "an array"), ("{a = 1}", "a table"), ("true", "true/false")],
)
def test_keys_that_are_not_a_string_are_reported_by_line(tmp_path: Path, value: str, what: str):
    path = write(tmp_path, f'toggle-bookmark = "x"\nhelp = {value}\n')
    keymap, problems = load_keymap(path)
    assert keymap == {"toggle-bookmark": "x"}
    assert problems == [
        f'{path}:2: help: needs keys as a string, e.g. "x,ctrl+b", not {what}; default keys kept'
    ]


def test_arrays_nested_five_thousand_deep_are_refused_by_line(tmp_path: Path):
    path = write(tmp_path, 'toggle-bookmark = "x"\nhelp = ' + "[" * 5000 + "]" * 5000 + "\n")
    assert load_keymap(path) == ({}, [f"{path}:2: nested deeper than 16 levels; default keys used"])


def test_brackets_in_strings_and_comments_are_no_nesting(tmp_path: Path):
    path = write(
        tmp_path, '# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n[keymap]\nhelp = "[[[[[[[[[[[[[[[[[[[["\n'
    )
    keymap, problems = load_keymap(path)
    assert keymap == {}
    assert problems == [
        f"{path}:3: help: '[[[[[[[[[[[[[[[[[[[[' is not a key Textual knows; default keys kept"
    ]


@pytest.mark.parametrize(
    ("keys", "problem"),
    [
        ('"\\u001b"', "'\\x1b' holds a control character"),
        ('"x,\\u009b"', "'\\x9b' holds a control character"),
        ('"ctrl+\\u202e"', "'ctrl+\\u202e' holds a control character"),
        ('" , , "', 'names no key, e.g. "x,ctrl+b"'),
        ('""', 'names no key, e.g. "x,ctrl+b"'),
    ],
)
def test_keys_with_controls_or_none_at_all_are_reported(tmp_path: Path, keys: str, problem: str):
    path = write(tmp_path, f"help = {keys}\n")
    assert load_keymap(path) == ({}, [f"{path}:1: help: {problem}; default keys kept"])


def test_many_unknown_ids_are_summed_up_in_one_line(tmp_path: Path):
    lines = [f'no-such-{i} = "x"' for i in range(2000)]
    path = write(tmp_path, 'toggle-bookmark = "x"\n' + "\n".join(lines) + "\n")
    assert path.stat().st_size < MAX_KEYMAP_BYTES
    keymap, problems = load_keymap(path)
    assert keymap == {"toggle-bookmark": "x"}
    shown = [f"{path}:{i + 2}: unknown binding id 'no-such-{i}'" for i in range(UNKNOWN_SHOWN)]
    rest = 2000 - UNKNOWN_SHOWN
    summary = f"{path}:{UNKNOWN_SHOWN + 2}: {rest:,} more unknown binding ids, from 'no-such-5' on"
    assert problems == [*shown, summary]


def test_a_hundred_thousand_unknown_ids_are_one_line_too(tmp_path: Path):
    path = write(tmp_path, "".join(f'no-such-{i} = "x"\n' for i in range(100_000)))
    size = MAX_KEYMAP_BYTES // 1024
    reason = f"cannot read the keymap (larger than {size} KB); default keys used"
    assert load_keymap(path) == ({}, [f"{path}: {reason}"])


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path):
    path = tmp_path / "keymap.toml"
    os.mkfifo(path)
    result: list[object] = []
    reader = threading.Thread(target=lambda: result.append(load_keymap(path)), daemon=True)
    reader.start()
    reader.join(30)
    if reader.is_alive():  # free the reader: open the FIFO's other end
        with open(path, "wb"):
            pass
        pytest.fail("load_keymap waited on a FIFO")
    reason = "cannot read the keymap (not a regular file); default keys used"
    assert result == [({}, [f"{path}: {reason}"])]


def test_a_link_to_dev_zero_is_refused(tmp_path: Path):
    path = tmp_path / "keymap.toml"
    path.symlink_to("/dev/zero")
    reason = "cannot read the keymap (not a regular file); default keys used"
    assert load_keymap(path) == ({}, [f"{path}: {reason}"])


def test_a_directory_and_an_unreadable_file_are_reported(tmp_path: Path):
    folder = tmp_path / "keymap.toml"
    folder.mkdir()
    reason = "cannot read the keymap (a directory); default keys used"
    assert load_keymap(folder) == ({}, [f"{folder}: {reason}"])


def test_a_missing_file_is_an_empty_keymap(tmp_path: Path):
    assert load_keymap(tmp_path / "keymap.toml") == ({}, [])


def test_not_utf8_and_bad_toml_keep_every_default(tmp_path: Path):
    path = write(tmp_path, b'help = "\xff"\n')
    assert load_keymap(path) == ({}, [f"{path}: not UTF-8 text; default keys used"])
    path = write(tmp_path, 'toggle-bookmark = "x"\nhelp = "y\n')
    keymap, problems = load_keymap(path)
    assert keymap == {} and len(problems) == 1 and problems[0].startswith(f"{path}:2: ")


# --- the hostile corpus's keymap files ---------------------------------------------------


@pytest.mark.parametrize("name", sorted(HOSTILE_CORPUS.KEYMAPS))
def test_the_hostile_keymaps_read_as_the_corpus_expects(name: str):
    write, kept, expected = HOSTILE_CORPUS.KEYMAPS[name]
    path = HOSTILE_FILES / name
    assert path.read_bytes() == write()  # the committed file is what make_corpus.py writes
    keymap, problems = load_keymap(path)
    assert keymap == kept
    assert len(problems) == len(expected)
    for problem, (line, fragment) in zip(problems, expected, strict=True):
        assert problem.startswith(f"{path}:{line}: ") and fragment in problem, problem
