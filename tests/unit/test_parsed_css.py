"""The parsed CSS kept between starts (tui/textual_compat.py, load_parsed_css and
keep_parsed_css): used only when it is what Textual would parse now, and a file that is
missing, damaged or unwritable never stops a start."""

from __future__ import annotations

import os
import pickle
import stat
from pathlib import Path

import pytest
from textual.css.model import RuleSet
from textual.css.scalar import Unit
from textual.css.stylesheet import Stylesheet
from topiclens.tui.textual_compat import (
    _kept_attribute,
    _parser_stamp,
    keep_parsed_css,
    load_parsed_css,
)

CSS = "Label { color: $accent; padding: 0 1; & > .label--x { text-style: bold; } }"
WHERE = ("/somewhere/reader.tcss", "")


def stylesheet(accent: str = "#ff0000", css: str = CSS) -> Stylesheet:
    sheet = Stylesheet(variables={"accent": accent})
    sheet.add_source(css, read_from=WHERE)
    return sheet


def rules_css(sheet: Stylesheet) -> list[str]:
    return [rule.css for rule in sheet.rules]


def kept_file(tmp_path: Path) -> Path:
    """A cache file kept from a parse of :data:`CSS` with the default variables."""
    path = tmp_path / "cache" / "parsed-css.pickle"
    first = stylesheet()
    first.parse()
    keep_parsed_css(first, path, frozenset())
    assert path.is_file()
    return path


def test_a_kept_parse_is_used_and_styles_as_textual_does(tmp_path: Path) -> None:
    path = kept_file(tmp_path)
    kept = pickle.loads(path.read_bytes())[2]
    sheet = stylesheet()
    loaded = load_parsed_css(sheet, path)
    assert loaded == frozenset(kept)
    loaded_rules = {id(rule) for key in loaded for rule in sheet._parse_cache[key]}
    assert sheet.rules and all(id(rule) in loaded_rules for rule in sheet.rules)
    assert rules_css(sheet) == rules_css(stylesheet())  # the same as a parse now


def test_nothing_new_parsed_writes_nothing(tmp_path: Path) -> None:
    path = kept_file(tmp_path)
    os.utime(path, ns=(0, 0))
    sheet = stylesheet()
    loaded = load_parsed_css(sheet, path)
    sheet.parse()
    keep_parsed_css(sheet, path, loaded)
    assert path.stat().st_mtime_ns == 0


@pytest.mark.parametrize(
    "sheet",
    [stylesheet(accent="#00ff00"), stylesheet(css=CSS.replace("0 1", "0 2"))],
    ids=["other theme variables", "changed CSS text"],
)
def test_a_parse_kept_for_other_css_or_variables_is_not_used(
    tmp_path: Path, sheet: Stylesheet
) -> None:
    path = kept_file(tmp_path)
    load_parsed_css(sheet, path)
    expected = Stylesheet(variables=dict(sheet._variables))
    for where, source in sheet.source.items():
        expected.add_source(source.content, read_from=where)
    assert rules_css(sheet) == rules_css(expected)
    assert rules_css(sheet) != rules_css(stylesheet())
    # and what the next start keeps is this parse, with these variables
    keep_parsed_css(sheet, path, frozenset())
    again = Stylesheet(variables=dict(sheet._variables))
    for where, source in sheet.source.items():
        again.add_source(source.content, read_from=where)
    assert load_parsed_css(again, path)


def test_a_parse_kept_by_another_textual_is_not_used(tmp_path: Path) -> None:
    path = kept_file(tmp_path)
    _, variables, parsed = pickle.loads(path.read_bytes())
    path.write_bytes(pickle.dumps((("another Textual",), variables, parsed)))
    assert load_parsed_css(stylesheet(), path) == frozenset()


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"\x00garbage\xff" * 50,
        lambda data: data[: len(data) // 2],  # a truncated pickle
        lambda data: b"",
        lambda data: pickle.dumps({"another": "object"}),
        lambda data: pickle.dumps((_parser_stamp(), {"accent": "#ff0000"}, {WHERE: [1, 2]})),
        lambda data: pickle.dumps((_parser_stamp(), {"accent": "#ff0000"}, ["not", "a dict"])),
        lambda data: data.replace(b"RuleSet", b"RuleSef"),  # a class Textual no longer has
    ],
    ids=["garbage", "truncated", "empty", "another object", "not rules", "not a dict", "gone"],
)
def test_a_damaged_file_falls_back_to_textual_s_parse(tmp_path: Path, damage) -> None:
    path = kept_file(tmp_path)
    path.write_bytes(damage(path.read_bytes()))
    sheet = stylesheet()
    assert load_parsed_css(sheet, path) == frozenset()
    assert rules_css(sheet) == rules_css(stylesheet())
    keep_parsed_css(sheet, path, frozenset())  # and the next start has a good one again
    assert load_parsed_css(stylesheet(), path)


