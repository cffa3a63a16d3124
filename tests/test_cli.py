"""The command line: import counts, listing, JSON, version and help."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import orjson
import topiclens
from conftest import DIGEST, LISTING, ROOT


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
    lines = out.splitlines()
    assert len(lines) == 87
    assert lines[0].split()[1] == "2026-09-28"  # newest first


def test_version_and_help(capsys):
    from topiclens.cli import main

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
