"""The parsers under fuzzing (hypothesis).

Generated digest, listing and JSON Lines files are read back exactly; then the same files,
truncated, reordered, with duplicated lines, random bytes, lines in other encodings and
huge lines, are read through the real entry point (``parse_file`` on a file on disk) and
must satisfy what a reader relies on:

- the parser never raises;
- every problem names the file and a real line (0 only for a whole-file problem);
- every entry points at a real, non-blank line and holds text the store can keep;
- nothing is lost silently: each non-blank line is part of an imported entry, or a
  problem is reported at that stretch of lines (or on the line right after it, where the
  parser found out);
- importing the result adds exactly the new entries, and importing it again adds none.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from topiclens.store import Store
from topiclens.store.models import ParseResult
from topiclens.store.parse_text import NOISE_WORDS, parse_header
from topiclens.store.parsers import parse_file
from topiclens.store.reading import BOM

FUZZ = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- generating well-formed files --------------------------------------------------------

HAN = "缓存内核推理解码投机专家路由显存带宽调度量化稀疏注意力批处理张量并行流水线通信互连压缩"
TERMS = ("KV", "MoE", "NVLink", "H100", "vLLM", "FlashAttention", "CUDA", "FP8", "decoding")
han = st.text(st.sampled_from(HAN), min_size=1, max_size=8)
term = st.sampled_from(TERMS)
# anything printable on one line, emoji, combining marks and RTL text included
free = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
    max_size=12,
)
phrase = st.lists(st.one_of(han, term, free), min_size=1, max_size=5).map(" ".join)


@st.composite
def sentence(draw: st.DrawFn) -> str:
    """A summary or comment: always has sentence punctuation, so never reads as a header."""
    parts = draw(st.lists(phrase, min_size=1, max_size=3))
    return draw(han) + "，" + "，".join(parts) + "。"


word = st.text(
    st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop" + HAN[:12]),
    min_size=1,
    max_size=10,
)
dates = st.dates(dt.date(1990, 1, 1), dt.date(2099, 12, 31))


@st.composite
def digest_entry(draw: st.DrawFn) -> dict[str, object]:
    date = draw(st.none() | dates)
    header = [draw(word), *draw(st.lists(word, min_size=1, max_size=3))]
    if date is not None:
        header.append(date.strftime(draw(st.sampled_from(("%Y/%m/%d", "%Y-%m-%d")))))
    return {
        "header": " ".join(header),
        "source": " ".join(header[1:-1] if date else header[1:]),
        "date": date.isoformat() if date else None,
        "summary": draw(sentence()),
        "comment": draw(sentence()),
    }


@st.composite
def listing_entry(draw: st.DrawFn) -> dict[str, object]:
    return {"title": draw(phrase) + "：" + draw(phrase), "summary": draw(sentence())}


json_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30).filter(
    str.strip
)


@st.composite
def jsonl_entry(draw: st.DrawFn) -> dict[str, object]:
    obj: dict[str, object] = {"title": draw(json_text), "summary": draw(json_text)}
    if draw(st.booleans()):
        obj["comment"] = draw(json_text)
    if draw(st.booleans()):
        obj["date"] = draw(dates).isoformat()
    if draw(st.booleans()):
        obj["tags"] = draw(st.lists(json_text, max_size=3))
    return obj


def digest_lines(entries: list[dict[str, object]]) -> list[str]:
    return [str(e[k]) for e in entries for k in ("header", "summary", "comment")]


def listing_lines(entries: list[dict[str, object]]) -> list[str]:
    return [str(e[k]) for e in entries for k in ("title", "summary")]


def jsonl_lines(entries: list[dict[str, object]]) -> list[str]:
    return [orjson.dumps(e).decode() for e in entries]


FORMATS: dict[str, tuple[Callable[[], st.SearchStrategy[dict[str, object]]], Callable]] = {
    "digest": (digest_entry, digest_lines),
    "listing": (listing_entry, listing_lines),
    "jsonl": (jsonl_entry, jsonl_lines),
}


@st.composite
def well_formed(draw: st.DrawFn) -> tuple[str, list[dict[str, object]], list[str]]:
    fmt = draw(st.sampled_from(sorted(FORMATS)))
    make, render = FORMATS[fmt]
    entries = draw(st.lists(make(), min_size=1, max_size=12))
    return fmt, entries, render(entries)


@st.composite
def layout(draw: st.DrawFn, lines: list[str]) -> bytes:
    """Lines as bytes, with the harmless variety real files have: blank lines between
    entries, CRLF ends, a BOM, a final newline or not."""
    out: list[bytes] = []
    for line in lines:
        out += [b""] * draw(st.integers(0, 1))
        out.append(line.encode() + (b"\r" if draw(st.booleans()) else b""))
    blob = b"\n".join(out) + (b"\n" if draw(st.booleans()) else b"")
    return (BOM if draw(st.booleans()) else b"") + blob


# --- the invariants ----------------------------------------------------------------------


def is_header(text: str) -> bool:
    return not isinstance(parse_header(text), str)


def file_lines(blob: bytes) -> list[str]:
    """The file's lines as the reader numbers them (1-based), decoded leniently."""
    text = blob.removeprefix(BOM).decode("utf-8", "surrogateescape")
    if "\n" not in text and "\r" in text:  # a file with CR-only line ends (old Mac)
        return text.split("\r")
    return [ln.removesuffix("\r") for ln in text.split("\n")]


