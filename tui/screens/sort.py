"""Choose the entry list's order: by date, source or title."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ..views import SORTS
from .choices import ChoiceList
from .styles import DIALOG_CSS


class SortScreen(ModalScreen[str | None]):
    """The three orders, the current one highlighted: Enter picks, Escape cancels."""

    CSS_PATH = DIALOG_CSS
    DEFAULT_CSS = """
    SortScreen { align: center middle; background: $background 60%; }
    SortScreen #sort-options { height: auto; max-height: 8; margin-bottom: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="sort-cancel")
    ]

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "Sort entries"
            yield ChoiceList(
                *(Option(label, id=key) for key, label in SORTS.items()), id="sort-options"
            )
            yield Label(
                "j/k or arrows choose · Enter sorts · Escape cancels", classes="dialog-hint"
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = list(SORTS).index(self.current) if self.current in SORTS else 0
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
