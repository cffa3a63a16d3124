"""Feed HTML made safe: readable terminal text, and sanitised HTML for the HTML export."""

from __future__ import annotations

import re

import pytest
from helpers import CONTROL, unsafe_html_parts
from hypothesis import given, settings
from hypothesis import strategies as st
from topiclens.store import html_text
from topiclens.store.html_render import render
from topiclens.store.html_text import (
    MAX_DEPTH,
    MAX_HTML_CHARS,
    html_to_text,
    sanitize_html,
    terminal_line,
    terminal_safe,
    text_of_sanitized,
)

BASE = "https://blog.example.com/2024/05/post.html"
# Everything a terminal could act on: C0 controls but newline, DEL, C1 controls, bidi controls.
# --- html_to_text ---------------------------------------------------------------------------


def test_paragraphs_are_apart_and_white_space_collapses():
    text = html_to_text("<p>One   line\n  wrapped</p><p>Two</p><div>Three</div><div>Four</div>")
    assert text == "One line wrapped\n\nTwo\n\nThree\nFour"


def test_lists_bullets_numbers_and_nesting():
    html = (
        "<ul><li>one</li><li>two<ul><li>two a</li><li>two b</li></ul></li></ul>"
        '<ol start="3"><li>three</li><li>four</li></ol>'
    )
    assert html_to_text(html) == "- one\n- two\n  - two a\n  - two b\n\n3. three\n4. four"


def test_headings_are_marked_by_level():
    assert html_to_text("<h1>Top</h1><p>x</p><h3>Third</h3>") == "# Top\n\nx\n\n### Third"


def test_code_blocks_keep_their_line_breaks_and_indentation():
    code = "def f(x):\n    if x:\n\treturn 1\n\n    return 2"
    html = f"<p>Code:</p><pre><code>{code}</code></pre><p>end</p>"
    assert html_to_text(html) == (
        "Code:\n\n    def f(x):\n        if x:\n        return 1\n\n        return 2\n\nend"
    )


def test_highlighted_code_keeps_its_text_without_the_spans():
    html = (
        '<pre class="highlight"><code><span class="n">a</span> <span class="o">=</span> '
        '<span class="mi">1</span>\n<span class="n">b</span></code></pre>'
    )
    assert html_to_text(html) == "    a = 1\n    b"


def test_links_are_numbered_references_listed_at_the_end():
    html = (
        '<p>See <a href="/a">the first</a>, <a href="https://other.example/b">the second</a> '
        'and <a href="/a">the first again</a>.</p>'
    )
    assert html_to_text(html, BASE) == (
        "See the first [1], the second [2] and the first again [1].\n\n"
        "Links:\n[1] https://blog.example.com/a\n[2] https://other.example/b"
    )


def test_relative_links_without_a_base_and_script_links_are_not_listed():
    html = '<a href="/a">rel</a> <a href="javascript:alert(1)">js</a> <a href="mailto:x@y.z">m</a>'
    assert html_to_text(html) == "rel js m [1]\n\nLinks:\n[1] mailto:x@y.z"


def test_images_show_their_alt_text():
    html = '<p>A <img src="a.png" alt="block   table"> and <img src="b.png"></p>'
    assert html_to_text(html) == "A [image: block table] and [image]"


def test_tables_read_row_by_row():
    html = (
        "<table><thead><tr><th>Size</th><th>Waste</th></tr></thead>"
        "<tbody><tr><td>16</td><td><p>3.8%</p></td></tr><tr><td>32</td><td>7.1%</td></tr></tbody>"
        "</table><p>after</p>"
    )
    assert html_to_text(html) == "Size | Waste\n16 | 3.8%\n32 | 7.1%\n\nafter"


def test_quotes_and_definition_lists():
    html = "<blockquote><p>one</p><p>two</p></blockquote><dl><dt>term</dt><dd>meaning</dd></dl>"
    assert html_to_text(html) == "> one\n>\n> two\n\nterm\n  meaning"


