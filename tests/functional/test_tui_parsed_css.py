"""The reader keeps its parsed CSS in the cache dir after its first frame, and the next
start with the same theme styles from it: every screen looks as it does when Textual
parses the CSS itself, before and after a change of theme."""

from __future__ import annotations

import asyncio
from pathlib import Path

from helpers import SIZE, settle
from topiclens.store import Store
from topiclens.tui.app import PARSED_CSS, TopicLensApp
from topiclens.tui.theme import DEFAULT, LIGHT


def start(store_path: Path, theme: str = DEFAULT) -> tuple[int, bool, list[str]]:
    """Start the reader with ``theme`` and take its screen, then again after a change of
    theme (which the store remembers, so each start names its theme): how many parses it
    loaded from the cache, whether every rule it styles with came from them and nothing
    was parsed anew, and the two screenshots."""

    async def go() -> tuple[int, bool, list[str]]:
        with Store(store_path) as store:
            app = TopicLensApp(store, keymap_file=store_path.parent / "no-keymap.toml", theme=theme)
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                loaded = app._css_loaded
                kept = {id(r) for key in loaded for r in app.stylesheet._parse_cache[key]}
                from_kept = all(id(rule) in kept for rule in app.stylesheet.rules)
                from_kept &= set(app.stylesheet._parse_cache.keys()) <= loaded  # none anew
                shots = [app.export_screenshot()]
                app.theme = LIGHT if app.theme != LIGHT else DEFAULT
                await settle(pilot)
                shots.append(app.export_screenshot())
        return len(loaded), from_kept, shots

    return asyncio.run(go())


def test_a_second_start_styles_from_the_kept_parse_and_looks_the_same(
    reader_store: Path, own_cache_dir: Path
) -> None:
    kept = own_cache_dir / "topiclens" / PARSED_CSS
    loaded, _, first = start(reader_store)
    assert loaded == 0 and kept.is_file()  # kept after the first frame
    written = kept.stat().st_mtime_ns
    loaded, from_kept, second = start(reader_store)
    assert loaded and from_kept  # the whole stylesheet, reader.tcss and the widgets'
    assert second == first  # the same screen, and the same after a change of theme
    assert kept.stat().st_mtime_ns == written  # nothing new to keep


def test_a_start_with_another_theme_parses_anew_and_keeps_that(
    reader_store: Path, own_cache_dir: Path
) -> None:
    _, _, dark = start(reader_store)
    loaded, _, light = start(reader_store, theme=LIGHT)  # kept for the default theme
    assert loaded == 0
    assert light[0] == dark[1] and light[1] == dark[0]  # each theme looks as it did
    loaded, from_kept, again = start(reader_store, theme=LIGHT)
    assert loaded and from_kept and again == light


def test_a_damaged_kept_parse_never_stops_a_start(reader_store: Path, own_cache_dir: Path) -> None:
    _, _, good = start(reader_store)
    kept = own_cache_dir / "topiclens" / PARSED_CSS
    kept.write_bytes(kept.read_bytes()[:-100])  # truncated
    loaded, _, shots = start(reader_store)
    assert loaded == 0 and shots == good
    assert start(reader_store)[0]  # written whole again
