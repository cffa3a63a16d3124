"""Snapshots of the reader at a fixed size, on fixed fixture topics (not the clustering's).

Update after a deliberate change of look with ``pytest tests/functional/test_tui_snapshots.py
--snapshot-update`` and look at the SVGs in tests/functional/__snapshots__/ before
committing them."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import KEYMAP, before, make_trust_store
from topiclens.store import Store
from topiclens.tui.app import TopicLensApp
from topiclens.tui.theme import LIGHT

SIZE = (120, 34)


@pytest.fixture
def reader_app(reader_store: Path):
    with Store(reader_store) as store:
        # two entries read and one bookmarked with a note, so every mark shows
        ids = [r[0] for r in store.topic_rows(store.topics()[0].id)]
        store.set_read(ids[1])
        store.set_read(ids[3])
        store.set_note(ids[2], "compare with the vLLM numbers")
        yield TopicLensApp(store, keymap_file=KEYMAP, cluster=False, poll_interval=3600)


@pytest.fixture
def trust_app(reader_store: Path):
    """The fixture topics with cohesion, the largest found mixed, and "also here" rows."""
    make_trust_store(reader_store)
    with Store(reader_store) as store:
        yield TopicLensApp(store, keymap_file=KEYMAP, cluster=False, poll_interval=3600)


def test_main_screen(snap_compare, reader_app: TopicLensApp):
    assert snap_compare(reader_app, terminal_size=SIZE, run_before=before("l", "j", "j"))


def test_main_screen_80x24(snap_compare, reader_app: TopicLensApp):
    assert snap_compare(reader_app, terminal_size=(80, 24), run_before=before("l", "j"))


def test_main_screen_160x50(snap_compare, reader_app: TopicLensApp):
    assert snap_compare(reader_app, terminal_size=(160, 50), run_before=before("l", "j"))


# the light theme: the entries focused, so both cursors (focused and not) show
def test_main_screen_light(snap_compare, reader_app: TopicLensApp):
    reader_app.theme = LIGHT
    assert snap_compare(reader_app, terminal_size=SIZE, run_before=before("l", "j"))


def test_overview(snap_compare, reader_app: TopicLensApp):
    assert snap_compare(reader_app, terminal_size=SIZE, run_before=before("o"))


def test_help(snap_compare, reader_app: TopicLensApp):
    assert snap_compare(reader_app, terminal_size=SIZE, run_before=before("question_mark"))


def test_bookmarks_view(snap_compare, reader_app: TopicLensApp):
    assert snap_compare(reader_app, terminal_size=SIZE, run_before=before("B"))


# the KV cache topic: its last own rows, then rows also listed there; the detail pane
# scrolled to "also in"
def test_also_rows(snap_compare, trust_app: TopicLensApp):
    keys = ("j", "l", "G", "k", "k", "k", "k", "l", "G")
    assert snap_compare(trust_app, terminal_size=SIZE, run_before=before(*keys))


def test_also_rows_80x24(snap_compare, trust_app: TopicLensApp):
    keys = ("j", "l", "G", *"k" * 10)
    assert snap_compare(trust_app, terminal_size=(80, 24), run_before=before(*keys))


def test_overview_mixed(snap_compare, trust_app: TopicLensApp):
    assert snap_compare(trust_app, terminal_size=SIZE, run_before=before("o", "G"))
