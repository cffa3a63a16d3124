"""The themes' contrast (bench/contrast.py on the real app), and choosing a theme."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import ROOT
from topiclens.store import Store
from topiclens.tui import theme
from topiclens.tui.app import TopicLensApp

BENCH = ROOT / "bench" / "contrast.py"
KEYMAP = Path("/nonexistent/keymap.toml")


def load_bench():
    spec = importlib.util.spec_from_file_location("contrast_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


contrast = load_bench()


def test_ratio_matches_wcag() -> None:
    from textual.color import Color

    assert contrast.contrast(Color(0, 0, 0), Color(255, 255, 255)) == pytest.approx(21.0)
    assert contrast.contrast(Color(255, 255, 255), Color(255, 255, 255)) == pytest.approx(1.0)
    # #767676 on white is the well-known lightest grey that passes AA
    assert contrast.contrast(Color.parse("#767676"), Color(255, 255, 255)) == pytest.approx(
        4.54, abs=0.01
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(theme.THEMES))
def test_theme_meets_aa(reader_store: Path, name: str) -> None:
    pairs = contrast.unique(contrast.measure(reader_store.parent, name))
    wheres = {p.where for p in pairs}
    # every kind of text was reached: lists focused and not, cursors, dialogs, toasts
    for where in (
        "#topics focused [muted-cursor]",
        "#entries not focused [meta-cursor]",
        "#similar not focused [cursor row on rows]",
        "#detail focused [heading]",
        "Toast.-error",
        "Label.dialog-hint",
        "KeyFooter",
    ):
        assert where in wheres, where
    failing = [
        f"{p.state}: {p.where} {p.sample!r} {p.fg.hex6} on {p.bg.hex6} "
        f"{p.ratio:.2f} ({p.ratio_256:.2f})"
        for p in pairs
        if not p.ok
    ]
    assert not failing


@pytest.mark.slow
def test_a_colour_below_aa_fails(reader_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dark = theme.THEMES[theme.DARK]
    grey = {**dark.variables, "block-cursor-blurred-foreground": "#A8A8A8"}  # 3.6:1 on #6C6C6C
    lowered = replace(dark, name="lowered", variables=grey)
    monkeypatch.setitem(theme.THEMES, "lowered", lowered)
    pairs = contrast.unique(contrast.measure(reader_store.parent, "lowered"))
    failing = [p for p in pairs if not p.ok]
    assert "#entries not focused [-cursor]" in {p.where for p in failing}
    # exactly the text drawn in the lowered colour fails (unfocused cursors, the radio's)
    assert {p.fg.hex6 for p in failing} == {"#A8A8A8"}
    assert all(p.ok for p in pairs if p.fg.hex6 != "#A8A8A8")


async def _press_theme(data_dir: Path, *keys: str, theme: str | None = None) -> tuple[str, str]:
    """The theme the reader starts with, and the one it has after ``keys``."""
    with Store.open_dir(data_dir) as store:
        app = TopicLensApp(store, keymap_file=KEYMAP, cluster=False, theme=theme)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            first = app.theme
            await pilot.press(*keys)
            await pilot.pause()
            return first, app.theme


def test_toggle_theme_is_remembered(reader_store: Path) -> None:
    data_dir = reader_store.parent
    first, toggled = asyncio.run(_press_theme(data_dir, "ctrl+t"))
    assert (first, toggled) == (theme.DARK, theme.LIGHT)
    with Store.open_dir(data_dir) as store:
        assert store.get_meta(theme.THEME_KEY) == theme.LIGHT
        assert TopicLensApp(store, keymap_file=KEYMAP, cluster=False).theme == theme.LIGHT


def test_theme_asked_for_is_used_not_remembered(reader_store: Path) -> None:
    data_dir = reader_store.parent
    assert asyncio.run(_press_theme(data_dir, theme=theme.LIGHT)) == (theme.LIGHT, theme.LIGHT)
    with Store.open_dir(data_dir) as store:
        assert store.get_meta(theme.THEME_KEY) is None
        # an unknown name (a store written by a later version): the default
        store.set_meta(theme.THEME_KEY, "no-such-theme")
        assert TopicLensApp(store, keymap_file=KEYMAP, cluster=False).theme == theme.DEFAULT


async def _drawn(data_dir: Path, start: str, switch_to: str | None = None) -> tuple[str, list[str]]:
    """The reader's screen and the app's classes, started in ``start`` and then, if
    given, switched to ``switch_to`` as the theme key does."""
    with Store.open_dir(data_dir) as store:
        app = TopicLensApp(store, keymap_file=KEYMAP, cluster=False, theme=start)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            if switch_to is not None:
                app.theme = switch_to
                await pilot.pause()
            return app.export_screenshot(), sorted(app.classes)


@pytest.mark.parametrize(("start", "other"), [(theme.LIGHT, theme.DARK), (theme.DARK, theme.LIGHT)])
def test_started_in_a_theme_looks_as_switched_to_it(
    reader_store: Path, start: str, other: str
) -> None:
    # the first theme is set without Textual's theme watcher (it would parse the CSS twice)
    data_dir = reader_store.parent
    started = asyncio.run(_drawn(data_dir, start))
    switched = asyncio.run(_drawn(data_dir, other, switch_to=start))
    assert started[1] == switched[1]
    assert f"-theme-{start}" in started[1]
    assert started[0] == switched[0]


def test_command_line_themes_are_the_readers(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from topiclens.cli import build_parser

    themes = next(a for a in build_parser()._actions if a.dest == "theme")
    assert {f"topiclens-{name}" for name in themes.choices} == set(theme.THEMES)
    # `topiclens --theme light` opens the reader in that theme
    seen: list[str | None] = []
    monkeypatch.setattr(TopicLensApp, "run", lambda app: seen.append(app.theme))
    from topiclens.cli import main

    assert main(["--data-dir", str(data_dir), "--theme", "light"]) == 0
    assert seen == [theme.LIGHT]


def test_palette_switches_theme(reader_store: Path) -> None:
    async def run() -> tuple[str, str]:
        with Store.open_dir(reader_store.parent) as store:
            app = TopicLensApp(store, keymap_file=KEYMAP, cluster=False)
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
                commands = {c.title: c for c in app.get_system_commands(app.screen)}
                commands["Switch theme"].callback()
                await pilot.pause()
                return app.theme, store.get_meta(theme.THEME_KEY) or ""

    assert asyncio.run(run()) == (theme.LIGHT, theme.LIGHT)
