"""A fitted TopicModel as bytes and back (numpy's npz: arrays, and one JSON record for
the parameters, names and keywords). The format has a version; a version this code does
not read is a clear error, never a guess."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any, TypeVar

from .anchors import Anchor
from .membership import ALSO_MIN_CENTRALITY

if TYPE_CHECKING:
    from .estimator import TopicModel
    from .tokenize import Tokenizer

_Model = TypeVar("_Model")

FORMAT = "topiclens-topic-model"
VERSION = 3  # 1: before TopicModel (no parameters, no names); 2: no cohesion, no also terms
_SEP = "\x1f"  # between tokens (never inside one: control characters are dropped)


def dump(model: TopicModel) -> bytes:
    import numpy as np

    params = model.get_params()
    params.pop("tokenizer")
    params["anchors"] = [{"name": a.name, "terms": list(a.terms)} for a in model.anchors]
    record = {
        "params": params,
        "n_topics": model.n_topics_,
        "inertia": model.inertia_,
        "bigrams": model.bigrams_,
        "names": model.topic_names_,
        "keywords": model.keywords_,
        "anchors": model.topic_anchors_,
        "pinned": model.topic_pinned_,
        "weights": [list(w.items()) for w in model.term_weights_],
        "cohesion": model.cohesion_,
        "mixed": model.mixed_,
        "topic_terms": model.topic_terms_,
        "also_bars": model.also_bars_,
        "silhouette": model.silhouette_,
        "spectral": model.spectral_,
    }
    empty = np.zeros((0, 0), dtype=np.float32)
    buf = io.BytesIO()
    np.savez(
        buf,
        format=_text(f"{FORMAT}-{VERSION}"),
        record=_text(json.dumps(record, ensure_ascii=False)),
        vocab=_text(_SEP.join(model.vocabulary_)),
        idf=np.asarray(model.idf_, dtype=np.float32),
        components=empty if model.components_ is None else model.components_,
        centers=np.asarray(model.cluster_centers_, dtype=np.float32),
        embedding=empty.astype(np.float16) if model.embedding_ is None else model.embedding_,
        labels=np.asarray(model.labels_, dtype=np.int32),
    )
    return buf.getvalue()


def load(cls: type[_Model], blob: bytes, tokenizer: Tokenizer | None) -> _Model:
    """A model of ``cls`` (``TopicModel``, or :class:`.placing.FittedArrays` to place with
    it alone) made with the saved parameters and given the saved fitted attributes."""
    import numpy as np

    try:
        z = np.load(io.BytesIO(blob), allow_pickle=False)
        name, _, version = bytes(z["format"]).decode("ascii").rpartition("-")
    except Exception as exc:  # numpy raises several kinds for bytes that are not an npz
        raise ValueError("not a saved topic model") from exc
    if name != FORMAT or not version.isdigit():
        raise ValueError("not a saved topic model")
    if int(version) != VERSION:
        raise ValueError(
            f"a topic model saved in format {version}; this version of topiclens reads "
            f"format {VERSION}: cluster again to make a new one"
        )
    try:
        record = json.loads(bytes(z["record"]).decode("utf-8"))
        params = dict(record["params"])
        params["anchors"] = tuple(Anchor(a["name"], tuple(a["terms"])) for a in params["anchors"])
        model = cls(**params, tokenizer=tokenizer)
        vocab = bytes(z["vocab"]).decode("utf-8")
        model.vocabulary_ = {t: j for j, t in enumerate(vocab.split(_SEP) if vocab else [])}
        model.idf_ = z["idf"]
        components = z["components"]
        model.components_ = components if components.size else None
        model.cluster_centers_ = z["centers"]
        model.embedding_ = z["embedding"] if model.components_ is not None else None
        model.labels_ = z["labels"].astype(np.int64)
        model.n_topics_ = int(record["n_topics"])
        model.inertia_ = float(record["inertia"])
        model.bigrams_ = bool(record["bigrams"])
        model.topic_names_ = list(record["names"])
        model.keywords_ = [[(w, float(v)) for w, v in kws] for kws in record["keywords"]]
        model.topic_anchors_ = list(record["anchors"])
        model.topic_pinned_ = list(record["pinned"])
        model.term_weights_ = [{t: float(v) for t, v in kws} for kws in record["weights"]]
        model.cohesion_ = [float(v) for v in record["cohesion"]]
        model.mixed_ = [bool(v) for v in record["mixed"]]
        model.topic_terms_ = [list(ts) for ts in record["topic_terms"]]
        # a model saved before the bars: every topic at the one threshold it used then
        bars = record.get("also_bars") or [ALSO_MIN_CENTRALITY] * len(model.topic_terms_)
        model.also_bars_ = [float(v) for v in bars]
        model.silhouette_ = record["silhouette"]
        model.spectral_ = bool(record["spectral"])
        model.stage_seconds_ = {}
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"a damaged topic model ({exc})") from exc
    return model


def _text(text: str) -> Any:
    import numpy as np

    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
