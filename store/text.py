"""An entry's text as the store keeps it: the normalised form its id is made from, dates,
language, the title derived for an entry that has none, and a preview for messages.
Pure functions, no I/O. The helpers every layer shares (Chinese characters, terminal
cells, the terminal gate) are in :mod:`topiclens.text`."""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata

from topiclens.text import HAN, cell_width, fit_cells

# The patterns only an import uses are strings, compiled on first use by re's own cache:
# compiled here they would cost every start of the reader ~3 ms (the Chinese ranges most).
_CJK_RUN = f"[{HAN}][{HAN}]*"  # (one, then the rest: the regex engine skips to the first)
# English words, the matches of r"[A-Za-z][A-Za-z0-9\-_.+]*", counted in C: each run of
# those characters that holds a letter gives one (from the letter to the run's end), so with
# every other byte a space and the digits and -_.+ deleted, each piece split apart is one
_LETTERS_ELSE_SPACE = bytes(c if chr(c).isascii() and chr(c).isalpha() else 32 for c in range(256))
_WORD_NOT_LETTERS = b"0123456789-_.+"
_WS = r"\s+"


_DATE = r"^(\d{4})[/-](\d{1,2})[/-](\d{1,2})$"
_SURROGATE = "[\udc80-\udcff]"  # bytes that were not UTF-8 (surrogateescape)


def parse_date(text: str) -> str | None:
    """``YYYY/MM/DD`` or ``YYYY-MM-DD`` as ISO ``YYYY-MM-DD``; None if not a real date."""
    match = re.match(_DATE, text.strip())
    if not match:
        return None
    try:
        return _dt.date(*(int(g) for g in match.groups())).isoformat()
    except ValueError:
        return None


def has_surrogates(text: str) -> bool:
    """Whether ``text`` holds bytes that were not UTF-8 (read with surrogateescape)."""
    return re.search(_SURROGATE, text) is not None


def preview(text: str, width: int = 40) -> str:
    """The start of ``text`` for a message, at most ``width`` cells."""
    # a huge line is not measured whole; bytes that were not UTF-8 show as U+FFFD
    return fit_cells(re.sub(_SURROGATE, "\ufffd", text.strip()[: 4 * width]), width)


