"""Layers kept honest: the data layers never import Textual, and the clustering never the
store's modules (checked in a fresh process)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

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


def product_folders() -> list[str]:
    """Every folder that installs as a package of topiclens (pyproject's package-dir), so a
    new one is guarded from the day it is added."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    folders = config["tool"]["setuptools"]["package-dir"].values()
    return sorted(f for f in folders if f != "assets")


PRODUCT = product_folders()


def textual_private_names(source: str) -> list[str]:
    """Every private name ``source`` imports from Textual: ``from textual.x import _y``,
    ``from textual._x import y`` and ``import textual._x`` (TYPE_CHECKING and function
    bodies included)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != "textual":
                continue
            private_module = any(p.startswith("_") for p in node.module.split("."))
            for alias in node.names:
                if private_module or alias.name.startswith("_"):
                    found.append(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "textual" and any(p.startswith("_") for p in parts):
                    found.append(alias.name)
    return found


def test_the_private_name_guard_sees_every_form_of_import():
    source = (
        "from textual.keys import Keys, _character_to_key\n"
        "from textual._xterm_parser import XTermParser\n"
        "import textual._compositor\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from textual.app import _private\n"
        "def f():\n"
        "    from textual.widget import _lazy\n"
        "from textual.widget import Widget\n"
        "from topiclens.tui import _ours\n"
    )
    assert textual_private_names(source) == [
        "textual.keys._character_to_key",
        "textual._xterm_parser.XTermParser",
        "textual._compositor",
        "textual.app._private",
        "textual.widget._lazy",
    ]


def test_private_textual_api_only_in_textual_compat():
    """The product imports private names from Textual, and reaches into Textual's private
    attributes, in one module only (tui/textual_compat.py, which says why): an upgrade of
    Textual has one place to check."""
    importers = {
        str(p.relative_to(ROOT)): names
        for folder in PRODUCT
        for p in sorted((ROOT / folder).rglob("*.py"))
        if (names := textual_private_names(p.read_text("utf-8")))
    }
    assert set(importers) <= {"tui/textual_compat.py"}
    private = re.compile(r"\._(scroll_update|keymap|compositor|dom_ready|refresh_scrollbars)\b")
    users = sorted(
        str(p.relative_to(ROOT))
        for folder in PRODUCT
        for p in (ROOT / folder).rglob("*.py")
        if private.search(p.read_text("utf-8"))
    )
    assert users == ["tui/textual_compat.py"]


def import_graph(package: Path, name: str) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports, from every import statement
    in it (under TYPE_CHECKING and inside functions too); ``from . import x`` counts as an
    import of the package unless ``x`` is a module of it."""
    modules: dict[str, tuple[Path, bool]] = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        dotted = ".".join([name, *(parts[:-1] if is_package else parts)])
        modules[dotted] = (path, is_package)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, (path, is_package) in modules.items():
        here = module if is_package else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                graph[module] |= {a.name for a in node.names if a.name in modules}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in modules:
                        graph[module].add(sub)
                    elif base in modules:
                        graph[module].add(base)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected parts of more than one
    module, and modules that import themselves."""
    found: list[list[str]] = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while not part or part[-1] != node:
                part.append(stack.pop())
            if len(part) > 1 or node in graph[node]:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle_through_a_type_only_import(tmp_path: Path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import B\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .sub.c import C\n"
    )
    (package / "sub" / "__init__.py").write_text("from .c import C\n")
    (package / "sub" / "c.py").write_text("def f():\n    from ..a import A\n")
    (package / "sub" / "d.py").write_text("from . import C\n")
    graph = import_graph(package, "pkg")
    assert graph["pkg.sub.d"] == {"pkg.sub"}  # a name from the package: the package
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c"]]


def test_the_reader_imports_in_no_cycle():
    """Every module of tui/ can be read without the modules that import it."""
    assert cycles(import_graph(ROOT / "tui", "topiclens.tui")) == []


def test_every_clustering_stage_has_words_in_the_reader():
    from topiclens.clustering.stages import Stage
    from topiclens.tui.progress import STAGES

    assert set(STAGES) == set(Stage)
