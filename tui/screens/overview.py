"""The topic overview: every topic with its id, its size as a bar, its cohesion (mixed
topics marked), what the user made of it (a mark, and its pinned entries), top keywords,
sources and entries by month."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist
from topiclens.store import Store, Topic

from ..commands import BY_ID
from ..display import terminal_line
from ..widgets.topic_list import USER_MARK
from ..wrap import wrap_cells
from .help import keys_for
from .styles import DIALOG_CSS

if TYPE_CHECKING:
    from topiclens.clustering.corrections import Corrections

SPARKS = "▁▂▃▄▅▆▇█"
BAR_WIDTH = 24
MAX_MONTHS = 36


def months_between(first: str, last: str) -> list[str]:
    """Every 'YYYY-MM' from ``first`` to ``last`` inclusive."""
    y, m = int(first[:4]), int(first[5:7])
    out = []
    while f"{y:04d}-{m:02d}" <= last:
        out.append(f"{y:04d}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def sparkline(counts: list[int]) -> str:
    top = max(counts, default=0)
    if top == 0:
        return " " * len(counts)
    return "".join(
        " " if n == 0 else SPARKS[min(len(SPARKS) - 1, (n * len(SPARKS) - 1) // top)]
        for n in counts
    )


def bucket(counts: list[int], width: int) -> list[int]:
    """Sum ``counts`` into at most ``width`` equal buckets (oldest first)."""
    if len(counts) <= width:
        return counts
    size = -(-len(counts) // width)
    return [sum(counts[i : i + size]) for i in range(0, len(counts), size)]


FIELD_LABEL = 8  # cells for "keywords" and "sources" in the overview
SHAPED = {"merge": "merged by you", "split": "split by you"}


def yours_text(topic: Topic, corrections: Corrections | None) -> str:
    """What the user made of ``topic`` (made from terms, merged, split, named, entries
    pinned to it), "" when nothing."""
    parts = []
    shaped = corrections.topics.get(topic.id) if corrections is not None else None
    if shaped is not None and shaped.origin == "terms":
        parts.append("made from terms: " + ", ".join(shaped.terms))
    elif shaped is not None and shaped.origin in SHAPED:
        parts.append(SHAPED[shaped.origin])
    if topic.user_named:
        parts.append("named by you")
    pinned = sum(1 for t in corrections.pins.values() if t == topic.id) if corrections else 0
    if pinned:
        parts.append(f"{pinned} {'entry' if pinned == 1 else 'entries'} pinned here")
    return terminal_line(" · ".join(parts))


def hidden_text(corrections: Corrections | None, keys: str) -> str:
    """How many topics are hidden, and the ``keys`` that show one ("" when none is)."""
    hidden = len(corrections.hidden()) if corrections is not None else 0
    return f" · {hidden} hidden ({keys} shows one)" if hidden else ""


def cohesion_text(topic: Topic) -> str:
    """How much the topic's entries share, as a percent ("not measured" for topics of a
    clustering that did not measure it)."""
    if topic.cohesion is None:
        return "cohesion not measured"
    return f"cohesion {round(100 * topic.cohesion)} %"


def field_lines(label: str, value: str, width: int) -> list[Content]:
    """``label`` and ``value``, the value wrapped under itself (not under the label) to
    ``width`` cells."""
    indent = 2 + FIELD_LABEL + 1
    lines = wrap_cells(value, max(20, width - indent))
    first = Content.from_markup(
        "  [$text-muted]$label[/] $line", label=label.ljust(FIELD_LABEL), line=lines[0]
    )
    return [first, *(Content(" " * indent + line) for line in lines[1:])]


class TopicOptions(OptionList):
    """The overview's list: down and up stop at the ends instead of wrapping around."""

    def _step(self, step: int) -> None:
        if self.highlighted is None:
            self.action_first()
            return
        target = self.highlighted + step
        while 0 <= target < self.option_count and self.options[target].disabled:
            target += step
        if 0 <= target < self.option_count:
            self.highlighted = target

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_cursor_up(self) -> None:
        self._step(-1)


