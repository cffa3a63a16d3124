"""Kept lines are plain tuples (tui/widgets/line_cache.py): made into the same Strip again,
and left alone by the garbage collector."""

from __future__ import annotations

import gc

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from topiclens.tui.widgets.line_cache import Packer

BOLD = Style(bold=True, color="red")
MUTED = Style(color="grey50", bgcolor="black")


def test_a_packed_line_comes_back_as_the_same_strip() -> None:
    packer = Packer()
    strip = Strip([Segment("● ", BOLD), Segment("KV 缓存", MUTED), Segment("  ", None)], 11)
    other = Strip([Segment("x", MUTED)], 1)
    packed, packed_other = packer.pack(strip), packer.pack(other)
    assert packed is not None and packed_other is not None
    again = packer.unpack(packed)
    assert list(again) == list(strip)
    assert again.cell_length == strip.cell_length == 11
    assert list(packer.unpack(packed_other)) == list(other)
    assert packed_other[2] == packed[4]  # a style is numbered once


def test_a_line_with_a_control_code_is_not_kept() -> None:
    control = Strip([Segment("a", BOLD), Segment("", None, [(1,)])])  # type: ignore[list-item]
    assert Packer().pack(control) is None


def test_kept_lines_cost_the_garbage_collector_nothing() -> None:
    packer = Packer()
    packed = [packer.pack(Strip([Segment(f"line {i}", BOLD)], 6 + len(str(i)))) for i in range(50)]
    gc.collect()  # (CPython untracks a tuple of untracked items when it first looks at it)
    assert not any(gc.is_tracked(p) for p in packed)
