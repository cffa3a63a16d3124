"""Ask a topic's name: to rename it, or to name the topic two merged topics make."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from topiclens.store.bounds import check_name

from .line_dialog import LineDialog


class TopicNameScreen(LineDialog[str]):
    """A name for a topic: Enter gives it (blank only when ``optional``), Escape cancels."""

    INPUT_ID = "topic-name"
    ERROR_ID = "topic-name-error"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="topic-name-cancel")
    ]

    def __init__(
        self, title: str, subject: str, value: str = "", *, optional: str | None = None
    ) -> None:
        """``optional``: a blank name is accepted and this says what it means."""
        hint = "Enter saves · Escape cancels"
        if optional:
            hint = f"Enter saves (blank: {optional}) · Escape cancels"  # it may hold a name
        super().__init__(
            title, subject, value, placeholder=optional or "the topic's name", hint=hint
        )
        self.optional = optional

    def accept(self, value: str) -> str:
        if not value.strip() and self.optional is not None:
            return ""
        return check_name(value, "a topic name")  # the store's one rule, length included
