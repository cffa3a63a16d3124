"""Writes the hostile corpus beside this file (run it after changing it; the files are
committed, so tests and other helpers read them without running anything).

Every file's expected outcome is in EXPECTED (read by tests/functional/test_bad_input.py): how many
entries go in, and the line and a fragment of each problem."""

from __future__ import annotations

from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent

OSC52 = "\x1b]52;c;cHduZWQ=\x07"  # sets the clipboard
OSC0 = "\x1b]0;pwned\x07"  # retitles the window
CLEAR = "\x1b[2J"  # clears the screen
CSI_C1 = "\x9b31m"  # an 8-bit CSI
BIDI = "\u202e"  # right-to-left override
ISOLATE = "\u2066isolated\u2069"
MARKUP = ("[/]", "[@click=app.quit]", "C++ [/draft]", "KV cache [WIP]", "[red]red[/red]")


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def jsonl() -> bytes:
    good = [
        {
            "title": f"Clipboard {OSC52} grab",
            "summary": f"OSC 52 sets the clipboard, {OSC0} retitles the window.",
            "comment": f"and {CLEAR} clears the screen",
            "source": f"Evil {BIDI}Blog",
        },
        {
            "title": f"{MARKUP[2]} and {MARKUP[3]}",
            "summary": f"markup {MARKUP[1]} quit {MARKUP[0]} {MARKUP[4]}",
            "source": "[b]Markup[/b] Weekly",
            "category": MARKUP[1],
        },
        {
            "title": f"bidi {BIDI}gnp.exe trick",
            "summary": f"right-to-left override, {ISOLATE} and C1 {CSI_C1} colours",
            "url": "javascript:alert(1)",
        },
        {"title": "largest 64-bit integer", "summary": "fits", "count": (1 << 63) - 1},
    ]
    lines = [orjson.dumps(o) for o in good]
    lines += [
        b'{"title": "deep", "summary": "x", "nest": ' + _deep(100).encode() + b"}",
        b'{"title": "deeper", "summary": "x", "nest": ' + _deep(1100).encode() + b"}",
        b'{"title": 42, "summary": "a number for a title"}',
        b'{"title": ["a", "list"], "summary": "x"}',
        b'{"title": "x", "summary": {"an": "object"}}',
        b'{"title": "x", "summary": "y", "comment": true}',
        b'{"title": "x", "summary": "y", "source": 7}',
        b'{"title": "x", "summary": "y", "date": 20260928}',
        b'{"title": "big", "summary": "int", "count": 123456789012345678901234567890}',
        b'{"title": "u64", "summary": "int", "count": 18446744073709551615}',
        b'{"title": "raw nul \x00 byte", "summary": "x"}',
        b'{"title": "escaped nul \\u0000", "summary": "x"}',
        b"[1, 2]",
        b'{"title": "lone surrogate \\ud800", "summary": "x"}',
    ]
    return b"\n".join(lines) + b"\n"


# (an escaped NUL, line 16, is JSON text like any other: it is stored, and never shown)
JSONL_EXPECTED = (
    5,
    [
        (5, "nested 101 levels deep"),
        (6, "nested deeper than 64"),
        (7, "'title' must be a string, not a number"),
        (8, "'title' must be a string, not a list"),
        (9, "'summary' must be a string, not an object"),
        (10, "'comment' must be a string, not true/false"),
        (11, "'source' must be a string, not a number"),
        (12, "'date' must be a string, not a number"),
        (13, "'count' is an integer beyond 64 bits"),
        (14, "'count' is an integer beyond 64 bits"),
        (15, "NUL byte"),
        (17, "expected a JSON object, got a list"),
        (18, "malformed JSON"),
    ],
)


def digest() -> bytes:
    lines = [
        f"工程实践 Evil{OSC0}Blog 2026/09/28",
        f"文章说明 OSC 52 如何设置剪贴板：{OSC52}，并清屏 {CLEAR}。",
        f"推荐收录：标记 {MARKUP[1]} 与 {MARKUP[0]} 不应被解析。",
        f"模型推理 {BIDI}Blog 2026/09/27",
        f"双向覆盖 {BIDI} 会颠倒显示顺序，隔离 {ISOLATE}，C1 控制 {CSI_C1}。",
        f"推荐收录：名称 {MARKUP[2]} 与 {MARKUP[3]} 必须原样显示。",
        "系统架构 Clean Blog 2026/09/26",
        "这一条的评论里有一个 NUL 字节，只有这一条被拒绝。",
        "推荐收录：NUL\x00 在这里。",
        "系统架构 Clean Blog 2026/09/25",
        "最后一条完好：KV 缓存压缩，说明测量方法。",
        "推荐收录：数据可信，适合推理工程师。",
    ]
    return "\n".join(lines).encode("utf-8") + b"\n"


DIGEST_EXPECTED = (3, [(9, "NUL byte")])


