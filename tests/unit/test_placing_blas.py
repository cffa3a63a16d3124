"""New entries are placed with BLAS on one thread, the libraries found once for all of a
refresh's batches, and BLAS has its threads back after each batch."""

from __future__ import annotations

from pathlib import Path

import numpy as np  # noqa: F401  (loads the BLAS library)
import pytest
from threadpoolctl import ThreadpoolController
from topiclens.clustering import pipeline
from topiclens.feeds.refresh import _Placing, one_blas_thread
from topiclens.store import Entry, Store


def _blas_threads() -> set[int]:
    return {
        lib["num_threads"] for lib in ThreadpoolController().info() if lib["user_api"] == "blas"
    }


def test_batches_place_on_one_blas_thread(bundled_home: Path, monkeypatch: pytest.MonkeyPatch):
    seen: list[set[int]] = []

    def placed(store: Store, ids: list[str], *rest: object) -> int:
        seen.append(_blas_threads())
        return 0

    monkeypatch.setattr(pipeline, "assign_new", placed)
    with ThreadpoolController().limit(limits=2, user_api="blas"):  # (more than one to start)
        before = _blas_threads()
        assert before == {2}
        with one_blas_thread(), one_blas_thread(ThreadpoolController()):
            assert _blas_threads() == {1}
        assert _blas_threads() == before
        with Store.open_dir(bundled_home) as store:
            new = [Entry(id=f"blas{i:012d}", title="KV cache", summary="") for i in range(3)]
            store.add_entries(new)
            placing = _Placing(store)
            placing.add([e.id for e in new], {})
            placing.join()
            assert placing._blas is not None  # (found once, by the placing thread)
            placing.finish()  # (the batch still waiting, placed here)
        assert seen == [{1}]
        assert _blas_threads() == before
