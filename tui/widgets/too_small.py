"""The message that replaces the panes when the terminal is too small for them."""

from __future__ import annotations

from typing import ClassVar

from textual.widgets import Static


class TooSmall(Static):
    """Says how large the terminal must be; shown while the main screen has the class
    ``-too-small``, the panes hidden meanwhile. Its rules are read when it is first
    mounted (a terminal too small), not with the reader's first frame."""

    SCOPED_CSS: ClassVar[bool] = False  # its rules hide the screen's panes too
    DEFAULT_CSS = """
    TooSmall { display: none; }
    MainScreen.-too-small {
        #topics, #entries, #detail, #similar, KeyFooter { display: none; }
        TooSmall {
            display: block;
            width: 1fr;
            height: 1fr;
            content-align: center middle;
            text-align: center;
            color: $text;
        }
    }
    """
