"""The command line: import counts, listing, JSON, version and help."""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
import pytest
import topiclens
from helpers import DIGEST, LISTING, ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.app import App
from topiclens.cli import main
from topiclens.store import Entry, Store, Topic
from topiclens.store.text import entry_id


def test_import_twice_reports_new_then_known(cli):
    status, out, err = cli("import", str(DIGEST), str(LISTING))
    assert status == 0, err
    assert f"{DIGEST}: 87 new, 0 already known, 0 rejected" in out
    assert f"{LISTING}: 22 new, 0 already known, 0 rejected" in out
    assert "total: 109 new, 0 already known, 0 rejected" in out
    status, out, _ = cli("import", str(DIGEST), str(LISTING))
    assert status == 0
    assert "total: 0 new, 109 already known, 0 rejected" in out


def test_entries_json(cli):
    cli("import", str(LISTING))
    status, out, _ = cli("entries", "--json")
    assert status == 0
    entries = orjson.loads(out)["entries"]
    assert len(entries) == 22
    titles = {e["title"] for e in entries}
    assert "NVLink、NVSwitch 及其背后的互联架构" in titles
    sample = entries[0]
    assert set(sample) >= {"id", "title", "summary", "comment", "source", "date", "lang", "origin"}
    assert sample["origin"]["file"] == str(LISTING)


def test_entries_text_lists_every_entry(cli):
    cli("import", str(DIGEST))
    status, out, _ = cli("entries")
    assert status == 0
    header, *lines = out.splitlines()
    assert header.split() == ["id", "date", "source", "title"]
    assert len(lines) == 87
    assert lines[0].split()[1] == "2026-09-28"  # newest first


