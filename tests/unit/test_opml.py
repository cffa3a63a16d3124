"""OPML subscription lists: folders kept, hostile XML refused, and a written list reads back
the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from topiclens.store.opml import OutlineFeed, read_opml, write_opml

SUBSCRIPTIONS = b"""<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head><title>My feeds</title></head>
  <body>
    <outline text="AI infrastructure" title="AI infrastructure">
      <outline text="Serving">
        <outline type="rss" text="vLLM" title="vLLM Blog"
                 xmlUrl="https://blog.vllm.example/feed.xml" htmlUrl="https://blog.vllm.example/"/>
      </outline>
      <outline type="rss" text="NVIDIA Technical Blog"
               xmlUrl="https://developer.nvidia.example/blog/feed?a=1&amp;b=2"/>
    </outline>
    <outline type="rss" text="BAIR" xmlUrl="https://bair.example/feed.xml"
             category="/Research/Labs,/Other"/>
    <outline type="rss" text="Top level" xmlurl="https://top.example/atom.xml"/>
  </body>
</opml>
"""


def triples(feeds: list[OutlineFeed]) -> list[tuple[str, str, str]]:
    return [(f.url, f.title, f.folder) for f in feeds]


def test_nested_folders_and_categories_are_kept():
    feeds, problems = read_opml(SUBSCRIPTIONS, "subs.opml")
    assert feeds == [
        OutlineFeed(
            "https://blog.vllm.example/feed.xml", "vLLM Blog", "AI infrastructure/Serving", 7
        ),
        OutlineFeed(
            "https://developer.nvidia.example/blog/feed?a=1&b=2",
            "NVIDIA Technical Blog",
            "AI infrastructure",
            10,
        ),
        OutlineFeed("https://bair.example/feed.xml", "BAIR", "Research/Labs", 13),
        OutlineFeed("https://top.example/atom.xml", "Top level", "", 15),
    ]
    assert problems == []


def test_round_trip():
    feeds, _ = read_opml(SUBSCRIPTIONS)
    written = write_opml(feeds, title="Mine")
    assert written.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<opml version="2.0">')
    assert b"<title>Mine</title>" in written
    again, problems = read_opml(written)
    assert triples(again) == triples(feeds)
    assert problems == []


def test_interleaved_folders_keep_the_order():
    feeds = [
        OutlineFeed("https://a.example/f", "A", "x", 0),
        OutlineFeed("https://b.example/f", "B", "", 0),
        OutlineFeed("https://c.example/f", "C", "x/y", 0),
        OutlineFeed("https://d.example/f", "D", "x", 0),
        OutlineFeed("https://e.example/f", "", "z", 0),
    ]
    assert triples(read_opml(write_opml(feeds))[0]) == triples(feeds)


_NAME = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Cf", "Zl", "Zp", "Co", "Cn")),
    max_size=20,
).map(lambda s: " ".join(s.replace("/", " ").split()))


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            _NAME,
            st.lists(_NAME.filter(bool), max_size=3).map("/".join),
            st.sampled_from(["http", "https"]),
            st.text("abc&<>\"'?=#%", max_size=12),
        ),
        max_size=12,
    )
)
def test_any_list_reads_back_the_same(rows: list[tuple[str, str, str, str]]):
    feeds = []
    for i, (title, folder, scheme, tail) in enumerate(rows):
        feeds.append(OutlineFeed(f"{scheme}://feed{i}.example/{tail}", title, folder, 0))
    again, problems = read_opml(write_opml(feeds))
    assert problems == []
    assert triples(again) == triples(feeds)


def test_bad_outlines_are_named_by_line_and_the_rest_kept():
    doc = b"""<opml version="1.0"><body>
<outline type="rss" text="js" xmlUrl="javascript:alert(1)"/>
<outline type="rss" text="local" xmlUrl="file:///etc/passwd"/>
<outline type="rss" text="no url"/>
<outline type="rss" text="good" xmlUrl="https://good.example/feed"/>
<outline type="rss" text="again" xmlUrl="https://good.example/feed"/>
<outline type="rss" text="escape" xmlUrl="https://e.example/&#x9b;2J"/>
<outline type="rss" text="bad host" xmlUrl="http://[::1/feed"/>
</body></opml>"""
    feeds, problems = read_opml(doc, "list.opml")
    assert triples(feeds) == [("https://good.example/feed", "good", "")]
    assert [str(p) for p in problems] == [
        "list.opml:2: 'javascript:alert(1)' is no http or https URL: skipped",
        "list.opml:3: 'file:///etc/passwd' is no http or https URL: skipped",
        "list.opml:4: an outline of type rss without an xmlUrl: skipped",
        "list.opml:6: https://good.example/feed is listed already at line 5: skipped",
        "list.opml:7: 'https://e.example/' is no http or https URL: skipped",
        "list.opml:8: 'http://[::1/feed' is no http or https URL: skipped",
    ]


def test_titles_hold_no_control_characters():
    doc = (
        '<opml version="2.0"><body><outline text="AI\u202e infra\x85">'
        '<outline type="rss" text="Blog &#x9b;31m\u2066x" xmlUrl="https://e.example/f"/>'
        "</outline></body></opml>"
    ).encode()
    (feed,), _ = read_opml(doc)
    assert (feed.title, feed.folder) == ("Blog x", "AI infra")  # "\x9b31m" is one sequence


def test_ill_formed_xml_keeps_the_outlines_before_the_error():
    doc = b"""<opml version="2.0"><body>
