"""Screens over the reader: topic overview, help, note, search, export, the feeds, a
confirmation and the topic corrections' dialogs (a name, a topic picker, split's k, a
topic from terms), one a file. Their styles (dialogs.tcss, ``styles.DIALOG_CSS``) load
with the first of them shown, not with the reader's first frame."""

from .confirm import ConfirmScreen
from .export import ExportScreen
from .feeds import FeedInputScreen, FeedsScreen
from .help import HelpScreen
from .note import NoteScreen
from .overview import OverviewScreen
from .search import SearchScreen
from .split_topic import SplitTopicScreen
from .styles import DIALOG_CSS
from .topic_name import TopicNameScreen
from .topic_picker import TopicPickerScreen
from .topic_terms import TopicTermsScreen

__all__ = [
    "DIALOG_CSS",
    "ConfirmScreen",
    "ExportScreen",
    "FeedInputScreen",
    "FeedsScreen",
    "HelpScreen",
    "NoteScreen",
    "OverviewScreen",
    "SearchScreen",
    "SplitTopicScreen",
    "TopicNameScreen",
    "TopicPickerScreen",
    "TopicTermsScreen",
]
