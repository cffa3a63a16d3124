"""Make a topic from terms: a name, and the terms that become its anchor (prefilled from
the current search)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label
from topiclens.clustering.corrections import split_terms
from topiclens.store.bounds import BoundError, check_name

from ..display import literal, terminal_line
from .line_dialog import sentence
from .styles import DIALOG_CSS


class TopicTermsScreen(ModalScreen[tuple[str, list[str]] | None]):
    """A name and terms for a new topic: Enter in the name goes to the terms, Enter in the
    terms makes the topic, Escape cancels."""

    CSS_PATH = DIALOG_CSS
    DEFAULT_CSS = """
    TopicTermsScreen { align: center middle; background: $background 60%; }
    TopicTermsScreen #terms-error { width: 1fr; color: $error; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="topic-terms-cancel")
    ]

    def __init__(self, terms: str = "") -> None:
        super().__init__()
        self.terms = terms

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "Topic from terms"
            yield Label("Name", classes="dialog-hint")
            yield Input(placeholder="the new topic's name", id="terms-name")
            yield Label("Terms", classes="dialog-hint")
            yield Input(
                terminal_line(self.terms),
                placeholder="e.g. KV cache, KV 缓存",
                id="terms-terms",
            )
            yield Label("", id="terms-error")
            yield Label(
                "Terms separated by commas; entries that match them gather in the topic, "
                "now and after each import · Escape cancels",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self.query_one("#terms-name", Input).focus()

    @on(Input.Submitted, "#terms-name")
    def _to_terms(self) -> None:
        self.query_one("#terms-terms", Input).focus()

    @on(Input.Submitted, "#terms-terms")
    def _make(self) -> None:
        terms = split_terms(self.query_one("#terms-terms", Input).value)
        error = self.query_one("#terms-error", Label)
        try:
            name = check_name(self.query_one("#terms-name", Input).value, "a topic name")
        except BoundError as exc:  # the store's one rule for a name (length included)
            error.update(literal(sentence(str(exc))))
            self.query_one("#terms-name", Input).focus()
            return
        if not terms:
            error.update("Give at least one term.")
        else:
            self.dismiss((name, terms))

    def action_cancel(self) -> None:
        self.dismiss(None)
