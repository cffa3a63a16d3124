"""The progress of a first start: the stage and a bar, above the panes."""

from __future__ import annotations

from textual.containers import Vertical
from textual.widgets import Label, ProgressBar
from topiclens.clustering.stages import Stage

from .display import literal

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


class ProgressBox(Vertical):
    """A stage label over a bar; a stage that has not measured its progress pulses."""

    # parsed when the box is first mounted, not with the reader's first frame
    DEFAULT_CSS = """
    ProgressBox {
        dock: top;
        height: auto;
        padding: 0 1;
        background: $boost;
        /* one line whatever the stage says, so a new stage repaints the line, never the
           screen */
        #progress-stage {
            color: $text-muted;
            width: 1fr;
            height: 1;
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
        #progress-bar { width: 1fr; }
        Bar { width: 1fr; }
    }
    """

    def __init__(self, **kwargs: object) -> None:
        self.stage = Label(id="progress-stage")
        self.bar = ProgressBar(total=100, show_eta=False, id="progress-bar")
        super().__init__(self.stage, self.bar, **kwargs)  # type: ignore[arg-type]

    def show(self, stage: str, fraction: float) -> str:
        """Show ``stage`` (a stage name or a sentence) at ``fraction``; returns the
        sentence shown."""
        text = STAGES.get(stage, stage)
        # the stage's line has a fixed size (DEFAULT_CSS): a new text needs no layout of
        # the screen, which costs the event loop ten times the repaint of one line
        self.stage.update(literal(text), layout=False)
        self.display = True
        if fraction > 0:
            self.bar.update(total=100, progress=round(fraction * 100))
        else:  # a stage that has not measured its progress yet: a pulsing bar, not "0%"
            self.bar.update(total=None)
        return text
