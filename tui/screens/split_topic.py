"""Ask into how many topics to split one."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label
from topiclens.clustering.corrections import MAX_SPLIT

from ..display import literal
from .styles import DIALOG_CSS

DEFAULT_PARTS = 2


class SplitTopicScreen(ModalScreen[int | None]):
    """How many topics to split a topic of ``size`` entries into: Enter splits, Escape
    cancels."""

    CSS_PATH = DIALOG_CSS
    DEFAULT_CSS = """
    SplitTopicScreen { align: center middle; background: $background 60%; }
    SplitTopicScreen #split-error { width: 1fr; color: $error; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="split-cancel")
    ]

    def __init__(self, subject: str, size: int) -> None:
        super().__init__()
        self.subject = subject
        self.topic_size = size
        self.most = max(2, min(size, MAX_SPLIT))  # one entry a topic at most

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "Split topic"
            yield Label(literal(self.subject), classes="dialog-subject")
            yield Input(str(DEFAULT_PARTS), type="integer", id="split-k")
            yield Label("", id="split-error")
            yield Label(
                f"Into how many topics (2 to {self.most}) · Enter splits · Escape cancels",
                classes="dialog-hint",
            )

    @on(Input.Submitted)
    def _split(self, event: Input.Submitted) -> None:
        try:
            k = int(event.value)
        except ValueError:
            k = 0
        if not 2 <= k <= self.most:
            self.query_one("#split-error", Label).update(
                f"A number from 2 to {self.most} (the topic has {self.topic_size} entries)."
            )
            return
        self.dismiss(k)

    def action_cancel(self) -> None:
        self.dismiss(None)
