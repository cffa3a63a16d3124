"""Instructions (valgrind's count, which a shared machine's load does not change) that
parsing one feed of the feeds bench costs, for each interpreter given (each environment's
own topiclens): what the parse worker does with a body but tokenize it
(:func:`topiclens.store.feed_parse.parse_feed` and
:func:`topiclens.feeds.refresh.parsed_check`), or with ``--tokens`` all of it
(:func:`topiclens.feeds.refresh.parse_fetched`).

    python bench/feed_parse_instructions.py FOLDER PYTHON [PYTHON ...] [--feeds 30]

FOLDER holds feeds as ``bench/bench_feeds.py`` writes them (``write_feeds``). Each count is
the difference of two runs under ``valgrind --tool=callgrind``: 3 feeds (the imports and a
first parse), then 3 and ``--feeds`` more, divided by ``--feeds``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

RUN = """
import sys
from pathlib import Path
from topiclens.feeds.fetch import Fetched, Validators
from topiclens.feeds.refresh import parse_fetched, parsed_check
from topiclens.store.feed_parse import parse_feed
from topiclens.store.models import Feed
folder, count, tokens = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
paths = sorted(folder.iterdir(), key=lambda p: int(p.stem[4:]))
for p in paths[: 3 + count]:
    url = "http://127.0.0.1:9/" + p.name
    body = p.read_bytes()
    f = Fetched(url, url, None, 200, body, {"content-type": "application/xml"},
                Validators(), None, None)
    if tokens:
        parse_fetched(Feed(1, url), f, 1764547200.0)
    else:
        parsed_check(Feed(1, url), f, parse_feed(body, url=url, headers=f.headers), 1.0)
"""


def instructions(python: str, folder: str, count: int, tokens: bool) -> int:
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python, "-c", RUN]
    done = subprocess.run(
        [*cmd, folder, str(count), "1" if tokens else "0"], capture_output=True, text=True
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"{python}: {done.stderr[-500:]}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    parser.add_argument("pythons", nargs="+")
    parser.add_argument("--feeds", type=int, default=30)
    parser.add_argument("--tokens", action="store_true", help="tokenize too")
    args = parser.parse_args()
    first = None
    for python in args.pythons:
        base = instructions(python, args.folder, 0, args.tokens)
        more = instructions(python, args.folder, args.feeds, args.tokens)
        per_feed = (more - base) / args.feeds
        first = first or per_feed
        print(f"{python}: {per_feed / 1e6:.1f} M instructions per feed "
              f"({per_feed / first:.3f} of the first)", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
