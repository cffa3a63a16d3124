"""A second (third…) topiclens process for the crash and concurrency tests.

    python act.py toggle DATA_DIR COUNT MODULUS    toggle bookmarks COUNT times
    python act.py bookmark DATA_DIR NOTE           bookmark every entry, one write each
    python act.py recluster DATA_DIR ROUNDS K      write ROUNDS clustering results
    python act.py watch DATA_DIR STOPFILE          read while others write, until STOPFILE
    python act.py hold-import DATA_DIR FILE AFTER  import FILE, stop inside the transaction

Each prints one line per operation *after* the store returned from it (flushed), so the
test knows exactly which writes had returned when it killed the process. `toggle` and
`recluster` print "ready" once the store is open, then wait for a line on their standard
input: the test starts them all at the same moment. Only the public Store API is used:
this is what the reader, the importer and the clustering do.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from topiclens.store import Store, Topic
from topiclens.store.models import Entry
from topiclens.store.parsers import parse_file


def say(*parts: object) -> None:
    sys.stdout.write(" ".join(str(p) for p in parts) + "\n")
    sys.stdout.flush()


def ids_in_order(store: Store) -> list[str]:
    return sorted(e.id for e in store.entries())


def ready() -> None:
    """Say the store is open, then wait for the test's go (a line on standard input)."""
    say("ready")
    sys.stdin.readline()


def toggle(data_dir: str, count: str, modulus: str) -> None:
    with Store.open_dir(data_dir) as store:
        ids = ids_in_order(store)
        ready()
        for k in range(int(count)):
            eid = ids[k % int(modulus)]
            say(eid, int(store.toggle_bookmark(eid)))
            store.bookmark_ids()  # as the reader does to redraw its marks
            # the pace of a hand on the keyboard: the two processes take turns, which is
            # what the test is about (without it one could hold the lock for every write)
            time.sleep(0.0005)


def bookmark(data_dir: str, note: str) -> None:
    with Store.open_dir(data_dir) as store:
        for eid in ids_in_order(store):
            store.set_bookmark(eid, True, note)
            say(eid)


def recluster(data_dir: str, rounds: str, k: str) -> None:
    """Round g puts every entry in topic (i + g) % K and names the topics after g."""
    with Store.open_dir(data_dir) as store:
        ids = ids_in_order(store)
        ready()
        n = int(k)
        for g in range(int(rounds)):
            sizes = [0] * n
            assignments = {}
            for i, eid in enumerate(ids):
                tid = (i + g) % n
                sizes[tid] += 1
                assignments[eid] = (tid + 1, 0.5, [f"g{g}"])
            topics = [Topic(t + 1, f"g{g}-t{t + 1}", [(f"g{g}", 1.0)], sizes[t]) for t in range(n)]
            store.replace_topics(topics, assignments)
            say(g)


SNAPSHOT = (
    "SELECT (SELECT count(*) FROM entries), (SELECT count(*) FROM topic_assignments), "
    "(SELECT coalesce(sum(size), 0) FROM topics), "
    "(SELECT count(DISTINCT substr(name, 1, instr(name, '-'))) FROM topics), "
    "(SELECT count(*) FROM bookmarks), "
    "(SELECT coalesce(min(substr(name, 2, instr(name, '-') - 2)), -1) FROM topics)"
)


def watch(data_dir: str, stopfile: str) -> None:
    """What the reader does while another process writes: read, and notice changes. One
    statement per reading, so each line is one consistent snapshot."""
    with Store.open_dir(data_dir) as store:
        seen = store.external_changes()
        changes = 0
        stop = Path(stopfile)
        while True:
            last = stop.exists()
            entries, assigned, sized, generations, marks, generation = store.query(SNAPSHOT)[0]
            now = store.external_changes()
            changes += now != seen
            seen = now
            store.topics()
            store.bookmark_ids()
            say("snap", entries, assigned, sized, generations, marks, generation)
            if last:
                break
            time.sleep(0.002)  # the reader's own pace: a few hundred readings a second
        say("changes", changes)


def hold_import(data_dir: str, path: str, after: str) -> None:
    """Import FILE through the store's one transaction, but stop for good after AFTER
    entries have gone in, with the transaction open: the moment to be killed."""
    result = parse_file(path)

    def entries() -> Iterator[Entry]:
        for i, entry in enumerate(result.entries):
            if i == int(after):
                say("inside", i)
                while True:
                    signal.pause()  # inside the transaction until the test kills us
            yield entry

    with Store.open_dir(data_dir) as store:
        store.add_entries(entries())


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {
        "toggle": toggle,
        "bookmark": bookmark,
        "recluster": recluster,
        "watch": watch,
        "hold-import": hold_import,
    }[command](*args)
