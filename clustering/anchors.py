"""Topic anchors: topics readers care about, each with seed terms in both languages.

The file is TOML::

    [[anchor]]
    name = "Speculative decoding"
    terms = ["speculative decoding", "投机解码", "draft model"]

Terms go through the same tokenizer as entries, so they land on the same concepts.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from .tokenize import read_asset

DEFAULT_ANCHORS = "anchors.toml"


class AnchorsError(ValueError):
    """An anchors file that cannot be used; the message names the file."""


@dataclass(frozen=True, slots=True)
class Anchor:
    name: str
    terms: tuple[str, ...]


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
