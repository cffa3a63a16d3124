"""The store's saved model: the last cluster's ``TopicModel`` with its topics' and entries'
ids, as one npz record (:func:`saved_bytes`), read back whole (:func:`saved_model`), for
placing only (:class:`SavedModels`, no scikit-learn), or for its topics' names alone
(:func:`saved_names`)."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from topiclens.store.db import Store

    from .estimator import TopicModel
    from .placing import FittedArrays

SAVED_FORMAT = "topiclens-saved-model-2"  # the model, its topics' ids, its entries' ids
_SEP = "\x1f"


class Saved(NamedTuple):
    model: TopicModel | FittedArrays  # (FittedArrays: read only to place new entries)
    topic_ids: list[int]  # the store's id of each of the model's topics
    entry_ids: list[str]  # the store's id of each entry the model was fitted on
    # the indices into entry_ids of the entries whose vectors the model keeps, in order
    # (None: every one; a fit on a sample keeps the sample's, :mod:`.scale`)
    rows: list[int] | None = None

    def embedded_id(self, j: int) -> str:
        """The id of the entry of the model's ``j``-th kept vector."""
        return self.entry_ids[j if self.rows is None else self.rows[j]]


def saved_bytes(
    model: TopicModel, topic_ids: list[int], entry_ids: list[str], rows: Any = None
) -> bytes:
    import numpy as np

    buf = io.BytesIO()
    extra = {} if rows is None else {"rows": np.asarray(rows, dtype=np.int64)}
    np.savez(
        buf,
        format=np.frombuffer(SAVED_FORMAT.encode(), dtype=np.uint8),
        model=np.frombuffer(model.to_bytes(), dtype=np.uint8),
        topic_ids=np.asarray(topic_ids, dtype=np.int64),
        entry_ids=np.frombuffer(_SEP.join(entry_ids).encode("ascii"), dtype=np.uint8),
        **extra,
    )
    return buf.getvalue()


def saved_model(store: Store) -> Saved | None:
    """The store's saved model, or None when there is none or it cannot be read (saved by
    another version: a re-cluster makes a new one)."""
    saved = store.topic_model()
    return None if saved is None else read_saved(saved[1])  # (tokenizer version, bytes)


def read_saved(blob: bytes, *, placing_only: bool = False) -> Saved | None:
    import numpy as np

    try:
        z = np.load(io.BytesIO(blob), allow_pickle=False)
        if bytes(z["format"]).decode("ascii") != SAVED_FORMAT:
            return None
        model: TopicModel | FittedArrays
        if placing_only:
            from .placing import FittedArrays
            from .saving import load

            model = load(FittedArrays, bytes(z["model"]), None)
        else:
            from .estimator import TopicModel

            model = TopicModel.from_bytes(bytes(z["model"]))
        entries = bytes(z["entry_ids"]).decode("ascii")
        rows = z["rows"].tolist() if "rows" in z.files else None
        return Saved(model, z["topic_ids"].tolist(), entries.split(_SEP) if entries else [], rows)
    except Exception:  # numpy raises several kinds for bytes that are not its npz
        return None


def saved_names(store: Store) -> dict[int, tuple[str, bool]]:
    """Topic id -> the name and mixed mark the last re-cluster gave it, read from the
    saved model's record alone (no model is built); empty when there is none."""
    import numpy as np

    saved = store.topic_model()
    if saved is None:
        return {}
    try:
        z = np.load(io.BytesIO(saved[1]), allow_pickle=False)
        if bytes(z["format"]).decode("ascii") != SAVED_FORMAT:
            return {}
        inner = np.load(io.BytesIO(bytes(z["model"])), allow_pickle=False)
        record = json.loads(bytes(inner["record"]).decode("utf-8"))
        rows = zip(z["topic_ids"].tolist(), record["names"], record["mixed"], strict=True)
        return {int(tid): (str(name), bool(mixed)) for tid, name, mixed in rows}
    except Exception:  # numpy raises several kinds for bytes that are not its npz
        return {}


class SavedModels:
    """:func:`saved_model` for one who places batch after batch (a refresh's new entries,
    a few hundred at a time, where reading the model again for each batch cost as much
    as placing it): read again only when the store's saved bytes changed. Placing only
    reads the model; it is kept as long as this is."""

    def __init__(self) -> None:
        self._last: tuple[bytes, Saved] | None = None

    def __call__(self, store: Store) -> Saved | None:
        record = store.topic_model()
        if record is None:
            return None
        if self._last is not None and self._last[0] == record[1]:
            return self._last[1]
        saved = read_saved(record[1], placing_only=True)
        self._last = None if saved is None else (record[1], saved)
        return saved
