"""Choose a topic from a fuzzy list, as in the command palette: the target of a move or a
merge, or a hidden topic to show again."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.fuzzy import Matcher
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option
from topiclens.store import Topic

from ..display import literal, terminal_line
from .choices import ChoiceList
from .styles import DIALOG_CSS

MATCH_STYLE = "reverse"  # as the command palette marks the letters matched


def matching(query: str, topics: list[Topic]) -> list[tuple[Topic, list[int]]]:
    """The topics whose name matches ``query`` fuzzily, best first (all of them, in their
    order, for a blank query), each with the offsets of the matched characters in its
    cleaned name."""
    query = query.strip()
    if not query:
        return [(t, []) for t in topics]
    search = Matcher(query).fuzzy_search
    scored = []
    for t in topics:
        score, offsets = search.match(query, terminal_line(t.name))
        if score > 0:
            scored.append((score, t, list(offsets)))
    scored.sort(key=lambda s: -s[0])  # stable: equal scores keep the store's order
    return [(t, offsets) for _, t, offsets in scored]


def topic_prompt(topic: Topic, offsets: list[int]) -> Content:
    """The topic's name, its matched characters highlighted (the name is never read as
    markup, unlike ``Matcher.highlight``), then its id and size."""
    name = Content(terminal_line(topic.name))
    for offset in offsets:
        name = name.stylize(MATCH_STYLE, offset, offset + 1)
    tail = Content.from_markup(
        " [$text-muted]#$id · $size entries[/]", id=str(topic.id), size=str(topic.size)
    )
    return name + tail


class TopicPickerScreen(ModalScreen[int | None]):
    """Type to narrow the topics, up and down to choose, Enter takes the highlighted one,
    Escape cancels. Dismisses with the topic's id."""

    CSS_PATH = DIALOG_CSS
    DEFAULT_CSS = """
    TopicPickerScreen { align: center middle; background: $background 60%; }
    TopicPickerScreen #picker-list { height: auto; max-height: 14; margin-bottom: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="picker-cancel"),
        Binding("down", "move(1)", "Down", show=False, id="picker-down"),
        Binding("up", "move(-1)", "Up", show=False, id="picker-up"),
    ]

    def __init__(self, title: str, subject: str, topics: list[Topic]) -> None:
        super().__init__()
        self.dialog_title = title
        self.subject = subject
        self.topics = topics
        self.shown: list[Topic] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = self.dialog_title
            yield Label(literal(self.subject), classes="dialog-subject")
            yield Input(placeholder="type to narrow the topics", id="picker-query")
            yield ChoiceList(id="picker-list")
            yield Label(
                "Up and down choose · Enter takes the topic · Escape cancels",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self._show("")
        self.query_one("#picker-query", Input).focus()

    @on(Input.Changed, "#picker-query")
    def _narrow(self, event: Input.Changed) -> None:
        self._show(event.value)

    def _show(self, query: str) -> None:
        found = matching(query, self.topics)
        self.shown = [t for t, _ in found]
        options = self.query_one("#picker-list", OptionList)
        options.set_options(Option(topic_prompt(t, o), id=f"topic-{t.id}") for t, o in found)
        if found:
            options.highlighted = 0

    def action_move(self, step: int) -> None:
        options = self.query_one("#picker-list", OptionList)
        if options.option_count:
            at = options.highlighted if options.highlighted is not None else -step
            options.highlighted = max(0, min(options.option_count - 1, at + step))

    @on(Input.Submitted, "#picker-query")
    def _take_highlighted(self) -> None:
        at = self.query_one("#picker-list", OptionList).highlighted
        if at is not None and at < len(self.shown):
            self.dismiss(self.shown[at].id)

    @on(OptionList.OptionSelected, "#picker-list")
    def _take(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.shown[event.option_index].id)

    def action_cancel(self) -> None:
        self.dismiss(None)
