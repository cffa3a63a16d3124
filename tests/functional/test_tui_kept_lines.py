"""The lists, the entry pane and their scrollbars keep their finished lines by what each
shows (tui/widgets/line_cache.py): a topic switched back to is copied from memory, and must
show what a redraw from nothing shows, whatever changed while it was away."""

from __future__ import annotations

from pathlib import Path

from helpers import run, settle
from textual.geometry import Region
from textual.pilot import Pilot
from textual.strip import Strip
from topiclens.store import Entry, Store
from topiclens.tui.app import TopicLensApp
from topiclens.tui.main_screen import MainScreen
from topiclens.tui.model import View
from topiclens.tui.theme import LIGHT
from topiclens.tui.widgets.entry_list import BOOKMARK_MARK, UNREAD_MARK

Frame = list[list[tuple[str, object]]]


def frame(s: MainScreen) -> Frame:
    """The whole screen as the compositor draws it (every widget's ``render_lines``)."""
    return [[(seg.text, seg.style) for seg in strip] for strip in s._compositor.render_strips()]


def texts(shown: Frame) -> list[str]:
    return ["".join(text for text, _ in row) for row in shown]


def forget_kept_lines(s: MainScreen) -> None:
    """Drop every kept line and scrollbar (private: the panes' caches), so the next frame
    is drawn from nothing."""
    for pane in (s.topic_list, s.entry_list, s.detail_pane, s.similar_list):
        pane._finished.clear()
        pane.vertical_scrollbar._kept.clear()  # type: ignore[attr-defined]


async def drawn(s: MainScreen, pilot: Pilot[None]) -> Frame:
    """The frame after the key's work, checked against one drawn from nothing."""
    await settle(pilot)
    s._on_timer_update()
    kept = frame(s)
    forget_kept_lines(s)
    fresh = frame(s)
    assert texts(kept) == texts(fresh)
    assert kept == fresh  # the same text in the same styles
    return kept


def list_line(s: MainScreen, entry_id: str) -> str:
    """The entry list's line of ``entry_id`` as drawn (through the kept lines)."""
    entries = s.entry_list
    index = next(i for i, r in enumerate(entries.rows) if r[0] == entry_id)
    y = entries.line_of(index) - round(entries.scroll_y)
    gutter = entries.styles.gutter
    region = entries.size.region
    strip: Strip = entries.render_lines(region)[y + gutter.top]
    return strip.text


def test_a_topic_switched_back_to_shows_what_changed_while_away(reader_store: Path) -> None:
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        first, second = s.topics[0], s.topics[1]
        s.topic_list.select_view(View("topic", first.id))
        s.show_view(View("topic", first.id), wait=True)
        s.topic_list.focus()
        await drawn(s, pilot)
        ids = [r[0] for r in s.entry_list.rows]
        read, marked, deleted, moved = ids[0], ids[1], ids[2], ids[3]
        assert UNREAD_MARK in list_line(s, read)
        assert BOOKMARK_MARK not in list_line(s, marked)
        await pilot.press("j")  # the second topic
        await drawn(s, pilot)
        assert s.state.view == View("topic", second.id)
        # another process reads, bookmarks, deletes, moves and adds while it is shown
        grown = Entry("f" * 16, "An entry that arrived while away", "s", date="2099-01-01")
        with Store(reader_store) as other:
            other.set_read(read)
            other.set_bookmark(marked, True)
            other.delete_entry(deleted)
            other.add_assignments({moved: (second.id, 0.5, [])})
            other.add_entries([grown])
            other.add_assignments({grown.id: (first.id, 0.5, [])})
        s.poll_store()
        await drawn(s, pilot)
        await pilot.press("k")  # back to the first topic
        shown = await drawn(s, pilot)
        assert s.state.view == View("topic", first.id)
        rows = [r[0] for r in s.entry_list.rows]
        assert deleted not in rows and moved not in rows and grown.id in rows
        assert UNREAD_MARK not in list_line(s, read)
        assert BOOKMARK_MARK in list_line(s, marked)
        assert any("An entry that arrived while away" in line for line in texts(shown))

    run(reader_store, scenario)


def test_marks_made_in_a_topic_show_when_it_is_switched_back_to(reader_store: Path) -> None:
    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        s.topic_list.focus()
        await drawn(s, pilot)
        view = s.state.view
        await pilot.press("l")  # into the entries: the first entry
        entry_id = s.entry_list.current_id
        assert entry_id is not None
        before = list_line(s, entry_id)
        await pilot.press("b", "r")  # bookmarked, and read (or unread, if it was read)
        await drawn(s, pilot)
        after = list_line(s, entry_id)
        assert after != before and BOOKMARK_MARK in after
        await pilot.press("h", "j")  # the next topic, then back
        await drawn(s, pilot)
        await pilot.press("k")
        await drawn(s, pilot)
        assert s.state.view == view
        assert list_line(s, entry_id) == after
        await pilot.press("l", "b", "r")  # both taken back
        await drawn(s, pilot)
        # the list and the entry scrolled, with their scrollbars: the same lengths, other
        # places
        for key in ("G", "g", "pagedown", "tab", "pagedown", "pageup", "shift+tab"):
            await pilot.press(key)
            await drawn(s, pilot)
        await pilot.press("h", "j")
        await drawn(s, pilot)
        await pilot.press("k")
        await drawn(s, pilot)
        assert list_line(s, entry_id) == before
        # another theme, another size: every line drawn anew, then switched back to
        app.theme = LIGHT
        await drawn(s, pilot)
        await pilot.resize_terminal(100, 30)
        await drawn(s, pilot)
        await pilot.press("h", "j")
        await drawn(s, pilot)
        await pilot.press("k")
        await drawn(s, pilot)
        assert list_line(s, entry_id)[:3] == before[:3]  # (narrower now) the same marks

    run(reader_store, scenario)


