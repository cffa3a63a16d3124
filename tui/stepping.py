"""``n`` and ``p``: the next or previous entry from any pane, marked read as it is shown
(as Enter marks it), ``n`` carrying on into the next topic at the end of one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .display import terminal_line
from .model import View

if TYPE_CHECKING:
    from .main_screen import MainScreen


def step_entry(screen: MainScreen, step: int) -> None:
    """Move the entry cursor by ``step`` and mark the entry it lands on read; past the last
    entry of a topic, go on to the first entry of the next topic that has one."""
    entries = screen.entry_list
    target = (entries.cursor if entries.cursor is not None else -1) + step
    if 0 <= target < len(entries.rows):
        entries.move_cursor(target)
    elif step < 0 or not _next_topic(screen):
        return
    entry_id = entries.current_id
    if entry_id is not None and entry_id not in screen.read:
        screen.set_read(entry_id, True)


def _next_topic(screen: MainScreen) -> bool:
    """Show the first entry of the topic after the current one (skipping those with no
    entry shown, as in unread-only mode), with a toast naming it; a toast saying so when
    this was the last. True when it moved."""
    view = screen.view
    ids = [t.id for t in screen.topics]
    if view is None or view.kind != "topic" or view.topic_id not in ids:
        screen.notify("Last entry of this list.", timeout=2)
        return False
    for topic in screen.topics[ids.index(view.topic_id) + 1 :]:
        following = View("topic", topic.id)
        screen.topic_list.select_view(following)
        screen.show_view(following, wait=True)
        if screen.entry_list.rows:
            screen.notify(terminal_line(f"Next topic: {topic.name}"), timeout=3, markup=False)
            return True
    screen.topic_list.select_view(view)  # nothing further: back where it was
    screen.show_view(view, keep=screen.entry_list.current_id, wait=True)
    screen.notify("Last entry of the last topic.", timeout=3)
    return False
