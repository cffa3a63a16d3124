"""The spectral step's graph follows the expected topic size, n / k."""

from __future__ import annotations

from topiclens.clustering.neighbours import (
    SPECTRAL_NEIGHBOURS_MAX,
    SPECTRAL_NEIGHBOURS_MIN,
    SPECTRAL_SHARE,
    spectral_neighbours,
)


def test_the_graph_grows_with_the_expected_topic_size() -> None:
    # 2,000 short titles in 20 classes against 2,000 abstracts in 67 disciplines
    assert spectral_neighbours(2_000, 20) == round(SPECTRAL_SHARE * 100)
    assert spectral_neighbours(2_000, 67) == round(SPECTRAL_SHARE * 2_000 / 67)
    sizes = [spectral_neighbours(3_000, k) for k in (10, 20, 40, 80)]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) > 2


def test_the_graph_stays_within_its_bounds() -> None:
    assert spectral_neighbours(5_000, 5) == SPECTRAL_NEIGHBOURS_MAX
    assert spectral_neighbours(600, 48) == SPECTRAL_NEIGHBOURS_MIN
    assert spectral_neighbours(12, 3) == 11  # never more than the other entries
    assert spectral_neighbours(2, 1) == 1
