"""Filter the entry list: one source, a date range, unread only, bookmarked only."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select

from ..display import literal
from ..views import RowFilter, date_problem
from .choices import ChoiceSelect
from .styles import DIALOG_CSS

NO_SOURCE = "(no source)"  # how the entries without a source are named in the choice


class FilterScreen(ModalScreen[tuple[RowFilter, bool] | None]):
    """The filter of the entry list, answered as (filter, unread only): Enter or Apply
    sets it, ctrl+r clears it at once, Escape leaves it as it was."""

    CSS_PATH = DIALOG_CSS
    DEFAULT_CSS = """
    FilterScreen { align: center middle; background: $background 60%; }
    FilterScreen .filter-row { height: auto; width: 1fr; }
    FilterScreen .filter-row Input { width: 1fr; margin-right: 1; }
    FilterScreen Select { width: 1fr; margin-bottom: 1; }
    FilterScreen Checkbox { width: 1fr; }
    FilterScreen #filter-error { width: 1fr; color: $error; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="filter-cancel"),
        Binding("ctrl+r", "clear", "Clear", id="filter-clear", priority=True),
    ]

    def __init__(
        self, sources: list[tuple[str, int]], current: RowFilter, *, unread_only: bool
    ) -> None:
        """``sources``: the sources of the entries shown, with their counts (most first)."""
        super().__init__()
        self.sources = sources
        self.current = current
        self.unread_only = unread_only

    def compose(self) -> ComposeResult:
        rule = self.current
        counts = dict(self.sources)
        if rule.source is not None:  # offered even when none of its entries is shown
            counts.setdefault(rule.source, 0)
        # Content, never a markup string: a source's name is data
        choices = [(literal(f"{s or NO_SOURCE} · {n}"), s) for s, n in counts.items()]
        with Vertical(classes="dialog", id="filter-dialog") as dialog:
            dialog.border_title = "Filter entries"
            yield ChoiceSelect(
                choices,
                prompt="Any source",
                value=rule.source if rule.source is not None else Select.NULL,
                id="filter-source",
            )
            with Horizontal(classes="filter-row"):
                yield Input(rule.since, placeholder="since YYYY-MM(-DD)", id="filter-since")
                yield Input(rule.until, placeholder="until YYYY-MM(-DD)", id="filter-until")
            with Horizontal(classes="filter-row"):
                yield Checkbox("Unread only", self.unread_only, id="filter-unread")
                yield Checkbox("Bookmarked only", rule.bookmarked, id="filter-bookmarked")
            yield Label("", id="filter-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply", id="filter-apply", variant="primary")
                yield Button("Clear", id="filter-clear")
                yield Button("Cancel", id="filter-cancel")
            yield Label(
                "Enter applies · ctrl+r clears every filter · Escape cancels",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self.query_one("#filter-source", Select).focus()

    @on(Button.Pressed, "#filter-apply")
    @on(Input.Submitted)
    def action_apply(self) -> None:
        since = self.query_one("#filter-since", Input).value.strip()
        until = self.query_one("#filter-until", Input).value.strip()
        problem = date_problem(since) or date_problem(until)
        if problem is None and since and until and since > until[: len(since)]:
            problem = f"{since} is after {until}: nothing would be left"
        if problem is not None:
            self.query_one("#filter-error", Label).update(literal(problem))
            return
        source = self.query_one("#filter-source", Select).value
        rule = RowFilter(
            source=source if isinstance(source, str) else None,
            since=since,
            until=until,
            bookmarked=self.query_one("#filter-bookmarked", Checkbox).value,
        )
        self.dismiss((rule, self.query_one("#filter-unread", Checkbox).value))

    @on(Button.Pressed, "#filter-clear")
    def action_clear(self) -> None:
        self.dismiss((RowFilter(), False))

    @on(Button.Pressed, "#filter-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
