"""Grouping entries into named topics (jieba + English tokens, TF-IDF, KMeans). No Textual.

``TopicModel`` is the model (a scikit-learn clusterer: fit, fit_predict, predict,
to_bytes); ``cluster_store``, ``assign_new`` and ``ensure_topics`` run it over a store;
``Stage`` names the progress stages. The names load lazily: importing
``topiclens.clustering`` loads neither scikit-learn nor jieba nor numpy (``TopicModel``
itself loads scikit-learn, its base class).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .anchors import Anchor, load_anchors
    from .estimator import Placement, TopicModel
    from .pipeline import ClusterReport, assign_new, cluster_store, ensure_topics
    from .stages import Stage

_HOME = {
    "Anchor": "anchors",
    "load_anchors": "anchors",
    "Placement": "estimator",
    "TopicModel": "estimator",
    "ClusterReport": "pipeline",
    "assign_new": "pipeline",
    "cluster_store": "pipeline",
    "ensure_topics": "pipeline",
    "Stage": "stages",
}
__all__ = [
    "Anchor",
    "ClusterReport",
    "Placement",
    "Stage",
    "TopicModel",
    "assign_new",
    "cluster_store",
    "ensure_topics",
    "load_anchors",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{home}", __name__), name)
