"""The tokenizer's algorithm written plainly, for the tests that hold the tokenizer to it:
``unicodedata.normalize`` of the whole text, the plain boilerplate regex, the surface
pattern's ``finditer``, jieba's own ``cut`` and a fresh look-up of everything for every
text, none of the tokenizer's shortcuts."""

from __future__ import annotations

import re
import unicodedata

from topiclens.clustering.tokenize import (
    BIGRAM_MARK,
    HAN,
    USE_HMM,
    Tokenizer,
    read_asset,
    surface_pattern,
)

SPACE = re.compile(r"\s+")
PIECES = re.compile(rf"(?P<han>[{HAN}]+)|(?<![a-z0-9])(?P<lat>[a-z][a-z0-9]*(?:[-_.+][a-z0-9]+)*)")
HAN_RUN = re.compile(rf"[{HAN}]{{2,}}")
BOILERPLATE = [
    line.strip()
    for line in read_asset("boilerplate.txt").splitlines()
    if line.strip() and not line.strip().startswith("#")
]


def plain_boilerplate(patterns: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


class Reference:
    """The tokenizer's algorithm, written plainly (module docstring)."""

    def __init__(self, tk: Tokenizer) -> None:
        self.vocab = tk.vocab
        self.jieba = tk.jieba()
        self.surface_re = surface_pattern(self.vocab.surfaces)
        self.compact = {f.replace(" ", ""): t for f, t in reversed(self.vocab.surfaces.items())}
        self.boilerplate = plain_boilerplate(BOILERPLATE)

    def cleaned(self, text: str) -> str:
        folded = unicodedata.normalize("NFKC", text).lower()
        return self.boilerplate.sub(" ", folded)

    def emit(self, word: str, out: list[str]) -> None:
        token = self.vocab.surfaces.get(word)
        out.extend([word] if token is None else self.vocab.expand(token))

    def han_word(self, word: str, out: list[str]) -> None:
        vocab, freq = self.vocab, self.jieba.FREQ
        if word in vocab.curator:
            return
        if len(word) > 1 and word not in vocab.stopwords:
            self.emit(word, out)
        for n in (2, 3):
            for i in range(len(word) - n + 1 if len(word) > n else 0):
                part = word[i : i + n]
                if freq.get(part) and part not in vocab.stopwords:
                    self.emit(part, out)

    def latin_word(self, word: str) -> list[str]:
        vocab = self.vocab
        if len(word) < 2 or word in vocab.stopwords or word in vocab.curator:
            return []
        if (
            len(word) >= 5
            and word.isalpha()
            and word.endswith("s")
            and not word.endswith(("ss", "us", "is"))
        ):
            word = word[:-1]
        return [word]

    def words(self, segment: str, out: list[str]) -> None:
        for m in PIECES.finditer(segment):
            han = m.group("han")
            if han is not None:
                if len(han) > 1:
                    for word in self.jieba.cut(han, HMM=USE_HMM):
                        self.han_word(word, out)
                continue
            out.extend(self.latin_word(m.group("lat")))

    def tokens(self, text: str) -> list[str]:
        folded = self.cleaned(text)
        out: list[str] = []
        start = 0
        for m in self.surface_re.finditer(folded):
            if m.start() > start:
                self.words(folded[start : m.start()], out)
            surface = SPACE.sub(" ", m.group()).strip()
            token = self.vocab.surfaces.get(surface) or self.compact.get(surface.replace(" ", ""))
            if token is not None:
                out.extend(self.vocab.expand(token))
            start = m.end()
        if start < len(folded):
            self.words(folded[start:], out)
        return out

    def bigrams(self, text: str) -> list[str]:
        runs = HAN_RUN.findall(self.cleaned(text))
        return [BIGRAM_MARK + r[i : i + 2] for r in runs for i in range(len(r) - 1)]