def check(result: ParseResult, blob: bytes, display: str) -> None:
    lines = file_lines(blob)
    n = len(lines)

    def blank(number: int) -> bool:
        return not lines[number - 1].strip()

    for p in result.problems:
        assert p.path == display
        assert 0 <= p.line <= n, p
        assert p.line == 0 or not blank(p.line), p
        assert str(p).startswith(f"{display}:{p.line}: " if p.line else f"{display}: ")
    if any(p.line == 0 for p in result.problems) or result.format == "unreadable":
        assert result.entries == [] and len(result.problems) == 1
        return
    for e in result.entries:
        assert 1 <= e.origin_line <= n and not blank(e.origin_line)
        assert e.summary and (e.title or e.format == "digest")
        for text in (e.title, e.summary, e.comment, e.source, e.category):
            text.encode("utf-8")  # no undecodable bytes reach the store
        orjson.dumps(e.extra)

    # what each entry was made from
    nonblank = [k for k in range(1, n + 1) if not blank(k)]
    if result.format == "listing":
        nonblank = [k for k in nonblank if lines[k - 1].strip() not in NOISE_WORDS]
    follows = {k: nonblank[i + 1 :] for i, k in enumerate(nonblank)}
    covered: set[int] = set()
    span = {"digest": 3, "listing": 2, "jsonl": 1}[result.format]
    for e in result.entries:
        covered.add(e.origin_line)
        covered.update(follows[e.origin_line][: span - 1])
    # nothing lost silently: every stretch of lines that made no entry is reported. A
    # stretch is cut where an entry could start (a header line in a digest, every other
    # line in a listing, every line in JSON Lines), and each piece needs its own problem:
    # on its first line, or, for a digest entry cut short, on one of its three lines
    reported = {p.line for p in result.problems}
    position = {k: i for i, k in enumerate(nonblank)}
    pieces: list[list[int]] = []
    for k in nonblank:
        if k in covered:
            continue
        previous = nonblank[position[k] - 1] if position[k] else None
        starts = (
            previous is None
            or previous in covered
            or (result.format == "digest" and is_header(lines[k - 1]))
            or (result.format == "listing" and len(pieces[-1]) == 2)
            or result.format == "jsonl"
        )
        if starts:
            pieces.append([k])
        else:
            pieces[-1].append(k)
    for piece in pieces:
        first = piece[0]
        if result.format == "digest" and is_header(lines[first - 1]):
            window = set(nonblank[position[first] : position[first] + 3])
        elif result.format == "listing":
            window = set(piece)
        else:
            window = {first}
        assert window & reported, (piece, result.problems)
    if result.format == "jsonl":  # one line, one entry or one problem
        assert reported == set(nonblank) - covered
        assert len(result.problems) == len(reported)