def test_entities_are_decoded():
    html = "<p>Q&amp;A &lt;tag&gt; &#x4e2d;&#25991; caf&eacute;&nbsp;bar &hellip;</p>"
    assert html_to_text(html) == "Q&A <tag> 中文 café bar …"


def test_no_script_style_or_comment_text_ever_shows():
    html = (
        "<p>keep</p><script>var secret = 'script text';</script>"
        "<style>.secret { color: red }</style><!-- comment text -->"
        "<noscript>noscript text</noscript><template>template text</template>"
        "<svg><style>svg style</style><text>svg text</text></svg>"
        "<iframe>iframe text</iframe><textarea>textarea text</textarea><p>also</p>"
    )
    text = html_to_text(html)
    assert text == "keep\n\nalso"


def test_plain_text_leaves_out_references_headings_and_images():
    html = '<h2>Title</h2><p>See <a href="https://e.com/">this</a> <img alt="pic"></p>'
    assert html_to_text(html, plain=True) == "Title\n\nSee this"


def test_text_of_sanitized_reads_the_sanitised_html_the_same_way():
    html = '<h2>T</h2><p>A <a href="/x">link</a></p><ul><li>i</li></ul><pre>a\n  b</pre>'
    assert text_of_sanitized(sanitize_html(html, BASE)) == html_to_text(html, BASE)


@pytest.mark.parametrize(
    "hostile",
    [
        "\x1b[2J\x1b[H",  # clear the screen
        "\x1b]52;c;ZXZpbA==\x07",  # write the clipboard
        "\x1b]0;title\x1b\\",  # set the window title
        "\x1bP+q544e\x1b\\",  # DCS
        "\x9b31m",  # 8-bit CSI
        "\x9d0;title\x9c",  # 8-bit OSC
        "\x1b(0",  # charset switch
        "\u202e\u2066\u200f",  # bidi controls
        "\x00\x07\x08\x0b\x7f\x85",  # C0, DEL, C1
    ],
)
def test_terminal_text_holds_no_control_character_or_escape_sequence(hostile: str):
    html = f"<p>before{hostile}after</p><pre>code{hostile}line\nnext</pre>"
    text = html_to_text(html)
    assert CONTROL.search(text) is None
    assert text == "beforeafter\n\n    codeline\n    next"
    assert CONTROL.search(terminal_safe(f"a{hostile}b\nc")) is None
    assert terminal_line(f"a{hostile}\n b") == "a b"


# text with the characters nh3 escapes, white space of every kind, controls, escapes, no-break
# spaces, wide and combining characters, noncharacters; and now and then what it rewrites
_TEXTS = st.text(
    st.sampled_from(
        [
            *" \t\n\x0b\x0c\x85\xa0\u2028\u3000>\"'=/;#x1b[0mdata:src=href=javascript:",
            *("a", "Z", "9", "é", "ç", "中", "文", "\u0301", "\u200b", "\u202e", "\ufdd0"),
            *("\uffff", "\U0001f600", "\x1b", "\x9b", "\x07", "\x7f", "\x00", "\r", "&", "<"),
            "\ufeff",
        ]
    ),
    max_size=80,
)


@settings(max_examples=400, deadline=None)
@given(text=_TEXTS, plain=st.booleans())
def test_text_without_markup_reads_the_same_without_the_sanitiser(text: str, plain: bool):
    cleaned = html_text._cleaner(html_text._base(BASE), True).clean(text)
    assert html_to_text(text, BASE, plain=plain) == (render(cleaned, plain) if text.strip() else "")


def test_the_sanitiser_is_skipped_only_for_text_without_markup():
    assert html_text._NOT_JUST_TEXT.search('a > b, "quoted" \u00a0 text') is None
    for marked in ("a <b>", "a &amp; b", "a\r\nb", "a\x00b", "\ufeffa", "a\ud800"):
        assert html_text._NOT_JUST_TEXT.search(marked) is not None
    assert html_to_text("a <script>alert(1)</script> b") == "a b"
    assert html_to_text("1 &lt; 2 &gt; 0") == "1 < 2 > 0"


