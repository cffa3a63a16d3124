"""The progress line the footer draws during slow work: its stage cleaned and cut to the
width, never read as markup or by the terminal; a bar only for a measured stage."""

from __future__ import annotations

import pytest
from rich.style import Style
from topiclens.text import cell_width
from topiclens.tui.progress import progress_line

PLAIN = Style()


@pytest.mark.parametrize("width", [10, 40, 80, 200])
@pytest.mark.parametrize("fraction", [0.0, 0.004, 0.5, 1.0])
def test_the_line_is_exactly_the_width_whatever_the_stage(width: int, fraction: float) -> None:
    for stage in ("Refreshing feeds", "刷新订阅：美团技术团队 #44 " * 9, "x" * 5000, ""):
        line = progress_line(stage, fraction, width, PLAIN, PLAIN, PLAIN)
        assert line.cell_length == width and cell_width(line.text) == width


def test_a_measured_stage_shows_a_bar_and_its_percentage() -> None:
    line = progress_line("Refreshing feeds: 100 of 200", 0.5, 80, PLAIN, PLAIN, PLAIN).text
    assert line.startswith(" Refreshing feeds: 100 of 200 ") and line.endswith("  50% ")
    assert line.count("━") == 24  # BAR_CELLS wide
    unmeasured = progress_line("Reading the entries", 0.0, 80, PLAIN, PLAIN, PLAIN).text
    assert unmeasured.strip() == "Reading the entries"


def test_a_hostile_feed_name_reaches_neither_the_terminal_nor_markup() -> None:
    stage = "Refreshing feeds: 3 of 9 (\x1b]52;c;cGF3bmVk\x07[b]evil[/b]\x1b[2J\u202e: 1 new)"
    line = progress_line(stage, 0.3, 100, PLAIN, PLAIN, PLAIN)
    text = line.text
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "[b]evil[/b]" in text  # shown as written
    assert not any(segment.control for segment in line)
