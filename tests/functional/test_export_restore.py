"""A JSON export is a backup: `topiclens import` restores its entries, bookmarks and notes
exactly, into a fresh store or the same one. A document that is no usable export changes
nothing; in one that is, a bad bookmark is refused on its line and the good ones restored."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import DIGEST, LISTING, dump_store, seed
from topiclens.cli import main
from topiclens.store import Store
from topiclens.store.export import default_filename, render
from topiclens.store.importer import import_file
from topiclens.store.restore import RestoreReport, looks_like_export


@pytest.fixture
def store(tmp_path: Path):
    with Store.open_dir(tmp_path / "d") as s:
        seed(s)
        yield s


@pytest.fixture
def backup(store: Store, tmp_path: Path) -> Path:
    path = tmp_path / "bookmarks.json"
    path.write_bytes(render(store, "json"))
    return path


def bookmarked_entries(s: Store) -> list[Any]:
    return s.entries([b.entry_id for b in s.bookmarks()])


def test_round_trip_into_a_fresh_store(store: Store, backup: Path, tmp_path: Path):
    with Store.open_dir(tmp_path / "fresh") as fresh:
        report = import_file(fresh, backup)
        assert isinstance(report, RestoreReport)
        assert (report.new, report.known, report.rejected) == (5, 0, 0)
        assert (report.bookmarks_restored, report.bookmarks_unchanged) == (5, 0)
        assert sorted(report.new_ids) == sorted(b.entry_id for b in store.bookmarks())
        # bookmarks and notes exactly (times to the last bit of the float), same order
        assert fresh.bookmarks() == store.bookmarks()
        # every field of every entry, ids kept (an Entry compares all its fields)
        assert bookmarked_entries(fresh) == bookmarked_entries(store)
        assert fresh.count_entries() == 5


def test_round_trip_where_the_corpus_is_already_imported(
    store: Store, backup: Path, tmp_path: Path
):
    with Store.open_dir(tmp_path / "fresh") as fresh:
        import_file(fresh, DIGEST)
        import_file(fresh, LISTING)
        before = fresh.count_entries()
        report = import_file(fresh, backup)
        # the two digest entries are matched by id; the three others come from the export
        assert (report.new, report.known) == (3, 2)
        assert fresh.count_entries() == before + 3
        assert fresh.bookmarks() == store.bookmarks()
        # and importing the digest again adds nothing: the restored ids are the real ones
        assert import_file(fresh, DIGEST).new == 0


def test_restoring_into_the_same_store_changes_nothing(store: Store, backup: Path):
    before = dump_store(store.path)
    report = import_file(store, backup)
    assert (report.new, report.known, report.rejected) == (0, 5, 0)
    assert (report.bookmarks_restored, report.bookmarks_unchanged) == (0, 5)
    assert dump_store(store.path) == before


def test_restore_brings_back_notes_and_removed_bookmarks(store: Store, backup: Path):
    original = store.bookmarks()
    first, second = original[0], original[1]
    store.set_note(first.entry_id, "changed since the backup")
    store.toggle_bookmark(second.entry_id)  # removed
    extra_id = next(e.id for e in store.entries() if e.id not in store.bookmark_ids())
    store.toggle_bookmark(extra_id)  # made after the backup: kept
    report = import_file(store, backup)
    assert report.bookmarks_restored == 2 and report.bookmarks_unchanged == 3
    assert {b.entry_id: b for b in store.bookmarks() if b.entry_id != extra_id} == {
        b.entry_id: b for b in original
    }
    assert store.bookmark(extra_id) is not None


def _without_topic(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    kept = [{k: v for k, v in r.items() if k not in ("topic", "topic_id")} for r in rows]
    return sorted(kept, key=lambda r: r["id"])


def test_export_of_a_restored_store_matches(store: Store, backup: Path, tmp_path: Path):
    with Store.open_dir(tmp_path / "fresh") as fresh:
        import_file(fresh, backup)
        # no topics in the fresh store (clustering has not run): compare all but the topic
        rows_old = list(csv.DictReader(io.StringIO(render(store, "csv").decode("utf-8-sig"))))
        rows_new = list(csv.DictReader(io.StringIO(render(fresh, "csv").decode("utf-8-sig"))))
        assert _without_topic(rows_new) == _without_topic(rows_old)
        assert {r["topic"] for r in rows_new} == {"Unsorted"}


# --- recognising an export -----------------------------------------------------------------


def test_detection_is_by_content(store: Store, tmp_path: Path):
    doc = orjson.loads(render(store, "json"))
    compact = tmp_path / "backup.txt"  # any name
    compact.write_bytes(orjson.dumps(doc))
    with_bom = tmp_path / "bom.json"
    with_bom.write_bytes(b"\xef\xbb\xbf" + render(store, "json"))
    reordered = tmp_path / "reordered.json"  # the marker after a long list
    doc_last = {"bookmarks": doc["bookmarks"] * 1, "version": 1, "format": doc["format"]}
    reordered.write_bytes(orjson.dumps(doc_last, option=orjson.OPT_INDENT_2))
    jsonl = tmp_path / "entries.json"
    jsonl.write_text('{"title": "T", "summary": "S", "format": "other"}\n', encoding="utf-8")
    for path in (compact, with_bom, reordered):
        assert looks_like_export(path), path
    assert not looks_like_export(jsonl)
    assert not looks_like_export(DIGEST)
    assert not looks_like_export(tmp_path / "missing.json")
    with Store.open_dir(tmp_path / "fresh") as fresh:
        for path in (compact, with_bom, reordered):
            assert import_file(fresh, path).rejected == 0
        assert fresh.bookmarks() == store.bookmarks()
        report = import_file(fresh, jsonl)  # still read as JSON Lines
        assert (report.new, report.rejected) == (1, 0)
        assert not isinstance(report, RestoreReport)


# --- malformed exports ---------------------------------------------------------------------


# numbers that cannot be stored (as text: Python will not print an integer of 5,001 digits),
# and the stand-ins written in their place, since orjson cannot write them
HUGE = {str(1 << 64): 4_242_424_201, "1" + "0" * 5000: 4_242_424_202, "1e400": 4_242_424_203}


def _write_indented(tmp_path: Path, doc: dict[str, Any], name: str = "bad.json") -> Path:
    path = tmp_path / name
    data = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    for huge, stand_in in HUGE.items():
        data = data.replace(b"%d" % stand_in, huge.encode())
    path.write_bytes(data)
    return path


def _key_line(path: Path, key: str) -> int:
    """The line of a top-level key, found by its indentation (two spaces) alone."""
    lines = path.read_text(encoding="utf-8").split("\n")
    return 1 + next(i for i, line in enumerate(lines) if line.startswith(f'  "{key}": '))


def _entry_line(path: Path, number: int) -> int:
    """The line of bookmark ``number``'s "entry" key (of the bookmark when it has none),
    found by indentation alone: bookmarks sit 4 spaces in, their keys 6."""
    lines = path.read_text(encoding="utf-8").split("\n")
    starts = [i for i, line in enumerate(lines) if re.match(r" {4}[^\s}\]]", line)]
    start = starts[number - 1]
    end = starts[number] if number < len(starts) else len(lines)
    keys = [i for i in range(start, end) if lines[i].startswith('      "entry": ')]
    return 1 + (keys[-1] if keys else start)


def _top_level(doc: dict[str, Any], how: str) -> dict[str, Any]:
    if how == "newer":
        doc["version"] = 99
    elif how == "version-text":
        doc["version"] = "1"
    elif how == "no-version":
        del doc["version"]
    elif how == "not-a-list":
        doc["bookmarks"] = {"a": 1}
    elif how == "no-bookmarks":
        del doc["bookmarks"]
    elif how == "newer-last":  # the version after the bookmarks, one of which has its own
        doc["bookmarks"][0]["entry"]["extra"] = {"version": 99}
        doc = {**{k: v for k, v in doc.items() if k != "version"}, "version": 99}
    return doc


TOP_LEVEL = {
    "newer": (r"written by a newer topiclens \(export version 99", "version"),
    "newer-last": (r"written by a newer topiclens \(export version 99", "version"),
    "version-text": (r"'version' must be a whole number, not '1'", "version"),
    "no-version": (r"'version' must be a whole number, not None$", None),
    "not-a-list": (r"'bookmarks' must be a list, not an object", "bookmarks"),
    "no-bookmarks": (r"'bookmarks' must be a list, not null", None),
}


@pytest.mark.parametrize("how", sorted(TOP_LEVEL))
def test_an_export_wrong_at_the_top_changes_nothing(store: Store, tmp_path: Path, how: str):
    doc = orjson.loads(render(store, "json"))
    path = _write_indented(tmp_path, _top_level(doc, how))
    store.toggle_bookmark(store.bookmarks()[2].entry_id)  # a restore would bring it back
    with Store.open_dir(tmp_path / "other") as other:
        for target in (store, other):
            before = dump_store(target.path)
            report = import_file(target, path)
            assert report.rejected == 1 and report.new == report.known == 0, report.problems
            assert isinstance(report, RestoreReport) and report.bookmarks_restored == 0
            assert dump_store(target.path) == before
    message, key = TOP_LEVEL[how]
    (problem,) = report.problems
    assert str(problem).startswith(f"{path}:"), problem
    assert re.search(message, problem.message), problem
    assert problem.line == (_key_line(path, key) if key else 0)


def _bad_bookmark(doc: dict[str, Any], how: str) -> int:
    """Spoil one bookmark of ``doc``; returns its number (counted from 1)."""
    b = doc["bookmarks"]
    if how == "missing-summary":
        del b[2]["entry"]["summary"]
    elif how == "bad-date":
        b[2]["entry"]["date"] = "2026-02-30"
    elif how == "note-number":
        b[2]["note"] = 5
    elif how == "no-time":
        del b[2]["bookmarked_at"]
    elif how == "milliseconds":
        b[2]["bookmarked_at"] = round(b[2]["bookmarked_at"] * 1000)
    elif how == "entry-list":
        b[2]["entry"] = []
    elif how == "no-entry":
        del b[2]["entry"]
    elif how == "not-an-object":
        b[2] = 5
    elif how == "huge-int":  # (orjson cannot write these: _write_indented puts them in)
        b[2]["entry"]["origin"]["line"] = HUGE[str(1 << 64)]
    elif how == "huge-digits":
        b[2]["entry"]["extra"]["n"] = HUGE["1" + "0" * 5000]
    elif how == "huge-float":
        b[2]["bookmarked_at"] = HUGE["1e400"]
    elif how == "deep":
        nest: Any = 0
        for _ in range(70):
            nest = [nest]
        b[2]["entry"]["extra"] = {"nest": nest}  # the entry: 72 levels
    elif how == "duplicate":
        b.append(b[2])
        return len(b)
    return 3


BAD_BOOKMARK = {
    "missing-summary": r"^bookmark 3: missing 'summary'$",
    "bad-date": r"^bookmark 3: 'date' '2026-02-30' is not a date",
    "note-number": r"^bookmark 3: 'note' must be a string, not a number$",
    "no-time": r"^bookmark 3: 'bookmarked_at' must be a time in seconds, not None$",
    "milliseconds": r"^bookmark 3: 'bookmarked_at' \d+ looks like milliseconds",
    "entry-list": r"^bookmark 3: 'entry' must be an object, not a list$",
    "no-entry": r"^bookmark 3: missing 'entry'$",
    "not-an-object": r"^bookmark 3: a bookmark must be an object, not a number$",
    "huge-int": r"^bookmark 3: 'origin.line' is an integer beyond 64 bits$",
    "huge-digits": r"^bookmark 3: 'extra.n' is an integer beyond 64 bits$",
    "huge-float": r"^bookmark 3: 'bookmarked_at' is a number too large to store$",
    "deep": r"^bookmark 3: 'entry' nested 72 levels deep \(at most 64\)$",
    "duplicate": r"^bookmark 6: entry [0-9a-f]{16} is already bookmark 3$",
}


@pytest.mark.parametrize("how", sorted(BAD_BOOKMARK))
def test_a_bad_bookmark_is_refused_and_the_good_ones_restored(
    store: Store, tmp_path: Path, how: str
):
    original = store.bookmarks()
    original_entries = {e.id: e for e in bookmarked_entries(store)}
    doc = orjson.loads(render(store, "json"))
    third, first = (doc["bookmarks"][i]["entry"]["id"] for i in (2, 0))
    number = _bad_bookmark(doc, how)
    refused_id = None if how == "duplicate" else third  # (a duplicate: only the copy)
    path = _write_indented(tmp_path, doc)
    store.toggle_bookmark(third)  # not brought back when refused
    store.set_note(first, "changed since the backup")  # the exported note comes back
    wanted = [b for b in original if b.entry_id != refused_id]
    with Store.open_dir(tmp_path / "other") as other:
        for target in (store, other):
            fresh = target is other
            report = import_file(target, path)
            assert isinstance(report, RestoreReport)
            assert report.rejected == 1, report.problems
            assert (report.new, report.known) == ((len(wanted), 0) if fresh else (0, len(wanted)))
            # exactly the good bookmarks, with their exported notes and times, in order
            assert target.bookmarks() == wanted
            assert {e.id: e for e in bookmarked_entries(target)} == {
                b.entry_id: original_entries[b.entry_id] for b in wanted
            }
            (problem,) = report.problems
            assert str(problem).startswith(f"{path}:{problem.line}: bookmark {number}: ")
            assert re.search(BAD_BOOKMARK[how], problem.message), problem
            assert problem.line == _entry_line(path, number) > 1
        # the refused bookmark's entry came from nowhere else: the fresh store lacks it
        assert other.count_entries() == len(wanted)
        assert report.bookmarks_restored == len(wanted)


def test_every_bad_bookmark_is_reported_on_the_line_of_its_entry(store: Store, tmp_path: Path):
    doc = orjson.loads(render(store, "json"))
    good = doc["bookmarks"]
    bad_id = "0123456789abcdef"
    bad_entry = {**good[0]["entry"], "id": bad_id}
    doc["bookmarks"] = [
        # a note holding what a naive search for a bookmark's entry would find first
        {**good[0], "note": f'"entry": "{bad_id}"\n"bookmarks": ['},
        {"note": "the entry comes last", "bookmarked_at": 1.0, "entry": {**bad_entry, "lang": 7}},
        good[1],
        [good[2]],
        {**good[2], "bookmarked_at": -1},
        good[2],
        {"entry": {**bad_entry, "id": bad_id.upper()}, "bookmarked_at": 1.0},
        good[3],
        good[4],
        good[0],
    ]
    path = _write_indented(tmp_path, doc)
    with Store.open_dir(tmp_path / "fresh") as fresh:
        report = import_file(fresh, path)
        assert (report.new, report.rejected, report.bookmarks_restored) == (5, 5, 5)
        assert fresh.bookmarks() == [
            b._replace(note=doc["bookmarks"][0]["note"])
            if b.entry_id == good[0]["entry"]["id"]
            else b
            for b in store.bookmarks()
        ]
        assert bad_id not in {e.id for e in fresh.entries()}
    assert [(p.line, p.message) for p in report.problems] == [
        (_entry_line(path, 2), "bookmark 2: 'lang' must be a string, not a number"),
        (_entry_line(path, 4), "bookmark 4: a bookmark must be an object, not a list"),
        (_entry_line(path, 5), "bookmark 5: 'bookmarked_at' must be a time in seconds, not -1"),
        (
            _entry_line(path, 7),
            "bookmark 7: 'id' '0123456789ABCDEF' is not an entry id (16 hex digits)",
        ),
        (
            _entry_line(path, 10),
            f"bookmark 10: entry {good[0]['entry']['id']} is already bookmark 1",
        ),
    ]
    assert len({p.line for p in report.problems}) == 5


def test_a_crash_while_restoring_writes_none_of_it(
    store: Store, backup: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import topiclens.store.restore as restore

    doc = orjson.loads(backup.read_bytes())
    doc["bookmarks"][1]["note"] = 5  # one refused: the others go in one transaction
    path = _write_indented(tmp_path, doc)
    put_exact = restore.bookmarks.put_exact
    calls = []

    def crash_on_the_third(conn: Any, bookmark: Any) -> bool:
        calls.append(bookmark)
        if len(calls) == 3:
            raise OSError("the disk went away")
        return put_exact(conn, bookmark)

    monkeypatch.setattr(restore.bookmarks, "put_exact", crash_on_the_third)
    with Store.open_dir(tmp_path / "fresh") as fresh:
        before = dump_store(fresh.path)
        with pytest.raises(OSError, match="the disk went away"):
            import_file(fresh, path)
        assert len(calls) == 3
        assert dump_store(fresh.path) == before


def test_a_millisecond_time_among_good_bookmarks(store: Store, tmp_path: Path, capsys):
    """A backup with a time in milliseconds made every later export fail. Now that
    bookmark is refused with its line, the others are restored, and all four formats
    still render, from Python and from the command line."""
    from topiclens.store.export import format_names

    doc = orjson.loads(render(store, "json"))
    late = {**doc["bookmarks"][0], "bookmarked_at": 1764500000123}
    late["entry"] = {**late["entry"], "id": "00000000000000ab", "title": "late"}
    doc["bookmarks"].insert(2, late)
    path = _write_indented(tmp_path, doc)
    fresh_dir = tmp_path / "fresh"
    status = main(["--data-dir", str(fresh_dir), "import", str(path)])
    out, err = capsys.readouterr()
    assert status == 1
    assert out == f"{path}: 5 new, 0 already known, 1 rejected; 5 bookmarks restored, 0 unchanged\n"
    line = _entry_line(path, 3)
    assert err.startswith(f"error: {path}:{line}: bookmark 3: 'bookmarked_at' 1764500000123 ")
    assert "looks like milliseconds (2025-11-30 if so)" in err and err.count("\n") == 1
    with Store.open_dir(fresh_dir) as fresh:
        assert fresh.bookmarks() == store.bookmarks()
        assert bookmarked_entries(fresh) == bookmarked_entries(store)
        assert "00000000000000ab" not in {e.id for e in fresh.entries()}
        for fmt in format_names():
            assert render(fresh, fmt) and render(store, fmt)
        assert orjson.loads(render(fresh, "json"))["count"] == 5
    for fmt in format_names():
        status = main(["--data-dir", str(fresh_dir), "export", "--format", fmt, "-o", "-"])
        out, err = capsys.readouterr()
        assert (status, err) == (0, "") and out, fmt


def test_truncated_export_names_the_line(store: Store, tmp_path: Path):
    data = render(store, "json")
    path = tmp_path / "cut.json"
    path.write_bytes(data[: len(data) // 2])
    assert looks_like_export(path)
    before = dump_store(store.path)
    report = import_file(store, path)
    assert report.rejected == 1 and dump_store(store.path) == before
    problem = report.problems[0]
    assert problem.line == data[: len(data) // 2].count(b"\n") + 1
    assert "malformed JSON export" in problem.message


def test_export_cut_inside_a_character_names_the_line(store: Store, tmp_path: Path):
    data = render(store, "json")
    # one byte past the lead byte of the last character of several bytes (CJK text)
    cut = max(i for i, b in enumerate(data) if b >= 0xC0) + 1
    path = tmp_path / "cut.json"
    path.write_bytes(data[:cut])
    report = import_file(store, path)
    (problem,) = report.problems
    assert problem.line == data[:cut].count(b"\n") + 1 > 1
    assert "not valid UTF-8" in problem.message


# --- the command line ----------------------------------------------------------------------


@pytest.fixture
def seeded(data_dir: Path) -> Path:
    with Store.open_dir(data_dir) as s:
        seed(s)
    return data_dir


def test_cli_export_default_name_in_current_directory(cli, seeded, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, err = cli("export")
    target = tmp_path / default_filename("md")
    assert status == 0 and err == ""
    assert out == f"wrote 5 bookmarks as Markdown to {target}\n"
    assert target.read_text(encoding="utf-8").startswith("# topiclens bookmarks\n")


def test_cli_export_refuses_to_overwrite_without_force(cli, seeded, tmp_path):
    target = tmp_path / "b.html"
    target.write_text("mine", encoding="utf-8")
    status, out, err = cli("export", "--format", "html", "--output", str(target))
    assert status == 1 and out == ""
    assert err == f"topiclens: {target}: already exists; pass --force to overwrite it\n"
    assert target.read_text(encoding="utf-8") == "mine"
    status, out, _ = cli("export", "--format", "html", "--output", str(target), "--force")
    assert status == 0 and "wrote 5 bookmarks as HTML" in out
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_cli_export_unwritable_path(cli, seeded, tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "b.csv"
    status, out, err = cli("export", "--format", "csv", "-o", str(target))
    assert status == 1 and out == ""
    assert "does not exist" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_cli_export_to_stdout_and_by_topic(cli, seeded):
    status, out, err = cli("export", "--format", "json", "--output", "-")
    assert status == 0 and err == ""
    doc = orjson.loads(out.encode("utf-8"))
    assert doc["count"] == 5
    status, out, _ = cli("export", "--format", "csv", "-o", "-", "--topic", "3")
    rows = list(csv.DictReader(io.StringIO(out.removeprefix("\ufeff"), newline="")))
    assert status == 0 and len(rows) == 2 and {r["topic_id"] for r in rows} == {"3"}
    status, out, err = cli("export", "--topic", "99", "-o", "-")
    assert (status, out, err) == (1, "", "topiclens: no topic with id 99\n")


def test_cli_backup_and_restore(cli, seeded, tmp_path, capsys):
    backup = tmp_path / "backup.json"
    assert cli("export", "--format", "json", "-o", str(backup))[0] == 0
    fresh = tmp_path / "fresh"
    status = main(["--data-dir", str(fresh), "import", str(backup)])
    assert status == 0
    assert capsys.readouterr().out == (
        f"{backup}: 5 new, 0 already known, 0 rejected; 5 bookmarks restored, 0 unchanged\n"
    )
    with Store.open_dir(seeded) as a, Store.open_dir(fresh) as b:
        assert a.bookmarks() == b.bookmarks()
    status, out, err = cli("import", str(backup))
    assert status == 0 and err == ""
    assert out == (
        f"{backup}: 0 new, 5 already known, 0 rejected; 0 bookmarks restored, 5 unchanged\n"
    )


@pytest.mark.slow
def test_export_and_restore_import_no_heavy_libraries(seeded: Path, tmp_path: Path):
    """`export` and restoring an export must not pay for Textual, scikit-learn, jieba or
    rich's rendering (rich's cell widths, which topiclens.text measures with, are small)."""
    import subprocess
    import sys

    out = tmp_path / "b.json"
    code = (
        "import sys; from topiclens.cli import main; "
        f"assert main(['--data-dir', {str(seeded)!r}, 'export', '--format', 'json', "
        f"'-o', {str(out)!r}]) == 0; "
        f"assert main(['--data-dir', {str(tmp_path / 'fresh')!r}, 'import', {str(out)!r}]) == 0; "
        "heavy = [m for m in ('textual', 'sklearn', 'jieba', 'rich.console', 'rich.text') "
        "if m in sys.modules]; "
        "sys.stderr.write(repr(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "[]", done.stderr


def test_a_note_kept_without_its_bookmark_survives_export_and_restore(tmp_path: Path):
    from topiclens.store.export import render
    from topiclens.store.restore import restore_data

    with Store.open_dir(tmp_path / "a") as store:
        import_file(store, DIGEST)
        first, second = (e.id for e in store.entries()[:2])
        store.set_note(first, "kept")
        store.toggle_bookmark(first)  # un-bookmarked: the note stays
        store.set_note(second, "bookmarked")
        data = render(store, "json")
    doc = json.loads(data)
    assert [n["note"] for n in doc["notes"]] == ["kept"]
    assert [b["note"] for b in doc["bookmarks"]] == ["bookmarked"]
    with Store.open_dir(tmp_path / "b") as other:
        report = restore_data(other, data, "backup.json")
        assert report.problems == [] and report.notes_restored == 1
        assert other.bookmark_ids() == {second}
        assert other.note(first) == "kept" and other.note(second) == "bookmarked"
        assert restore_data(other, data, "backup.json").notes_restored == 0
    bad = dict(doc, notes=[{"entry": doc["notes"][0]["entry"], "noted_at": "x"}])
    with Store.open_dir(tmp_path / "c") as other:
        report = restore_data(other, json.dumps(bad, indent=1).encode(), "bad.json")
        line = json.dumps(bad, indent=1).splitlines().index(' "notes": [') + 1
        assert [(p.line, p.message) for p in report.problems] == [
            (line, "note 1: 'noted_at' must be a time in seconds, not 'x'")
        ]
