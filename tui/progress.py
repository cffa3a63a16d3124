"""The progress of slow work (a first start's grouping, a refresh of the feeds): its stage
and a bar, on one line in place of the keys' footer."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from textual.strip import Strip
from textual.widget import Widget
from topiclens.clustering.stages import Stage

from .display import fit_line
from .textual_compat import StyleStamp

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


class ProgressLine(Widget):
    """The stage, then a bar and its percentage (a stage that has not measured its
    progress shows no bar), drawn as one line.

    It takes the footer's line while shown (the footer is hidden meanwhile), so the panes
    keep their size: showing, updating and hiding it repaints this line alone, where a box
    above the panes made every pane lay out and draw again; and it draws nothing between
    updates (no animation competing with keys)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "progress-line--stage",
        "progress-line--done",
        "progress-line--todo",
    }

    # parsed when the line is first mounted, not with the reader's first frame
    DEFAULT_CSS = """
    ProgressLine {
        dock: bottom;
        height: 1;
        background: $footer-background;
        & > .progress-line--stage { color: $footer-description-foreground; }
        & > .progress-line--done { color: $primary; }
        & > .progress-line--todo { color: $foreground 20%; }
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.stage = ""  # the sentence shown
        self.fraction = 0.0  # how far it got (0: not measured)
        self._line: tuple[tuple[object, ...], Strip] | None = None  # kept until it changes
        self._stamp = StyleStamp()

    def show(self, stage: str, fraction: float) -> str:
        """Show ``stage`` (a stage name or a sentence) at ``fraction``; returns the
        sentence shown."""
        self.stage = STAGES.get(stage, stage)
        self.fraction = max(0.0, min(1.0, fraction))
        self.display = True
        self.refresh()
        return self.stage

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._stamp.forget()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        bar = min(BAR_CELLS, width // 3) if self.fraction > 0 else 0
        done = round(self.fraction * bar)
        what = (width, self.stage, bar, done)
        if self._stamp.changed(self) or self._line is None or self._line[0] != what:
            self._line = (what, self._draw(width, bar, done))
        return self._line[1]

    def _draw(self, width: int, bar: int, done: int) -> Strip:
        get = self.get_component_rich_style
        stage = get("progress-line--stage")
        if not bar:
            text = fit_line(self.stage, max(0, width - 2))
            return Strip([Segment(f" {text} ", stage)]).adjust_cell_length(width, self.rich_style)
        percent = f" {round(self.fraction * 100):3d}% "
        text = fit_line(self.stage, max(0, width - bar - len(percent) - 2))
        segments = [
            Segment(f" {text} ", stage),
            Segment(BAR * done, get("progress-line--done")),
            Segment(BAR * (bar - done), get("progress-line--todo")),
            Segment(percent, stage),
        ]
        return Strip(segments).adjust_cell_length(width, self.rich_style)
