"""Every command of the reader, declared once.

A command is an id, default keys, a short label and a line of help. From one declaration
come the key binding (with its id, so a user keymap can remap it), the footer label, the row
on the help screen and the entry in the command palette.
"""

from textual.binding import Binding
from topiclens.store.models import Record

# The help screen's sections, in the order it shows them.
MOVING = "Moving"
VIEWS = "Entries and views"
EVERYWHERE = "Everywhere"
TOPICS = "Topics"  # the topic corrections
FEEDS = "Feeds"  # subscriptions and their refresh
SECTIONS = (MOVING, VIEWS, TOPICS, FEEDS, EVERYWHERE)


class Command(Record):
    """One command of the reader; ``section`` is where the help screen lists it."""

    __slots__ = (
        "action",
        "footer",
        "help",
        "id",
        "keys",
        "label",
        "palette",
        "priority",
        "section",
    )

    def __init__(
        self,
        id: str,
        keys: str,
        label: str,
        help: str,
        action: str,
        footer: bool = False,
        palette: bool = True,
        priority: bool = False,
        section: str = VIEWS,
    ) -> None:
        self.id = id
        self.keys = keys
        self.label = label
        self.help = help
        self.action = action
        self.footer = footer
        self.palette = palette
        self.priority = priority
        self.section = section

    def binding(self) -> Binding:
        return Binding(
            self.keys,
            self.action,
            self.label,
            show=self.footer,
            id=self.id,
            priority=self.priority,
            tooltip=self.help,
        )


def bindings(commands: tuple[Command, ...]) -> list[Binding]:
    return [c.binding() for c in commands]


# Moving inside a list or the detail pane (bound on each pane).
CURSOR_UP = Command(
    "cursor-up", "up,k", "Up", "Move up", "cursor_up", palette=False, section=MOVING
)
CURSOR_DOWN = Command(
    "cursor-down", "down,j", "Down", "Move down", "cursor_down", palette=False, section=MOVING
)
FIRST = Command("first", "home,g", "Top", "Go to the top", "first", palette=False, section=MOVING)
LAST = Command("last", "end,G", "Bottom", "Go to the bottom", "last", palette=False, section=MOVING)
PAGE_UP = Command(
    "page-up", "pageup", "Page up", "One page up", "page_up", palette=False, section=MOVING
)
PAGE_DOWN = Command(
    "page-down",
    "pagedown",
    "Page down",
    "One page down",
    "page_down",
    palette=False,
    section=MOVING,
)
OPEN = Command(
    "open",
    "enter",
    "Open",
    "Open: topic -> its entries, entry -> its detail (marks it read)",
    "select",
    palette=False,
    section=MOVING,
)
NAVIGATION: tuple[Command, ...] = (CURSOR_UP, CURSOR_DOWN, FIRST, LAST, PAGE_UP, PAGE_DOWN, OPEN)

