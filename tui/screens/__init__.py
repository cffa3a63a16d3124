"""Screens over the reader: topic overview, help, note, search, export, a confirmation and
the topic corrections' dialogs (a name, a topic picker, split's k, a topic from terms),
one a file. Their styles (dialogs.tcss) load with the first of them shown, not with the
reader's first frame."""

from pathlib import Path

DIALOG_CSS = Path(__file__).parent.parent / "dialogs.tcss"

from .confirm import ConfirmScreen  # noqa: E402  (they read DIALOG_CSS from here)
from .export import ExportScreen  # noqa: E402
from .help import HelpScreen  # noqa: E402
from .note import NoteScreen  # noqa: E402
from .overview import OverviewScreen  # noqa: E402
from .search import SearchScreen  # noqa: E402
from .split_topic import SplitTopicScreen  # noqa: E402
from .topic_name import TopicNameScreen  # noqa: E402
from .topic_picker import TopicPickerScreen  # noqa: E402
from .topic_terms import TopicTermsScreen  # noqa: E402

__all__ = [
    "DIALOG_CSS",
    "ConfirmScreen",
    "ExportScreen",
    "HelpScreen",
    "NoteScreen",
    "OverviewScreen",
    "SearchScreen",
    "SplitTopicScreen",
    "TopicNameScreen",
    "TopicPickerScreen",
    "TopicTermsScreen",
]
