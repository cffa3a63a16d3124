"""Looking at XML before feedparser does: what a document is (its encoding, its root element),
and the document made safe and bounded for feedparser: entity declarations removed, and only
the first entries kept when it holds too many entries or elements."""

from __future__ import annotations

import codecs
import re

from .parsed_feed import MAX_ENTRIES, NotAFeed

# --- sniffing -------------------------------------------------------------------------------

_WIDE_MARKS: tuple[tuple[bytes, str, bytes], ...] = (
    # (how the document starts, its codec, the byte-order mark to write back)
    (codecs.BOM_UTF32_BE, "utf-32-be", codecs.BOM_UTF32_BE),
    (codecs.BOM_UTF32_LE, "utf-32-le", codecs.BOM_UTF32_LE),
    (codecs.BOM_UTF16_BE, "utf-16-be", codecs.BOM_UTF16_BE),
    (codecs.BOM_UTF16_LE, "utf-16-le", codecs.BOM_UTF16_LE),
    (b"\x00\x00\x00<", "utf-32-be", b""),
    (b"<\x00\x00\x00", "utf-32-le", b""),
    (b"\x00<\x00?", "utf-16-be", b""),
    (b"<\x00?\x00", "utf-16-le", b""),
    (b"\x4c\x6f\xa7\x94", "cp037", b""),  # "<?xm" in EBCDIC
)


def wide_codec(data: bytes) -> tuple[str, bytes] | None:
    """The codec of a document not ASCII-compatible (UTF-16, UTF-32, EBCDIC) and its BOM."""
    for start, codec, bom in _WIDE_MARKS:
        if data.startswith(start):
            return codec, bom
    return None


def text_view(data: bytes) -> str:
    """``data`` as text to look at (not to parse): its own wide codec, else UTF-8 with
    replacement characters (element names are ASCII in every other encoding)."""
    wide = wide_codec(data)
    if wide:
        return data[len(wide[1]) :].decode(wide[0], "replace")
    return data.decode("utf-8", "replace").removeprefix("\ufeff")


# The prolog before the root element: the XML declaration, comments, processing instructions.
_PROLOG_ITEM = re.compile(r"\s+|<\?.*?\?>|<!--.*?-->", re.DOTALL)
_ROOT = re.compile(r"<([A-Za-z_][\w.:-]*)")
# (an unclosed comment or CDATA section runs to the end: a search that fails on each of many
# unclosed ones would scan the rest of the document each time)
_DOCTYPE_TOKEN = re.compile(
    r"\"[^\"]*\"?|'[^']*'?|<!--.*?(?:-->|$)|[^\"'<>\[\]]+|[<>\[\]]", re.DOTALL
)


def skip_prolog(text: str, pos: int = 0) -> int:
    while match := _PROLOG_ITEM.match(text, pos):
        if match.end() == pos:
            break
        pos = match.end()
    return pos


def _doctype_end(text: str, start: int) -> tuple[int, bool]:
    """Where the DOCTYPE at ``start`` ends, and whether it has an internal subset (``[...]``).
    Quoted strings and comments are skipped whole, so a "]" or ">" inside them is no end."""
    inside = has_subset = False
    for match in _DOCTYPE_TOKEN.finditer(text, start + 9):
        token = match.group()
        if token == "[":
            inside = has_subset = True
        elif token == "]":
            inside = False
        elif token == ">" and not inside:
            return match.end(), has_subset
    return len(text), has_subset


def root_element(text: str) -> tuple[str, int]:
    """The root element's name (or "" when the document has none) and where it starts."""
    pos = skip_prolog(text)
    if text.startswith("<!DOCTYPE", pos) or text[pos : pos + 9].upper() == "<!DOCTYPE":
        pos = skip_prolog(text, _doctype_end(text, pos)[0])
    match = _ROOT.match(text, pos)
    return (match.group(1), pos) if match else ("", pos)


_FEED_ROOTS = frozenset({"rss", "feed", "rdf", "channel"})


def is_feed_root(name: str) -> bool:
    return name.rsplit(":", 1)[-1].lower() in _FEED_ROOTS


def looks_like_feed(head: bytes) -> bool:
    """Whether ``head`` (the first few kilobytes of a file) starts a feed: XML whose root
    element is ``rss``, ``feed``, ``rdf:RDF`` or ``channel``, or JSON naming a JSON Feed
    version. Cheap: nothing is parsed."""
    text = text_view(head[:65536]).lstrip()
    if text.startswith("{"):
        return "jsonfeed.org/version/" in text
    name, _ = root_element(text)
    if name.rsplit(":", 1)[-1].lower() == "rdf":
        return "rss" in text.lower()
    return bool(name) and is_feed_root(name)


# --- defusing and bounding XML -------------------------------------------------------------

# feedparser spends about 20 µs on each element: a 16 MiB document of tiny elements would
# hold a refresh for minutes. Past this bound (or MAX_ENTRIES) only the first entries are read.
MAX_ELEMENTS = 200_000

_CDATA_OR_COMMENT = re.compile(r"<!\[CDATA\[.*?(?:\]\]>|$)|<!--.*?(?:-->|$)", re.DOTALL)
_ENTRY_TAG = re.compile(r"<(?:[\w.-]+:)?(?:item|entry)[\s>/]")
_ENTRY_END = re.compile(r"</(?:[\w.-]+:)?(?:item|entry)\s*>")
_FIRST_ELEMENT = re.compile(r"<\w")  # where feedparser takes a document's head to end
_XML_DECLARATION = re.compile(r"<\?xml[^>]*\?>")