# The main screen.
MAIN: tuple[Command, ...] = (
    Command(
        "pane-left",
        "left,h",
        "Left pane",
        "Move to the pane on the left",
        "pane(-1)",
        palette=False,
        priority=True,
        section=MOVING,
    ),
    Command(
        "pane-right",
        "right,l",
        "Right pane",
        "Move to the pane on the right",
        "pane(1)",
        palette=False,
        priority=True,
        section=MOVING,
    ),
    Command(
        "next-entry",
        "n",
        "Next",
        "Next entry, from any pane (marks it read; on into the next topic at the end)",
        "step_entry(1)",
        section=MOVING,
    ),
    Command(
        "previous-entry",
        "p",
        "Previous",
        "Previous entry, from any pane (marks it read)",
        "step_entry(-1)",
        section=MOVING,
    ),
    Command(
        "next-topic",
        "J",
        "Next topic",
        "Next topic in the topic list, from any pane",
        "step_topic(1)",
        section=MOVING,
    ),
    Command(
        "previous-topic",
        "K",
        "Previous topic",
        "Previous topic in the topic list, from any pane",
        "step_topic(-1)",
        section=MOVING,
    ),
    Command(
        "toggle-bookmark",
        "b",
        "Bookmark",
        "Bookmark the entry or remove its bookmark",
        "toggle_bookmark",
        footer=True,
    ),
    Command(
        "edit-note",
        "N",
        "Note",
        "Write the entry's note (bookmarks the entry; b never removes the note)",
        "edit_note",
    ),
    Command(
        "show-bookmarks",
        "B",
        "Bookmarks",
        "Show every bookmark, across topics",
        "show_bookmarks",
        footer=True,
    ),
    Command(
        "search",
        "slash",
        "Search",
        "Search titles, summaries and comments (Chinese or English); results show as a topic",
        "search",
        footer=True,
    ),
    Command(
        "river",
        "a",
        "All unread",
        "All unread: every unread entry, newest first, across topics (U and space follow it)",
        "river",
    ),
    Command(
        "save-search",
        "W",
        "Save search",
        "Save the search under a name: listed above the topics with its unread entries",
        "save_search",
    ),
    Command(
        "mute",
        "X",
        "Mute",
        "Mute the entry's source or feed, or words: matching entries leave lists and counts",
        "mute",
    ),
    Command(
        "overview",
        "o",
        "Overview",
        "Every topic: size, keywords, sources, months",
        "overview",
        footer=True,
    ),
    Command("toggle-read", "r", "Read", "Mark the entry read or unread", "toggle_read"),
    Command(
        "unread-only",
        "u",
        "Unread",
        "Show only unread entries, or all again",
        "unread_only",
        footer=True,
    ),
    Command(
        "export",
        "e",
        "Export",
        "Export bookmarks to Markdown, JSON, CSV or HTML",
        "export",
        footer=True,
    ),
    Command(
        "refresh",
        "R,f5",
        "Refresh",
        "Reload topics and entries from the store, and sort the topics again (largest first)",
        "refresh",
    ),
    # sort and filter the entry list
    Command("sort", "s", "Sort", "Sort the entries by date, source or title", "sort"),
    Command(
        "filter",
        "f",
        "Filter",
        "Filter the entries: one source, a date range, unread only, bookmarked only",
        "filter",
    ),
    # the reading loop: links, marking read, next unread, delete, the entry alone
    Command("open-link", "O", "Open link", "Open the entry's link in the browser", "open_link"),
    Command("copy-link", "y", "Copy link", "Copy the entry's link to the clipboard", "copy_link"),
    Command(
        "mark-topic-read",
        "A",
        "Mark list read",
        "Mark every entry of the list read (the topic, the bookmarks or the search results)",
        "mark_topic_read",
    ),
    Command(
        "mark-all-read", "C", "Mark all read", "Mark every entry read (z undoes)", "mark_all_read"
    ),
    Command(
        "next-unread",
        "U",
        "Next unread",
        "Next unread entry, across topics (marks it read)",
        "next_unread",
        section=MOVING,
    ),
    Command(
        "read-on",
        "space",
        "Read on",
        "Page down the entry; at its end, the next unread entry",
        "read_on",
        section=MOVING,
    ),
    Command(
        "delete-entry",
        "d",
        "Delete",
        "Delete the focused list's entry with its bookmark and note (asks first if it has"
        " either; Z undoes)",
        "delete_entry",
    ),
    Command(
        "undo-delete",
        "Z",
        "Undo delete",
        "Bring back the last deleted entry from the trash, exactly as it was (after a restart too)",
        "undo_delete",
    ),
    Command(
        "maximize",
        "v",
        "Maximize entry",
        "The entry alone on the screen, or the panes again",
        "maximize_entry",
    ),
    # Topic corrections: each lasts across re-clusters and imports; z undoes it.
    Command(
        "rename-topic",
        "E",
        "Rename topic",
        "Rename the topic shown",
        "rename_topic",
        section=TOPICS,
    ),
    Command(
        "move-entry",
        "m",
        "Move entry",
        "Move the entry to another topic, chosen from a list (it stays there)",
        "move_entry",
        section=TOPICS,
    ),
    Command(
        "merge-topic",
        "M",
        "Merge topics",
        "Merge the topic shown with another, chosen from a list",
        "merge_topic",
        section=TOPICS,
    ),
    Command(
        "split-topic",
        "S",
        "Split topic",
        "Split the topic shown in two (or more)",
        "split_topic",
        section=TOPICS,
    ),
    Command(
        "topic-from-search",
        "T",
        "Topic from search",
        "Make a topic from terms (the search's words): entries that match gather in it",
        "topic_from_search",
        section=TOPICS,
    ),
    Command(
        "hide-topic",
        "H",
        "Hide topic",
        "Hide the topic shown: its entries go to their next-best topic",
        "hide_topic",
        section=TOPICS,
    ),
    Command(
        "show-topic",
        "alt+h",
        "Show topic",
        "Show a hidden topic again, chosen from a list",
        "show_topic",
        section=TOPICS,
    ),
    Command(
        "undo-topic",
        "z",
        "Undo",
        "Undo the last topic correction or mark all read, whichever came last",
        "undo_topic",
        section=TOPICS,
    ),
    # Feeds: R and f5 already reload from the store, so fetching has a key of its own
    Command(
        "refresh-feeds",
        "ctrl+r",
        "Refresh feeds",
        "Fetch every feed now: new posts join their topics, marked new",
        "refresh_feeds",
        section=FEEDS,
    ),
    Command(
        "feeds",
        "F",
        "Feeds",
        "Your feeds: status, last check, unread; add, rename, remove or refresh one",
        "feeds",
        section=FEEDS,
    ),
)