def test_version_and_help(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert topiclens.__version__ in capsys.readouterr().out
    with contextlib.suppress(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    for word in ("import", "entries", "--data-dir", "TOPICLENS_HOME", "examples:"):
        assert word in text


@pytest.mark.slow
def test_data_dir_from_environment(tmp_path: Path):
    env = {**os.environ, "TOPICLENS_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "topiclens", "import", str(LISTING)],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "home" / "topiclens.db").exists()


@pytest.mark.slow
def test_light_commands_import_no_heavy_libraries(tmp_path: Path):
    """`import` and `entries` must not pay for Textual, scikit-learn or jieba."""
    code = (
        "import sys; from topiclens.cli import main; "
        f"main(['--data-dir', {str(tmp_path)!r}, 'import', {str(LISTING)!r}]); "
        f"main(['--data-dir', {str(tmp_path)!r}, 'entries']); "
        "heavy = [m for m in ('textual', 'sklearn', 'jieba') if m in sys.modules]; "
        "sys.stderr.write(repr(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stderr.strip().endswith("[]"), done.stderr


def test_readme_test_command_is_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    command = next(
        line.strip() for line in ci.splitlines() if line.strip().startswith("pip install")
    )
    assert command in readme


# --- hostile text never reaches the terminal ---------------------------------------------

# What a terminal acts on: C0 controls but tab and newline, DEL, C1 controls, and
# the bidi embeddings, overrides and isolates.
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

HOSTILE_PIECES = (
    "\x1b]52;c;cHduZWQ=\x07",  # OSC 52: sets the clipboard
    "\x1b]0;pwned\x07",  # retitles the window
    "\x1b[2J",  # clears the screen
    "\x9b31m",  # a C1 CSI
    "\u202eevil\u202c",  # bidi override
    "\u2066iso\u2069",
    "\r",
    "\x00",
    "\x7f",
    "\n",
    "\t",
    "\u2028",
    "[/]",  # markup is data
    "[@click=app.quit]",
    "=cmd|' /C calc'!A0",  # a formula
    "投机解码",
    "plain",
)

_hostile = st.lists(
    st.one_of(st.sampled_from(HOSTILE_PIECES), st.text(max_size=4)), min_size=1, max_size=5
).map("".join)


def hostile_store(home: Path, texts: list[str]) -> None:
    """One entry per text, every field of it hostile, bookmarked with the text as its note,
    in a topic named with the text."""
    entries = []
    for n, text in enumerate(texts):
        title, summary = f"{text}{n}", f"{text} summary {n}"
        entries.append(
            Entry(
                entry_id(title, summary, text),
                title,
                summary,
                text,
                source=text,
                category=text,
                date=None,
                url=f"https://example.com/{text}",
            )
        )
    with Store.open_dir(home) as store:
        store.add_entries(entries)
        for e in entries:
            store.set_bookmark(e.id, True, e.comment)
        topics = [
            Topic(n + 1, f"{e.comment} topic", [(e.comment or "w", 1.0)], 1)
            for n, e in enumerate(entries)
        ]
        store.replace_topics(
            topics, {e.id: (n + 1, 0.5, [e.comment]) for n, e in enumerate(entries)}
        )


def unsafe(output: str, *, csv_rows: bool = False) -> list[str]:
    if csv_rows:
        output = output.replace("\r\n", "\n")  # CSV's own record ends
    return FORBIDDEN.findall(output)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_hostile, min_size=1, max_size=3))
def test_no_terminal_control_ever_reaches_the_output(texts: list[str]):
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        hostile_store(home, texts)
        runs = {
            ("entries",): False,
            ("topics",): False,
            ("export", "--format", "md", "-o", "-"): False,
            ("export", "--format", "csv", "-o", "-"): True,
            ("export", "--format", "md", "-o", str(home / "b.md")): False,
        }
        for args, csv_rows in runs.items():
            out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
            err = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(["--data-dir", str(home), *args])
            out.flush()
            printed = out.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]
            assert status == 0, (args, err.getvalue())
            assert unsafe(printed, csv_rows=csv_rows) == [], args
            assert unsafe(err.getvalue()) == [], args
        assert unsafe((home / "b.md").read_text(encoding="utf-8")) == []


def test_a_line_break_in_a_name_or_title_never_splits_a_line(cli, data_dir: Path):
    hostile_store(data_dir, ["two\nlines", "cr\rhere"])
    status, out, _ = cli("entries")
    assert status == 0 and len(out.splitlines()) == 3  # the header, then one line an entry
    status, out, _ = cli("topics")
    assert status == 0 and len(out.splitlines()) == 3  # the header, then one line a topic
    assert "two lines topic" in out


def test_json_output_escapes_what_a_terminal_acts_on_and_stays_exact(cli, data_dir: Path):
    hostile_store(data_dir, ["\x1b]0;t\x07\x9b\u202e"])
    status, out, _ = cli("entries", "--json")
    assert status == 0 and unsafe(out) == []
    assert orjson.loads(out)["entries"][0]["comment"] == "\x1b]0;t\x07\x9b\u202e"


# --- arguments: one-line errors --------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("rename-topic", "99999999999999999999", "x"),
        ("rename-topic", "9" * 5000, "x"),
        ("rename-topic", "-1", "x"),
        ("rename-topic", "one", "x"),
        ("cluster", "--k", "0"),
        ("cluster", "--k", "-3"),
        ("cluster", "--k", "1000000000000000000000000"),
        ("export", "--topic", "99999999999999999999", "-o", "-"),
    ],
)
def test_a_number_out_of_range_is_one_line(args: tuple[str, ...], cli):
    with pytest.raises(SystemExit) as stop:
        cli(*args)
    assert stop.value.code == 2


def test_argument_errors_are_one_line(capsys, data_dir: Path):
    for args in (
        ["rename-topic", "99999999999999999999", "x"],
        ["cluster", "--k", "0"],
        ["--data-dir", "", "entries"],
        ["--data-dir", "  ", "entries"],
    ):
        with pytest.raises(SystemExit) as stop:
            main(args)
        out, err = capsys.readouterr()
        assert stop.value.code == 2 and out == ""
        assert err.count("\n") == 1 and "error:" in err and "--help" in err, err
    assert not data_dir.exists()


