"""Ask a topic's name: to rename it, or to name the topic two merged topics make."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label
from topiclens.store.bounds import BoundError, check_name

from ..display import literal, terminal_line
from .styles import DIALOG_CSS


def sentence(message: str) -> str:
    """A correction's refusal ("a topic name cannot be empty") as a dialog's sentence."""
    return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")


class TopicNameScreen(ModalScreen[str | None]):
    """A name for a topic: Enter gives it (blank only when ``optional``), Escape cancels."""

    CSS_PATH = DIALOG_CSS
    DEFAULT_CSS = """
    TopicNameScreen { align: center middle; background: $background 60%; }
    TopicNameScreen #topic-name-error { width: 1fr; color: $error; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="topic-name-cancel")
    ]

    def __init__(
        self, title: str, subject: str, value: str = "", *, optional: str | None = None
    ) -> None:
        """``optional``: a blank name is accepted and this says what it means."""
        super().__init__()
        self.dialog_title = title
        self.subject = subject
        self.name_value = value
        self.optional = optional

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = self.dialog_title
            yield Label(literal(self.subject), classes="dialog-subject")
            yield Input(
                terminal_line(self.name_value),
                placeholder=terminal_line(self.optional or "the topic's name"),
                id="topic-name",
            )
            yield Label("", id="topic-name-error")
            hint = "Enter saves · Escape cancels"
            if self.optional:
                hint = f"Enter saves (blank: {self.optional}) · Escape cancels"
            yield Label(literal(hint), classes="dialog-hint")  # it may hold a topic's name

    @on(Input.Submitted)
    def _save(self, event: Input.Submitted) -> None:
        if not event.value.strip() and self.optional is not None:
            self.dismiss("")
            return
        try:
            self.dismiss(check_name(event.value, "a topic name"))
        except BoundError as exc:  # the store's one rule for a name (length included)
            self.query_one("#topic-name-error", Label).update(literal(sentence(str(exc))))

    def action_cancel(self) -> None:
        self.dismiss(None)
