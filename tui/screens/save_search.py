"""Ask the name a search is saved under."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.widgets import Input
from topiclens.store.saved import checked

from ..display import cut_line
from .line_dialog import LineDialog


class SaveSearchScreen(LineDialog[str]):
    """A name for the search ``query`` (the query itself by default): Enter saves it
    (a saved search of that name is replaced), Escape cancels. Dismisses with the name."""

    INPUT_ID = "save-search-name"
    ERROR_ID = "save-search-error"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="save-search-cancel")
    ]

    def __init__(self, query: str, taken: frozenset[str] = frozenset()) -> None:
        """``taken``: the names saved already (saving under one replaces its query)."""
        super().__init__(
            "Save search",
            f"/{cut_line(query, 300)}",  # a query is bounded, still
            query,
            placeholder="its name",
            hint="Listed above the topics with its unread entries · Enter saves · Escape cancels",
        )
        self.query_text = query
        self.taken = taken

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        taken = event.value.strip() in self.taken
        self.say("A saved search of that name is replaced." if taken else "")

    def accept(self, value: str) -> str:
        name, _ = checked(value, self.query_text)  # the store's rule for a name and a query
        return name
