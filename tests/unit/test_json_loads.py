"""The start's JSON reader reads what json.loads reads and refuses what it refuses."""

from __future__ import annotations

import json

import pytest
from topiclens.store.json_loads import loads

READ = [
    '{"view": 4, "entry": "b44be91bfe503939", "unread_only": false, "filter": {"source": null}}',
    '[["kernel", 0.048814], ["硬件", 0.017818]]',
    ' \t\n[1, -2.5e3, "a\\u00e9\\n", null, true, {}]\r\n',
    '"text"',
    "12",
    "NaN",
    "{}",
]


@pytest.mark.parametrize("text", READ)
def test_reads_what_json_reads(text: str) -> None:
    value = loads(text)
    expected = json.loads(text)
    assert value == expected or (value != value and expected != expected)  # NaN
    assert type(value) is type(expected)


@pytest.mark.parametrize("text", ["", "  ", "[1, 2", '{"a": 1} x', "[1] [2]", "{'a': 1}", "tru"])
def test_refuses_what_json_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        loads(text)


def test_too_deep_is_a_recursion_error() -> None:
    with pytest.raises(RecursionError):
        loads("[" * 100_000 + "]" * 100_000)
