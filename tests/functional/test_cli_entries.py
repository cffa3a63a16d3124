"""`topiclens entries` with its filters, header and columns, and `topiclens mark-read`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from helpers import CliResult
from topiclens.cli.commands import CONCEPT_DIVIDER
from topiclens.clustering.search import search
from topiclens.store import Store
from topiclens.store.models import Entry
from topiclens.store.text import entry_id
from topiclens.text import cell_width

Cli = Callable[..., CliResult]


def listed_ids(out: str) -> list[str]:
    """The ids `entries` printed, the header (and a search's concept divider) left out."""
    header, *lines = out.splitlines()
    assert header.split() == ["id", "date", "source", "title"]
    return [line.split()[0] for line in lines if line != CONCEPT_DIVIDER]


def json_entries(cli: Cli, *args: str) -> list[dict]:
    status, out, err = cli("entries", "--json", *args)
    assert status == 0, err
    return orjson.loads(out)["entries"]


# --- filters ---------------------------------------------------------------------------


def test_each_filter_on_its_own(cli: Cli, reader_store: Path):
    with Store(reader_store) as store:
        every = [e.id for e in store.entries()]
        topic = store.topics()[0]
        own = store.topic_entry_ids(topic.id)
        vllm = [e.id for e in store.entries() if "vllm" in e.source.lower()]
        recent = [e.id for e in store.entries() if e.date and e.date >= "2026-09"]
        store.set_read(every[0])
        store.set_read(every[3])
        store.toggle_bookmark(every[2])
        store.toggle_bookmark(every[5])
        found = search(store, "投机解码")
    assert 0 < len(own) < len(every) and 0 < len(vllm) < len(every)
    assert 0 < len(recent) < len(every)

    def ids(*args: str) -> list[str]:
        status, out, err = cli("entries", *args)
        assert status == 0, err
        return listed_ids(out)

    assert ids() == every  # newest first, undated last
    assert ids("--topic", str(topic.id)) == own
    assert ids("--source", "VLLM") == vllm  # any letter case, part of the name
    assert ids("--since", "2026-09") == recent
    assert ids("--since", "2026-09-01") == recent
    assert ids("--unread") == [i for i in every if i not in (every[0], every[3])]
    assert ids("--bookmarked") == [every[2], every[5]]
    assert ids("--search", "投机解码") == found  # best first, as / in the reader
    assert set(ids("--search", "推测解码")) == set(found)


def test_filters_combine(cli: Cli, reader_store: Path):
    with Store(reader_store) as store:
        found = search(store, "投机解码")
        store.set_read(found[0])
        vllm = {e.id for e in store.entries() if "vllm" in e.source.lower()}
    status, out, _ = cli("entries", "--search", "投机解码", "--source", "vllm", "--unread")
    assert status == 0
    expected = [i for i in found if i in vllm and i != found[0]]
    assert expected and listed_ids(out) == expected


def test_json_rows_carry_topic_read_and_bookmarked(cli: Cli, reader_store: Path):
    with Store(reader_store) as store:
        topics = {t.id: t.name for t in store.topics()}
        placed = store.assignments()
        first = store.entries()[0].id
        store.set_read(first)
        store.toggle_bookmark(first)
    rows = json_entries(cli)
    assert len(rows) == len(placed) == 109
    for row in rows:
        tid = placed[row["id"]]
        assert row["topic"] == {"id": tid, "name": topics[tid]}
        assert row["read"] is (row["id"] == first)
        assert row["bookmarked"] is (row["id"] == first)
    unread = json_entries(cli, "--unread", "--bookmarked")
    assert unread == []


def test_json_topic_is_null_before_grouping(cli: Cli, data_dir: Path):
    with Store.open_dir(data_dir) as store:
        store.add_entries([Entry(id=entry_id("t", "s"), title="t", summary="s")])
    (row,) = json_entries(cli)
    assert row["topic"] is None and row["read"] is False and row["bookmarked"] is False


def usage_error(capsys: pytest.CaptureFixture[str], cli: Cli, *args: str) -> str:
    """What a command line argparse refuses prints (exit status 2)."""
    with pytest.raises(SystemExit) as stop:
        cli(*args)
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "--help" in err, err
    return err


def test_bad_filters_are_one_line_errors(cli: Cli, reader_store: Path, capsys):
    status, _, err = cli("entries", "--topic", "999")
    assert status == 1 and err == "topiclens: no topic with id 999; `topiclens topics` lists them\n"
    for bad in ("2026-13", "2026-02-30", "yesterday", "26-01-01", "2026-1", "+026", "２０２６"):
        assert "YYYY-MM-DD" in usage_error(capsys, cli, "entries", "--since", bad), bad


# --- header and columns ----------------------------------------------------------------


SOURCES = ["量子位", "vLLM Blog", "机器之心 · 一个长得放不进二十四个单元格的中文来源", ""]


def test_columns_line_up_in_terminal_cells_under_the_header(cli: Cli, data_dir: Path):
    entries = [
        Entry(
            id=entry_id(f"标题 {n}", "s"),
            title=f"标题 {n}",
            summary="s",
            source=source,
            date="2026-05-0" + str(n + 1) if n % 2 == 0 else None,
        )
        for n, source in enumerate(SOURCES)
    ]
    with Store.open_dir(data_dir) as store:
        store.add_entries(entries)
    status, out, _ = cli("entries")
    assert status == 0
    header, *lines = out.splitlines()
    where = header.index("title")  # the header is ASCII: characters are cells
    for line in lines:
        title = line.index("标题")
        assert cell_width(line[:title]) == where, line
        assert line[title - 2 : title] == "  "
    long_source = next(line for line in lines if "机器之心" in line)
    assert "…" in long_source  # cut to its column
    assert cell_width(header[: header.index("source")]) == cell_width(lines[0][: 16 + 2 + 10 + 2])


def test_topics_prints_a_header(cli: Cli, reader_store: Path):
    status, out, _ = cli("topics")
    assert status == 0
    header, *lines = out.splitlines()
    assert header.split()[:3] == ["id", "size", "cohesion"]
    assert len(lines) == 5


def test_nothing_listed_prints_the_header_and_says_so(cli: Cli, reader_store: Path):
    from topiclens.cli.commands import ENTRIES_HEADER

    status, out, _ = cli("entries", "--search", "no such words at all")
    assert status == 0 and out == f"{ENTRIES_HEADER}\nno entries\n"


def test_an_empty_store_lists_no_entries(cli: Cli, data_dir: Path):
    from topiclens.cli.commands import ENTRIES_HEADER

    status, out, _ = cli("entries")
    assert status == 0 and out == f"{ENTRIES_HEADER}\nno entries\n"


# --- mark-read ---------------------------------------------------------------------------


def test_mark_a_topic_read_then_unread(cli: Cli, reader_store: Path):
    with Store(reader_store) as store:
        topic = store.topics()[0]
        own = set(store.topic_entry_ids(topic.id))
        store.set_read(next(iter(own)))
    status, out, _ = cli("mark-read", "--topic", str(topic.id))
    assert status == 0
    assert out == (
        f"{len(own)} entries in topic {topic.id} ({topic.name}) now read ({len(own) - 1} changed)\n"
    )
    with Store(reader_store) as store:
        assert store.read_ids() == own
        assert topic.id not in store.topic_unread_counts()
    status, out, _ = cli("mark-read", "--topic", str(topic.id), "--unread")
    assert status == 0 and out.startswith(f"{len(own)} entries")
    with Store(reader_store) as store:
        assert store.read_ids() == set()


def test_mark_everything_read_then_unread(cli: Cli, reader_store: Path):
    status, out, _ = cli("mark-read", "--all")
    assert status == 0 and out == "109 entries in the store now read (109 changed)\n"
    status, out, _ = cli("entries", "--unread")
    assert status == 0 and out.endswith("\nno entries\n")
    assert cli("mark-read", "--all")[1] == "109 entries in the store now read (0 changed)\n"
    status, out, _ = cli("mark-read", "--all", "--unread")
    assert status == 0 and out == "109 entries in the store now unread (109 changed)\n"
    with Store(reader_store) as store:
        assert store.read_ids() == set()


def test_mark_everything_unread_counts_what_is_unread_now(cli: Cli, reader_store: Path):
    with Store(reader_store) as store:
        store.set_read_many(store.entry_ids()[:7])
    status, out, _ = cli("mark-read", "--all", "--unread")
    # not "7 entries marked unread": every one of the 109 is unread now, 7 of them changed
    assert status == 0 and out == "109 entries in the store now unread (7 changed)\n"


@pytest.mark.parametrize(
    "args",
    [("mark-read",), ("mark-read", "--all", "--topic", "1"), ("mark-read", "--topic", "x")],
)
def test_mark_read_needs_one_choice(cli: Cli, reader_store: Path, capsys, args: tuple[str, ...]):
    usage_error(capsys, cli, *args)


def test_mark_read_of_an_unknown_topic(cli: Cli, reader_store: Path):
    status, _, err = cli("mark-read", "--topic", "999")
    assert status == 1 and "no topic with id 999" in err
