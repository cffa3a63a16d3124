"""Layers kept honest: the data layers never import Textual, and the clustering never the
store's modules (checked in a fresh process)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEADLESS = [
    "topiclens.store",
    "topiclens.store.db",
    "topiclens.store.parsers",
    "topiclens.store.importer",
    "topiclens.clustering",
    "topiclens.feeds",
    "topiclens.text",
]
# rich's cell widths (topiclens.text measures with them) and what that module loads; none
# of rich's rendering
RICH_CELLS = {"rich", "rich._extension", "rich.cells", "rich._unicode_data"}


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_module_imports_no_textual(module: str):
    code = (
        "import importlib, pkgutil, sys\n"
        f"mod = importlib.import_module({module!r})\n"
        "if hasattr(mod, '__path__'):\n"
        "    for info in pkgutil.walk_packages(mod.__path__, mod.__name__ + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "bad = sorted(m for m in sys.modules\n"
        "             if m == 'textual' or m.startswith(('textual.', 'rich')))\n"
        "print('\\n'.join(bad))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = done.stdout.split()
    bad = [m for m in loaded if m not in RICH_CELLS and not m.startswith("rich._unicode_data.")]
    assert bad == [], bad


@pytest.mark.parametrize(
    "module", ["topiclens.clustering.estimator", "topiclens.clustering.tokenize"]
)
def test_the_model_and_the_tokenizer_load_no_store_module(module: str):
    code = (
        f"import sys, {module}\n"
        "print(sorted(m for m in sys.modules if m.startswith('topiclens.store')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_private_textual_api_only_in_textual_compat():
    """The reader reaches into Textual's private API in one module only."""
    import re
    from pathlib import Path

    tui = Path(__file__).resolve().parent.parent / "tui"
    private = re.compile(r"\._(scroll_update|keymap|compositor|dom_ready|refresh_scrollbars)\b")
    users = sorted(
        str(p.relative_to(tui)) for p in tui.rglob("*.py") if private.search(p.read_text("utf-8"))
    )
    assert users == ["textual_compat.py"]


def test_every_clustering_stage_has_words_in_the_reader():
    from topiclens.clustering.stages import Stage
    from topiclens.tui.progress import STAGES

    assert set(STAGES) == set(Stage)
