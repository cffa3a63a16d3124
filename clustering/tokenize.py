"""Bilingual tokenizing: jieba for Chinese, whole lower-cased identifiers for English.

What comes out is what clusters: subject words only. In order, the text is NFKC-normalised
and lower-cased; the digest's boilerplate phrasing is cut (``assets/boilerplate.txt``);
bilingual concepts are found (``assets/concepts.tsv``: 投机解码 = 推测解码 = speculative
decoding all become one token, and a narrower concept such as NVLink also yields its
broader one, interconnect); what is left is split into English identifiers
(``deepseek-v4-flash``, ``w4a16``) and Chinese runs cut by jieba with a domain user
dictionary (``assets/userdict.txt``), long words also giving the dictionary words inside
them; numbers, punctuation, single characters and stop
words (``assets/stopwords.txt``) are dropped.

jieba is imported when a :class:`Tokenizer` is first used, never at module import time.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from itertools import chain
from typing import Any, TypeVar

from topiclens.text import HAN

# Bump when the code below, or the entry text it is given (store.text.entry_text), changes
# what tokens come out; assets are hashed in as well.
CODE_VERSION = "3"
ASSET_FILES = (
    "concepts.tsv",
    "stopwords.txt",
    "boilerplate.txt",
    "userdict.txt",
    "curator_words.txt",
)
USE_HMM = False  # jieba's HMM guesses new words: slower, and measured no better here

# the pieces of a text between concept forms: a run of Chinese characters, or an English
# identifier (which starts with a-z); written as one class of first characters, then what
# follows each kind, so that the regex engine skips to a first character instead of trying
# the pattern at every position (the same matches as
# "[{HAN}]+|(?<![a-z0-9])[a-z][a-z0-9]*(?:[-_.+][a-z0-9]+)*", tests/unit/test_tokenize_same.py)
_PIECE_TEXTS = re.compile(
    rf"[{HAN}a-z](?:(?<=[a-z])(?<![a-z0-9][a-z])[a-z0-9]*(?:[-_.+][a-z0-9]+)*|(?<=[{HAN}])[{HAN}]*)"
)
# the same pieces of ASCII text, which holds no Chinese: a class of a-z alone is tested
# faster at each character than one with the Chinese ranges
_ASCII_PIECE_TEXTS = re.compile(r"[a-z](?<![a-z0-9][a-z])[a-z0-9]*(?:[-_.+][a-z0-9]+)*")
# every byte but those an identifier is made of made a space: ASCII text's runs of them,
# which hold its pieces whole
_RUN_BYTES = bytes(
    c if chr(c) in "abcdefghijklmnopqrstuvwxyz0123456789-_.+" else 0x20 for c in range(256)
)
# the characters of the texts a memo of Tokenizer holds (a bound on its memory: about 20 MB
# for the bigrams' memo), forgotten all at once when reached
MEMO_CHARS = 200_000
_Key = TypeVar("_Key", str, bytes)  # what a memo is keyed by: texts, or ASCII text's bytes
_SPACE = re.compile(r"\s+")
# (one character, then the rest: a pattern that opens with a class lets the regex engine
# skip to a Chinese character, where "{2,}" tries every position; the same matches)
_HAN_RUN = re.compile(rf"[{HAN}][{HAN}]+")
# every character whose fold holds a Chinese character (a test checks every code point): a
# text with none of them has no Chinese run once folded, and is not folded for bigrams
_MAY_FOLD_TO_HAN = re.compile(
    rf"[{HAN}\u2e80-\u2fdf\u3000-\u33ff\U0001f200-\U0001f2ff\U0002f800-\U0002fa1f]"
)
# characters inside our Chinese runs that jieba does not count as Chinese (it splits there)
_JIEBA_OTHER = re.compile(r"([^\u4e00-\u9fd5]+)")
# Tokenizer.segment's marks: a dictionary entry that is only a prefix of longer words, and
# no route found yet (below every real score, so the first route found is taken)
_PREFIX_ONLY = math.inf
_NO_ROUTE = -math.inf
BIGRAM_MARK = "\x02"  # starts a feature-only character bigram; no word token holds it


def read_asset(name: str) -> str:
    return resources.files("topiclens.assets").joinpath(name).read_text(encoding="utf-8")


def _lines(text: str) -> Iterator[str]:
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            yield line


# NFKC maps each full-width form of an ASCII character (U+FF01..U+FF5E: ，：（）；) to that
# character. Replaced beforehand, they leave most Chinese text already in NFKC, which
# normalize then returns after a quick check instead of composing it character by
# character (4x to 60x faster); the result is the same, as NFKC of a text is NFKC of it
# with any character replaced by that character's own NFKC.
_FULL_WIDTH_ASCII = re.compile("[\uff01-\uff5e]")


def fold(text: str) -> str:
    """The form tokens are made from: NFKC, lower-cased."""
    if not unicodedata.is_normalized("NFKC", text):
        for ch in set(_FULL_WIDTH_ASCII.findall(text)):
            text = text.replace(ch, chr(ord(ch) - 0xFEE0))
    return unicodedata.normalize("NFKC", text).lower()


class _Memo(dict[_Key, list[str]]):
    """A text -> its tokens, made by ``make`` when first asked for (a dict subclass's
    ``__missing__``, so that a hit costs no Python call), all forgotten when the texts
    held reach ``limit`` characters. The lists it gives are shared: never changed."""

    __slots__ = ("chars", "limit", "make")

    def __init__(self, make: Callable[[_Key], list[str]], limit: int = MEMO_CHARS) -> None:
        super().__init__()
        self.make = make
        self.limit = limit
        self.chars = 0

    def __missing__(self, key: _Key) -> list[str]:
        value = self.make(key)
        self.chars += len(key)
        if self.chars > self.limit:
            self.clear()
            self.chars = len(key)
        self[key] = value
        return value


@dataclass(frozen=True, slots=True)
class Concept:
    token: str  # lower-cased label: what the vectoriser sees
    label: str  # the label as written: what a reader sees
    broader: tuple[str, ...] = ()


@dataclass(slots=True)
class Vocabulary:
    """The assets, parsed: concepts by surface form, stop words, boilerplate patterns."""

    concepts: dict[str, Concept] = field(default_factory=dict)  # by token
    surfaces: dict[str, str] = field(default_factory=dict)  # folded surface -> token
    stopwords: frozenset[str] = frozenset()
    curator: frozenset[str] = frozenset()  # verdicts dropped whole, pieces and all
    boilerplate: re.Pattern[str] | None = None
    # a character every boilerplate match starts with, found in one pass (None: any)
    boilerplate_starts: re.Pattern[str] | None = None
    version: str = ""

    def display(self, token: str) -> str:
        concept = self.concepts.get(token)
        return concept.label if concept else token

    def expand(self, token: str) -> list[str]:
        """A concept token and every broader concept it implies, in order, once each."""
        out = [token]
        i = 0
        while i < len(out):
            concept = self.concepts.get(out[i])
            if concept:
                out.extend(b for b in concept.broader if b not in out)
            i += 1
        return out


def parse_concepts(text: str, where: str = "concepts.tsv") -> tuple[dict[str, Concept], dict]:
    concepts: dict[str, Concept] = {}
    surfaces: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) < 2 or not cols[0].strip():
            raise ValueError(f"{where}:{number}: expected 'label<TAB>forms[<TAB>broader]'")
        label = cols[0].strip()
        token = fold(label)
        broader = (
            tuple(fold(b.strip()) for b in cols[2].split("|") if b.strip())
            if (len(cols) > 2)
            else ()
        )
        concepts[token] = Concept(token, label, broader)
        for form in [label, *cols[1].split("|")]:
            folded = _SPACE.sub(" ", fold(form.strip()))
            if folded:
                surfaces.setdefault(folded, token)
    for concept in concepts.values():
        for b in concept.broader:
            if b not in concepts:
                raise ValueError(f"{where}: {concept.label!r} names unknown broader {b!r}")
    return concepts, surfaces


def _is_latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def surface_branches(surfaces: Iterable[str]) -> dict[str, str]:
    """The regex of the forms starting with each first character, built as a trie so that
    it runs in one pass and prefers the longest form. A space in a form matches any
    whitespace or none; Latin forms match whole words only."""
    trie: dict[str, Any] = {}
    for s in surfaces:
        node = trie
        for ch in s:
            node = node.setdefault(ch, {})
        node[""] = True

    def build(node: dict[str, Any], last: str) -> str:
        alts = []
        for ch in sorted(k for k in node if k):
            piece = r"\s*" if ch == " " else re.escape(ch)
            alts.append(piece + build(node[ch], ch))
        if "" in node:
            alts.append("(?![a-z0-9])" if _is_latin(last) else "")
        if len(alts) == 1:
            return alts[0]
        return "(?:" + "|".join(alts) + ")"

    # Every branch starts with its literal first character, and a Latin form's word
    # guard is a look-behind over that character, so that the regex engine can skip
    # ahead to a possible first character (measured: 7x faster than the guard first)
    branches = {}
    for ch in sorted(trie):
        guard = f"(?<![a-z0-9]{re.escape(ch)})" if _is_latin(ch) else ""
        branches[ch] = re.escape(ch) + guard + build(trie[ch], ch)
    return branches


def surface_pattern(surfaces: Iterable[str]) -> re.Pattern[str]:
    """One regex for every surface form (:func:`surface_branches`, one after another)."""
    top = surface_branches(surfaces).values()
    return re.compile("|".join(top) if top else r"(?!x)x")


def surface_matchers(surfaces: Iterable[str]) -> dict[str, Callable[..., re.Match[str] | None]]:
    """:func:`surface_pattern`'s ``match`` for a text at a position holding each first
    character: the same match, as only the branch of that character can match there."""
    return {ch: re.compile(branch).match for ch, branch in surface_branches(surfaces).items()}


# every byte but a-z and 0-9 made a space: a text's words as the Latin forms' guards see them
_WORD_BYTES = bytes(
    c if chr(c) in "abcdefghijklmnopqrstuvwxyz0123456789" else 0x20 for c in range(256)
)


def _is_word_char(ch: str) -> bool:
    return "a" <= ch <= "z" or "0" <= ch <= "9"


def latin_heads(surfaces: Iterable[str]) -> frozenset[bytes]:
    """The words (whole runs of a-z and 0-9) at which a form that starts with one of those
    can match: its letters and digits up to its first other character, and up to each of
    its spaces before that (a space matches white space or none, so "kv cache" matches at
    the word "kv" of "kv cache" and at the word "kvcache"). Such a form matches only at a
    word's start (its guard), and only where that word is one of these."""
    heads: set[str] = set()
    for form in surfaces:
        if not form or not _is_word_char(form[0]):
            continue
        head = ""
        for ch in form:
            if ch == " ":
                heads.add(head)
            elif _is_word_char(ch):
                head += ch
            else:
                break
        heads.add(head)
    return frozenset(h.encode("ascii") for h in heads)


