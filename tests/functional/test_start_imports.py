"""What the reader's start leaves for later, checked in a fresh process: the modules the
first frame does not use are not imported by the reader's entry points nor by drawing the
first frame, the background reads wait for it, and nothing is parsed twice for it
(docs/performance.md, start-up)."""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from topiclens.tui.app import TopicLensApp

# imported where they are used, never for the first frame: the clustering's libraries, the
# feeds', and the hashes that make ids
DEFERRED = ("sklearn", "scipy", "numpy", "jieba", "httpx", "nh3", "hashlib")
# the store's modules for corrections, undo, the trash and feeds: loaded on their first use
DEFERRED_OWN = (
    "topiclens.store.correction_log",
    "topiclens.store.deleting",
    "topiclens.store.feeds",
    "topiclens.store.feed_entries",
    "topiclens.store.jsonvalues",  # an export's checks (Entry.from_json)
    "topiclens.store.entry_json",
    # the reader's parts a start without them does not show, and their styles
    "topiclens.tui.progress",  # the progress of a first start or a refresh
    "topiclens.tui.widgets.too_small",  # a terminal too small for the panes
    "topiclens.tui.screens",  # the dialogs and the overview
    "topiclens.tui.links",  # opening and copying an entry's link
    "topiclens.tui.places",  # where the view goes after a topic correction
    "topiclens.tui.first_start",  # the first start's import and grouping
)
ENTRY_POINTS = ("topiclens.cli", "topiclens.store", "topiclens.tui.app")


def start_reader(
    reader_store: Path,
    app_class: type[TopicLensApp] | None = None,
    size: tuple[int, int] = (120, 34),
    settled: Callable[[TopicLensApp], None] | None = None,
) -> None:
    """Run the reader (or ``app_class``) on ``reader_store`` headless until it is idle after
    its first frame, then call ``settled`` with it."""
    from topiclens.store import Store
    from topiclens.tui.app import TopicLensApp

    async def run() -> None:
        with Store(reader_store) as store:
            app = (app_class or TopicLensApp)(
                store, keymap_file=Path("/nonexistent/keymap.toml"), poll_interval=3600
            )
            async with app.run_test(size=size) as pilot:
                await pilot.pause()
                if settled is not None:
                    settled(app)

    asyncio.run(run())