def parse_bytes(workdir: Path, blob: bytes) -> tuple[ParseResult, str]:
    path = workdir / "input.txt"
    path.write_bytes(blob)
    result = parse_file(path)
    return result, str(path)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


# --- well-formed files are read back exactly ------------------------------------------------


@pytest.mark.slow
@FUZZ
@given(case=well_formed(), data=st.data())
def test_well_formed_files_read_back_exactly(workdir: Path, case, data):
    fmt, entries, lines = case
    blob = data.draw(layout(lines))
    result, display = parse_bytes(workdir, blob)
    assert (result.format, result.problems) == (fmt, [])
    assert len(result.entries) == len(entries)
    for got, want in zip(result.entries, entries, strict=True):
        if fmt == "digest":
            assert (got.summary, got.comment) == (want["summary"], want["comment"])
            assert (got.source, got.date) == (want["source"], want["date"])
        elif fmt == "listing":
            assert (got.title, got.summary) == (want["title"].strip(), want["summary"])
        else:
            assert (got.title, got.summary) == (want["title"].strip(), want["summary"].strip())
            assert got.comment == str(want.get("comment", "")).strip()
            assert got.date == want.get("date")
            assert got.extra.get("tags") == want.get("tags")
    check(result, blob, display)


# --- mutated files -------------------------------------------------------------------------


MUTATIONS = (
    *("delete", "duplicate", "swap", "shuffle", "garbage", "bytes", "gbk", "blank"),
    *("truncate", "join", "nul", "utf16", "latin1"),
)


def _gbk(line: bytes) -> bytes:
    try:
        return line.decode("utf-8").encode("gb18030")
    except UnicodeError:
        return line


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    _fmt, _entries, text_lines = draw(well_formed())
    lines = draw(layout(text_lines)).split(b"\n")
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(MUTATIONS))
        i = draw(st.integers(0, len(lines) - 1))
        j = draw(st.integers(0, len(lines) - 1))
        if op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate":
            lines.insert(j, lines[i])
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "shuffle":
            lo, hi = min(i, j), max(i, j) + 1
            lines[lo:hi] = draw(st.permutations(lines[lo:hi]))
        elif op == "garbage":  # a line of random bytes (NUL aside: see "nul")
            lines.insert(i, draw(st.binary(max_size=40)).replace(b"\0", b"?"))
        elif op == "bytes":  # stray bytes inside a line, often not UTF-8
            cut = draw(st.integers(0, len(lines[i])))
            stray = draw(st.binary(min_size=1, max_size=6)).replace(b"\0", b"?")
            lines[i] = lines[i][:cut] + stray + lines[i][cut:]
        elif op == "gbk":  # one line saved in another encoding
            lines[i] = _gbk(lines[i])
        elif op == "latin1":  # é, ü, ß… as single bytes
            lines[i] += " café, Größe".encode("latin-1")
        elif op == "utf16" and draw(st.integers(0, 4)) == 0:  # NUL bytes for ASCII text
            lines[i] = lines[i].decode("utf-8", "replace").encode("utf-16-le")
        elif op == "blank":
            lines.insert(i, draw(st.sampled_from((b"", b"   ", b"\t", b"\r", "\u3000".encode()))))
        elif op == "truncate":  # cut anywhere, even inside a UTF-8 sequence
            blob = b"\n".join(lines)
            lines = blob[: draw(st.integers(0, len(blob)))].split(b"\n")
        elif op == "join" and i + 1 < len(lines):
            lines[i : i + 2] = [lines[i] + b" " + lines[i + 1]]
        elif op == "nul" and draw(st.integers(0, 9)) == 0:
            lines[i] += b"\0"
    return b"\n".join(lines)


