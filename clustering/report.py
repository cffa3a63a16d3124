"""What a re-cluster did, and one plain line for each thing the user did not get as
asked (:meth:`ClusterReport.notes`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .partition import MAX_SHARE


@dataclass(slots=True)
class ClusterReport:
    entries: int = 0
    topics: int = 0
    tokenized: int = 0  # entries tokenized now
    cached: int = 0  # entries whose tokens came from the cache
    kept_ids: int = 0  # topics that kept the id of an old topic
    seconds: dict[str, float] = field(default_factory=dict)
    asked_k: int | None = None  # the k asked for; None: chosen by corpus size
    largest_share: float = 0.0  # the largest topic's share of the entries
    split: int = 0  # topics the cap on a topic's share split off (automatic k only)
    named: int = 0  # topics the user named, going in (remembered ones included)
    lost_names: list[str] = field(default_factory=list)  # no topic now; remembered
    gone_names: list[str] = field(default_factory=list)  # every entry gone; forgotten
    restored_names: list[str] = field(default_factory=list)  # remembered, now back
    held: int = 0  # topics the user's corrections hold (merged, split, from terms, pinned)
    hidden: int = 0  # topics the user hid, kept hidden
    empty_names: list[str] = field(default_factory=list)  # shaped topics with no entry left
    changes: str | None = None  # what a re-cluster continuing the saved model changed

    def notes(self) -> list[str]:
        """One plain-text line for each thing the user did not get as asked (or got back)."""
        lines = []
        asked = self.asked_k
        if asked is not None and self.topics != asked and (self.held or self.hidden):
            lines.append(
                f"asked for {asked} topics, made {self.topics}: your corrections hold "
                f"{self.held} and hide {self.hidden}"
            )
        elif asked is not None and self.topics < asked:
            if self.entries < asked:
                why = f"there are only {self.entries} entries"
                if self.topics < self.entries:
                    why += f", using only {self.topics} different sets of words"
            else:
                why = f"the {self.entries} entries use only {self.topics} different sets of words"
            lines.append(f"asked for {asked} topics, made {self.topics}: {why}")
        elif asked is not None and self.topics > 1 and self.largest_share > MAX_SHARE:
            lines.append(
                f"{asked} topics as asked: the largest holds {self.largest_share:.0%} of the "
                f"entries (an automatic k splits any topic above {MAX_SHARE:.0%})"
            )
        if self.lost_names:
            if asked is not None and asked < self.named:
                why = f"you named {self.named} topics and asked for {asked}"
            elif self.topics < self.named:
                why = f"you named {self.named} topics; {self.entries} entries made {self.topics}"
            else:
                why = "their entries went to topics carrying other names you gave"
            lines.append(
                f"no topic this time for {_quoted(self.lost_names)} ({why}); the names are "
                "kept, and come back with a re-cluster that has room for them"
            )
        if self.gone_names:
            lines.append(f"no entry left of {_quoted(self.gone_names)}: the names are dropped")
        if self.empty_names:
            lines.append(
                f"no entry left of {_quoted(self.empty_names)}: the topics you made cannot be "
                "kept (one made from terms comes back when an entry uses them)"
            )
        if self.restored_names:
            lines.append(f"names you gave, back: {_quoted(self.restored_names)}")
        return lines


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(repr(n) for n in names)
