"""The progress of slow work (a first start's grouping, a refresh of the feeds): its stage
and a bar, drawn on the footer's line in place of the keys (``widgets/key_footer.py``)."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from topiclens.clustering.stages import Stage

from .display import fit_line

# What the clustering's progress stages mean to someone waiting for their topics.
STAGES: dict[str, str] = {
    Stage.IMPORT: "Importing the bundled corpus",
    Stage.TOKENIZE: "Reading the entries (Chinese and English words)",
    Stage.FEATURES: "Weighing the words (TF-IDF)",
    Stage.NEIGHBOURS: "Finding each entry's nearest entries",
    Stage.KMEANS: "Grouping the entries into topics",
    Stage.NAME: "Naming the topics",
    Stage.SIMILAR: "Finding similar entries",
    Stage.ASSIGN: "Placing new entries in their topics",
    Stage.STORE: "Saving the topics",
    Stage.DONE: "Done",
}

BAR_CELLS = 24  # the bar's width at most; a third of the line on a narrow terminal
BAR = "━"


def progress_line(
    stage: str, fraction: float, width: int, text: Style, done: Style, todo: Style
) -> Strip:
    """``stage`` (cleaned and cut to fit), then a bar ``fraction`` full and its percentage,
    as one line of ``width`` cells; a stage that has not measured its progress (0) shows
    no bar. ``text``: the stage's and the percentage's style, ``done`` and ``todo``: the
    bar's two parts'."""
    bar = min(BAR_CELLS, width // 3) if fraction > 0 else 0
    if not bar:
        return Strip([Segment(f" {fit_line(stage, max(0, width - 2))} ", text)], width)
    percent = f" {round(fraction * 100):3d}% "
    filled = round(fraction * bar)
    return Strip(
        [
            Segment(f" {fit_line(stage, max(0, width - bar - len(percent) - 2))} ", text),
            Segment(BAR * filled, done),
            Segment(BAR * (bar - filled), todo),
            Segment(percent, text),
        ]
    ).adjust_cell_length(width, text)