@pytest.mark.slow
@FUZZ
@given(blob=mutated())
def test_mutated_files_never_lose_an_entry_silently(workdir: Path, blob: bytes):
    result, display = parse_bytes(workdir, blob)
    check(result, blob, display)


@pytest.mark.slow
@settings(FUZZ, max_examples=60)
@given(
    blob=st.binary(max_size=400)
    | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass"))
)
def test_random_bytes(workdir: Path, blob: bytes):
    result, display = parse_bytes(workdir, blob)
    check(result, blob, display)


@pytest.mark.slow
@settings(FUZZ, max_examples=15)
@given(
    case=well_formed(),
    at=st.integers(0, 40),
    size=st.integers(50_000, 300_000),
    unit=st.sampled_from(("字", "a ", "，", "{", "工程实践 ", "\u0301")),
)
def test_huge_lines(workdir: Path, case, at: int, size: int, unit: str):
    _fmt, _entries, lines = case
    lines = list(lines)
    lines.insert(min(at, len(lines)), unit * (size // len(unit)))
    blob = "\n".join(lines).encode()
    result, display = parse_bytes(workdir, blob)
    check(result, blob, display)


# --- a stray or a missing line costs its own entry, never the rest -------------------------


def _pairs(result: ParseResult) -> set[tuple[str, str]]:
    return {(e.summary, e.comment) for e in result.entries}


@pytest.mark.slow
@settings(FUZZ, max_examples=60)
@given(entries=st.lists(digest_entry(), min_size=2, max_size=10), stray=sentence(), data=st.data())
def test_a_stray_line_in_a_digest(workdir: Path, entries, stray: str, data):
    lines = digest_lines(entries)
    at = data.draw(st.integers(0, len(lines)), label="at")
    lines.insert(at, stray)
    blob = "\n".join(lines).encode()
    result, display = parse_bytes(workdir, blob)
    check(result, blob, display)
    assert result.format == "digest" and len(result.problems) == 1
    # between two entries it is reported alone; inside one, that entry is the cost
    hit = at // 3 if at % 3 else None
    assert {(e["summary"], e["comment"]) for k, e in enumerate(entries) if k != hit} <= _pairs(
        result
    )


@pytest.mark.slow
@settings(FUZZ, max_examples=60)
@given(entries=st.lists(digest_entry(), min_size=5, max_size=10), data=st.data())
def test_a_missing_line_in_a_digest(workdir: Path, entries, data):
    lines = digest_lines(entries)
    gone = data.draw(st.integers(0, len(lines) - 1), label="gone")
    del lines[gone]
    blob = "\n".join(lines).encode()
    result, display = parse_bytes(workdir, blob)
    check(result, blob, display)
    assert result.format == "digest" and len(result.problems) == 1
    rest = {(e["summary"], e["comment"]) for k, e in enumerate(entries) if k != gone // 3}
    assert rest <= _pairs(result) and len(result.entries) == len(entries) - 1


@pytest.mark.slow
@settings(FUZZ, max_examples=60)
@given(entries=st.lists(jsonl_entry(), min_size=1, max_size=10), data=st.data())
def test_a_stray_line_in_json_lines(workdir: Path, entries, data):
    lines = jsonl_lines(entries)
    at = data.draw(st.integers(0, len(lines)), label="at")
    lines.insert(at, data.draw(st.sampled_from(('{"title": "cut', "[1, 2]", "null", "{}"))))
    blob = "\n".join(lines).encode()
    result, display = parse_bytes(workdir, blob)
    check(result, blob, display)
    assert [p.line for p in result.problems] == [at + 1]
    assert len(result.entries) == len(entries)


def test_found_by_fuzzing_stray_first_lines(workdir: Path):
    """Regressions: a stray first line once turned a JSON Lines file into one digest entry
    made of JSON text, and a digest into a listing of mismatched pairs, both silently."""
    jsonl = b'[1, 2]\n{"title": "a", "summary": "b"}\n{"title": "c", "summary": "d"}\n'
    result, display = parse_bytes(workdir, jsonl)
    assert result.format == "jsonl" and [e.title for e in result.entries] == ["a", "c"]
    assert [str(p) for p in result.problems] == [f"{display}:1: expected a JSON object, got a list"]
    entries = [_DIGEST_ENTRY, {**_DIGEST_ENTRY, "summary": "另一篇，讲 MoE 内核。"}]
    digest = "\n".join(["无法解析的一行，不是标题。", *digest_lines(entries)]).encode()
    result, display = parse_bytes(workdir, digest)
    assert result.format == "digest" and len(result.entries) == 2
    assert [p.line for p in result.problems] == [1]


def test_found_by_fuzzing_a_listing_title_starting_with_a_brace(workdir: Path):
    """A listing whose first title starts with "{" was read as JSON Lines, every line an
    error; a line is JSON only when it parses as an object."""
    listing = "{braces} in a title\nthe summary of it\nsecond title\nits summary\n"
    result, _ = parse_bytes(workdir, listing.encode())
    assert result.format == "listing" and result.problems == []
    assert [e.title for e in result.entries] == ["{braces} in a title", "second title"]


def test_found_by_fuzzing_two_headers_at_the_end(workdir: Path):
    """Regression: a digest ending in two header lines reported one header without its
    comment (the second header taken for a summary), and the second header not at all."""
    blob = "\n".join(
        [*digest_lines([_DIGEST_ENTRY]), "工程实践 A Blog", "工程实践 B Blog"]
    ).encode()
    result, display = parse_bytes(workdir, blob)
    check(result, blob, display)
    assert len(result.entries) == 1
    assert [(p.line, p.message.split(":")[0]) for p in result.problems] == [
        (
            5,
            "expected a summary or comment but found a header line; the entry at line 4 is "
            "incomplete and was skipped",
        ),
        (5, "truncated entry"),
    ]


# --- through the store ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    with Store.open_dir(tmp_path_factory.mktemp("fuzzstore")) as s:
        yield s


@pytest.mark.slow
@settings(FUZZ, max_examples=40)
@given(blob=mutated())
def test_import_adds_exactly_the_new_entries(workdir: Path, store: Store, blob: bytes):
    path = workdir / "import.txt"
    path.write_bytes(blob)
    result = parse_file(path)
    known_before = {r[0] for r in store.query("SELECT id FROM entries")}
    count = store.count_entries()
    report = store.import_result(result)
    fresh = {e.id for e in result.entries} - known_before
    assert (report.new, report.rejected) == (len(fresh), len(result.problems))
    assert report.new + report.known == len(result.entries)
    assert store.count_entries() == count + len(fresh)
    again = store.import_result(parse_file(path))
    assert (again.new, again.known) == (0, len(result.entries))


# --- the check itself can fail -------------------------------------------------------------


def test_the_check_catches_a_silent_loss(workdir: Path):
    good = "\n".join(digest_lines([_DIGEST_ENTRY] * 1))
    blob = f"{good}\n无法解析的一行，不是标题。\n{good.replace('一', '二')}".encode()
    result, display = parse_bytes(workdir, blob)
    check(result, blob, display)  # as parsed: one problem at line 4, two entries
    assert [p.line for p in result.problems] == [4] and len(result.entries) == 2
    dropped_problem = ParseResult(result.path, result.format, result.entries, [])
    with pytest.raises(AssertionError):
        check(dropped_problem, blob, display)
    dropped_entry = ParseResult(result.path, result.format, result.entries[:1], result.problems)
    with pytest.raises(AssertionError):
        check(dropped_entry, blob, display)
    wrong_line = [type(p)(p.path, 99, p.message) for p in result.problems]
    with pytest.raises(AssertionError):
        check(ParseResult(result.path, result.format, result.entries, wrong_line), blob, display)


_DIGEST_ENTRY: dict[str, object] = {
    "header": "工程实践 Some Blog 2026/01/02",
    "summary": "文章介绍了一种 KV 缓存压缩方法，并给出测量。",
    "comment": "推荐收录：数据可信。",
}
