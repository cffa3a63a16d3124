"""Concept-aware search: a query read the way the clustering reads entries.

A query is cut into parts: the forms of a concept (``assets/concepts.tsv``, found as the
tokenizer finds them: 投机解码, 推测解码 and speculative decoding are one concept) and plain
words. A query that is the name of a bundled anchor (``assets/anchors.toml``, such as
"Training at scale") is one part, which any of the anchor's terms (in either language)
matches. An entry matches when it holds every word of the query as written (literal
matching, case-insensitive), or when every part matches, a concept by any of its forms.

Matches are ranked, literal matches always before concept matches: the query's words as a
phrase in the title, then every word in the title, then the phrase anywhere, then every
word anywhere; after them the entries that hold the query only as a concept (another
form, a narrower or a broader one), its concepts in the title first. Newest first within
a rank (the store's scan, ``topiclens.store.entries.ranked``, orders them).
:func:`search_split` keeps the two groups apart, so a list can show a divider between
them. No
jieba: a query's concepts are found by the concepts' forms alone, so a search never loads
the dictionary (about a second).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from .anchors import load_anchors
from .tokenize import fold, surface_pattern, vocabulary

if TYPE_CHECKING:
    from topiclens.store.db import Store

RANK_PHRASE_TITLE = 0  # the query's words in the title, in order and together
RANK_TITLE = 1  # every word of the query in the title, as written
RANK_PHRASE = 2  # the words in order and together in the title, summary or comment
RANK_TEXT = 3  # every word in the title, summary or comment, as written
RANK_CONCEPT_TITLE = 4  # every part of the query in the title, a concept by any form
RANK_CONCEPT = 5  # every part in the title, summary or comment

_SPACE = re.compile(r"\s+")
_WORDISH = re.compile(r"[a-z0-9]")
# what may stand between two words of a phrase: "flash attention" is also "FlashAttention"
# and "flash-attention", never words apart
_JOINER = r"[\s\-_./]*"


@dataclass(frozen=True, slots=True)
class Part:
    """One part of a query: what it says there and the lower-cased forms that match it."""

    text: str
    forms: tuple[str, ...]
    concept: str = ""  # the concept's or anchor's label; "" for a plain word


def necessary(forms: Iterable[str]) -> list[str]:
    """Strings of which every text that holds one of ``forms`` holds one, and few of
    them: what the store's SQL looks for before a form's regex is run. A space stands for
    any text, as in the store's prefilter (in a form it matches any white space or none);
    Latin strings that share a start of five or
    more letters go as that start ("speculative", "speculation": "speculat")."""
    keys = {" ".join(form.split()) for form in forms} - {""}
    looks = {k: re.compile(".*".join(map(re.escape, k.split(" "))), re.DOTALL) for k in keys}
    # a string that holds what another looks for adds nothing ("pagedattention" holds
    # "paged attention": paged, then attention)
    keys = {k for k in keys if not any(o != k and looks[o].search(k) for o in keys)}
    latin = sorted(k for k in keys if _WORDISH.match(k) and " " not in k)
    groups: list[list[str]] = []
    for key in latin:
        if groups and len(_common_start([*groups[-1], key])) >= 5:
            groups[-1].append(key)
        else:
            groups.append([key])
    return sorted(keys - set(latin)) + [_common_start(g) for g in groups]


def _common_start(texts: list[str]) -> str:
    first, last = min(texts), max(texts)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """A parsed query: ``words`` as typed (lower-cased) for literal matching, ``parts``
    for concept matching, and the pattern of everything that matched (``highlight``)."""

    text: str
    words: tuple[str, ...]
    parts: tuple[Part, ...]
    _patterns: tuple[re.Pattern[str], ...] = field(default=(), compare=False, repr=False)
    _phrase: re.Pattern[str] | None = field(default=None, compare=False, repr=False)
    highlight: re.Pattern[str] = field(default=re.compile(r"(?!x)x"), compare=False, repr=False)

    def rank(self, title: str, summary: str, comment: str) -> int | None:
        """How well an entry matches, best first: :data:`RANK_PHRASE_TITLE`,
        :data:`RANK_TITLE`, :data:`RANK_PHRASE`, :data:`RANK_TEXT` (literal matches),
        :data:`RANK_CONCEPT_TITLE`, :data:`RANK_CONCEPT`; None when it does not. A form
        never runs from one field into the next (NUL between them)."""
        if not self.words:
            return None
        words, patterns, phrase = self.words, self._patterns, self._phrase
        title = title.lower()
        if all(w in title for w in words):
            return RANK_PHRASE_TITLE if phrase is None or phrase.search(title) else RANK_TITLE
        text = f"{title}\0{summary}\0{comment}".lower()
        if all(w in text for w in words):
            return RANK_PHRASE if phrase is None or phrase.search(text) else RANK_TEXT
        if patterns and all(p.search(title) for p in patterns):
            return RANK_CONCEPT_TITLE
        if patterns and all(p.search(text) for p in patterns):
            return RANK_CONCEPT
        return None

    def prefilter(self) -> list[list[list[str]]]:
        """What the store looks for in SQL before :meth:`rank` reads an entry: every word
        as written, or every part by a string its forms need (:func:`necessary`)."""
        if not self.words:
            return []
        literal = [[w] for w in self.words]
        if not self._patterns:
            return [literal]
        groups = [necessary(p.forms) for p in self.parts]
        # an entry holding every word as written passes the groups too when each group
        # has a string inside one of the words: then one alternative is enough
        if all(any(k in w for k in keys for w in self.words) for keys in groups):
            return [groups]
        return [literal, groups]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where ``text`` holds a word or a concept form of the query: (start, end) pairs,
        in order, not overlapping."""
        return [m.span() for m in self.highlight.finditer(text) if m.end() > m.start()]


