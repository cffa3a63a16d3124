"""Fixtures shared by the test modules (plain helpers are in helpers.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import HOSTILE, TOPIC_NAMES, CliResult, make_reader_store
from hypothesis import settings
from topiclens.cli import main
from topiclens.store import Entry, Store

# The same examples on every run: a result never depends on what an earlier run stored in
# .hypothesis/ or on the clock. `pytest --hypothesis-profile explore` draws fresh examples.
settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile("repeatable")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow by rule: every test of the reader (tests/functional/test_tui*.py), which starts the app
    under Pilot, and every test that asks for the clustered bundled corpus."""
    for item in items:
        clustered = "clustered_home" in getattr(item, "fixturenames", ())
        if item.path.name.startswith("test_tui") or clustered:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def own_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own cache dir ($XDG_CACHE_HOME): the reader keeps its parsed CSS there,
    and no test starts from what the user's starts or another test kept."""
    cache = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


@pytest.fixture(scope="session")
def clustered_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory holding the bundled corpus grouped into topics, made once per test
    process (clustering it takes seconds): tests change only their copy (``bundled_home``)."""
    from topiclens.clustering.pipeline import cluster_store
    from topiclens.store.importer import import_bundled

    home = tmp_path_factory.mktemp("clustered-bundled")
    with Store.open_dir(home) as store:
        import_bundled(store)
        cluster_store(store)
    return home


@pytest.fixture
def bundled_home(clustered_home: Path, tmp_path: Path) -> Path:
    """This test's own copy of :func:`clustered_home`."""
    copy = tmp_path / "home"
    shutil.copytree(clustered_home, copy)
    return copy


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data directory, also set as $TOPICLENS_HOME so nothing touches the real one."""
    home = tmp_path / "data"
    monkeypatch.setenv("TOPICLENS_HOME", str(home))
    return home


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], data_dir: Path) -> Callable[..., CliResult]:
    """Run the topiclens command in-process: returns (exit status, stdout, stderr)."""

    def run(*args: str) -> CliResult:
        status = main(["--data-dir", str(data_dir), *args])
        out, err = capsys.readouterr()
        return status, out, err

    return run


@pytest.fixture
def bundled_cli(capsys: pytest.CaptureFixture[str], bundled_home: Path) -> Callable[..., CliResult]:
    """Run the topiclens command in-process on this test's copy of the clustered bundled
    corpus: returns (exit status, stdout, stderr)."""

    def run(*args: str) -> CliResult:
        status = main(["--data-dir", str(bundled_home), *args])
        out, err = capsys.readouterr()
        return status, out, err

    return run


@pytest.fixture
def reader_store(data_dir: Path) -> Path:
    """Path of a store holding the bundled corpus and fixed reader topics."""
    return make_reader_store(data_dir)


@pytest.fixture
def hostile_store(reader_store: Path) -> Path:
    """The reader store, plus entries whose every field is hostile (newest, so the first
    topic shows them first), topics with markup in their names and a hostile note."""
    with Store(reader_store) as store:
        first = store.topics()[0]
        entries = [
            Entry(
                f"{i:016x}",
                title,
                f"summary {title}\nsecond line {title}",
                comment=f"comment {title}",
                source=f"src {title}",
                category=title,
                date="2099-01-01",
                url=f"https://example.com/{title}",
            )
            for i, title in enumerate(HOSTILE)
        ]
        store.add_entries(entries)
        ids = [e.id for e in entries]
        store.add_assignments(
            {e: (first.id, 0.5, ["[/]", "\x1b]0;term\x07"]) for e in ids},
            {e: [(o, 0.5) for o in ids if o != e][:3] for e in ids},
        )
        for topic, name in zip(store.topics(), TOPIC_NAMES, strict=False):
            store.rename_topic(topic.id, name)
        store.set_note(ids[0], "note \x1b]52;c;cHduZWQ=\x07 [/] [b]x\nline two")
    return reader_store


@pytest.fixture
def mount(tmp_path: Path) -> Iterator[Path]:
    """A directory on its own small tmpfs (1 MiB), unmounted afterwards. Needs root and
    a system that lets it mount; skipped otherwise."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    point = tmp_path / "mnt"
    point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(point)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)
