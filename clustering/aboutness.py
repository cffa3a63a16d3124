"""Where an entry's words sit: its lead, the part that says what the entry is about.

A title, or a summary's opening sentence, names the subject; the body names the parts
the subject is made of. So an anchor's term in an entry's lead makes the entry about the
anchor even when it is said once, while a single mention further on is a component named
in passing (a serving release note's "paged KV cache"). :class:`Leads` reads the leads
of the entries it is asked about, with the fit's own tokenizer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

# a sentence ends at a full stop, question or exclamation mark, a semicolon or a line end
_SENTENCE_END = re.compile(r"[。！？；!?;\n]|\.(?=\s|$)")


def lead(text: str) -> str:
    """The opening of ``text``: its first sentence, and when that is a whole line of its
    own (a title above its summary), the next line's first sentence as well."""
    text = text.strip()
    first = _SENTENCE_END.search(text)
    if first is None:
        return text
    head = text[: first.start()]
    if text[first.start()] != "\n":
        return head
    rest = text[first.end() :].lstrip()
    second = _SENTENCE_END.search(rest)
    return head + "\n" + (rest if second is None else rest[: second.start()])


class Leads:
    """The tokens of each entry's :func:`lead`, read when first asked for (only the
    entries an anchor's topic holds are), from the fit's ``texts``; without the texts
    (above the size the fit reads them at) nothing is known of any lead."""

    def __init__(self, texts: Sequence[str] | None, tokenize: Callable[[str], list[str]]) -> None:
        self.texts = texts
        self.tokenize = tokenize
        self._tokens: dict[int, frozenset[str]] = {}

    def name(self, rows: Sequence[int], tokens: set[str]) -> Any:
        """(len(rows),) whether the lead of each of the entries ``rows`` uses one of
        ``tokens``; None without the texts."""
        import numpy as np

        if self.texts is None:
            return None
        return np.fromiter(
            (not tokens.isdisjoint(self._lead(int(i))) for i in rows), dtype=bool, count=len(rows)
        )

    def _lead(self, i: int) -> frozenset[str]:
        if i not in self._tokens:
            self._tokens[i] = frozenset(self.tokenize(lead(self.texts[i])))
        return self._tokens[i]
