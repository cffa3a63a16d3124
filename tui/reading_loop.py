"""The reading loop newsboat users expect (issue 14): open or copy the entry's link, mark
a list or everything read, jump to the next unread entry (Space pages the entry first),
delete an entry with undo, the entry alone on the screen, and a clear message when the
terminal is too small for the panes.

:class:`ReadingLoopActions` is a mixin of :class:`~topiclens.tui.main_screen.MainScreen`:
its methods use the screen's state (``store``, ``view``, ``read``, the panes)."""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from textual.app import SuspendNotSupported
from textual.content import Content
from textual.widgets import Static
from topiclens.store.models import Entry
from topiclens.text import fit_cells

from .display import terminal_line
from .model import View

if TYPE_CHECKING:
    import webbrowser

    from topiclens.store.deleting import DeletedEntry

    from .main_screen import MainScreen

# The least usable size, measured: at 15 lines the panes' least heights (entries 6, entry
# 4, similar 5) and the footer overflow the screen; under 60 columns nothing breaks but
# titles shrink to stumps (20 cells at 50 columns). docs/reader.md, "Small terminals".
MIN_WIDTH = 60
MIN_HEIGHT = 16

# The schemes handed to the browser: anything else in a link field (a path, an option
# such as "--flag", javascript:) is shown and copied, never run.
WEB_SCHEMES = frozenset({"http", "https"})


def _title(text: str) -> str:
    """A title for a toast: one line, cut to a toast's width."""
    return fit_cells(terminal_line(text), 60)


def no_link(entry: Entry) -> str:
    """What to say about an entry without a link: where it came from."""
    if entry.source:
        return f"This entry has no link. Its source: {terminal_line(entry.source)}."
    where = terminal_line(entry.origin_file) or "an unknown file"
    line = f", line {entry.origin_line}" if entry.origin_line else ""
    return f"This entry has no link. It came from {where}{line}."


# Browsers that draw in the terminal: the reader steps aside while one runs, as newsboat
# does; any other runs in a thread (webbrowser's command may wait until it exits).
TERMINAL_BROWSERS = frozenset(
    {"www-browser", "links", "links2", "elinks", "lynx", "w3m", "browsh", "carbonyl"}
)


def find_browser() -> webbrowser.BaseBrowser | None:
    """The browser ``webbrowser`` would use ($BROWSER first), None when there is none."""
    import webbrowser  # here, not at the top: every start would pay for it

    try:
        return webbrowser.get()
    except webbrowser.Error:
        return None


def in_terminal(browser: webbrowser.BaseBrowser) -> bool:
    """Whether ``browser`` is one that draws in the terminal (lynx, w3m, ...)."""
    import shlex

    try:
        words = shlex.split(str(getattr(browser, "name", "")))
    except ValueError:
        return False
    return bool(words) and PurePath(words[0]).name in TERMINAL_BROWSERS


