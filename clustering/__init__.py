"""Grouping entries into named topics (jieba + English tokens, TF-IDF, KMeans). No Textual.

The public names are re-exported lazily: importing ``topiclens.clustering`` loads neither
scikit-learn nor jieba nor numpy; they load when clustering runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .pipeline import ClusterReport, assign_new, cluster_store, ensure_topics

__all__ = ["ClusterReport", "assign_new", "cluster_store", "ensure_topics"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
