"""A refresh places its new entries with the saved model's arrays: in a fresh process (as
``topiclens refresh`` runs), against a real HTTP server on localhost, the new entries join
their topics and scikit-learn is never imported."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from feed_server import FeedServer, Reply
from helpers import KV, rss
from topiclens.store import Store

pytestmark = pytest.mark.slow  # a fresh process, HTTP and the clustered corpus

REFRESH = """
import json, sys
from topiclens.feeds.refresh import refresh
from topiclens.store import Store

with Store.open_dir(sys.argv[1]) as store:
    summary = refresh(store)
    print(json.dumps({
        "new": summary.new,
        "unplaced": store.count_unassigned(),
        "topics": [t.name for t in summary.topics],
        "sklearn": sorted(m for m in sys.modules if m.split(".")[0] == "sklearn")[:3],
    }))
"""


@pytest.fixture
def server() -> Iterator[FeedServer]:
    with FeedServer() as s:
        yield s


def test_a_refresh_places_without_importing_scikit_learn(server: FeedServer, bundled_home: Path):
    server.route("/kv.xml", Reply(200, rss("KV Blog", KV)))
    with Store.open_dir(bundled_home) as store:
        store.add_feed(server.url("/kv.xml"))
    done = subprocess.run(
        [sys.executable, "-c", REFRESH, str(bundled_home)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["new"] == 2 and said["unplaced"] == 0 and said["topics"]
    assert said["sklearn"] == []
