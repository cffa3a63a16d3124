"""A JSON export is a backup: `topiclens import` restores its entries, bookmarks and notes
exactly, into a fresh store or the same one; a malformed export changes nothing."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import DIGEST, LISTING, dump_store
from test_export import seed
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


def _mutate(doc: dict[str, Any], how: str) -> dict[str, Any]:
    b = doc["bookmarks"]
    if how == "newer":
        doc["version"] = 99
    elif how == "version-text":
        doc["version"] = "1"
    elif how == "not-a-list":
        doc["bookmarks"] = {"a": 1}
    elif how == "missing-summary":
        del b[2]["entry"]["summary"]
    elif how == "bad-date":
        b[2]["entry"]["date"] = "2026-02-30"
    elif how == "note-number":
        b[2]["note"] = 5
    elif how == "no-time":
        del b[2]["bookmarked_at"]
    elif how == "duplicate":
        b.append(b[2])
    elif how == "entry-list":
        b[2]["entry"] = []
    return doc


MUTATIONS = {
    "newer": (r":3: written by a newer topiclens \(export version 99", 3),
    "version-text": (r":3: 'version' must be a whole number", 3),
    "not-a-list": (r":8: 'bookmarks' must be a list, not an object", 8),
    "missing-summary": (r"bookmark 3: missing 'summary'", None),
    "bad-date": (r"bookmark 3: 'date' '2026-02-30' is not a date", None),
    "note-number": (r"bookmark 3: 'note' must be a string, not a number", None),
    "no-time": (r"bookmark 3: 'bookmarked_at' must be a time in seconds, not None", None),
    "duplicate": (r"bookmark 6: entry \w+ is already bookmark 3", None),
    "entry-list": (r"bookmark 3: 'entry' must be an object, not a list", 0),
}


@pytest.mark.parametrize("how", sorted(MUTATIONS))
def test_malformed_export_changes_nothing(store: Store, tmp_path: Path, how: str):
    doc = _mutate(orjson.loads(render(store, "json")), how)
    path = tmp_path / "bad.json"
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    store.toggle_bookmark(store.bookmarks()[2].entry_id)  # the restore would bring it back
    with Store.open_dir(tmp_path / "other") as other:
        for target in (store, other):
            before = dump_store(target.path)
            report = import_file(target, path)
            assert report.rejected == 1 and report.new == 0, report.problems
            assert dump_store(target.path) == before
    message, line = MUTATIONS[how]
    problem = str(report.problems[0])
    assert problem.startswith(f"{path}:"), problem
    assert re.search(message, problem), problem
    if line is None:  # pinned to the line of the bookmark's entry id
        eid = doc["bookmarks"][2]["entry"]["id"]
        text = path.read_text(encoding="utf-8")
        line = text[: text.index(f'"{eid}"')].count("\n") + 1
        assert report.problems[0].line == line
    elif line:
        assert report.problems[0].line == line


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


def test_export_and_restore_import_no_heavy_libraries(seeded: Path, tmp_path: Path):
    """`export` and restoring an export must not pay for Textual, scikit-learn or jieba."""
    import subprocess
    import sys

    out = tmp_path / "b.json"
    code = (
        "import sys; from topiclens.cli import main; "
        f"assert main(['--data-dir', {str(seeded)!r}, 'export', '--format', 'json', "
        f"'-o', {str(out)!r}]) == 0; "
        f"assert main(['--data-dir', {str(tmp_path / 'fresh')!r}, 'import', {str(out)!r}]) == 0; "
        "heavy = [m for m in ('textual', 'sklearn', 'jieba', 'rich') if m in sys.modules]; "
        "sys.stderr.write(repr(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "[]", done.stderr
