"""Your feeds: each with its status, last error, last check and unread count; add one,
rename, remove or refresh one. What a feed says (its name, URL, error) is data: shown as
Content built from cleaned text, never as markup."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import ClassVar, Protocol

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option
from topiclens.store import Store
from topiclens.store.models import Feed

from ..display import literal, terminal_line
from ..workers import DIALOG
from .confirm import ConfirmScreen
from .line_dialog import LineDialog
from .styles import DIALOG_CSS

STATUS_STYLE = {"ok": "$text-success", "error": "bold $text-error", "gone": "$text-warning"}


class FeedActions(Protocol):
    """What the feeds screen asks of the reader: fetching runs in the reader's one
    feeds worker, so a subscription or a refresh never runs beside another."""

    @property
    def fetching_feeds(self) -> bool: ...

    def start_refresh(self, feed_ids: list[int] | None, *, scheduled: bool = False) -> bool: ...

    def subscribe_feed(self, url: str) -> bool: ...

    def feeds_changed(self, *, reload: bool = True) -> None: ...


def when(stamp: float | None) -> str:
    """A time for the list, in UTC to the minute, as the feeds' JSON gives it ("never"
    when there is none)."""
    if stamp is None:
        return "never"
    return dt.datetime.fromtimestamp(stamp, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def feed_prompt(feed: Feed) -> Content:
    """One feed's row: status, unread, last check and name; its URL; its last error."""
    head = Content.assemble(
        (f"{feed.status:<6}", STATUS_STYLE.get(feed.status, "")),
        (terminal_line(feed.display_name), "bold"),
    )
    counts = f"      {feed.unread} unread of {feed.entries} · checked {when(feed.last_checked)}"
    lines = [
        head,
        Content(counts),
        Content.assemble(("      " + terminal_line(feed.url), "$text-muted")),
    ]
    if feed.error:
        lines.append(Content.assemble(("      " + terminal_line(feed.error), "$text-error")))
    return Content("\n").join(lines)