def test_a_pane_the_focus_comes_back_to_is_copied_as_drawn_before(reader_store: Path) -> None:
    """The focus leaving a list and coming back restyles it as before: its lines come from
    the look kept for it (no line of the topic list drawn again), and show what a redraw
    from nothing shows."""
    from textual.scroll_view import ScrollView

    drawn_rows: list[int] = []
    original = ScrollView.render_lines

    def counted(self: ScrollView, crop: Region) -> list[Strip]:
        if self is topics[0]:
            drawn_rows.append(crop.height)
        return original(self, crop)

    topics: list[ScrollView] = []

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        topics.append(s.topic_list)
        s.topic_list.focus()
        await drawn(s, pilot)

        async def press(key: str) -> None:
            await pilot.press(key)
            await settle(pilot)
            s._on_timer_update()

        await press("l")  # the topic list loses the focus: its cursor and tint change
        await press("h")
        ScrollView.render_lines = counted  # type: ignore[method-assign]
        try:
            for key in ("l", "h", "l", "h"):
                del drawn_rows[:]
                await press(key)
                assert not drawn_rows, f"{key}: {drawn_rows}"  # every line of it kept
        finally:
            ScrollView.render_lines = original  # type: ignore[method-assign]
        await drawn(s, pilot)  # the kept lines are what a redraw from nothing shows
        # a look kept while the list changed (its cursor moved): still what a redraw shows
        for keys in (("l",), ("h", "j", "l"), ("h",), ("k", "tab"), ("shift+tab", "h")):
            await press("l")
            await press("h")
            for key in keys:
                await press(key)
            await drawn(s, pilot)

    run(reader_store, scenario)


def test_an_entry_gone_back_to_is_shown_from_memory_until_the_store_changes(
    reader_store: Path,
) -> None:
    """Going back to a topic shows its entry as read before, without a query; a change
    (a read mark, another process's edit) shows the entry as it is now."""
    import topiclens.tui.details as details

    reads: list[str] = []
    original = details.load_detail

    def counted(store: Store, entry_id: str, *args: object) -> object:
        reads.append(entry_id)
        return original(store, entry_id, *args)  # type: ignore[arg-type]

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        details.load_detail = counted  # type: ignore[assignment]
        try:
            s.topic_list.focus()
            await drawn(s, pilot)
            first = s.detail.entry.id if s.detail is not None else None
            await pilot.press("j")
            await drawn(s, pilot)
            second = s.detail.entry.id if s.detail is not None else None
            assert first is not None and second is not None and first != second
            del reads[:]
            await pilot.press("k", "j", "k")
            await drawn(s, pilot)
            assert reads == [] and s.detail is not None and s.detail.entry.id == first
            # marked read: shown as read, from the store
            await pilot.press("l", "r")
            await drawn(s, pilot)
            assert reads and s.detail.read == (first in s.read)
            # another process writes a note on it: the poll's reload shows it
            with Store(reader_store) as other:
                other.set_note(first, "Noted elsewhere")
            s.poll_store()
            await pilot.press("h", "j", "k")
            shown = await drawn(s, pilot)
            assert s.detail.note == "Noted elsewhere"
            assert any("Noted elsewhere" in line for line in texts(shown))
        finally:
            details.load_detail = original

    run(reader_store, scenario)


def test_a_border_row_is_kept_while_its_own_label_stays(reader_store: Path) -> None:
    """Another topic changes the entry list's title (its top border) and not its subtitle:
    the bottom border is copied as drawn before; a changed subtitle (unread only) draws the
    bottom border anew, and the frames show what a redraw from nothing shows."""

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        entries = s.entry_list

        async def edges(*keys: str) -> tuple[Strip, Strip]:
            await pilot.press(*keys)
            await settle(pilot)
            s._on_timer_update()
            lines = entries.render_lines(Region(0, 0, *entries.outer_size))
            return lines[0], lines[-1]

        s.topic_list.focus()
        top, bottom = await edges()
        new_top, new_bottom = await edges("j")  # the next topic
        assert new_top.text != top.text  # its title names the other topic
        assert new_bottom is bottom  # the subtitle's row, as drawn before
        await drawn(s, pilot)
        _, unread_bottom = await edges("u")  # unread only: the subtitle says so
        assert "unread only" in unread_bottom.text
        await drawn(s, pilot)
        back_top, _ = await edges("k")
        assert back_top.text == top.text
        await drawn(s, pilot)

    run(reader_store, scenario)