def test_form_feed_and_carriage_return_are_white_space():
    assert html_to_text("<p>a\x0cb\rc</p><pre>d\r\ne\rf</pre>") == "a b c\n\n    d\n    e\n    f"


def test_terminal_safe_keeps_newlines_and_expands_tabs():
    assert terminal_safe("a\tb\nc") == "a   b\nc"


@pytest.mark.slow
def test_deep_nesting_is_flattened_not_recursed():
    depth = 100_000
    html = "<div>" * depth + "deep text" + "</div>" * depth
    # (1.1 MB: the last closing tags are past the cut)
    assert html_to_text(html).startswith("deep text\n\n[content cut here: ")
    clean = sanitize_html(html)
    assert "deep text" in clean
    assert clean.count("<div>") <= MAX_DEPTH


@pytest.mark.slow
@pytest.mark.parametrize(
    "html",
    [
        "<ul><li>" * 20_000 + "x",
        "<dl><dt>x<dd>" * 20_000,
        "<em><div>" * 20_000 + "x",
        "<table><tr><td>" * 20_000 + "x",
        "<b>" * 100_000 + "x",
        "<DIV>" * 100_000 + "x",
    ],
    ids=["ul-li", "dl-dt-dd", "em-div", "table", "b", "upper-case-div"],
)
def test_hostile_nesting_comes_back_with_its_text(html: str):
    # (unbounded, html5ever takes minutes on these: quadratic in the depth)
    text = html_to_text(html)
    assert "x" in text
    assert "x" in sanitize_html(html)


def test_nesting_below_the_limit_is_left_alone():
    html = "<blockquote>" * 5 + "quoted" + "</blockquote>" * 5
    assert html_to_text(html) == "> > > > > quoted"


@pytest.mark.slow
def test_huge_documents_are_cut_with_a_note():
    paragraph = "<p>" + "word " * 100 + "</p>\n"
    html = paragraph * (10_000_000 // len(paragraph))
    text = html_to_text(html)
    assert text.startswith("word word")
    assert text.endswith("more characters of HTML not shown]")
    assert len(text) < MAX_HTML_CHARS
    clean = sanitize_html(html)
    assert clean.endswith("more characters of HTML not shown]</em></p>")
    assert len(clean) < MAX_HTML_CHARS + 200


def test_inline_data_urls_do_not_count_towards_the_cut():
    image = '<img src="data:image/png;base64,' + "A" * (2 * MAX_HTML_CHARS) + '" alt="shot">'
    text = html_to_text(f"<p>before</p>{image}<p>after</p>")
    assert text == "before\n\n[image: shot]\n\nafter"


# --- sanitize_html --------------------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    '<img src="https://e.com/a.png" onerror="alert(1)">',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="jav&#x09;ascript:alert(1)">x</a>',
    '<a href="jav\tascript:alert(1)">x</a>',
    '<a href="  JaVaScRiPt:alert(1)">x</a>',
    '<a href="&#106;avascript:alert(1)">x</a>',
    '<a href="java&#0000115;cript:alert(1)">x</a>',
    '<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;:alert(1)">x</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>',
    '<a href="vbscript:msgbox(1)">x</a>',
    '<a href="VBScript:msgbox(1)">x</a>',
    '<img src="data:image/svg+xml,<svg onload=alert(1)>">',
    '<iframe src="https://evil.example/"></iframe>',
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    '<object data="https://evil.example/x.swf"></object>',
    '<embed src="https://evil.example/x.swf">',
    '<form action="https://evil.example/"><input name="q"><button formaction="javascript:1">'
    "go</button></form>",
    "<style>body { display: none }</style>",
    '<p style="background:url(javascript:alert(1))">x</p>',
    '<svg onload="alert(1)"><script>alert(1)</script></svg>',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table>"
    "</mtext></math>",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></p></noscript>',
    '<base href="javascript:alert(1)//">',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<link rel="stylesheet" href="https://evil.example/x.css">',
    '<div onclick="alert(1)" onmouseover="alert(2)">x</div>',
    '<a href="https://safe.example/" onclick="alert(1)">safe</a>',
    "<!-- <script>alert(1)</script> -->",
    '<a href="/relative">rel</a>',
    '<img src="//evil.example/a.png">',
]