def listing() -> bytes:
    # short English lines: every one of them would pass as a digest header
    lines = [
        f"Clipboard grab {OSC52}",
        "A title that sets the clipboard when shown raw",
        f"Markup in a name {MARKUP[1]}",
        f"A name like {MARKUP[2]} quits or crashes a naive reader",
        f"Bidi {BIDI} override",
        f"Shown reversed {CLEAR} then cleared {OSC0}",
        "A pair with a NUL byte",
        "Its summary holds one \x00 here",
        "The last pair is clean",
        "It goes in like the others",
    ]
    return "\n".join(lines).encode("utf-8") + b"\n"


LISTING_EXPECTED = (4, [(8, "NUL byte")])


def cr_digest() -> bytes:
    """A digest whose lines end in CR alone (as old Mac tools write them)."""
    lines = [
        "工程实践 Clean Blog 2026/09/24",
        "CR 结尾的文件：KV 缓存压缩，说明测量方法。",
        "推荐收录：只用回车换行，也要读出两条。",
        "系统架构 Clean Blog 2026/09/23",
        f"第二条带着 {OSC0} 与 {MARKUP[1]}，原样保存。",
        "推荐收录：数据可信，适合推理工程师。",
    ]
    return "\r".join(lines).encode("utf-8") + b"\r"


def out_of_range() -> bytes:
    """One line of JSON Lines holding a number no double holds (not an integer)."""
    return b'{"title": "huge", "summary": "a number out of range", "n": 1e400}\n'


def one_bad_line() -> bytes:
    """One line of JSON Lines, cut short: a JSON problem, not a digest's."""
    return b'{"title": "cut short", "summary": "the object never closes"\n'


# (file name, writer, format detected, entries that go in, (line, fragment) of each problem)
MORE: dict[str, tuple[object, str, int, list[tuple[int, str]]]] = {
    "hostile_cr.txt": (cr_digest, "digest", 2, []),
    "hostile_out_of_range.jsonl": (out_of_range, "jsonl", 0, [(1, "a number out of range")]),
    "hostile_one_bad_line.jsonl": (one_bad_line, "jsonl", 0, [(1, "malformed JSON")]),
}


def _export(bookmarks: list[dict[str, object]]) -> dict[str, object]:
    return {
        "format": "topiclens-bookmarks",
        "version": 1,
        "exported_at": "2026-11-30T12:00:00Z",
        "generator": "topiclens hostile corpus",
        "topic_filter": None,
        "count": len(bookmarks),
        "bookmarks": bookmarks,
    }


def _bookmark(eid: str, **changes: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "id": eid,
        "title": f"restored {OSC52} title",
        "title_given": True,
        "summary": f"a restored summary {MARKUP[0]}",
        "comment": "",
        "source": "",
        "category": "",
        "date": "2026-09-28",
        "url": None,
        "lang": "en",
        "format": "jsonl",
        "origin": {"file": "x.jsonl", "line": 1},
        "extra": {},
    }
    item: dict[str, object] = {"entry": entry, "topic": None, "bookmarked_at": 1764500000.5}
    item["note"] = "my note"
    for key, value in changes.items():
        if key in item:
            item[key] = value
        elif key == "line":
            entry["origin"] = {"file": "x.jsonl", "line": value}
        else:
            entry[key] = value
    return item


# (file name, bookmarks, fragment of the one problem): the last bookmark of each is bad
# and refused alone; the good ones before it are restored
EXPORTS: dict[str, tuple[list[dict[str, object]], str]] = {
    "export_milliseconds.json": (
        [_bookmark("00000000000000a1"), _bookmark("00000000000000a2", bookmarked_at=1764500000000)],
        "looks like milliseconds",
    ),
    "export_bad_id.json": (
        [_bookmark("abc`</code><script>alert(1)</script>")],
        "is not an entry id",
    ),
    "export_uppercase_id.json": ([_bookmark("00000000000000AB")], "is not an entry id"),
    "export_origin_line.json": (
        [_bookmark("00000000000000a3", line=1 << 63)],
        "integer beyond 64 bits",
    ),
    "export_negative_line.json": (
        [_bookmark("00000000000000a4", line=-1)],
        "'origin.line' must be a whole number",
    ),
    "export_title_number.json": (
        [_bookmark("00000000000000a5", title=12345)],
        "'title' must be a string, not a number",
    ),
    "export_note_list.json": (
        [_bookmark("00000000000000a6", note=["x"])],
        "'note' must be a string, not a list",
    ),
    "export_far_future.json": (
        [_bookmark("00000000000000a7", bookmarked_at=1e300)],
        "too far in the future",
    ),
}


def export_deep() -> bytes:
    doc = orjson.dumps(_export([_bookmark("00000000000000a8")]))
    return doc.replace(b'"extra":{}', b'"extra":{"nest":' + _deep(200).encode() + b"}")


EXPORT_DEEP_EXPECTED = "nested"