def normalise(text: str) -> str:
    """NFC, whitespace folded to single spaces, trimmed: the form ids are made from.

    NFC (not NFKC): composed and decomposed accents are one text, while full-width and
    half-width forms stay apart. NFKC cost 60 µs an entry on Chinese text (its full-width
    punctuation defeats the quick check), most of a 100,000-entry import."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def entry_id(title: str, summary: str, comment: str = "") -> str:
    """A stable id from an entry's normalised content (16 hex digits of SHA-256).

    ``title`` is the title as written in the source (empty for digest entries, whose
    display title is derived and may change between versions). Line ends, a BOM and
    runs of white space do not change an id."""
    import hashlib  # here, not at the top: the reader's start makes no ids

    payload = "\x1f".join(normalise(part) for part in (title, summary, comment))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


# characters a lead-in ("文章介绍", "This post shows") may take before a summary repeats
# its entry's title
TITLE_LEAD_IN = 24


def entry_text(
    title: str,
    summary: str,
    comment: str = "",
    content_start: str = "",
    *,
    title_given: bool = True,
) -> str:
    """What an entry says, one part a line, each said once: the only text topics are made
    from. A title derived from the summary, or one the summary opens with, is left out:
    its words would otherwise count twice."""
    if not title_given or repeats_title(title, summary):
        title = ""
    return "\n".join(part for part in (title, summary, comment, content_start) if part)


def repeats_title(title: str, summary: str) -> bool:
    """Whether ``summary`` opens with ``title`` (case and white space aside, a derived
    title's "…" dropped), after a lead-in of at most TITLE_LEAD_IN characters."""
    wanted = " ".join(title.removesuffix("…").split()).casefold()
    if not wanted:
        return False
    opening = " ".join(summary[: 2 * (len(title) + TITLE_LEAD_IN)].split()).casefold()
    return wanted in opening[: len(wanted) + TITLE_LEAD_IN]


def detect_language(text: str) -> str:
    """'zh', 'en' or 'mixed'. One Chinese character is weighed against one English word
    (the unit a reader reads), so a Chinese summary citing a few product names stays zh."""
    # (runs, not characters: 2.5x faster; ASCII text holds none)
    cjk = 0 if text.isascii() else sum(map(len, re.findall(_CJK_RUN, text)))
    # (one byte a character: any but ASCII is no word's)
    data = text.encode("ascii", "replace").translate(_LETTERS_ELSE_SPACE, _WORD_NOT_LETTERS)
    words = len(data.split())
    if cjk == 0 and words == 0:
        return "en"
    share = cjk / (cjk + 2 * words)
    if share >= 0.7:
        return "zh"
    if share <= 0.15:
        return "en"
    return "mixed"


# Lead-ins a digest summary opens with: who is speaking, then a reporting verb.
_SUBJECT = (
    r"(?:这篇文章|这篇博客|这篇|本文|文章|该文|作者|"
    r"[A-Za-z][A-Za-z .]*?\s*(?:技术)?博客|微软研究博客|[\u4e00-\u9fff]{2,6}技术团队)"
)
_ADVERB = r"(?:首先|主要|系统地?|详细地?|深入地?|重点|全面|完整地?|简要)?"
_VERB = (
    r"(?:介绍了?|讲解了?|探讨了?|讨论了?|复盘了?|梳理了?|拆解了?|总结了?|分析了?|"
    r"阐述了?|解析了?|记录了?|发布了?|综述了?|回顾了?|说明了?|展示了?|提出了?|"
    r"聚焦于?|围绕|挑战|针对|是)"
)
_LEAD_IN = rf"^{_SUBJECT}\s*{_ADVERB}\s*{_VERB}?\s*|^{_ADVERB}{_VERB}\s*"
_PREAMBLE = (
    r"^(?:由|基于|以|从).{0,40}(?:撰写|演讲|为例|出发|为起点|为主线)$"
    r"|^(?:在|当|随着).{0,20}(?:中|时|下)$"
)
_CLAUSE = r"[，。；：！？,;:!?]|——"
_LABEL = r"^(?:核心看点|摘要|导读|简介|TL;DR)\s*[:：]\s*"


def _strip_lead_in(clause: str) -> str:
    stripped = re.sub(_LEAD_IN, "", clause, count=1).strip()
    stripped = re.sub(r"^其(?=\S)", "", stripped)  # "介绍其在 …" -> "在 …"
    return stripped or clause.strip()


# A derived title is stored whole (each view cuts it to its room): a clause longer than
# this many characters is cut here, as a title would not be read beyond it anyway.
TITLE_MAX_CHARS = 160


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def derive_title(summary: str, limit: int = TITLE_MAX_CHARS) -> str:
    """A readable title for an entry that has none (digest entries), stored whole.

    Drops lead-ins such as "文章介绍了" or "本文", skips a preamble clause such as
    "本文由 NVIDIA 工程师撰写" and keeps the first real clause whole, up to ``limit``
    characters (cut with "…" beyond); where it is drawn, it is cut to the room there is."""
    text = re.sub(_LABEL, "", re.sub(_WS, " ", summary).strip())
    clauses = [c.strip() for c in re.split(_CLAUSE, text) if c.strip()]
    if not clauses:
        return _bounded(text, limit) if text else "(untitled)"
    for clause in clauses[:3]:
        candidate = _strip_lead_in(clause)
        if re.match(_PREAMBLE, candidate) or cell_width(candidate) < 8:
            continue
        return _bounded(candidate, limit)
    return _bounded(_strip_lead_in(clauses[0]), limit)