class FeedsScreen(Screen[None]):
    """Every subscribed feed, one option each (its id is the option's)."""

    CSS_PATH = DIALOG_CSS
    DEFAULT_CSS = """
    FeedsScreen #feeds { height: 1fr; border: round $primary; }
    FeedsScreen #feeds-title, FeedsScreen #feeds-hint { padding: 0 1; width: 1fr; }
    FeedsScreen #feeds-hint { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "Add", id="add-feed"),
        Binding("e", "rename", "Rename", id="feeds-rename"),
        Binding("d", "remove", "Remove", id="feeds-remove"),
        Binding("R", "refresh_one", "Refresh one", id="feeds-refresh"),
        Binding("i", "interval", "Interval", id="feeds-interval"),
        Binding("j", "down", "Down", show=False, id="feeds-down"),
        Binding("k", "up", "Up", show=False, id="feeds-up"),
        Binding("q,escape", "close", "Close", id="feeds-close"),
    ]

    def __init__(self, store: Store, reader: FeedActions) -> None:
        super().__init__()
        self.store = store
        self.reader = reader
        self.feeds: list[Feed] = []

    def compose(self) -> ComposeResult:
        yield Label("", id="feeds-title")
        yield OptionList(id="feeds")
        yield Label(
            "a add · e rename · d remove · R refresh it · i interval · j/k · q close",
            id="feeds-hint",
        )

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#feeds", OptionList)

    def on_mount(self) -> None:
        self.show_feeds()
        self.option_list.focus()

    def show_feeds(self) -> None:
        """Read the feeds again (after any change), the cursor kept on its feed."""
        current = self.current
        self.feeds = self.store.feeds()
        options = self.option_list
        options.clear_options()
        options.add_options([Option(feed_prompt(f), id=str(f.id)) for f in self.feeds])
        ids = [f.id for f in self.feeds]
        if ids:
            keep = current.id if current is not None and current.id in ids else ids[0]
            options.highlighted = ids.index(keep)
        from topiclens.feeds.schedule import interval_minutes

        failed = sum(1 for f in self.feeds if f.status != "ok")
        title = f"Feeds: {len(self.feeds)}" + (f", {failed} not ok" if failed else "")
        title += f" · refreshed every {interval_minutes(self.store)} minutes while open"
        if not self.feeds:
            title = "No feeds yet: press a to add one (a feed's URL, or a page that names one)"
        self.query_one("#feeds-title", Label).update(literal(title))

    @property
    def current(self) -> Feed | None:
        index = self.option_list.highlighted if self.feeds else None
        if index is None or not 0 <= index < len(self.feeds):
            return None
        return self.feeds[index]

    def _need_feed(self) -> Feed | None:
        feed = self.current
        if feed is None:
            self.notify("No feed here: press a to add one.", severity="warning", timeout=3)
        return feed

    def action_down(self) -> None:
        self.option_list.action_cursor_down()

    def action_up(self) -> None:
        self.option_list.action_cursor_up()

    def action_close(self) -> None:
        self.dismiss(None)

    @work(group=DIALOG)
    async def action_add(self) -> None:
        dialog = FeedInputScreen("Add a feed", "A feed's URL, or a page that names its feed", "")
        url = await self.app.push_screen_wait(dialog)
        if url:
            self.reader.subscribe_feed(url)  # its end reads this screen again

    @work(group=DIALOG)
    async def action_rename(self) -> None:
        feed = self._need_feed()
        if feed is None:
            return
        subject = f"Rename “{terminal_line(feed.display_name)}”"
        dialog = FeedInputScreen("Rename feed", subject, feed.display_name, check=check_name)
        name = await self.app.push_screen_wait(dialog)
        if name and self.store.rename_feed(feed.id, name):
            self.reader.feeds_changed()  # its entries show the new name as their source
            self.notify(terminal_line(f"Renamed: {name}"), timeout=3, markup=False)

    @work(group=DIALOG)
    async def action_remove(self) -> None:
        feed = self._need_feed()
        if feed is None:
            return
        question = (
            f"Unsubscribe from “{terminal_line(feed.display_name)}”? "
            f"Its {feed.entries} entries stay in their topics."
        )
        yes = await self.app.push_screen_wait(ConfirmScreen(question))
        if yes and self.store.remove_feed(feed.id):
            self.reader.feeds_changed(reload=False)
            name = terminal_line(feed.display_name)
            self.notify(f"Unsubscribed: {name}", timeout=3, markup=False)

    @work(group=DIALOG)
    async def action_interval(self) -> None:
        from topiclens.feeds.schedule import interval_minutes, set_interval_minutes

        now = str(interval_minutes(self.store))
        subject = "Refresh due feeds every how many minutes, while the reader is open?"
        dialog = FeedInputScreen("Schedule", subject, now, check=check_minutes)
        minutes = await self.app.push_screen_wait(dialog)
        if minutes:
            set_interval_minutes(self.store, int(minutes))
            self.show_feeds()
            self.notify(f"Due feeds are refreshed every {minutes} minutes.", timeout=3)

    def action_refresh_one(self) -> None:
        feed = self._need_feed()
        if feed is not None:
            self.reader.start_refresh([feed.id])  # its end reads this screen again


def check_url(text: str) -> str:
    """``text`` as a feed URL (http, https or file; a file's path); ValueError saying why
    not."""
    from topiclens.feeds.subscribe import as_url
    from topiclens.store.models import Problem

    url = as_url(text)
    if isinstance(url, Problem):
        raise ValueError(url.message)
    return url


def check_minutes(text: str) -> str:
    """A refresh interval in minutes, within the schedule's bounds; ValueError saying why
    not."""
    from topiclens.feeds.schedule import MAX_INTERVAL_MINUTES, MIN_INTERVAL_MINUTES

    bounds = f"from {MIN_INTERVAL_MINUTES} to {MAX_INTERVAL_MINUTES} minutes"
    try:
        minutes = int(text.strip())
    except ValueError:
        raise ValueError(f"a whole number of minutes, {bounds}") from None
    if not MIN_INTERVAL_MINUTES <= minutes <= MAX_INTERVAL_MINUTES:
        raise ValueError(f"the interval is {bounds}")
    return str(minutes)


def check_name(text: str) -> str:
    from topiclens.store.feeds import check_name as feed_name

    return feed_name(text)


class FeedInputScreen(LineDialog[str]):
    """One line asked for (a feed's URL, a feed's name): Enter gives it once ``check``
    accepts it, Escape cancels."""

    INPUT_ID = "feed-input"
    ERROR_ID = "feed-input-error"
    REFUSED = (ValueError,)  # the feeds' checks say why in a ValueError
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="feed-input-cancel")
    ]

    def __init__(
        self,
        title: str,
        subject: str,
        value: str,
        *,
        check: Callable[[str], str] = check_url,
    ) -> None:
        super().__init__(title, subject, value, placeholder="", hint="Enter saves · Escape cancels")
        self.check = check

    def accept(self, value: str) -> str:
        return self.check(value)

    def refusal(self, message: str) -> str:
        return message[:1].upper() + message[1:]