def export_views() -> bytes:
    """A backup whose saved searches and mute rules are each good once, then bad in every
    way a value can be: each bad one refused alone, the good ones restored."""
    doc = _export([_bookmark("00000000000000b1")])
    doc["saved_searches"] = [
        {"name": "kv", "query": "KV cache", "created_at": 1764500000.0},
        {"name": f"two{OSC0}\nlines", "query": "x", "created_at": 1764500000.0},
        {"name": "long", "query": " ".join(["w"] * 1000), "created_at": 1764500000.0},
        {"name": "n" * 201, "query": "x", "created_at": 1764500000.0},
        {"name": "when", "query": "x", "created_at": 1764500000000},
        ["not", "an", "object"],
    ]
    doc["mute_rules"] = [
        {"kind": "words", "value": "crypto scam", "created_at": 1764500000.0},
        {"kind": "regex", "value": ".*", "created_at": 1764500000.0},
        {"kind": "feed", "value": "-3", "created_at": 1764500000.0},
        {"kind": "source", "value": f"Evil{CLEAR}", "created_at": 1764500000.0},
        {"kind": "words", "value": 7, "created_at": 1764500000.0},
    ]
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2)


# (the list, the fragment of each refused item's problem, in order): line of the list's key
EXPORT_VIEWS_EXPECTED = (
    1,
    1,
    [
        ("saved_searches", "saved search 2: a saved search's name is one line of text"),
        ("saved_searches", "saved search 3: a search is at most 64 words"),
        ("saved_searches", "saved search 4: a saved search's name is at most 200 characters"),
        ("saved_searches", "saved search 5: 'created_at' 1764500000000 looks like milliseconds"),
        ("saved_searches", "saved search 6: must be an object, not a list"),
        ("mute_rules", "mute rule 2: a mute rule is words, a source or a feed, not 'regex'"),
        ("mute_rules", "mute rule 3: a feed is given by its id"),
        ("mute_rules", "mute rule 4: a source is one line of text; this one holds a control"),
        ("mute_rules", "mute rule 5: 'kind' and 'value' must be strings"),
    ],
)


# --- keymap files: each read with every default key kept for what is bad ---------------

BOM = "\ufeff"


def keymap_deep() -> bytes:
    """A binding's keys nested 5,000 arrays deep (tomllib would recurse past Python's limit)."""
    return b'toggle-bookmark = "x"\nhelp = ' + _deep(5000).encode() + b"\n"


def keymap_types() -> bytes:
    """A byte order mark, one good binding, then keys of every wrong type and content."""
    lines = [
        f'{BOM}toggle-bookmark = "x"',
        "help = 5",
        'search = ["/"]',
        'export = {key = "e"}',
        'overview = "\\u001b"',
        'sort = " , , "',
        f'filter = "ctrl+{BIDI}"',
        'refresh = "\\u009b"',
    ]
    return "\n".join(lines).encode("utf-8") + b"\n"


def keymap_unknown_ids() -> bytes:
    """Two hundred unknown binding ids: five reported by line, the rest in one line."""
    return "".join(f'no-such-binding-{i} = "x"\n' for i in range(200)).encode()


# (file name, writer, the bindings kept, (line, fragment) of each problem)
KEYMAPS: dict[str, tuple[object, dict[str, str], list[tuple[int, str]]]] = {
    "keymap_deep.toml": (keymap_deep, {}, [(2, "nested deeper than 16 levels")]),
    "keymap_not_a_table.toml": (
        lambda: b'# a keymap that is a string\nkeymap = "x"\n',
        {},
        [(2, "'keymap' must be a table of binding ids, not a string")],
    ),
    "keymap_types.toml": (
        keymap_types,
        {"toggle-bookmark": "x"},
        [
            (2, 'help: needs keys as a string, e.g. "x,ctrl+b", not a number'),
            (3, 'search: needs keys as a string, e.g. "x,ctrl+b", not an array'),
            (4, 'export: needs keys as a string, e.g. "x,ctrl+b", not a table'),
            (5, "overview: '\\x1b' holds a control character"),
            (6, "sort: names no key"),
            (7, "filter: 'ctrl+\\u202e' holds a control character"),
            (8, "refresh: '\\x9b' holds a control character"),
        ],
    ),
    "keymap_unknown_ids.toml": (
        keymap_unknown_ids,
        {},
        [
            *[(i + 1, f"unknown binding id 'no-such-binding-{i}'") for i in range(5)],
            (6, "195 more unknown binding ids, from 'no-such-binding-5' on"),
        ],
    ),
}


def main() -> None:
    (HERE / "hostile.jsonl").write_bytes(jsonl())
    (HERE / "hostile_digest.txt").write_bytes(digest())
    (HERE / "hostile_listing.txt").write_bytes(listing())
    for name, (bookmarks, _) in EXPORTS.items():
        (HERE / name).write_bytes(orjson.dumps(_export(bookmarks), option=orjson.OPT_INDENT_2))
    (HERE / "export_deep.json").write_bytes(export_deep())
    (HERE / "export_views.json").write_bytes(export_views())
    for name, (write, *_) in MORE.items():
        (HERE / name).write_bytes(write())  # type: ignore[operator]
    for name, (write, *_) in KEYMAPS.items():
        (HERE / name).write_bytes(write())  # type: ignore[operator]


if __name__ == "__main__":
    main()