def prepare(body: bytes) -> tuple[bytes, list[tuple[int, str]]]:
    """``body`` as feedparser may read it, with what was changed (line, note): entity
    declarations removed (:func:`_without_entity_declarations`) and the entries past
    :data:`MAX_ENTRIES` or :data:`MAX_ELEMENTS` left out (:func:`_bounded_entries`). The
    bytes come back unchanged (the same object) when nothing needed doing."""
    wide = wide_codec(body)
    # (counting "item" anywhere overcounts the entries: when even that is small, all is well)
    entries = body.count(b"item") + body.count(b"entry")
    small = body.count(b"<") <= MAX_ELEMENTS and entries <= MAX_ENTRIES
    if wide is None and b"<!DOCTYPE" not in body and b"<!ENTITY" not in body and small:
        return body, []
    if wide:
        codec, bom = wide
        text = body[len(bom) :].decode(codec, "replace")
    else:
        text = body.decode("latin-1")  # byte for byte: nothing else changes
    notes: list[tuple[int, str]] = []
    text, line = _without_entity_declarations(text)
    if line:
        notes.append((line, "entity declarations: removed, not expanded"))
    text, note = _bounded_entries(text)
    if note:
        notes.append((0, note))
    if not notes:
        return body, []
    if wide:
        return wide[1] + text.encode(wide[0], "replace"), notes
    return text.encode("latin-1"), notes


def _without_entity_declarations(text: str) -> tuple[str, int]:
    """``text`` without entity declarations, with the line of the first one (0 when there was
    none). When the head of the document (before its first element, as feedparser sees it)
    holds a DOCTYPE with an internal subset or an ``<!ENTITY``, everything in it but the XML
    declaration goes, its lines kept as newlines: feedparser carries "safe" entities found
    there into a DOCTYPE of its own, where a 20 kB one used 500 times is 10 MB of text.

    A DOCTYPE without a subset stays: expat never loads an external DTD here."""
    bom = 3 if text.startswith("\xef\xbb\xbf") else 1 if text.startswith("\ufeff") else 0
    first = _FIRST_ELEMENT.search(text, bom)
    head_end = first.start() if first else len(text)
    start = skip_prolog(text, bom)
    has_subset = False
    if text.startswith("<!DOCTYPE", start):
        end, has_subset = _doctype_end(text, start)
        if has_subset:  # (an entity's value may hold "<b", which is no element)
            head_end = max(head_end, end)
    head = text[:head_end]
    if not has_subset and "<!ENTITY" not in head:
        return text, 0
    where = min(i for i in (head.find("<!DOCTYPE"), head.find("<!ENTITY")) if i >= 0)
    declaration = _XML_DECLARATION.match(text, bom)
    keep = min(declaration.end() if declaration else bom, where)
    line = text.count("\n", 0, where) + 1
    return text[:keep] + "\n" * text.count("\n", keep, head_end) + text[head_end:], line


def _elements(text: str) -> int:
    """How many elements start in ``text`` (CDATA and comments already blanked)."""
    return text.count("<") - text.count("</") - text.count("<!") - text.count("<?")


def _bounded_entries(text: str) -> tuple[str, str]:
    """``text`` holding at most :data:`MAX_ENTRIES` entries and :data:`MAX_ELEMENTS` elements:
    the first entries, then the document's tail after its last entry (the closing tags, and
    whatever follows the entries). With a note when entries were left out.

    Raises :class:`NotAFeed` when even the first entry, or a document without entries, holds
    more elements than that."""
    # CDATA sections and comments blanked, same length, so offsets stay those of ``text``
    masked = _CDATA_OR_COMMENT.sub(lambda m: " " * len(m.group()), text)
    starts = [m.start() for m in _ENTRY_TAG.finditer(masked)]
    header = _elements(masked[: starts[0]] if starts else masked)
    if header > MAX_ELEMENTS:
        raise NotAFeed(f"XML with more than {MAX_ELEMENTS:,} elements outside its entries")
    total, kept = header, 0
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(masked)
        count = _elements(masked[start:end])
        if i >= MAX_ENTRIES or total + count > MAX_ELEMENTS:
            break
        total, kept = total + count, i + 1
    if kept == len(starts):
        return text, ""
    if kept == 0:
        raise NotAFeed(f"a feed whose first entry holds more than {MAX_ELEMENTS:,} XML elements")
    last = None
    for last in _ENTRY_END.finditer(masked, starts[-1]):  # noqa: B007 (the last one is wanted)
        pass
    tail = last.end() if last else len(text)
    note = (
        f"{len(starts):,} entries: only the first {kept:,} are read (at most "
        f"{MAX_ENTRIES:,} entries and {MAX_ELEMENTS:,} XML elements)"
    )
    return text[: starts[kept]] + text[tail:], note


# An entry's start tag, or the start of a CDATA section or a comment (skipped to its end by
# str.find: a lazy match to the end of each, over a feed's contents, took most of the time)
_ENTRY_OR_SKIPPED = re.compile(r"<(?:(!\[CDATA\[)|(!--)|(?:[\w.-]+:)?(item|entry)[\s>/])")


def entry_lines(text: str) -> list[int]:
    """The line of each ``<item>`` or ``<entry>`` start tag, in document order (none inside a
    CDATA section or a comment, which run to the end when unclosed)."""
    lines: list[int] = []
    line, last, pos = 1, 0, 0
    while match := _ENTRY_OR_SKIPPED.search(text, pos):
        if match.group(1) or match.group(2):
            end = text.find("]]>" if match.group(1) else "-->", match.end())
            pos = end + 3 if end >= 0 else len(text)
            continue
        line += text.count("\n", last, match.start())
        last = match.start()
        lines.append(line)
        pos = match.end()
    return lines
