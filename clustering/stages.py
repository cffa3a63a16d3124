"""The clustering's progress stages: one name for each, shared by every caller.

A progress callback is called as ``progress(stage, fraction)`` with a :class:`Stage` (a
``str``, so a caller may also compare it with the plain names) and how far the whole run
got, from 0 to 1.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import StrEnum


class Stage(StrEnum):
    IMPORT = "import"  # the bundled corpus goes into an empty store
    TOKENIZE = "tokenize"
    FEATURES = "features"  # term weights and LSA
    NEIGHBOURS = "neighbours"  # each entry's nearest entries
    KMEANS = "kmeans"
    NAME = "name"
    SIMILAR = "similar"
    ASSIGN = "assign"  # new entries join their nearest topic
    STORE = "store"
    DONE = "done"


Progress = Callable[[str, float], None]


class StageClock:
    """Seconds spent in each stage, and the caller's progress callback told of each."""

    def __init__(self, progress: Progress | None = None) -> None:
        self.seconds: dict[str, float] = {}
        self._progress = progress
        self._last = time.perf_counter()

    def done(self, stage: Stage, fraction: float) -> None:
        """``stage`` has just finished; the run is ``fraction`` of the way through."""
        now = time.perf_counter()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + now - self._last
        self._last = now
        if self._progress:
            self._progress(stage, fraction)
