"""Concept-aware search (clustering/search.py): one search for the reader's / and the
command line's --search, and the matches it marks in the reader."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT
from rich.segment import Segment
from topiclens.clustering.search import (
    RANK_CONCEPT,
    RANK_CONCEPT_TITLE,
    RANK_PHRASE,
    RANK_PHRASE_TITLE,
    necessary,
    parse_query,
    search,
)
from topiclens.clustering.tokenize import surface_pattern, vocabulary
from topiclens.store import Store
from topiclens.store.importer import import_bundled
from topiclens.store.models import Entry
from topiclens.store.text import entry_id

LABELS = ROOT / "bench" / "corpora" / "bundled-labels.jsonl"


@pytest.fixture(scope="module")
def bundled_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    with Store.open_dir(tmp_path_factory.mktemp("bundled")) as store:
        import_bundled(store)
        yield store


def labelled(topic: str) -> set[str]:
    """The ids of the bundled entries labelled by hand as about ``topic``."""
    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()]
    return {r["id"] for r in rows if r["topic"] == topic or topic in r["about"]}


def entry(title: str, summary: str, date: str | None = None) -> Entry:
    return Entry(id=entry_id(title, summary), title=title, summary=summary, date=date)


# --- what matches ------------------------------------------------------------------


def test_the_three_speculative_decoding_queries_find_the_same_entries(bundled_store: Store):
    found = {
        q: set(search(bundled_store, q)) for q in ("投机解码", "推测解码", "speculative decoding")
    }
    assert found["投机解码"] == found["推测解码"] == found["speculative decoding"]
    # every entry labelled Speculative decoding by hand, and each literal match besides
    assert labelled("Speculative decoding") <= found["投机解码"]
    for q in found:
        assert set(bundled_store.search(q)) <= found[q], q
    # the literal searches gave three different sets
    literal = {q: frozenset(bundled_store.search(q)) for q in found}
    assert len(set(literal.values())) == 3


def test_kv_cache_finds_kv_缓存(bundled_store: Store):
    english = set(search(bundled_store, "kv cache"))
    assert set(bundled_store.search("KV 缓存")) <= english
    assert set(bundled_store.search("KV 缓存")) - set(bundled_store.search("kv cache"))
    assert english == set(search(bundled_store, "KV 缓存")) == set(search(bundled_store, "KV缓存"))
    assert labelled("KV cache") <= english


def test_an_anchor_name_finds_its_terms_in_either_language(bundled_store: Store):
    found = set(search(bundled_store, "Training at scale"))
    assert set(bundled_store.search("分布式训练")) <= found
    assert set(bundled_store.search("training at scale")) <= found
    assert not bundled_store.search("Training at scale")  # nothing literal to find


def test_words_and_concepts_must_all_match(bundled_store: Store):
    both = set(search(bundled_store, "vllm 投机解码"))
    concept = set(search(bundled_store, "投机解码"))
    vllm = {e.id for e in bundled_store.entries() if "vllm" in e.text().lower()}
    assert both and both == concept & vllm


def test_literal_matching_stays_whatever_the_concepts(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        kvm = entry("Running KVM guests", "A hypervisor story.", "2026-01-02")
        odd = entry("zq-17 [/] 100%_done", "An odd title.", "2026-01-01")
        store.add_entries([kvm, odd])
        # "kv" is a form of the KV cache concept, matched as a whole word; as written,
        # it is also inside "KVM", and an exact phrase always matches
        assert search(store, "kv") == [kvm.id]
        assert search(store, "KV 缓存") == []
        assert search(store, "zq-17 [/] 100%_done") == [odd.id]
        assert search(store, "100%_") == [odd.id]
        assert search(store, "   ") == []


def test_ranked_literal_first_then_concepts_newest_first_within_a_rank(tmp_path: Path):
    with Store.open_dir(tmp_path) as store:
        rows = [
            entry("A note on speculative decoding", "Old.", "2025-01-01"),  # title, literal
            entry("Newer speculative decoding", "New.", "2026-01-01"),  # title, literal
            entry("推测解码的边际", "无。", "2026-06-01"),  # title, concept
            entry("Serving", "We use speculative decoding here.", "2026-07-01"),  # text
            entry("推理", "用投机解码加速。", None),  # text, concept (undated: last)
            entry("Other", "Nothing of the kind.", "2026-08-01"),
        ]
        store.add_entries(rows)
        q = parse_query("speculative decoding")
        found = search(store, q)
        assert found == [rows[1].id, rows[0].id, rows[3].id, rows[2].id, rows[4].id]
        ranks = [q.rank(e.title, e.summary, e.comment) for e in store.entries(found)]
        assert ranks == [
            RANK_PHRASE_TITLE,
            RANK_PHRASE_TITLE,
            RANK_PHRASE,
            RANK_CONCEPT_TITLE,
            RANK_CONCEPT,
        ]
        assert search(store, q, limit=2) == found[:2]


def test_what_the_store_looks_for_first_is_needed_by_every_form():
    """The SQL prefilter never drops an entry a concept's form would match."""
    vocab = vocabulary()
    forms: dict[str, list[str]] = {}
    for surface, token in vocab.surfaces.items():
        forms.setdefault(token, []).append(surface)
    for token, its in forms.items():
        keys = necessary(its)
        pattern = surface_pattern(its)
        # a space in a key stands for any text, as in the store's prefilter
        needs = [re.compile(".*".join(map(re.escape, k.split(" "))), re.DOTALL) for k in keys]
        for form in its:
            for text in (form, form.replace(" ", ""), form.replace(" ", "\n"), f"x {form}."):
                if pattern.search(text):
                    assert any(n.search(text) for n in needs), (token, form, keys)


