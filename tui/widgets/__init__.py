"""The reader's panes, one widget a file. The lists share one base (``CursorList``) and
every pane is drawn line by line (Textual's Line API), so a frame costs what the lines on
screen cost."""

from .cursor_list import CursorList, ListLine
from .detail_pane import DetailPane, Paragraph, detail_paragraphs, render_paragraphs
from .entry_list import BOOKMARK_MARK, UNREAD_MARK, EntryList
from .key_footer import KeyFooter
from .similar_list import SimilarList
from .topic_list import TopicItem, TopicList, topic_items

__all__ = [
    "BOOKMARK_MARK",
    "UNREAD_MARK",
    "CursorList",
    "DetailPane",
    "EntryList",
    "KeyFooter",
    "ListLine",
    "Paragraph",
    "SimilarList",
    "TopicItem",
    "TopicList",
    "detail_paragraphs",
    "render_paragraphs",
    "topic_items",
]