# The whole app.
APP: tuple[Command, ...] = (
    Command(
        "help",
        "question_mark,f1",
        "Help",
        "Show every key",
        "help",
        footer=True,
        section=EVERYWHERE,
    ),
    Command(
        "quit",
        "q",
        "Quit",
        "Close the dialog, the overview or the maximised entry; from the panes, quit topiclens",
        "close_or_quit",
        footer=True,
        section=EVERYWHERE,
    ),
    # the theme: tui/theme.py, remembered in the store
    Command(
        "toggle-theme",
        "ctrl+t",
        "Switch theme",
        "Switch between the dark and the light theme (remembered)",
        "toggle_theme",
        section=EVERYWHERE,
    ),
)

ALL: tuple[Command, ...] = NAVIGATION + MAIN + APP
BY_ID: dict[str, Command] = {c.id: c for c in ALL}
BY_SECTION: dict[str, list[Command]] = {s: [c for c in ALL if c.section == s] for s in SECTIONS}

# Bindings of the overview and the dialogs: they have ids too, so a keymap can move them.
SCREEN_BINDING_IDS: frozenset[str] = frozenset(
    {
        "overview-close",
        "overview-down",
        "overview-up",
        "help-close",
        "note-cancel",
        "search-cancel",
        "confirm-yes",
        "confirm-no",
        "export-cancel",
        # sort, filter, notes, overview ends
        "sort-cancel",
        "filter-cancel",
        "filter-clear",
        "note-save",
        "overview-first",
        "overview-last",
        # topic corrections' dialogs
        "topic-name-cancel",
        "picker-cancel",
        "picker-down",
        "picker-up",
        "split-cancel",
        "topic-terms-cancel",
        # the feeds screen and its dialogs
        "add-feed",
        "feeds-rename",
        "feeds-remove",
        "feeds-refresh",
        "feeds-interval",
        "feeds-close",
        "feeds-down",
        "feeds-up",
        "feed-input-cancel",
        # a dialog's choice of one (the export's format): Enter takes it and goes on
        "choice-take",
        # saving a search, muting
        "save-search-cancel",
        "mute-cancel",
    }
)