def loaded(code: str, env: dict[str, str] | None = None) -> list[str]:
    """The DEFERRED modules (top-level names) and DEFERRED_OWN modules in sys.modules once
    ``code`` has run in a fresh interpreter."""
    code += (
        "\nimport sys\n"
        f"found = {{m.split('.')[0] for m in sys.modules}} & set({DEFERRED!r})\n"
        f"print(sorted(found | (set(sys.modules) & set({DEFERRED_OWN!r}))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return eval(done.stdout.strip().splitlines()[-1])  # a printed list of names


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_reader_entry_point_imports_nothing_deferred(module: str):
    assert loaded(f"import {module}") == []


def classes_made_at_start(module: str, which: str) -> list[str]:
    """The classes of topiclens that importing the reader's entry points makes and for
    which ``which`` holds (an expression of ``value``, the class, that may use ``module``),
    in a fresh process."""
    code = (
        f"import sys, {module}\n"
        "import topiclens.store, topiclens.tui.app\n"
        "print(sorted(f'{name}.{key}' for name, module in list(sys.modules.items())\n"
        "    if name.startswith('topiclens') for key, value in vars(module).items()\n"
        f"    if isinstance(value, type) and value.__module__ == name and ({which})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return eval(done.stdout.strip())  # a printed list of names


def test_reader_entry_points_make_no_dataclass():
    # @dataclass writes and compiles each class's methods in every process (about 4M
    # instructions a class, before the first frame): the start's records are plain classes
    assert classes_made_at_start("dataclasses", "dataclasses.is_dataclass(value)") == []


def test_reader_entry_points_make_no_feed_record():
    # a NamedTuple of 18 fields (~2M instructions) the first frame never shows: made on
    # the first use of ``topiclens.store.models.Feed``
    code = (
        "import sys, topiclens.store, topiclens.tui.app\n"
        "made = 'Feed' in vars(sys.modules['topiclens.store.models'])\n"
        "from topiclens.store.models import Feed\n"
        "print([made, Feed(1, 'https://example.org/feed').display_name])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert eval(done.stdout.strip()) == [False, "https://example.org/feed"]  # a printed list


def test_reader_entry_points_make_only_these_named_tuples():
    # each typing NamedTuple costs ~0.85M instructions to make (a plain class with slots
    # over store.models.Record less than half): the start's other records are such classes
    assert classes_made_at_start(
        "typing", "issubclass(value, tuple) and hasattr(value, '_fields')"
    ) == [
        "topiclens.store.bookmarks.Marks",
        "topiclens.store.bookmarks.Note",
        "topiclens.store.models.Assignment",
        "topiclens.store.models.Bookmark",
        "topiclens.store.models.Content",
        "topiclens.store.models.Problem",
        "topiclens.store.models.Topic",
        "topiclens.tui.model.Rows",
        "topiclens.tui.model.View",
        "topiclens.tui.views.RowFilter",
    ]


def test_reader_entry_points_make_no_named_tuple_of_annotation_strings():
    # typing compiles each field's annotation string into a ForwardRef (a module with
    # `from __future__ import annotations`): the start's records have runtime types
    which = (
        "(hasattr(value, '_fields') or typing.is_typeddict(value)) and any("
        "isinstance(kind, (str, typing.ForwardRef)) "
        "for kind in value.__dict__.get('__annotations__', {}).values())"
    )
    assert classes_made_at_start("typing", which) == []


def test_first_frame_imports_nothing_deferred_and_reads_nothing_ahead(reader_store: Path):
    # Ready is Textual's "the first frame is on the terminal"; the app's own handler runs
    # what waits for it, so the checks run just before it
    code = f"""
import asyncio, re, sys
from pathlib import Path
from topiclens.store import Store
from topiclens.tui.app import TopicLensApp

seen = {{}}

class Reader(TopicLensApp):
    def on_ready(self):
        seen["rows"] = len(self.screen.entry_list.rows)
        seen["worker connection"] = self.screen.loader._worker_store is not None
        found = {{m.split(".")[0] for m in sys.modules}} & set({DEFERRED!r})
        seen["deferred"] = sorted(found | (set(sys.modules) & set({DEFERRED_OWN!r})))
        # the terminal gate's pattern (~2M instructions to compile) is compiled by the
        # first text it cannot pass as printable, not at start
        patterns = [key[1] for key in re._cache if isinstance(key[1], str)]
        seen["gate compiled"] = any("\\u202a-\\u202e" in p for p in patterns)
        super().on_ready()

async def main():
    with Store({str(reader_store)!r}) as store:
        app = Reader(store, keymap_file=Path("/nonexistent/keymap.toml"), poll_interval=3600)
        async with app.run_test(size=(120, 34)) as pilot:
            await pilot.pause()
asyncio.run(main())
print(seen["rows"], seen["worker connection"], seen["gate compiled"])
print(seen["deferred"])
"""
    env = {**os.environ, "TOPICLENS_HOME": str(reader_store.parent)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    first, deferred = done.stdout.strip().splitlines()[-2:]
    rows, worker_connection, gate_compiled = first.split()
    assert int(rows) > 0  # the first frame shows a topic's entries
    # the read-ahead of the neighbouring topics (the workers' own connection) waits for Ready
    assert worker_connection == "False"
    assert gate_compiled == "False"
    assert deferred == "[]"


def test_first_frame_parses_the_stylesheets_once(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a second parse (Textual's refresh of the CSS after a change of theme) costs ~5%
    # of a start; the remembered theme is set before anything is parsed
    from textual.css.stylesheet import Stylesheet
    from topiclens.store import Store
    from topiclens.tui.app import TopicLensApp
    from topiclens.tui.theme import LIGHT, THEME_KEY

    reparsed: list[str] = []
    reparse = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        reparsed.append("reparse")
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    seen: list[tuple[int, str]] = []

    class Reader(TopicLensApp):
        def on_ready(self) -> None:
            seen.append((len(reparsed), self.theme))
            super().on_ready()

    with Store(reader_store) as store:
        store.set_meta(THEME_KEY, LIGHT)  # a theme that is not Textual's default
    start_reader(reader_store, Reader)
    assert seen == [(0, LIGHT)]


def test_no_garbage_collection_before_the_first_frame(reader_store: Path) -> None:
    # what the start allocates lives as long as the app: collections would only walk it
    from topiclens.tui.app import TopicLensApp

    seen: list[tuple[str, bool]] = []

    class Reader(TopicLensApp):
        def on_mount(self) -> None:
            seen.append(("mounted", gc.isenabled()))
            super().on_mount()

        def on_ready(self) -> None:
            seen.append(("first frame", gc.isenabled()))
            super().on_ready()
            seen.append(("after it", gc.isenabled()))

    start_reader(reader_store, Reader)
    assert seen == [("mounted", False), ("first frame", False), ("after it", True)]
    assert gc.isenabled()


def test_command_starts_the_reader_without_garbage_collection(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # off from the imports to the first frame (which the app turns it back on at), and on
    # again however the reader ended
    from topiclens.cli import main
    from topiclens.tui.app import TopicLensApp

    seen: list[bool] = []
    monkeypatch.setattr(TopicLensApp, "run", lambda app: seen.append(gc.isenabled()))
    assert main(["--data-dir", str(data_dir)]) == 0
    assert seen == [False]
    assert gc.isenabled()


def test_first_frame_styles_each_pane_once(reader_store: Path, monkeypatch: pytest.MonkeyPatch):
    # each pane is styled as it is mounted; restyling the whole screen again when it is
    # first shown (Textual's resume) cost ~3% of a start; the focused pane is styled as
    # focused when it is mounted, not again when it is focused (~4M instructions)
    from textual.css.stylesheet import Stylesheet
    from topiclens.tui.app import TopicLensApp

    styled: dict[str, int] = {}
    apply = Stylesheet.apply

    def counted(self: Stylesheet, node: object, *args: object, **kwargs: object) -> None:
        name = getattr(node, "id", None)
        if name is not None:
            styled[name] = styled.get(name, 0) + 1
        apply(self, node, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Stylesheet, "apply", counted)
    seen: dict[str, int] = {}
    focused: list[str | None] = []

    class Reader(TopicLensApp):
        def on_ready(self) -> None:
            seen.update(styled)
            focused.append(self.focused.id if self.focused is not None else None)
            super().on_ready()

    start_reader(reader_store, Reader)
    panes = ("topics", "entries", "detail", "similar")
    assert focused[0] == "topics"
    # the focused pane too: it is styled as focused when it is mounted
    assert {p: seen.get(p) for p in panes} == {p: 1 for p in panes}


@pytest.mark.parametrize("size", [(120, 34), (80, 24)])
def test_first_frame_has_the_scrollbars_of_the_settled_screen(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    # a scrollbar that appears after the first layout takes a second layout and frame
    # (one that redrew most of the screen at 100,000 entries); the panes' sizes are
    # known before the first layout, so the first frame has the scrollbars it keeps
    from textual.app import App
    from textual.scroll_view import ScrollView

    def scrollbars(app: App[None]) -> dict[str, tuple[bool, bool]]:
        shown = app.screen._compositor.visible_widgets
        return {
            str(view.id): (view.show_vertical_scrollbar, view.vertical_scrollbar in shown)
            for view in app.screen.query(ScrollView)
        }

    frames: list[dict[str, tuple[bool, bool]]] = []
    display = App._display

    def drawn(self: App[None], screen: object, renderable: object) -> None:
        display(self, screen, renderable)  # type: ignore[arg-type]
        if not frames:
            frames.append(scrollbars(self))

    monkeypatch.setattr(App, "_display", drawn)
    settled: list[dict[str, tuple[bool, bool]]] = []

    start_reader(reader_store, size=size, settled=lambda app: settled.append(scrollbars(app)))
    assert frames[0] == settled[0]
    assert (True, True) in frames[0].values()  # a pane scrolls: the check means something