def other_starts(surfaces: Iterable[str]) -> re.Pattern[str] | None:
    """The first characters of the forms that do not start with a-z or 0-9, as one class
    (None when there are none)."""
    firsts = sorted({s[0] for s in surfaces if s and not _is_word_char(s[0])})
    return re.compile(f"[{''.join(re.escape(ch) for ch in firsts)}]") if firsts else None


def boilerplate_starts(patterns: list[str]) -> re.Pattern[str] | None:
    """The characters a match of :func:`boilerplate_pattern` can start with, as one class
    (None when :func:`first_chars` cannot tell for every pattern)."""
    firsts: set[str] = set()
    for p in patterns:
        chars = first_chars(p)
        if chars is None:
            return None
        firsts |= chars
    return re.compile(f"[{''.join(re.escape(c) for c in sorted(firsts))}]") if firsts else None


def boilerplate_pattern(patterns: list[str]) -> re.Pattern[str]:
    """One regex for every boilerplate pattern. It starts with a look-ahead for the
    characters a match can start with, when :func:`first_chars` finds them: the regex
    engine then skips to those (measured: 3x faster on Chinese text), and matches the same."""
    whole = "|".join(f"(?:{p})" for p in patterns)
    firsts: set[str] = set()
    for p in patterns:
        chars = first_chars(p)
        if chars is None:
            return re.compile(whole)
        firsts |= chars
    return re.compile(f"(?=[{''.join(re.escape(c) for c in sorted(firsts))}])(?:{whole})")


