"""The reader draws a topic read a page at a time: with pages of four rows, every key that
moves through the list (down, page down, bottom, top, back to a kept entry) lands on the
row the whole list has there, the detail shows that entry, and the topic comes back from
memory."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run, settle
from textual.pilot import Pilot
from topiclens.store import Store
from topiclens.store import pages as pages_module
from topiclens.store.models import Topic
from topiclens.store.pages import TopicRows
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen


def test_moving_through_a_paged_topic(reader_store: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(pages_module, "PAGE_ROWS", 4)
    with Store(reader_store) as store:
        largest = store.topics()[0]
        whole = store.topic_rows(largest.id) + store.topic_also_rows(largest.id)
    assert len(whole) > 3 * 4

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_topic(largest.id)
        await settle(pilot)
        entries = s.entry_list
        assert isinstance(entries.rows, TopicRows) and len(entries.rows) == len(whole)

        def on_row(index: int) -> None:
            assert entries.cursor == index
            assert entries.current_id == whole[index][0]
            assert s.detail is not None and s.detail.entry.id == whole[index][0]

        assert s.focused is entries  # (jump_to_topic focuses the list)
        for i in range(1, 6):  # across the first page's end, by keyset
            await pilot.press("j")
            await settle(pilot)
            on_row(i)
        await pilot.press("G")  # a jump: the last page, read from the end
        await settle(pilot)
        on_row(len(whole) - 1)
        await pilot.press("g")
        await settle(pilot)
        on_row(0)
        await pilot.press("pagedown")
        await settle(pilot)
        assert entries.cursor is not None and entries.cursor > 4
        on_row(entries.cursor)
        paged = entries.rows
        assert paged.pages_read < len(whole) // 4  # never read whole
        # another topic and back: the topic and its pages come from memory
        await pilot.press("h", "j")
        await settle(pilot)
        await pilot.press("k")
        await settle(pilot)
        assert s.state.view is not None and s.state.view.topic_id == largest.id
        assert entries.rows is paged
        on_row(0)

    run(reader_store, scenario)


def _sized_wrong(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch, off: int
) -> tuple[Topic, list[str]]:
    """Pages of four rows, and the largest topic's stored size ``off`` from its own rows'
    count: the topic, and the ids of every row it lists."""
    monkeypatch.setattr(pages_module, "PAGE_ROWS", 4)
    with Store(reader_store) as store:
        largest = store.topics()[0]
        whole = [r[0] for r in store.topic_rows(largest.id) + store.topic_also_rows(largest.id)]
        own = len(store.topic_rows(largest.id))
        with store.write() as conn:
            conn.execute("UPDATE topics SET size = ? WHERE id = ?", (own + off, largest.id))
    return largest, whole


@pytest.mark.parametrize("off", [-6, 6])
def test_a_paged_topic_whose_stored_size_is_wrong(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch, off: int
):
    """A store whose topic size is not its rows' count (an older version wrote it, a crash
    came between two writes): the reader finds it while drawing, and shows every row once,
    in order, with the list sized to the rows, whatever key reached them."""
    largest, whole = _sized_wrong(reader_store, monkeypatch, off)
    assert len(whole) > 3 * 4

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_topic(largest.id)
        await settle(pilot)
        entries = s.entry_list
        assert isinstance(entries.rows, TopicRows)
        seen = [entries.current_id]
        for _ in range(len(whole) + 5):  # down, one row at a time, past the end
            await pilot.press("j")
            await settle(pilot)
            if entries.current_id != seen[-1]:
                seen.append(entries.current_id)
        assert seen == whole
        assert s.detail is not None and s.detail.entry.id == whole[-1]
        assert entries.item_count == len(whole) and entries.line_count == len(whole)
        await pilot.press("g")
        await settle(pilot)
        assert entries.cursor == 0 and entries.current_id == whole[0]
        await pilot.press("G")
        await settle(pilot)
        assert entries.cursor == len(whole) - 1 and entries.current_id == whole[-1]
        assert s.detail is not None and s.detail.entry.id == whole[-1]

    run(reader_store, scenario)


@pytest.mark.parametrize("off", [-6, 6])
def test_a_jump_to_the_end_of_a_paged_topic_whose_stored_size_is_wrong(
    reader_store: Path, monkeypatch: pytest.MonkeyPatch, off: int
):
    """The same store, the first key a jump to the end the list was first sized for: the
    cursor lands on a row the rows have there, and the list is sized to the rows."""
    largest, whole = _sized_wrong(reader_store, monkeypatch, off)

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.jump_to_topic(largest.id)
        await settle(pilot)
        entries = s.entry_list
        await pilot.press("G")
        await settle(pilot)
        assert entries.line_count == len(whole) and entries.cursor is not None
        assert entries.current_id == whole[entries.cursor]
        assert s.detail is not None and s.detail.entry.id == whole[entries.cursor]
        await pilot.press("G")  # the end of the rows as they are
        await settle(pilot)
        assert entries.cursor == len(whole) - 1 and entries.current_id == whole[-1]
        assert s.detail is not None and s.detail.entry.id == whole[-1]

    run(reader_store, scenario)
