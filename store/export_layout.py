"""Where things sit in a JSON export's text, for problems that name their line: the
offset of each top-level key and of each bookmark's entry, found by a scan of the text's
strings and punctuation (no second parse)."""

from __future__ import annotations

import re

import orjson

# What the layout scan needs of valid JSON: strings (whole) and punctuation.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]')
_NON_SPACE = re.compile(r"\S")


def layout(text: str, upto: int | None = None) -> tuple[dict[str, int], list[int]]:
    """Where things sit in an export's text (JSON known to be valid, its top an object):
    the offset of each top-level key, and of each bookmark's ``entry`` key (of the bookmark
    itself when it has none), read up to bookmark ``upto`` (None: all the text). Duplicate
    keys: the last counts, as when parsing."""
    keys: dict[str, int] = {}
    marks: list[int] = []
    level = 0  # how many objects and lists are open
    in_list = False  # inside the top-level "bookmarks" list
    in_object = False  # in a bookmark that is an object
    top_key = ""
    prev: re.Match[str] | None = None
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            prev = match  # a key when a colon follows
            continue
        if token == ":" and prev is not None:
            if level == 1:
                top_key = orjson.loads(prev.group())
                keys[top_key] = prev.start()
            elif level == 3 and in_object and orjson.loads(prev.group()) == "entry":
                marks[-1] = prev.start()
        elif token in "{[":
            level += 1
            if level == 2 and token == "[" and top_key == "bookmarks":
                in_list, marks = True, []
                start = _NON_SPACE.search(text, match.end())
                if start and start.group() != "]":
                    marks.append(start.start())
            elif level == 3:
                in_object = in_list and token == "{"
        elif token in "}]":
            level -= 1
            if level == 1:
                in_list = False
        elif token == "," and level == 2 and in_list:
            if upto is not None and len(marks) >= upto:
                break  # bookmark upto is behind: nothing further is needed
            start = _NON_SPACE.search(text, match.end())
            marks.append(start.start() if start else match.start())
    return keys, marks


def line_numbers(text: str, offsets: list[int]) -> dict[int, int]:
    """The line of each offset, counting the text's newlines once."""
    lines: dict[int, int] = {}
    line, pos = 1, 0
    for offset in sorted(set(offsets)):
        line += text.count("\n", pos, offset)
        lines[offset], pos = line, offset
    return lines
