"""Finding the feeds an HTML page names, from pages shaped like real ones and hostile ones."""

from __future__ import annotations

import codecs
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from topiclens.feeds.discover import feed_links

PAGE = "https://blog.example.com/2024/05/post/"

# The head WordPress writes: the posts feed, the comments feed, and the REST API's JSON.
WORDPRESS = b"""<!DOCTYPE html>
<html lang="en-US">
<head>
<meta charset="UTF-8" />
<title>Speculative decoding in vLLM &#8211; A Blog</title>
<link rel='dns-prefetch' href='//fonts.example.com' />
<link rel="alternate" type="application/rss+xml" title="A Blog &raquo; Feed"
      href="https://blog.example.com/feed/" />
<link rel="alternate" type="application/rss+xml" title="A Blog &raquo; Comments Feed"
      href="https://blog.example.com/comments/feed/" />
<link rel='stylesheet' id='wp-block-library-css' href='/wp-includes/css/style.min.css'
      type='text/css' media='all' />
<link rel="https://api.w.org/" href="https://blog.example.com/wp-json/" />
<link rel="alternate" type="application/json"
      href="https://blog.example.com/wp-json/wp/v2/posts/42" />
</head>
<body class="post-template-default"><p>Hello</p></body></html>
"""


def test_a_wordpress_head_gives_its_feeds_in_document_order():
    assert feed_links(WORDPRESS, PAGE) == [
        ("https://blog.example.com/feed/", "application/rss+xml"),
        ("https://blog.example.com/comments/feed/", "application/rss+xml"),
        ("https://blog.example.com/wp-json/wp/v2/posts/42", "application/json"),
    ]


def test_atom_and_json_feed_links_with_odd_case_and_parameters():
    page = b"""<head>
    <LINK REL="Alternate" TYPE="Application/Atom+XML; charset=utf-8" HREF="/atom.xml">
    <link rel="alternate feed" type=" application/feed+json " href="feed.json">
    <link rel="feed alternate" type="application/rss+xml" href="../rss.xml">
    </head>"""
    assert feed_links(page, PAGE) == [
        ("https://blog.example.com/atom.xml", "application/atom+xml"),
        ("https://blog.example.com/2024/05/post/feed.json", "application/feed+json"),
        ("https://blog.example.com/2024/05/rss.xml", "application/rss+xml"),
    ]


@pytest.mark.parametrize(
    "link",
    [
        b'<link rel="stylesheet" type="application/rss+xml" href="/a.xml">',
        b'<link type="application/rss+xml" href="/a.xml">',
        b'<link rel="alternate" href="/a.xml">',
        b'<link rel="alternate" type="text/html" hreflang="de" href="/de/">',
        b'<link rel="alternate stylesheet" type="text/css" href="/dark.css">',
        b'<link rel="alternate" type="application/rss+xml">',
        b'<link rel="alternate" type="application/rss+xml" href="">',
        b'<link rel="alternate" type="application/rss+xml" href="   ">',
        b'<a rel="alternate" type="application/rss+xml" href="/a.xml">feed</a>',
        b'<!-- <link rel="alternate" type="application/rss+xml" href="/old.xml"> -->',
        b'<script>document.write(\'<link rel="alternate" type="application/rss+xml" '
        b'href="/js.xml">\')</script>',
        b'<textarea><link rel="alternate" type="application/rss+xml" href="/t.xml"></textarea>',
    ],
)
def test_what_is_not_a_feed_link(link: bytes):
    assert feed_links(b"<html><head>" + link + b"</head></html>", PAGE) == []


def test_base_href_resolves_every_link_even_those_before_it():
    page = b"""<head>
    <link rel="alternate" type="application/rss+xml" href="feed.xml">
    <base href="/blog/">
    <base href="https://elsewhere.example.org/">
    <link rel="alternate" type="application/atom+xml" href="atom.xml">
    </head>"""
    assert feed_links(page, PAGE) == [
        ("https://blog.example.com/blog/feed.xml", "application/rss+xml"),
        ("https://blog.example.com/blog/atom.xml", "application/atom+xml"),
    ]


def test_a_base_without_href_is_skipped():
    page = b'<base target="_top"><base href="https://cdn.example.net/"><link rel="alternate" '
    page += b'type="application/rss+xml" href="f.xml">'
    assert feed_links(page, PAGE) == [("https://cdn.example.net/f.xml", "application/rss+xml")]


def test_each_feed_is_listed_once():
    link = b'<link rel="alternate" type="application/rss+xml" href="/feed/">'
    other = (
        b'<link rel="alternate" type="application/atom+xml" href="https://blog.example.com/feed/">'
    )
    assert feed_links(link + other + link, PAGE) == [
        ("https://blog.example.com/feed/", "application/rss+xml")
    ]


@pytest.mark.parametrize(
    "href",
    [
        "javascript:alert(1)",
        " JavaScript:alert(1)",
        "data:application/rss+xml,<rss/>",
        "file:///etc/passwd",
        "ftp://example.com/feed.xml",
        "mailto:feeds@example.com",
        "http://[::1/feed",
    ],
)
def test_links_that_are_not_http_are_dropped(href: str):
    page = f'<link rel="alternate" type="application/rss+xml" href="{href}">'.encode()
    assert feed_links(page, PAGE) == []


