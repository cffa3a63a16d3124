"""The HTML export: one self-contained page (its own style, no scripts, nothing loaded from
the network), every value escaped after :func:`topiclens.text.terminal_line` has dropped
controls. A feed entry's whole content is the one piece of HTML from the data: sanitised
again here (:func:`~.html_text.sanitize_html`: no script, style, iframe, form, event
attribute or ``javascript:``/``data:`` link), whatever the store holds."""

from __future__ import annotations

import html

from topiclens.text import terminal_line, terminal_text

from .export_items import ExportContent, ExportItem, link_url, text_lines, time_text
from .models import Content

_CSS = """\
:root { color-scheme: light dark; --fg: #1d2021; --muted: #5c6370; --bg: #fdfdfb;
  --card: #ffffff; --line: #e3e3df; --accent: #1f6feb; --quote: #f3f4f1; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e3; --muted: #9aa0a6;
  --bg: #17181a; --card: #1f2023; --line: #33353a; --accent: #6ea8ff; --quote: #26282c; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); line-height: 1.6;
  font: 16px/1.65 system-ui, -apple-system, "Segoe UI", "PingFang SC", "Hiragino Sans GB",
  "Microsoft YaHei", "Noto Sans CJK SC", sans-serif; }
main { max-width: 46rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
h1 { font-size: 1.7rem; margin: 0 0 .25rem; }
.summary-line, .meta, nav { color: var(--muted); }
nav ul { padding-left: 1.2rem; }
nav a, h3 a { color: var(--accent); text-decoration: none; }
nav a:hover, h3 a:hover { text-decoration: underline; }
h2 { font-size: 1.25rem; margin: 2.5rem 0 1rem; padding-bottom: .3rem;
  border-bottom: 1px solid var(--line); }
article { background: var(--card); border: 1px solid var(--line); border-radius: 8px;
  padding: 1rem 1.2rem; margin: 0 0 1rem; }
h3 { font-size: 1.05rem; margin: 0 0 .3rem; }
.meta { font-size: .85rem; margin: 0 0 .6rem; }
.meta span + span::before { content: " · "; }
p { margin: .5rem 0; }
blockquote { margin: .6rem 0; padding: .4rem .8rem; background: var(--quote);
  border-left: 3px solid var(--line); border-radius: 4px; }
.note { border-left: 3px solid var(--accent); padding-left: .8rem; }
.note b { color: var(--accent); }
code { font-size: .8rem; color: var(--muted); }
details.content { margin: .6rem 0; }
details.content > summary { cursor: pointer; color: var(--accent); }
.content-body { overflow-wrap: anywhere; }
.content-body img { max-width: 100%; height: auto; }
.content-body pre { overflow-x: auto; background: var(--quote); padding: .5rem; }
.content-text { white-space: pre-wrap; font: inherit; }
"""


def _h(text: str) -> str:
    """One line of data as HTML text or an attribute value: controls dropped, escaped."""
    return html.escape(terminal_line(text), quote=True)


def _h_lines(lines: list[str]) -> str:
    """Lines from :func:`text_lines` (already safe), escaped and kept apart."""
    return "<br>".join(html.escape(line, quote=True) for line in lines)


def page_language(langs: list[str]) -> str:
    """The page's ``lang``: the language most of its entries are in, zh or en (a mixed
    entry counts for neither; a tie, or none, is en, the language of the page's own
    words). Never "mul": a browser picks fonts and hyphenation by it."""
    zh, en = langs.count("zh"), langs.count("en")
    return "zh" if zh > en else "en"


def _html_content(content: Content, base_url: str | None) -> str:
    """A feed entry's whole content: its HTML sanitised again, else its text kept as laid
    out (paragraphs, code blocks), escaped."""
    if content.html:
        from .html_text import sanitize_html

        body = f'<div class="content-body">{sanitize_html(content.html, base_url)}</div>'
    else:
        body = f'<div class="content-text">{html.escape(terminal_text(content.text))}</div>'
    return f'<details class="content"><summary>Full text</summary>{body}</details>'


def _html_item(
    i: ExportItem, out: list[str], page_lang: str, content: Content | None = None
) -> None:
    e = i.entry
    title = _h(e.title)
    url = link_url(e.url)
    if url:
        title = f'<a href="{_h(url)}" rel="noopener noreferrer">{title}</a>'
    eid = _h(e.id)
    # an entry in the page's other language says so, for its fonts and line breaking
    lang = f' lang="{e.lang}"' if e.lang in ("zh", "en") and e.lang != page_lang else ""
    out.append(f'<article id="e-{eid}" data-id="{eid}"{lang}>')
    out.append(f"<h3>{title}</h3>")
    meta = []
    if e.source:
        meta.append(f'<span class="source">{_h(e.source)}</span>')
    if e.author:
        meta.append(f'<span class="author">{_h(e.author)}</span>')
    if e.category:
        meta.append(f'<span class="category">{_h(e.category)}</span>')
    if e.date:
        date = _h(e.date)
        meta.append(f'<span class="date"><time datetime="{date}">{date}</time></span>')
    if e.url and not url:
        meta.append(f'<span class="url">{_h(e.url)}</span>')
    stamp = _h(time_text(i.bookmark.created_at))
    meta.append(
        f'<span class="bookmarked">bookmarked <time datetime="{stamp}">{stamp}</time></span>'
    )
    out.append(f'<p class="meta">{"".join(meta)}</p>')
    out.append(f'<p class="summary">{_h_lines(text_lines(e.summary))}</p>')
    if content is not None and (content.html or content.text):
        out.append(_html_content(content, url))
    comment, note = text_lines(e.comment), text_lines(i.bookmark.note)
    if comment:
        out.append(f'<blockquote class="comment">{_h_lines(comment)}</blockquote>')
    if note:
        out.append(f'<p class="note"><b>Note:</b> <span>{_h_lines(note)}</span></p>')
    out.append(f"<p><code>{eid}</code></p>")
    out.append("</article>")


def render_html(doc: ExportContent) -> bytes:
    groups, total, title = doc.groups, doc.count, doc.title()
    lang = page_language([i.entry.lang for g in groups for i in g.items])
    noun = "bookmark" if total == 1 else "bookmarks"
    out = [
        "<!DOCTYPE html>",
        f'<html lang="{lang}">',
        "<head>",
        '<meta charset="utf-8">',
        # No network, no scripts: the page may only use its own inline style.
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="topiclens">',
        f"<title>{_h(title)}</title>",
        f"<style>\n{_CSS}</style>",
        "</head>",
        "<body>",
        "<main>",
        f"<h1>{_h(title)}</h1>",
        f'<p class="summary-line">{total} {noun}, exported {doc.stamp()}.</p>',
    ]
    if len(groups) > 1:
        out.append('<nav><ul class="toc">')
        for n, g in enumerate(groups):
            out.append(f'<li><a href="#topic-{n}">{_h(g.name)}</a> ({len(g.items)})</li>')
        out.append("</ul></nav>")
    for n, g in enumerate(groups):
        tid = "" if g.topic_id is None else str(g.topic_id)
        out.append(f'<section id="topic-{n}" data-topic-id="{tid}">')
        out.append(f"<h2>{_h(g.name)}</h2>")
        for i in g.items:
            _html_item(i, out, lang, doc.contents.get(i.entry.id))
        out.append("</section>")
    if not groups:
        out.append("<p>No bookmarks yet: press <kbd>b</kbd> in the reader to keep an entry.</p>")
    out += ["</main>", "</body>", "</html>"]
    return ("\n".join(out) + "\n").encode("utf-8")