def first_chars(pattern: str) -> set[str] | None:
    """Every character a match of ``pattern`` can start with; None when that can be any,
    when the pattern can match nothing at all (the empty string), or when it uses what
    this does not follow (case folding, classes such as \\w, back references)."""
    from re import _constants as c
    from re import _parser

    def firsts(items: Any) -> tuple[set[int], bool] | None:
        """(the first characters of ``items``' matches, whether they can match empty)"""
        out: set[int] = set()
        for op, av in items:
            if op is c.LITERAL:
                return out | {av}, False
            if op is c.IN:
                for kind, value in av:
                    if kind is c.LITERAL:
                        out.add(value)
                    elif kind is c.RANGE and value[1] - value[0] < 10_000:
                        out.update(range(value[0], value[1] + 1))
                    else:  # a negated set, a category
                        return None
                return out, False
            if op in (c.AT, c.ASSERT, c.ASSERT_NOT):  # zero width: what follows decides
                continue
            if op is c.SUBPATTERN and not av[1] & c.SRE_FLAG_IGNORECASE:
                inner = [firsts(av[3])]
            elif op is c.ATOMIC_GROUP:
                inner = [firsts(av)]
            elif op is c.BRANCH:
                inner = [firsts(alt) for alt in av[1]]
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
                inner = [firsts(av[2])]
                if av[0] == 0:
                    inner.append((set(), True))
            else:
                return None
            if any(r is None for r in inner):
                return None
            for chars, _ in inner:  # (None ruled out above)
                out |= chars
            if not any(empty for _, empty in inner):
                return out, False
        return out, True

    try:
        parsed = _parser.parse(pattern)
        found = None if parsed.state.flags & c.SRE_FLAG_IGNORECASE else firsts(parsed)
    except Exception:  # a private module: should it change, the pattern runs unfiltered
        return None
    if found is None or found[1]:
        return None
    return {chr(ch) for ch in found[0]}


