"""Fixtures the unit tests share (tests/conftest.py has the project-wide ones)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import DIGEST, LISTING
from topiclens.store import Store
from topiclens.store.importer import import_file


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """An open store holding the bundled digest (dated entries) and the listing (undated
    ones); a module with its own ``store`` fixture uses that instead."""
    with Store.open_dir(tmp_path / "d") as s:
        import_file(s, DIGEST)
        import_file(s, LISTING)
        yield s