class OverviewScreen(Screen[int | None]):
    """Every topic with its id (what the command line takes), its size as a bar, its
    cohesion (mixed topics marked), top keywords, sources and entries by month."""

    CSS_PATH = DIALOG_CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,o,q", "close", "Back", id="overview-close"),
        Binding("j", "down", show=False, id="overview-down"),
        Binding("k", "up", show=False, id="overview-up"),
        Binding("g", "first", show=False, id="overview-first"),
        Binding("G", "last", show=False, id="overview-last"),
    ]

    def __init__(self, store: Store, topics: list[Topic], *, current: int | None = None) -> None:
        """``current``: the topic the reader shows, where the cursor starts."""
        super().__init__()
        self.store = store
        self.topics = topics
        self.current = current
        self._profile: tuple[dict[int, list[tuple[str, int]]], dict[int, dict[str, int]]]
        self._profile = ({}, {})
        self._built_width = 0
        self._corrections: Corrections | None = None

    def compose(self) -> ComposeResult:
        yield Label("", id="overview-title")
        yield TopicOptions(id="overview")
        yield Footer()

    def on_mount(self) -> None:
        self._profile = self.store.topic_profile()
        from topiclens.clustering.corrections import corrections

        self._corrections = corrections(self.store)
        self.query_one(OptionList).focus()
        self.call_after_refresh(self.on_resize)  # the options need the list's width

    def on_resize(self) -> None:
        overview = self.query_one(OptionList)
        width = overview.scrollable_content_region.width
        if width <= 0 or width == self._built_width:
            return
        self._built_width = width
        highlighted = overview.highlighted
        overview.set_options(self._options(width))
        if highlighted is None and self.current is not None:  # the first build
            try:
                highlighted = overview.get_option_index(f"topic-{self.current}")
            except OptionDoesNotExist:  # a topic gone since the reader listed it
                highlighted = None
        if self.topics:
            overview.highlighted = highlighted or 0

    def _options(self, width: int) -> list[Option | None]:
        """One option per topic, its fields wrapped to the list's ``width``; and the title."""
        sources, months = self._profile
        all_months = sorted({m for per in months.values() for m in per})
        axis = months_between(all_months[0], all_months[-1]) if all_months else []
        biggest = max((t.size for t in self.topics), default=1) or 1
        options: list[Option | None] = []
        for t in self.topics:
            filled = max(1, round(BAR_WIDTH * t.size / biggest)) if t.size else 0
            per = months.get(t.id, {})
            spark = sparkline(bucket([per.get(m, 0) for m in axis], MAX_MONTHS))
            top_sources = " · ".join(f"{s} {n}" for s, n in sources.get(t.id, [])[:4])
            keywords = ", ".join(k for k, _ in t.keywords[:8])
            top_sources, keywords = terminal_line(top_sources), terminal_line(keywords)
            # the data goes in as variables (never parsed); only the mark is markup
            mixed = " [$warning]mixed: its entries share little[/]" if t.mixed else ""
            yours = yours_text(t, self._corrections)
            mark = f" [$accent]{USER_MARK}[/]" if yours else ""
            head = Content.from_markup(
                "[b]$name[/b] [$text-muted]#$id[/]" + mark + mixed + "\n  [$accent]$bar[/]"
                "[$text-muted]$rest[/] $size entries [$text-muted]·[/] $cohesion",
                name=terminal_line(t.name),
                id=str(t.id),
                bar="█" * filled,
                rest="░" * (BAR_WIDTH - filled),
                size=str(t.size),
                cohesion=cohesion_text(t),
            )
            tail = Content.from_markup(
                "  [$text-muted]$first[/] [$secondary]$spark[/] [$text-muted]$last[/]",
                first=axis[0] if axis else "",
                spark=spark,
                last=axis[-1] if axis else "",
            )
            prompt = Content("\n").join(
                [
                    head,
                    *(field_lines("yours", yours, width) if yours else []),
                    *field_lines("keywords", keywords or "-", width),
                    *field_lines("sources", top_sources or "-", width),
                    tail,
                ]
            )
            options.append(Option(prompt, id=f"topic-{t.id}"))
            options.append(None)
        span = f"{axis[0]} to {axis[-1]}" if axis else "no dates"
        self.query_one("#overview-title", Label).update(
            Content.from_markup(
                "[b]Topic overview[/b] [$text-muted]· $n topics$mixed$hidden · entries by month, "
                "$span · Enter jumps to a topic[/]",
                n=str(len(self.topics)),
                mixed=f" ({mixed} mixed)" if (mixed := sum(t.mixed for t in self.topics)) else "",
                hidden=hidden_text(self._corrections, keys_for(self, BY_ID["show-topic"])),
                span=span,
            )
        )
        return options

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.dismiss(int(event.option.id.removeprefix("topic-")))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_down(self) -> None:
        self.query_one(OptionList).action_cursor_down()

    def action_up(self) -> None:
        self.query_one(OptionList).action_cursor_up()

    def action_first(self) -> None:
        self.query_one(OptionList).action_first()

    def action_last(self) -> None:
        self.query_one(OptionList).action_last()
