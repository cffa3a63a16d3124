"""The command line's daily flows: export's format from the file name, its help, entries
--until, the HTML page's language, and a bookmark filed under the topic it was made from."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from helpers import CliResult
from topiclens.store import Store

Cli = Callable[..., CliResult]


def _bookmark_some(db: Path, n: int = 3) -> list[str]:
    with Store(db) as store:
        ids = store.entry_ids()[:n]
        for eid in ids:
            store.toggle_bookmark(eid)
    return ids


@pytest.mark.parametrize(
    "name, start",
    [("x.html", b"<!DOCTYPE html>"), ("x.HTM", b"<!DOCTYPE html>"), ("x.json", b"{")],
)
def test_export_chooses_the_format_from_the_extension(
    cli: Cli, reader_store: Path, tmp_path: Path, name: str, start: bytes
):
    _bookmark_some(reader_store)
    target = tmp_path / name
    status, out, err = cli("export", "-o", str(target))
    assert status == 0, err
    assert target.read_bytes().startswith(start)
    assert "as HTML" in out if start.startswith(b"<!") else "as JSON" in out


def test_export_refuses_a_format_the_file_name_contradicts(
    cli: Cli, reader_store: Path, tmp_path: Path
):
    _bookmark_some(reader_store)
    target = tmp_path / "x.html"
    status, out, err = cli("export", "--format", "md", "-o", str(target))
    assert status == 2 and out == "" and not target.exists()
    assert "x.html: its extension says HTML, but --format md was given" in err
    # agreeing, or an extension no format has: as asked
    assert cli("export", "--format", "html", "-o", str(target))[0] == 0
    other = tmp_path / "notes.txt"
    assert cli("export", "--format", "csv", "-o", str(other))[0] == 0
    assert other.read_bytes().startswith(b"\xef\xbb\xbftopic_id,")
    plain = tmp_path / "plain"
    assert cli("export", "-o", str(plain))[0] == 0 and plain.read_bytes().startswith(b"# ")


def test_export_help_does_not_point_at_itself(capsys: pytest.CaptureFixture[str]):
    from topiclens.cli import main

    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = capsys.readouterr().out
    assert "export --help" not in text
    assert "md: Markdown" in text and "extension" in text


def test_entries_until_a_date(cli: Cli, reader_store: Path):
    with Store(reader_store) as store:
        dates = sorted({e.date for e in store.entries() if e.date})
    middle = dates[len(dates) // 2]
    status, out, _ = cli("entries", "--until", middle, "--json")
    assert status == 0
    got = [e["date"] for e in orjson.loads(out)["entries"]]
    assert got and all(d is not None and d <= middle for d in got)
    month = middle[:7]
    status, out, _ = cli("entries", "--until", month, "--json")
    got = [e["date"] for e in orjson.loads(out)["entries"]]
    assert max(got)[:7] == month  # the whole month is in
    status, out, _ = cli("entries", "--since", middle, "--until", middle, "--json")
    assert {e["date"] for e in orjson.loads(out)["entries"]} == {middle}
    with pytest.raises(SystemExit) as stop:
        cli("entries", "--until", "2026-13")
    assert stop.value.code == 2


# --- exports: language and the topic a bookmark was made from -----------------------------


def test_the_html_page_is_in_its_entries_language(cli: Cli, reader_store: Path, tmp_path: Path):
    from topiclens.store.export_html import page_language

    assert page_language(["zh", "zh", "en", "mixed"]) == "zh"
    assert page_language(["en", "zh", "en"]) == "en"
    assert page_language([]) == "en"
    with Store(reader_store) as store:
        langs = {e.id: e.lang for e in store.entries()}
        zh = [eid for eid, lang in langs.items() if lang == "zh"][:3]
        en = [eid for eid, lang in langs.items() if lang == "en"][:1]
        assert zh and en
        for eid in zh + en:
            store.toggle_bookmark(eid)
    page = tmp_path / "b.html"
    assert cli("export", "-o", str(page))[0] == 0
    text = page.read_text("utf-8")
    assert '<html lang="zh">' in text and "mul" not in text.split("<head>")[0]
    assert f'data-id="{en[0]}" lang="en">' in text  # the English one says so


def test_a_bookmark_is_filed_under_the_topic_it_was_made_from(
    cli: Cli, reader_store: Path, tmp_path: Path
):
    with Store(reader_store) as store:
        entry_id = store.topic_entry_ids(1)[0]
        store.add_assignments({entry_id: (1, 0.3, ["投机"])}, also=[(entry_id, 3, 0.2)])
        store.toggle_bookmark(entry_id, topic_id=3)  # from topic 3, where it is also listed
        plain = store.topic_entry_ids(2)[0]
        store.toggle_bookmark(plain, topic_id=2)
        stale = store.topic_entry_ids(4)[0]
        store.toggle_bookmark(stale, topic_id=5)  # a topic it is not listed under (any more)
    backup = tmp_path / "b.json"
    assert cli("export", "-o", str(backup))[0] == 0
    doc = orjson.loads(backup.read_bytes())
    filed = {b["entry"]["id"]: b["topic"]["id"] for b in doc["bookmarks"]}
    assert filed == {entry_id: 3, plain: 2, stale: 4}
    assert {b["entry"]["id"]: b["from_topic"] for b in doc["bookmarks"]} == {
        entry_id: 3,
        plain: 2,
        stale: 5,
    }
    assert len(doc["bookmarks"]) == 3  # filed once each: one record, one count
    status, out, _ = cli("export", "--topic", "3", "-o", "-", "--format", "md")
    assert status == 0 and entry_id in out
    # the topic it was made from survives a backup and its restore
    with Store(reader_store) as store:
        store.set_bookmark(entry_id, False)
    status, out, _ = cli("import", str(backup))
    assert status == 0 and "1 bookmarks restored, 2 unchanged" in out
    with Store(reader_store) as store:
        assert store.bookmark_from_topics()[entry_id] == 3