@pytest.mark.slow
def test_a_search_never_loads_jieba(tmp_path: Path):
    code = (
        "import sys\n"
        "from topiclens.store import Store\n"
        "from topiclens.clustering.search import search\n"
        f"store = Store({str(tmp_path / 's.db')!r})\n"
        "search(store, '投机解码 kv cache')\n"
        "print(sorted(m for m in ('jieba', 'sklearn', 'numpy', 'textual') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# --- what is marked ------------------------------------------------------------------


def test_spans_cover_the_forms_that_matched():
    q = parse_query("投机解码")
    text = "自适应推测解码与 Speculative Decoding"
    assert [text[a:b] for a, b in q.spans(text)] == ["推测解码", "Speculative Decoding"]
    mixed = "vLLM 投机解码"
    assert [mixed[a:b] for a, b in parse_query("vllm 投机解码").spans(mixed)] == [
        "vLLM",
        "投机解码",
    ]
    assert parse_query("x[/]").spans("a x[/] b") == [(2, 6)]


def _styled(segments: list[Segment], text: str) -> list[Segment]:
    return [s for s in segments if s.text == text]


@pytest.mark.slow
def test_the_reader_marks_matches_in_rows_and_detail(reader_store: Path):
    from helpers import run, settle
    from textual.pilot import Pilot
    from topiclens.tui.app import TopicLensApp
    from topiclens.tui.main_screen import MainScreen
    from topiclens.tui.model import View

    async def scenario(app: TopicLensApp, s: MainScreen, pilot: Pilot[None]) -> None:
        await pilot.press("slash", *"投机解码", "enter")
        await settle(pilot)
        assert s.state.view == View("search", query="投机解码")
        rows = s.entry_list.rows
        line = next(i for i, r in enumerate(rows) if "推测解码" in r[1])
        s.entry_list.move_cursor(line)
        await settle(pilot)
        match = s.entry_list.get_component_rich_style("entry-list--match")
        assert match.underline and match.bold
        other = next(i for i in range(len(rows)) if i != line and "推测解码" in rows[i][1])
        # (a concept match: its line is under the divider)
        strip = s.entry_list.render_list_line(s.entry_list.line_of(other), 80, at_cursor=False)
        marked = _styled(list(strip), "推测解码")
        assert marked and all(seg.style.underline for seg in marked)
        plain = [seg for seg in strip if seg.text.strip() and "推测解码" not in seg.text]
        assert plain and not any(seg.style.underline for seg in plain if seg.style)
        # in the detail pane, the title line of the entry under the cursor
        detail = s.detail_pane
        strips = [detail.render_line(y) for y in range(detail.size.height)]
        assert any(
            seg.style.underline for strip in strips for seg in strip if seg.text == "推测解码"
        )
        # leaving the search leaves nothing marked
        await pilot.press("slash")
        await pilot.pause()
        app.screen.query_one("#search-input").value = ""
        await pilot.press("enter")
        await settle(pilot)
        assert s.entry_list.highlight is None
        strips = [detail.render_line(y) for y in range(detail.size.height)]
        assert not any(seg.style and seg.style.underline for strip in strips for seg in strip)

    run(reader_store, scenario)


def test_marking_splits_a_title_and_keeps_every_cell():
    from rich.style import Style
    from topiclens.tui.widgets.entry_list import matched_segments

    plain, match = Style(bold=True), Style(underline=True)
    text = "KV 缓存与 kv cache 之外  "
    parts = matched_segments(text, parse_query("kv cache").highlight, plain, match)
    assert "".join(p.text for p in parts) == text
    assert [(p.text, p.style == plain + match) for p in parts] == [
        ("KV 缓存", True),
        ("与 ", False),
        ("kv cache", True),
        (" 之外  ", False),
    ]
    assert matched_segments(text, None, plain, match) == [Segment(text, plain)]