def test_a_page_read_from_a_file_may_name_a_feed_file():
    page = b'<link rel="alternate" type="application/rss+xml" href="feed.xml">'
    assert feed_links(page, "file:///home/me/site/index.html") == [
        ("file:///home/me/site/feed.xml", "application/rss+xml")
    ]


def test_hrefs_are_cleaned_as_a_browser_would_and_made_safe_to_show():
    page = (
        '<link rel="alternate" type="application/rss+xml" href="  /feed?a=1&amp;b=2\n ">'
        '<link rel="alternate" type="application/atom+xml" href="/at\tom\n.xml">'
        '<link rel="alternate" type="application/feed+json" href="/x\x1b[2J y\u202e.json">'
    ).encode()
    assert feed_links(page, PAGE) == [
        ("https://blog.example.com/feed?a=1&b=2", "application/rss+xml"),
        ("https://blog.example.com/atom.xml", "application/atom+xml"),
        ("https://blog.example.com/x%1B[2J%20y%E2%80%AE.json", "application/feed+json"),
    ]


def test_a_chinese_page_in_gbk_keeps_its_chinese_feed_path():
    page = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=gbk">'
        '<link rel="alternate" type="application/rss+xml" title="订阅" href="/专栏/rss.xml">'
        "</head></html>"
    ).encode("gbk")
    assert feed_links(page, "https://zhuanlan.example.cn/") == [
        ("https://zhuanlan.example.cn/专栏/rss.xml", "application/rss+xml")
    ]


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: codecs.BOM_UTF8 + text.encode("utf-8"),
        lambda text: text.encode("utf-16"),  # with its byte order mark
        lambda text: text.encode("utf-8"),
        lambda text: text.replace("<head>", '<head><meta charset="no-such-codec">').encode(),
        lambda text: text.replace("<head>", '<head><meta charset="base64">').encode(),
        lambda text: text.replace("<head>", '<head><meta charset="utf-16">').encode(),
    ],
)
def test_encodings(encode):
    page = '<head><link rel="alternate" type="application/rss+xml" href="/flux-é.xml"></head>'
    assert feed_links(encode(page), PAGE) == [
        ("https://blog.example.com/flux-é.xml", "application/rss+xml")
    ]


@pytest.mark.parametrize(
    "html",
    [
        b"",
        b"not html at all",
        bytes(range(256)) * 40,
        b"\xff\xfe\x00\x00garbage",
        b"<link",
        b"<link rel=alternate type=application/rss+xml href=",
        b"<![if !supportLists]><![endif]><![CDATA[x]]><!>",
        b"<?xml version='1.0'?><rss><channel/></rss>",
        b"<svg><![CDATA[<link rel=alternate>]]></svg>",
    ],
)
def test_junk_gives_no_links_and_no_error(html: bytes):
    assert feed_links(html, PAGE) == []


HOSTILE_UNITS = [
    "<!",
    "</",
    "<?",
    "<a '",
    "<a b='",
    "<![",
    "<!--",
    "<!--!>",
    "<!-<!--x--!>",
    "<title><!--",
    " '<!--<title>",
    "<![CDATA[",
    "<!DOCTYPE",
    "<script></scrip",
    '<svg><link "<x y=">',
    "&<",
]


@pytest.mark.parametrize("unit", HOSTILE_UNITS)
@pytest.mark.parametrize("tail", ["", ">"])
def test_pages_that_make_html_parser_slow_or_raise_still_give_their_links(unit: str, tail: str):
    """Pages like these took Python 3.11's html.parser minutes at this size, or made it raise;
    the link before the junk is still found. No time is asserted: a page read in more than
    one pass would hang the test run."""
    link = '<link rel="alternate" type="application/rss+xml" href="/feed.xml">'
    page = (link + unit * (300_000 // len(unit)) + tail).encode()
    assert feed_links(page, PAGE) == [("https://blog.example.com/feed.xml", "application/rss+xml")]


HTMLISH = st.lists(
    st.sampled_from(
        [
            "<",
            ">",
            "<!",
            "<!--",
            "-->",
            "<![",
            "</",
            "<link ",
            "<base ",
            "rel=alternate ",
            'type="application/rss+xml" ',
            "href=",
            '"',
            "'",
            "&amp;",
            "&#",
            "<script>",
            "</script>",
            "javascript:",
            "//x.example/",
            "/f",
            " ",
            "\n",
            "\x00",
            "\x1b",
            "\u202e",
            "é",
            "]]>",
        ]
    ),
    max_size=60,
).map("".join)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(HTMLISH, st.sampled_from([PAGE, "http://h/", "file:///tmp/x.html"]))
def test_any_markup_gives_absolute_urls_that_are_safe_to_show(markup: str, base: str):
    for url, media in feed_links(markup.encode("utf-8", "surrogatepass"), base):
        assert url.split(":", 1)[0] in ("http", "https", "file")
        assert media.startswith("application/")
        assert not any(
            ch == " " or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in url
        ), url