@cache
def _concept_forms() -> dict[str, tuple[str, ...]]:
    """Each concept token's forms (folded), from the bundled concepts."""
    forms: dict[str, list[str]] = {}
    for surface, token in vocabulary().surfaces.items():
        forms.setdefault(token, []).append(surface)
    return {token: tuple(f) for token, f in forms.items()}


@cache
def _surfaces() -> re.Pattern[str]:
    return surface_pattern(vocabulary().surfaces)


def _concept_of(surface: str) -> str | None:
    """The concept token a form (folded, spaces folded) names, written with or without
    its spaces ("kv缓存" is "kv 缓存")."""
    surfaces = vocabulary().surfaces
    token = surfaces.get(surface)
    if token is None:
        compact = surface.replace(" ", "")
        token = next((t for s, t in surfaces.items() if s.replace(" ", "") == compact), None)
    return token


def _term_forms(term: str) -> tuple[str, ...]:
    """The forms of an anchor's term: its concept's forms when it names one, else itself."""
    folded = _SPACE.sub(" ", fold(term)).strip()
    token = _concept_of(folded)
    return _concept_forms()[token] if token is not None else (folded,)


@cache
def _anchor_parts() -> dict[str, Part]:
    """The bundled anchors as query parts, by folded name."""
    parts = {}
    for anchor in load_anchors():
        name = _SPACE.sub(" ", fold(anchor.name)).strip()
        forms = tuple(dict.fromkeys(f for t in anchor.terms for f in _term_forms(t)))
        parts[name] = Part(name, forms, anchor.name)
    return parts


def _parts(folded: str) -> list[Part]:
    """The query's concepts (longest form first, as the tokenizer finds them) and the
    plain words between them."""
    vocab = vocabulary()
    whole = _anchor_parts().get(folded)
    if whole is not None and _concept_of(folded) is None:
        return [whole]
    parts: list[Part] = []
    start = 0
    for m in _surfaces().finditer(folded):
        parts += [Part(w, (w,)) for w in folded[start : m.start()].split()]
        surface = _SPACE.sub(" ", m.group()).strip()
        token = _concept_of(surface)
        if token is None:  # pragma: no cover - the pattern holds only known forms
            parts += [Part(w, (w,)) for w in surface.split()]
        else:
            parts.append(Part(surface, _concept_forms()[token], vocab.display(token)))
        start = m.end()
    parts += [Part(w, (w,)) for w in folded[start:].split()]
    return parts


@lru_cache(maxsize=64)
def parse_query(text: str) -> SearchQuery:
    """``text`` as a query (cached: the reader asks again for every row it highlights)."""
    words = tuple(text.lower().split())
    folded = _SPACE.sub(" ", fold(text)).strip()
    parts = tuple(_parts(folded)) if folded else ()
    patterns: tuple[re.Pattern[str], ...] = ()
    if any(p.concept for p in parts):
        # a plain word matches anywhere inside a word, as in literal matching
        patterns = tuple(
            surface_pattern(p.forms) if p.concept else re.compile(re.escape(p.text)) for p in parts
        )
    forms = {f for p in parts if p.concept for f in p.forms}
    shown = surface_pattern(forms).pattern if forms else ""
    plain = "|".join(
        re.escape(w)
        for w in sorted({*words, *(p.text for p in parts if not p.concept)}, key=len, reverse=True)
    )
    highlight = re.compile("|".join(x for x in (shown, plain) if x) or r"(?!x)x", re.IGNORECASE)
    # one word is its own phrase: every literal match of it is a phrase match
    phrase = re.compile(_JOINER.join(map(re.escape, words))) if len(words) > 1 else None
    return SearchQuery(text, words, parts, patterns, phrase, highlight)


def search(store: Store, query: str | SearchQuery, limit: int | None = None) -> list[str]:
    """Ids of the entries matching ``query``, best rank first, newest first within a rank:
    the search of the reader's ``/`` and of ``topiclens entries --search``.
    :class:`topiclens.store.bounds.BoundError` for a query longer than a search may be."""
    from topiclens.store.bounds import check_query

    check_query(query if isinstance(query, str) else query.text)
    q = parse_query(query) if isinstance(query, str) else query
    if not q.words:
        return []
    return store.search_ranked(q.prefilter(), q.rank, limit)


def search_split(store: Store, query: str) -> tuple[list[str], list[str]]:
    """:func:`search`'s entries in two groups, each best first: those that hold the query
    as written (every word, the phrase first), then those that hold it only as a concept
    (a list shows them after a divider)."""
    from topiclens.store.bounds import check_query

    check_query(query)
    q = parse_query(query)
    if not q.words:
        return [], []
    found = store.search_ranks(q.prefilter(), q.rank)
    return (
        [eid for rank, eid in found if rank < RANK_CONCEPT_TITLE],
        [eid for rank, eid in found if rank >= RANK_CONCEPT_TITLE],
    )