class ReadingLoopActions:
    """Actions of the reading loop, mixed into the main screen."""

    # the key footer stays under a maximised entry (Textual keeps a "Footer" by default)
    ALLOW_IN_MAXIMIZED_VIEW: ClassVar[str] = "KeyFooter"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deleted_entries: list[DeletedEntry] = []  # newest last: what undo-delete brings back

    # --- the link ------------------------------------------------------------------

    def _catch_up(self: MainScreen) -> None:
        """Show the entry under the list's cursor if the detail is still behind it (keys
        typed faster than the list's Highlighted message), so a key acts on that row."""
        current = self.entry_list.current_id
        behind = self.detail is None or self.detail.entry.id != current
        if self.focused is self.entry_list and current is not None and behind:
            self.load_detail(current)

    def _link(self: MainScreen) -> str | None:
        """The current entry's link, or None after saying why there is none."""
        self._catch_up()
        if self.detail is None:
            self.notify("No entry selected.", severity="warning")
            return None
        entry = self.detail.entry
        url = (entry.url or "").strip()
        if not url:
            self.notify(no_link(entry), severity="warning", markup=False)
            return None
        return url

    def action_open_link(self: MainScreen) -> None:
        url = self._link()
        if url is None:
            return
        shown = terminal_line(url)
        if urlsplit(url).scheme.lower() not in WEB_SCHEMES:
            self.notify(
                f"Not a web link, not opened: {shown} (y copies it)",
                severity="warning",
                markup=False,
            )
            return
        self.notify(f"Opening {shown}", timeout=3, markup=False)

        def open_it() -> None:
            # finding the browser may run commands too (xdg-settings): here, not on the loop
            browser = find_browser()
            if browser is None:
                self.app.call_from_thread(self._browser_failed, "none found")
                return
            if in_terminal(browser) and self.app.call_from_thread(
                self._open_in_terminal, browser, url
            ):
                return
            try:
                opened = browser.open(url)
            except Exception as exc:  # any failure of a browser command is reported, once
                self.app.call_from_thread(self._browser_failed, f"{exc}")
                return
            if not opened:
                self.app.call_from_thread(self._browser_failed, "")

        # a thread: a browser command that waits never holds the keys up
        self.run_worker(open_it, thread=True, group="browser", exit_on_error=False)

    def _open_in_terminal(self: MainScreen, browser: webbrowser.BaseBrowser, url: str) -> bool:
        """Hand the terminal to ``browser`` until it quits; False when the app cannot step
        aside (no terminal: a test, Textual Web)."""
        try:
            with self.app.suspend():
                opened = browser.open(url)
        except SuspendNotSupported:
            return False
        except Exception as exc:  # any failure of a browser command is reported, once
            self._browser_failed(f"{exc}")
            return True
        if not opened:
            self._browser_failed("")
        return True

    def _browser_failed(self: MainScreen, reason: str) -> None:
        why = f" ({terminal_line(reason)})" if reason else ""
        self.notify(
            f"No browser could open the link{why}: set $BROWSER, or press y to copy it.",
            severity="error",
            markup=False,
        )

    def action_copy_link(self: MainScreen) -> None:
        url = self._link()
        if url is None:
            return
        self.app.copy_to_clipboard(url)
        self.notify(f"Copied: {terminal_line(url)}", timeout=3, markup=False)

    # --- marking read --------------------------------------------------------------

    def action_mark_topic_read(self: MainScreen) -> None:
        view = self.view
        ids = [r[0] for r in self.entry_list.rows]
        if view is None or not ids:
            self.notify("No entries here to mark.", severity="warning")
            return
        count = self.store.set_read_many(ids)
        self.read = self.read | set(ids)
        self._read_changed()
        where = _view_name(self, view)
        if count:
            noun = "entry" if count == 1 else "entries"
            self.notify(f"Marked {count} {noun} read: {where}.", markup=False)
        else:
            self.notify(f"Every entry was read already: {where}.", timeout=3, markup=False)

    def action_mark_all_read(self: MainScreen) -> None:
        count = self.store.mark_all_read()
        self.read = frozenset(self.store.read_ids())
        self._read_changed()
        if count:
            noun = "entry" if count == 1 else "entries"
            self.notify(f"Marked {count} {noun} read: every entry is read now.")
        else:
            self.notify("Every entry was read already.", timeout=3)

    def _read_changed(self: MainScreen) -> None:
        """Counts, topic list, entry list and entry after many entries changed state."""
        self.unread = self.store.topic_unread_counts()
        self.show_topics(self.view)
        current = self.entry_list.current_id
        if self.unread_only and self.view is not None:  # the read rows leave the list
            self.show_view(self.view, keep=current, wait=True)
        self.load_detail(current)

    # --- next unread ---------------------------------------------------------------

    def action_next_unread(self: MainScreen) -> None:
        found = self._find_unread()
        if found is None:
            self.notify("No unread entries left.", timeout=3)
            return
        view, entry_id = found
        entries = self.entry_list
        if view == self.view:
            index = next(i for i, r in enumerate(entries.rows) if r[0] == entry_id)
            entries.move_cursor(index)
        else:
            self.topic_list.select_view(view)
            self.show_view(view, keep=entry_id, wait=True)
            if view.kind == "topic" and view.topic_id is not None:
                name = next((t.name for t in self.topics if t.id == view.topic_id), "")
                self.notify(terminal_line(f"Next topic: {name}"), timeout=3, markup=False)
        self.set_read(entry_id, True)

    def _find_unread(self: MainScreen) -> tuple[View, str] | None:
        """The first unread entry after the cursor in the list shown, else in the topics
        after this one, wrapping round once to the topics before it and this one."""
        view = self.view
        entries = self.entry_list
        start = (entries.cursor if entries.cursor is not None else -1) + 1
        for row in entries.rows[start:]:
            if row[0] not in self.read and view is not None:
                return view, row[0]
        ids = [t.id for t in self.topics]
        first = 0
        if view is not None and view.kind == "topic" and view.topic_id in ids:
            first = ids.index(view.topic_id) + 1
        for topic_id in ids[first:] + ids[:first]:
            if not self.unread.get(topic_id):
                continue
            for entry_id in self.store.topic_entry_ids(topic_id):
                if entry_id not in self.read:
                    return View("topic", topic_id), entry_id
        return None

    def action_read_on(self: MainScreen) -> None:
        pane = self.detail_pane
        if pane.scroll_y < pane.max_scroll_y:
            pane.scroll_page_down(animate=False)
        else:
            self.action_next_unread()

    # --- deleting ------------------------------------------------------------------

    def action_delete_entry(self: MainScreen) -> None:
        self._catch_up()
        entry_id = self._need_entry()
        if entry_id is None:
            return
        entries = self.entry_list
        ids = [r[0] for r in entries.rows]
        deleted = self.store.delete_entry(entry_id)
        if deleted is None:
            self.notify("That entry is gone already.", severity="warning")
        else:
            self.deleted_entries.append(deleted)
            if entry_id in ids:  # the cursor goes on to the next row (the one above last)
                at = ids.index(entry_id)
                neighbour = at + 1 if at + 1 < len(ids) else at - 1
                if neighbour >= 0:
                    entries.move_cursor(neighbour)
        self.reload()
        self.load_detail(entries.current_id)
        if deleted is not None:
            self.notify(f"Deleted: {_title(deleted.title)} (Z undoes)", markup=False)

    def action_undo_delete(self: MainScreen) -> None:
        if not self.deleted_entries:
            self.notify("Nothing deleted to bring back.", severity="warning", timeout=3)
            return
        deleted = self.deleted_entries.pop()
        left_out = self.store.restore_entry(deleted)
        self.reload()
        self.jump_to_entry(deleted.entry_id)
        self.load_detail(self.entry_list.current_id)
        title = _title(deleted.title)
        if "topic_assignments" in left_out:
            self.notify(
                f"Restored: {title}. Its topic is gone since: it joins one at the next grouping.",
                markup=False,
            )
        else:
            self.notify(f"Restored: {title}", markup=False)

    # --- the screen ----------------------------------------------------------------

    def action_maximize_entry(self: MainScreen) -> None:
        if self.maximized is not None:
            self.minimize()
        else:
            self.maximize(self.detail_pane, container=False)
            self.detail_pane.focus()

    def watch_maximized(self: MainScreen) -> None:
        # escape restores the panes too (Textual's own key), so the hint follows the state
        shown = self.maximized is self.detail_pane
        self.detail_pane.border_subtitle = "v or escape: every pane" if shown else ""

    def on_resize(self: MainScreen) -> None:
        width, height = self.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        if small:
            text = Content(
                f"The terminal is {width}x{height}.\n"
                f"topiclens needs at least {MIN_WIDTH}x{MIN_HEIGHT}:\n"
                "make it larger, or press q to quit."
            )
            found = self.query("#too-small")
            if found:
                found.first(Static).update(text)
            else:
                self.mount(Static(text, id="too-small"))
        self.set_class(small, "-too-small")


def _view_name(screen: MainScreen, view: View) -> str:
    if view.kind == "topic":
        name = next((t.name for t in screen.topics if t.id == view.topic_id), "this topic")
        return terminal_line(name)
    if view.kind == "bookmarks":
        return "the bookmarks"
    return terminal_line(f"the results of /{view.query}")