@cache
def vocabulary() -> Vocabulary:
    """The bundled assets, parsed once per process."""
    texts = {name: read_asset(name) for name in ASSET_FILES}
    concepts, surfaces = parse_concepts(texts["concepts.tsv"])
    stop = frozenset(fold(w) for w in _lines(texts["stopwords.txt"]))
    patterns = list(_lines(texts["boilerplate.txt"]))
    digest = hashlib.sha256(CODE_VERSION.encode() + str(USE_HMM).encode())
    for name in ASSET_FILES:
        digest.update(texts[name].encode("utf-8"))
    return Vocabulary(
        concepts=concepts,
        surfaces=surfaces,
        stopwords=stop,
        curator=frozenset(fold(w) for w in _lines(texts["curator_words.txt"])),
        boilerplate=boilerplate_pattern(patterns) if patterns else None,
        boilerplate_starts=boilerplate_starts(patterns) if patterns else None,
        version=digest.hexdigest()[:16],
    )


def tokenizer_version() -> str:
    return vocabulary().version


class Tokenizer:
    """Turns an entry's text into subject tokens. Build one per process (jieba's
    dictionary loads once, about a second) and call it for every text: it remembers what
    each Chinese run, English identifier and concept form gives (bounded memos), so text
    that repeats itself is cut once; what a text gives never depends on what came before."""

    def __init__(self, vocab: Vocabulary | None = None) -> None:
        self.vocab = vocab or vocabulary()
        self._surface_at = surface_matchers(self.vocab.surfaces)
        self._head_needles = {h: b" " + h + b" " for h in latin_heads(self.vocab.surfaces)}
        self._other_start = other_starts(self.vocab.surfaces)
        # (whether no form starts with an ASCII character but a-z and 0-9: then ASCII text
        # needs no search for the others)
        self._others_not_ascii = all(
            not s[0].isascii() or _is_word_char(s[0]) for s in self.vocab.surfaces if s
        )
        # (whether a boilerplate match can start with an ASCII character: when none can, as
        # with the bundled phrasing, all Chinese, ASCII text is not even scanned for one)
        starts = self.vocab.boilerplate_starts
        self._ascii_boilerplate = starts is None or any(starts.match(chr(c)) for c in range(128))
        self._compact = {f.replace(" ", ""): t for f, t in reversed(self.vocab.surfaces.items())}
        self._jieba: Any = None
        # a word -> log(frequency / total), as jieba's; a prefix of words only -> _PREFIX_ONLY
        self._logp: dict[str, float] = {}
        self._han: dict[str, list[str]] = {}  # a word jieba cut -> its tokens
        # a piece (an English identifier or a Chinese run) -> its tokens; text repeats
        # itself (a digest's phrasing, quoted sentences): a run is cut once, not each time
        self._pieces = _Memo(self._piece)
        self._runs = _Memo(self._run)  # a run of ASCII identifier characters -> its tokens
        self._forms = _Memo(self._form)  # a concept form as found in the text -> its tokens
        self._bigram_runs = _Memo(_bigrams_of_run)  # a Chinese run -> its bigrams
        self._expanded: dict[str, list[str]] = {}  # a concept token -> Vocabulary.expand

    @property
    def version(self) -> str:
        return self.vocab.version

    def jieba(self) -> Any:
        """jieba's tokenizer with its dictionary and ours, loaded on first use."""
        if self._jieba is None:
            from .dictionary import load_jieba

            self._jieba = load_jieba()
        return self._jieba

    def _words(self, segment: str, out: list[str]) -> None:
        if segment.isascii():
            # (its runs of identifier characters split apart in C, each run's tokens from a
            # memo: a piece never spans two runs, nor does what comes before a run change
            # its pieces, as a character outside them comes before it)
            runs = segment.encode("ascii").translate(_RUN_BYTES).split()
            out.extend(chain.from_iterable(map(self._runs.__getitem__, runs)))
            return
        # every piece's tokens from the memo, looked up and joined in C
        tokens = self._pieces.__getitem__
        out.extend(chain.from_iterable(map(tokens, _PIECE_TEXTS.findall(segment))))

    def _run(self, run: bytes) -> list[str]:
        """The tokens of a run of identifier characters of ASCII text: its pieces'."""
        pieces = _ASCII_PIECE_TEXTS.findall(run.decode("ascii"))
        return list(chain.from_iterable(map(self._pieces.__getitem__, pieces)))

    def _piece(self, piece: str) -> list[str]:
        """An English identifier's token, or a Chinese run's: jieba's words with the
        dictionary words inside them (a single character gives none)."""
        if "a" <= piece[0] <= "z":
            return self._latin_word(piece)
        tokens: list[str] = []
        if len(piece) > 1:
            for cut in self.segment(piece):
                tokens.extend(self._han_word(cut))
        return tokens

    def _form(self, found: str) -> list[str]:
        """A concept's tokens from its form as found in the text."""
        surface = _SPACE.sub(" ", found).strip()
        # "kv缓存" is the form "kv 缓存" written without its space
        token = self.vocab.surfaces.get(surface) or self._compact.get(surface.replace(" ", ""))
        return [] if token is None else self._expand(token)

    def _han_word(self, word: str) -> list[str]:
        """A word jieba cut: its tokens, then the dictionary words inside it, as jieba's
        search mode does: 分布式训练 also says 分布式 and 训练 (measured on CSL: +0.02 NMI)."""
        memo = self._han
        tokens = memo.get(word)
        if tokens is not None:
            return tokens
        stop = self.vocab.stopwords
        freq = self.jieba().FREQ
        tokens = []
        if word in self.vocab.curator:
            memo[word] = tokens
            return tokens
        if len(word) > 1 and word not in stop:
            self._emit(word, tokens)
        for n in (2, 3):
            for i in range(len(word) - n + 1 if len(word) > n else 0):
                part = word[i : i + n]
                if freq.get(part) and part not in stop:
                    self._emit(part, tokens)
        memo[word] = tokens
        return tokens

    def _latin_word(self, word: str) -> list[str]:
        if len(word) < 2 or word in self.vocab.stopwords or word in self.vocab.curator:
            return []
        if (
            len(word) >= 5
            and word.isalpha()
            and word.endswith("s")
            and not word.endswith(("ss", "us", "is"))
        ):
            word = word[:-1]
        return [word]

    def segment(self, run: str) -> list[str]:
        """``jieba.Tokenizer.cut(run, HMM=False)`` for a run of Chinese characters, word
        for word the same (a test compares them), about twice as fast: the same
        dictionary and the same maximum-probability route through the same word graph,
        with each word's log-probability computed once per process instead of once per
        occurrence, and no per-call regex split, generator or graph dict. Characters
        jieba does not count as Chinese split the run and come out one by one, as in
        jieba (docs/clustering.md, "Tokens")."""
        if _JIEBA_OTHER.search(run):
            words: list[str] = []
            for part in _JIEBA_OTHER.split(run):  # the pattern's group keeps the others
                if part:
                    words.extend(part if _JIEBA_OTHER.match(part) else self.segment(part))
            return words
        cutter = self.jieba()
        freq = cutter.FREQ
        logp = self._logp
        logtotal = math.log(cutter.total)
        n = len(run)
        score = [0.0] * (n + 1)
        end = [0] * (n + 1)
        for start in range(n - 1, -1, -1):
            best = _NO_ROUTE
            best_end = start + 1
            stop = start + 1
            frag = run[start]
            while True:
                lp = logp.get(frag)
                if lp is None:  # first met in this process: a word, a prefix, or neither
                    count = freq.get(frag)
                    if count is None:
                        break
                    lp = logp[frag] = math.log(count) - logtotal if count else _PREFIX_ONLY
                if lp != _PREFIX_ONLY:
                    s = lp + score[stop]
                    if s >= best:  # a tie goes to the longer word
                        best = s
                        best_end = stop
                if stop >= n:
                    break
                stop += 1
                frag = run[start:stop]
            score[start] = best if best != _NO_ROUTE else -logtotal + score[start + 1]
            end[start] = best_end
        words = []
        x = 0
        while x < n:
            y = end[x]
            words.append(run[x:y])
            x = y
        return words

    def _emit(self, word: str, out: list[str]) -> None:
        token = self.vocab.surfaces.get(word)
        if token is None:
            out.append(word)
        else:
            out.extend(self._expand(token))

    def _expand(self, token: str) -> list[str]:
        """:meth:`Vocabulary.expand`, once per concept per process."""
        tokens = self._expanded.get(token)
        if tokens is None:
            tokens = self._expanded[token] = self.vocab.expand(token)
        return tokens

    def bigrams(self, text: str) -> list[str]:
        """Feature-only tokens: every pair of adjacent Chinese characters of the text
        (boilerplate cut first), each prefixed with :data:`BIGRAM_MARK`. They let
        clustering see words jieba cut differently (measured on CSL: +0.01 to +0.02 NMI)
        but are never shown: topic names and "why it is here" use word tokens only.
        Cheap (no jieba) and not cached."""
        if not _MAY_FOLD_TO_HAN.search(text):  # most English texts: no folding needed
            return []
        folded = fold(text)
        if not _HAN_RUN.search(folded):  # most English texts: no bigram, no boilerplate pass
            return []
        return self._bigrams_in(self._cut_boilerplate(folded))

    def _bigrams_in(self, folded: str) -> list[str]:
        """:meth:`bigrams` of text folded and cut already, each run's from the memo."""
        bigrams = self._bigram_runs.__getitem__
        return list(chain.from_iterable(map(bigrams, _HAN_RUN.findall(folded))))

    def tokens_and_bigrams(self, text: str) -> tuple[list[str], list[str]]:
        """``self(text)`` and ``self.bigrams(text)``, the text folded once for both."""
        folded = self._cleaned(text)
        # (ASCII text holds no Chinese character: no bigram, and no search for one)
        return self._tokens(folded), [] if folded.isascii() else self._bigrams_in(folded)

    def concept_spans(self, folded: str) -> Iterator[tuple[int, int]]:
        """Where the concepts' forms are in ``folded`` text: the spans of
        ``surface_pattern(...).finditer(folded)``, the same ones (a test compares them),
        found several times faster: the pattern is tried only where a form can start, a
        Latin form only at a word :func:`latin_heads` names (a text's words are found in C,
        not one by one), and there only the branch of the character found
        (:func:`surface_matchers`), not each branch in turn."""
        match_at = self._surface_at
        starts = self._head_starts(folded)
        if self._other_start is not None and not (folded.isascii() and self._others_not_ascii):
            others = [m.start() for m in self._other_start.finditer(folded)]
            if others:
                starts = sorted(starts + others) if starts else others
        pos = 0
        for start in starts:
            if start < pos:  # (inside a form found)
                continue
            # (its look-behinds see the text before ``start``)
            m = match_at[folded[start]](folded, start)
            if m is not None:
                pos = m.end()
                yield start, pos

    def _head_starts(self, folded: str) -> list[int]:
        """Where a word of :func:`latin_heads` starts in ``folded``, in order."""
        # (one byte a character, so offsets stay; every character but a-z and 0-9 a space)
        words = folded.encode("ascii", "replace").translate(_WORD_BYTES)
        # each such word as " word ", in the text's order, picked out in C
        found = list(filter(None, map(self._head_needles.get, words.split())))
        if not found:
            return []
        find = b" ".join((b"", words, b"")).find
        starts = []
        at = 0
        for needle in found:  # (each the first of its word from there: folded[at])
            at = find(needle, at)
            starts.append(at)
            at += len(needle) - 1
        return starts

    def __call__(self, text: str) -> list[str]:
        return self._tokens(self._cleaned(text))

    def _cleaned(self, text: str) -> str:
        """``text`` folded, its boilerplate cut: what tokens and bigrams are made from."""
        return self._cut_boilerplate(fold(text))

    def _cut_boilerplate(self, folded: str) -> str:
        """``folded`` without the boilerplate phrasing (``assets/boilerplate.txt``)."""
        pattern, starts = self.vocab.boilerplate, self.vocab.boilerplate_starts
        if pattern is None or (folded.isascii() and not self._ascii_boilerplate):
            return folded
        # (a text without a character a match can start with, as most English ones, is
        # passed over in one quick scan instead of the pattern tried at every position)
        if starts is not None and starts.search(folded) is None:
            return folded
        return pattern.sub(" ", folded)

    def _tokens(self, folded: str) -> list[str]:
        out: list[str] = []
        words = self._words
        form_tokens = self._forms.__getitem__
        start = 0
        for begin, end in self.concept_spans(folded):
            if begin > start:
                words(folded[start:begin], out)
            out.extend(form_tokens(folded[begin:end]))
            start = end
        if start < len(folded):
            words(folded[start:], out)
        return out


def _bigrams_of_run(run: str) -> list[str]:
    """The bigrams of one run of Chinese characters."""
    return [BIGRAM_MARK + run[i : i + 2] for i in range(len(run) - 1)]


@cache
def default_tokenizer() -> Tokenizer:
    """One tokenizer per process for the bundled assets: jieba's dictionary loads once."""
    return Tokenizer()
