"""The lists of the dialogs, moved as the reader's own lists are: ``j``/``k`` besides the
arrows, ``g``/``G`` to the ends, under the reader's binding ids (``cursor-down``...), so a
user's keymap moves them too."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import OptionList, RadioSet, Select

from ..commands import CURSOR_DOWN, CURSOR_UP, FIRST, LAST, bindings


class ChoiceList(OptionList):
    """An option list that takes the reader's moving keys (OptionList's own actions)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings((CURSOR_UP, CURSOR_DOWN, FIRST, LAST))


class ChoiceSet(RadioSet):
    """A radio set that takes the reader's moving keys; Enter takes the highlighted
    choice and goes on to the next field, as a reader fills a dialog top to bottom."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings((CURSOR_UP, CURSOR_DOWN)),
        # RadioSet's own Enter toggles and stays
        Binding("enter", "take", "Take", show=False, id="choice-take"),
    ]

    def action_cursor_down(self) -> None:
        self.action_next_button()

    def action_cursor_up(self) -> None:
        self.action_previous_button()

    def action_take(self) -> None:
        self.action_toggle_button()
        self.screen.focus_next()


class ChoiceSelect(Select[str]):
    """A drop-down that takes the reader's moving keys: down or ``j`` opens it, then they
    move in it (typing to search is off: ``j`` is a key here, not a letter)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings((CURSOR_UP, CURSOR_DOWN))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, type_to_search=False, **kwargs)

    def action_cursor_down(self) -> None:
        self._move("action_cursor_down")

    def action_cursor_up(self) -> None:
        self._move("action_cursor_up")

    def _move(self, action: str) -> None:
        if self.expanded:
            getattr(self.query_one(OptionList), action)()  # the drop-down's list
        else:
            self.action_show_overlay()
