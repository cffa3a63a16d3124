"""Where the dialogs' styles are: loaded with the first dialog shown, not with the reader's
first frame."""

from pathlib import Path

DIALOG_CSS = Path(__file__).parent.parent / "dialogs.tcss"
