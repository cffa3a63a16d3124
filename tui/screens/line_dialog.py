"""The shape of a dialog that asks for one line: a subject, the line, a line for the
store's refusal, and a hint. Enter checks the line by the store's rule, Escape cancels."""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label
from topiclens.store.bounds import BoundError

from ..display import literal, terminal_line
from .styles import DIALOG_CSS

Answer = TypeVar("Answer")


def sentence(message: str) -> str:
    """A store rule's refusal ("a topic name cannot be empty") as a dialog's sentence."""
    return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")


class LineDialog(ModalScreen[Answer | None], Generic[Answer]):
    """A dialog over one :class:`Input`. A subclass names its parts (``INPUT_ID`` and
    ``ERROR_ID``, which keymaps and tests find), may add widgets above the line
    (:meth:`compose_above`), and answers with :meth:`accept`, which raises one of
    ``REFUSED`` (the store's :class:`BoundError`) to refuse the line with the rule's own
    words."""

    CSS_PATH = DIALOG_CSS
    DEFAULT_CSS = """
    LineDialog { align: center middle; background: $background 60%; }
    LineDialog .dialog-error { width: 1fr; color: $error; }
    """

    INPUT_ID: ClassVar[str]
    ERROR_ID: ClassVar[str]
    REFUSED: ClassVar[tuple[type[Exception], ...]] = (BoundError,)  # what :meth:`accept` raises

    def __init__(
        self, title: str, subject: str, value: str, *, placeholder: str, hint: str
    ) -> None:
        """``subject`` and ``hint`` are shown as data, never as markup."""
        super().__init__()
        self.dialog_title = title
        self.subject = subject
        self.value = value
        self.placeholder = placeholder
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = self.dialog_title
            yield Label(literal(self.subject), classes="dialog-subject")
            yield from self.compose_above()
            yield Input(
                terminal_line(self.value),
                placeholder=terminal_line(self.placeholder),
                id=self.INPUT_ID,
            )
            yield Label("", id=self.ERROR_ID, classes="dialog-error")
            yield Label(literal(self.hint), classes="dialog-hint")

    def compose_above(self) -> ComposeResult:
        """Widgets between the subject and the line (none by default)."""
        yield from ()

    def accept(self, value: str) -> Any:
        """The answer for the line ``value``; raises one of ``REFUSED`` to refuse it."""
        raise NotImplementedError

    def refusal(self, message: str) -> str:
        """The line that says why ``accept`` refused."""
        return sentence(message)

    def say(self, text: str) -> None:
        self.query_one(f"#{self.ERROR_ID}", Label).update(literal(text))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        try:
            answer = self.accept(event.value)
        except self.REFUSED as exc:
            self.say(self.refusal(str(exc)))
            return
        self.dismiss(answer)

    def action_cancel(self) -> None:
        self.dismiss(None)
