"""The shortcuts that make feed text faster to read give what the long way gives: terminal
text, the renderer's collapsed white space, and the lines where a document's entries start."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st
from topiclens.store import html_render
from topiclens.store.feed_xml import entry_lines
from topiclens.store.html_render import _CONTROLS, render, strip_escapes, terminal_safe

# entry_lines as it was written first: one regular expression over the whole document
_ENTRY_START = re.compile(
    r"<!\[CDATA\[.*?(?:\]\]>|$)|<!--.*?(?:-->|$)|<(?:[\w.-]+:)?(item|entry)[\s>/]", re.DOTALL
)
PIECES = [
    "<item>", "<item ", "<entry/", "<a:item>", "<é:entry>", "<items>", "<![CDATA[", "]]>",
    "<!--", "-->", "<!-->", "\n", "x", "<", "]]", "--", "<rss:entry\t", "<item\u2003",
    "<item\x1c", "<!-", "<![CDATA", "<item", "entry>", "\u00a0",
]  # fmt: skip


def lines_the_long_way(text: str) -> list[int]:
    lines: list[int] = []
    line, last = 1, 0
    for match in _ENTRY_START.finditer(text):
        if match.group(1):
            line += text.count("\n", last, match.start())
            last = match.start()
            lines.append(line)
    return lines


def test_every_character_terminal_text_removes_is_one_that_is_not_printable():
    removed = [c for c in range(0x110000) if _CONTROLS.match(chr(c))]
    assert len(removed) > 200
    assert [hex(c) for c in removed if chr(c).isprintable()] == []


@given(st.text())
@example("plain words")
@example("two\nlines, each printable\n")
@example("a\x00b\x07 c\x7f\n")
@example("a\u202etxt.exe\x1b[31m red\tend\n")
def test_terminal_text_is_the_same_as_removing_each_control(text: str):
    expected = _CONTROLS.sub("", strip_escapes(text.expandtabs(4) if "\t" in text else text))
    assert terminal_safe(text) == expected


@given(st.lists(st.sampled_from(["a", "b", " ", "  ", "\n", "\t", "\r", "\f", "\u00a0", "<p>"])))
@example(["a", " ", "b"])
@example(["a", "\n", "b"])
@example(["a", "\t", "b"])
@example(["a", "\r", "b"])
@example(["a", "\f", "b"])
@example(["a", "  ", "b"])
@example(["<p>", "a", "\n", "  ", "b", "<p>", "\t"])
def test_rendered_white_space_collapses_as_without_the_shortcut(parts: list[str]):
    # text already collapsed takes the shortcut; the same text uncollapsed, the long way
    html = "".join(parts)
    collapsed = re.sub(r"[^<]+", lambda m: html_render._SPACE.sub(" ", m.group()), html)
    assert render(html, False) == render(collapsed, False)
    assert render(html, True) == render(collapsed, True)


@given(st.lists(st.sampled_from(["a", " ", "\n", "  \n", "\n\n\n", "\u00a0", "\x00", " \x1b[0m"])))
def test_a_rendering_ends_as_it_would_with_every_substitution_made(parts: list[str]):
    renderer = html_render._Renderer(plain=False)
    renderer.parts = list(parts)
    body = terminal_safe("".join(parts).replace("\u00a0", " "))
    body = html_render._BLANK_LINES.sub("\n\n", html_render._TRAILING_SPACE.sub("\n", body))
    assert renderer.result() == body.strip("\n").rstrip()


@given(st.lists(st.sampled_from(PIECES), max_size=16))
@example(["<![CDATA[", "<item>", "]]>", "\n", "<item>"])
@example(["<!--", "<entry>", "\n", "<item>"])
@example(["<![CDATA[", "a]>", "xx", "<item>", "]]>", "<item>"])
@example(["<!--", "->", "<item>", "-->", "\n<entry>"])
def test_entry_lines_are_found_as_by_one_expression(pieces: list[str]):
    text = "".join(pieces)
    assert entry_lines(text) == lines_the_long_way(text)
