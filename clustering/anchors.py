"""Topic anchors: topics readers care about, each with seed terms in both languages.

The file is TOML::

    [[anchor]]
    name = "Speculative decoding"
    terms = ["speculative decoding", "投机解码", "draft model"]

Terms go through the same tokenizer as entries, so they land on the same concepts. An
anchor seeds one centroid from the entries its terms weigh most in
(:func:`anchor_groups`) and names the cluster it wins.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from .tokenize import read_asset

DEFAULT_ANCHORS = "anchors.toml"
ANCHOR_MIN_SCORE = 0.12  # an entry seeds an anchor when its terms weigh this much


class AnchorsError(ValueError):
    """An anchors file that cannot be used; the message names the file."""


@dataclass(frozen=True, slots=True)
class Anchor:
    name: str
    terms: tuple[str, ...]
    # each term's tokens when already known (the pipeline caches them, so that a
    # re-cluster from cached tokens never loads jieba's dictionary); else tokenized
    tokens: tuple[tuple[str, ...], ...] | None = None

    def term_tokens(self, tokenizer: Callable[[str], list[str]]) -> set[str]:
        """Every token of the anchor's terms."""
        if self.tokens is not None:
            return {t for toks in self.tokens for t in toks}
        return {t for term in self.terms for t in tokenizer(term)}


def parse_anchors(text: str, where: str) -> list[Anchor]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise AnchorsError(f"{where}: not valid TOML ({exc})") from exc
    items = data.get("anchor", [])
    if not isinstance(items, list):
        raise AnchorsError(f"{where}: expected [[anchor]] tables")
    out: list[Anchor] = []
    seen: set[str] = set()
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise AnchorsError(f"{where}: anchor {i} is not a table")
        name, terms = item.get("name"), item.get("terms")
        if not isinstance(name, str) or not name.strip():
            raise AnchorsError(f"{where}: anchor {i} needs a non-empty 'name'")
        if (
            not isinstance(terms, list)
            or not terms
            or not all(isinstance(t, str) and t.strip() for t in terms)
        ):
            raise AnchorsError(f"{where}: anchor {name!r} needs a list of 'terms' (strings)")
        if name.strip() in seen:
            raise AnchorsError(f"{where}: anchor {name!r} is listed twice")
        seen.add(name.strip())
        out.append(Anchor(name.strip(), tuple(t.strip() for t in terms)))
    return out


def load_anchors(path: Path | None = None) -> list[Anchor]:
    """The anchors in ``path``, or the bundled ones."""
    if path is None:
        return parse_anchors(read_asset(DEFAULT_ANCHORS), f"bundled:{DEFAULT_ANCHORS}")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AnchorsError(f"{path}: cannot read the anchors file ({exc})") from exc
    return parse_anchors(text, str(path))


class AnchorGroup(NamedTuple):
    anchor: Anchor
    members: Any  # row indices of the entries the anchor seeds


def anchor_groups(
    tfidf: Any,
    vocab: Sequence[str],
    anchors: Sequence[Anchor],
    tokenizer: Callable[[str], list[str]],
) -> list[AnchorGroup]:
    """For each anchor whose terms the corpus uses: the entries it seeds (row indices of
    ``tfidf``, whose columns are the tokens ``vocab``). An entry seeds the anchor whose
    terms weigh most in it, if they weigh ANCHOR_MIN_SCORE; an anchor needs two entries
    (half a percent of them on large corpora)."""
    import numpy as np
    import scipy.sparse as sp

    if not anchors:
        return []
    index = {t: j for j, t in enumerate(vocab)}
    cols: list[int] = []
    rows: list[int] = []
    for a, anchor in enumerate(anchors):
        for t in anchor.term_tokens(tokenizer):
            j = index.get(t)
            if j is not None:
                rows.append(j)
                cols.append(a)
    if not rows:
        return []
    m = sp.csr_matrix(
        (np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(vocab), len(anchors))
    )
    score = np.asarray((tfidf @ m).todense())
    best = score.argmax(axis=1)
    top = score[np.arange(len(best)), best]
    out = []
    min_docs = max(2, int(0.005 * score.shape[0]))
    for a, anchor in enumerate(anchors):
        members = np.flatnonzero((best == a) & (top >= ANCHOR_MIN_SCORE))
        if len(members) >= min_docs:
            out.append(AnchorGroup(anchor, members))
    return out