def test_empty_data_dir_is_never_the_default_store(monkeypatch, tmp_path: Path):
    from topiclens.paths import data_dir

    monkeypatch.setenv("TOPICLENS_HOME", str(tmp_path))
    with pytest.raises(ValueError, match="empty"):
        data_dir("")
    assert data_dir(None) == tmp_path


def test_topic_names_are_stored_exactly_and_are_one_line(cli, data_dir: Path):
    hostile_store(data_dir, ["x"])
    status, out, err = cli("rename-topic", "1", "C++ [/draft]")
    assert status == 0, err
    with Store.open_dir(data_dir) as store:
        assert store.topic(1).name == "C++ [/draft]"
    for bad in ("two\nlines", "tab\there", "esc\x1b[2J", "rtl\u202eoverride", "para\u2029x"):
        status, out, err = cli("rename-topic", "1", bad)
        assert status == 2 and out == "" and err.count("\n") == 1, err
        assert "one line" in err and unsafe(err) == []
    with Store.open_dir(data_dir) as store:
        assert store.topic(1).name == "C++ [/draft]"


# --- import from standard input, a forced format ------------------------------------------


def _importer_reads_stdin() -> bool:
    from topiclens.store.importer import import_file

    return "fmt" in inspect.signature(import_file).parameters


needs_store_branch = pytest.mark.skipif(
    not _importer_reads_stdin(),
    reason="needs import_file(store, path, display, fmt) with '-' for stdin (store branch)",
)


@pytest.mark.slow
@needs_store_branch
def test_import_from_standard_input(tmp_path: Path):
    done = subprocess.run(
        [sys.executable, "-m", "topiclens", "--data-dir", str(tmp_path), "import", "-"],
        input=LISTING.read_bytes(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert b"22 new, 0 already known, 0 rejected" in done.stdout


@needs_store_branch
def test_import_format_forced(cli, tmp_path: Path):
    rows = [{"title": f"t{n}", "summary": f"summary {n}"} for n in range(3)]
    path = tmp_path / "rows.txt"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    status, out, err = cli("import", "--format", "jsonl", str(path))
    assert status == 0, err
    assert "3 new, 0 already known, 0 rejected" in out


def test_import_format_is_one_of_the_parsers(cli):
    with pytest.raises(SystemExit) as stop:
        cli("import", "--format", "pdf", str(LISTING))
    assert stop.value.code == 2


# --- the reader's exit status ------------------------------------------------------------------


class _Reader(App[None]):
    """Stands in for the reader: crashes on start, or quits cleanly."""

    def __init__(self, store: object, crash: bool) -> None:
        super().__init__()
        self.crash = crash

    def on_mount(self) -> None:
        if self.crash:
            raise RuntimeError("the reader crashed")
        self.exit()

    def run(self, **kwargs: object) -> None:  # type: ignore[override]
        super().run(headless=True)


@pytest.mark.parametrize(("crash", "status"), [(True, 1), (False, 0)])
def test_the_reader_exits_non_zero_after_a_crash(
    crash: bool, status: int, data_dir: Path, monkeypatch
):
    import topiclens.tui.app

    monkeypatch.setattr(
        topiclens.tui.app, "TopicLensApp", lambda store, **_: _Reader(store, crash=crash)
    )
    assert main(["--data-dir", str(data_dir)]) == status


@pytest.mark.slow
def test_the_reader_start_does_not_import_the_exporters(tmp_path: Path):
    code = (
        "import sys; import topiclens.cli.commands as c; from topiclens.cli import main\n"
        "c.cmd_read = lambda args: 0  # everything the reader's start does but the reader\n"
        f"assert main(['--data-dir', {str(tmp_path)!r}]) == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith('topiclens.store.export')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