<outline type="rss" text="first" xmlUrl="https://one.example/feed"/>
<outline type="rss" text="broken xmlUrl="https://two.example/feed"/>
<outline type="rss" text="third" xmlUrl="https://three.example/feed"/>
</body></opml>"""
    feeds, problems = read_opml(doc, "broken.opml")
    assert triples(feeds) == [("https://one.example/feed", "first", "")]
    assert [str(p) for p in problems] == [
        "broken.opml:3: ill-formed XML (not well-formed (invalid token)): "
        "the outlines after it are not read"
    ]


@pytest.mark.parametrize(
    "doctype",
    [
        '<!DOCTYPE opml [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>',
        '<!DOCTYPE opml [\n<!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>',
        '<!DOCTYPE opml [<!ENTITY % pe SYSTEM "http://127.0.0.1:9/x.dtd"> %pe;]>',
        '<!DOCTYPE opml [<!ENTITY big "' + "A" * 10_000 + '">]>',
    ],
    ids=["billion-laughs", "external-entity", "parameter-entity", "quadratic"],
)
def test_a_document_declaring_entities_is_refused(doctype: str):
    doc = (
        f'<?xml version="1.0"?>\n{doctype}\n<opml version="2.0"><body>'
        '<outline type="rss" text="&lol2;" xmlUrl="https://e.example/f"/></body></opml>'
    ).encode()
    feeds, problems = read_opml(doc, "evil.opml")
    assert feeds == []
    assert [p.message for p in problems] == [
        "declares an entity: not read (entities in OPML are never expanded)"
    ]
    assert problems[0].line == doc.split(b"<!ENTITY")[0].count(b"\n") + 1


def test_an_external_dtd_is_not_loaded(tmp_path: Path):
    dtd = tmp_path / "evil.dtd"
    dtd.write_text('<!ENTITY leak "TOPSECRET">')
    doc = (
        f'<!DOCTYPE opml SYSTEM "{dtd.as_uri()}">\n<opml version="2.0"><body>'
        '<outline type="rss" text="x" xmlUrl="https://e.example/f"/></body></opml>'
    ).encode()
    feeds, problems = read_opml(doc)
    assert triples(feeds) == [("https://e.example/f", "x", "")]
    assert problems == []


def test_only_bytes_are_read():
    with pytest.raises(TypeError, match="reads bytes, not str"):
        read_opml("https://127.0.0.1:9/subscriptions.opml")  # type: ignore[arg-type]


def test_not_opml():
    feeds, problems = read_opml(b'<rss version="2.0"><channel/></rss>', "f.xml")
    assert feeds == []
    assert [str(p) for p in problems] == ["f.xml:1: not OPML: the root element is <rss>"]
    assert read_opml(b"  ", "e.opml") == ([], [read_opml(b"", "e.opml")[1][0]])
    assert str(read_opml(b"", "e.opml")[1][0]) == "e.opml: empty: no OPML"


@pytest.mark.parametrize("codec", ["gbk", "gb2312", "big5", "utf-16", "windows-1252"])
def test_encodings(codec: str):
    title = "Café" if codec == "windows-1252" else "机器之心"
    doc = (
        f'<?xml version="1.0" encoding="{codec}"?>\n<opml version="2.0"><body>\n'
        f'<outline text="{title}"><outline type="rss" text="{title}" '
        'xmlUrl="https://e.example/f"/></outline></body></opml>'
    )
    if codec == "big5":
        doc = doc.replace("机器之心", "機器之心")
        title = "機器之心"
    feeds, problems = read_opml(doc.encode(codec))
    assert problems == []
    assert triples(feeds) == [("https://e.example/f", title, title)]
    assert feeds[0].line == 3


def test_problems_are_listed_up_to_a_bound():
    outlines = "".join(
        f'<outline type="rss" text="{i}" xmlUrl="ftp://e.example/{i}"/>\n' for i in range(70)
    )
    feeds, problems = read_opml(
        f'<opml version="2.0"><body>\n{outlines}</body></opml>'.encode(), "o"
    )
    assert feeds == []
    assert len(problems) == 51
    assert str(problems[0]) == "o:2: 'ftp://e.example/0' is no http or https URL: skipped"
    assert str(problems[-1]) == "o: 20 more problems not listed"