def test_a_missing_file_or_a_folder_in_its_place_falls_back(tmp_path: Path) -> None:
    assert load_parsed_css(stylesheet(), tmp_path / "nothing" / "here") == frozenset()
    folder = tmp_path / "a-folder"
    folder.mkdir()
    sheet = stylesheet()
    assert load_parsed_css(sheet, folder) == frozenset()
    sheet.parse()
    keep_parsed_css(sheet, folder, frozenset())  # cannot replace a folder: left as it is
    assert folder.is_dir() and not list(tmp_path.glob("a-folder.*"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_cache_folder_is_left_alone(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        sheet = stylesheet()
        sheet.parse()
        keep_parsed_css(sheet, folder / "parsed-css.pickle", frozenset())
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(stat.S_IRWXU)


def test_a_refused_write_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As a read-only folder refuses it to a user who is not root."""

    def refuse(self: Path, data: bytes) -> int:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "write_bytes", refuse)
    sheet = stylesheet()
    sheet.parse()
    keep_parsed_css(sheet, tmp_path / "parsed-css.pickle", frozenset())
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_cache_folder_is_left_alone(tmp_path: Path) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder would be")
    sheet = stylesheet()
    sheet.parse()
    keep_parsed_css(sheet, blocker / "parsed-css.pickle", frozenset())
    assert blocker.read_text() == "a file where the cache folder would be"


def test_only_the_sources_of_this_start_are_kept(tmp_path: Path) -> None:
    """A first start's progress bar is parsed once: the next start keeps what it styles with."""
    path = tmp_path / "parsed-css.pickle"
    first = stylesheet()
    first.add_source("ProgressBar { width: 1fr; }", read_from=("/progress.py", "ProgressBar"))
    first.parse()
    keep_parsed_css(first, path, frozenset())
    assert len(pickle.loads(path.read_bytes())[2]) == 2
    later = stylesheet()
    loaded = load_parsed_css(later, path)
    assert len(loaded) == 2
    later.parse()
    keep_parsed_css(later, path, loaded)
    assert list(pickle.loads(path.read_bytes())[2]) == [(CSS, WHERE, False, 0, "")]
    again = stylesheet()
    assert len(load_parsed_css(again, path)) == 1


class _Calls:
    """Pickled as a call of ``what(*args)``: what a file not written by keep_parsed_css
    could make the load run."""

    def __init__(self, what: object, *args: object) -> None:
        self.what, self.args = what, args

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return self.what, self.args


@pytest.mark.parametrize(
    "call",
    [
        lambda marker: _Calls(os.mkdir, str(marker)),  # a function outside Textual
        lambda marker: _Calls(Path.mkdir, Path(marker)),  # a dotted name (Path.mkdir)
    ],
    ids=["os.mkdir", "a dotted name"],
)
def test_a_file_that_calls_anything_but_textual_s_css_classes_is_refused(
    tmp_path: Path, call
) -> None:
    marker = tmp_path / "made-by-the-file"
    path = kept_file(tmp_path)
    made_by, variables, parsed = pickle.loads(path.read_bytes())
    key = next(iter(parsed))
    path.write_bytes(pickle.dumps((made_by, variables, {key: [call(marker)]}), protocol=4))
    sheet = stylesheet()
    assert load_parsed_css(sheet, path) == frozenset()
    assert not marker.exists()
    assert rules_css(sheet) == rules_css(stylesheet())


def test_getattr_in_a_kept_parse_reaches_enum_members_and_a_dict_s_look_ups_alone() -> None:
    assert _kept_attribute(Unit, "CELLS") is Unit.CELLS
    rules = {"color": 1}
    assert _kept_attribute(rules, "get")("color") == 1
    for owner, name in [(RuleSet, "__init__"), (rules, "pop"), (Path, "mkdir"), (os, "system")]:
        with pytest.raises(pickle.UnpicklingError):
            _kept_attribute(owner, name)
