"""topiclens' data layer: parsers, the SQLite store and imports. No Textual here."""

from .connection import StoreReplaced
from .db import SCHEMA_VERSION, Store, StoreError
from .models import Assignment, Bookmark, Entry, ImportReport, ParseResult, Problem, Topic

__all__ = [
    "SCHEMA_VERSION",
    "Assignment",
    "Bookmark",
    "Entry",
    "ImportReport",
    "ParseResult",
    "Problem",
    "Store",
    "StoreError",
    "StoreReplaced",
    "Topic",
]