@pytest.mark.parametrize("html", HOSTILE)
@pytest.mark.parametrize("base", [BASE, None])
def test_sanitised_html_runs_nothing(html: str, base: str | None):
    clean = sanitize_html(html, base)
    assert unsafe_html_parts(clean) == []
    assert "alert" not in html_to_text(html, base)


def test_a_broken_tag_is_text_as_a_browser_shows_it():
    html = "<scr<script>ipt>alert(1)</script>"
    assert unsafe_html_parts(sanitize_html(html)) == []
    assert html_to_text(html) == "ipt>alert(1)"  # shown, not run: "<scr<script>" is one tag


def test_sanitised_html_keeps_the_writing():
    html = (
        "<h2>Title</h2><p>Some <strong>bold</strong> and <em>italic</em> text with "
        '<a href="/about">a link</a> and <code>code</code>.</p>'
        '<pre><code>line 1\n\tline 2</code></pre><img src="img/a.png" alt="A">'
        "<table><tr><th>h</th></tr><tr><td>d</td></tr></table>"
        "<ul><li>item</li></ul><blockquote>quote</blockquote>"
    )
    clean = sanitize_html(html, BASE)
    assert unsafe_html_parts(clean) == []
    for kept in (
        "<h2>Title</h2>",
        "<strong>bold</strong>",
        "<em>italic</em>",
        '<a href="https://blog.example.com/about" rel="noopener noreferrer">a link</a>',
        "<code>code</code>",
        "<pre><code>line 1\n\tline 2</code></pre>",
        '<img src="https://blog.example.com/2024/05/img/a.png" alt="A">',
        "<th>h</th>",
        "<li>item</li>",
        "<blockquote>quote</blockquote>",
    ):
        assert kept in clean


def test_without_a_base_relative_links_are_dropped():
    clean = sanitize_html('<a href="/about">about</a><img src="a.png" alt="A">')
    assert clean == '<a rel="noopener noreferrer">about</a><img alt="A">'


def test_sanitised_html_holds_no_control_character_but_newline_and_tab():
    clean = sanitize_html("<p>a\x1b[31mb\x07c\x00d\u202ee\x85f</p><pre>x\ty\nz</pre>")
    assert clean == "<p>abcdef</p><pre>x\ty\nz</pre>"
    assert re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", clean) is None


def test_empty_input():
    assert html_to_text("") == "" == sanitize_html("  \n ")


# --- any input ------------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "<p>", "</p>", "<div>", "</div>", "<ul>", "<li>", "</li>", "</ul>", "<ol>", "<pre>",
        "</pre>", "<table>", "<tr>", "<td>", "</td>", "<a href='/x'>", "<a href='javascript:1'>",
        "</a>", "<img alt='i'>", "<br>", "<script>", "</script>", "<style>", "</style>",
        "<!--", "-->", "<blockquote>", "</blockquote>", "<h2>", "</h2>", "&amp;", "&#x1b;",
        "&", "<", ">", '"', "\x1b[31m", "\x9b", "\u202e", "\t", "\n", " ", "text", "中文",
        "<svg onload=alert(1)>", "<math>", "</math>", "<noscript>", "<textarea>", "<dl><dt>",
    ]
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=60).map("".join))
def test_any_html_gives_safe_text_and_safe_html(html: str):
    text = html_to_text(html, BASE)
    assert CONTROL.search(text) is None
    assert "<script" not in text and "alert" not in text
    clean = sanitize_html(html, BASE)
    assert unsafe_html_parts(clean) == []
    assert CONTROL.search(text_of_sanitized(clean)) is None
