"""Build the short-English-title corpus ``debian-crisp`` from Debian's package index.

Debian's package index (``/var/lib/apt/lists/*_main_binary-amd64_Packages*``, there after
``apt-get update`` on a Debian machine) gives each package a one-line synopsis
(``Description:``) and a ``Section:``. This script keeps 20 sections whose synopses name
what they are about (a keyword of the section in the synopsis, as a Stack Overflow title
names its tag), drops documentation, debug, data, common and -dev packages and repeated
synopses, and samples up to 100 synopses a section (``random.Random(0)``, packages in name
order): about 1,800 short English titles in 20 crisp classes. Nothing is committed: the
synopses are the packages' own texts under each package's licence, so the corpus is made
where it is used.

    python bench/corpora/debian_synopses.py [-o /tmp/topiclens-corpora/debian-crisp.jsonl]

``--unfiltered`` makes the not-crisp twin used in docs/clustering.md ("Spectral or not")
(debian-titles: the same sections, no keyword filter, 100 synopses each, 2,000 titles):

    python bench/corpora/debian_synopses.py --unfiltered -o /tmp/deb/debian-synopses-2000.jsonl
"""

from __future__ import annotations

import argparse
import glob
import json
import random
import re
import subprocess
from pathlib import Path

DEFAULT = Path("/tmp/topiclens-corpora/debian-crisp.jsonl")
# section -> a keyword pattern its synopses must contain (case-insensitive, except gnu-r)
KEYWORDS = {
    "perl": r"\bperl\b",
    "ruby": r"\bruby\b",
    "php": r"\bphp\b",
    "haskell": r"\bhaskell\b",
    "ocaml": r"\bocaml\b",
    "javascript": r"\b(javascript|js|node\.?js)\b",
    "gnu-r": r"\bgnu r\b|\bR\b",
    "fonts": r"\bfonts?\b",
    "games": r"\bgames?\b",
    "sound": r"\b(audio|sound|music|midi)\b",
    "graphics": r"\b(image|graphics?|svg|png)\b",
    "mail": r"\b(e-?mail|mail|imap|smtp)\b",
    "math": r"\b(math\w*|algebra|numerical)\b",
    "database": r"\b(database|sql|sqlite|mysql|postgresql)\b",
    "editors": r"\beditors?\b",
    "electronics": r"\b(circuit|fpga|electronic\w*|pcb|vhdl|verilog)\b",
    "hamradio": r"\b(radio|ham|amateur|morse|aprs)\b",
    "video": r"\b(video|movie|dvd|mpeg)\b",
    "tex": r"\b(tex|latex|bibtex)\b",
    "vcs": r"\b(git|svn|subversion|mercurial|version control)\b",
}

# the order the unfiltered sample was drawn in (the random draws follow it)
UNFILTERED_ORDER = [
    "games",
    "sound",
    "graphics",
    "fonts",
    "mail",
    "math",
    "database",
    "editors",
    "electronics",
    "hamradio",
    "gnu-r",
    "haskell",
    "perl",
    "ruby",
    "php",
    "javascript",
    "ocaml",
    "video",
    "tex",
    "vcs",
]


def packages_text() -> str:
    paths = sorted(glob.glob("/var/lib/apt/lists/*_main_binary-amd64_Packages*"))
    if not paths:
        raise SystemExit("no Debian package index: run apt-get update first")
    # the release's own index, not its security or updates index (both also match)
    path = max(paths, key=lambda p: Path(p).stat().st_size)
    if path.endswith(".lz4"):
        return subprocess.run(["lz4cat", path], capture_output=True, check=True, text=True).stdout
    return Path(path).read_text(encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT)
    parser.add_argument("--unfiltered", action="store_true", help="no keyword filter")
    args = parser.parse_args()
    records = []
    for block in packages_text().split("\n\n"):
        fields = dict(re.findall(r"^([A-Za-z-]+): (.*)$", block, flags=re.M))
        if {"Package", "Section", "Description"} <= fields.keys():
            section = fields["Section"].split("/")[-1]
            records.append((fields["Package"], section, fields["Description"].strip()))
    rng = random.Random(0)
    out = []
    sections = UNFILTERED_ORDER if args.unfiltered else list(KEYWORDS)
    for section in sections:
        pattern = "" if args.unfiltered else KEYWORDS[section]
        flags = 0 if section == "gnu-r" else re.I
        seen: set[str] = set()
        pool = []
        for name, sec, synopsis in sorted(records):
            if sec != section or re.search(r"-(doc|dbg|dbgsym|data|common|dev)$", name):
                continue
            if not re.search(pattern, synopsis, flags) or synopsis.lower() in seen:
                continue
            seen.add(synopsis.lower())
            pool.append((name, synopsis))
        for name, synopsis in rng.sample(pool, min(100, len(pool))):
            out.append({"id": name, "title": synopsis, "summary": "", "label": section})
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with args.output.open("w", encoding="utf-8") as f:
        for row in out:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(out)} synopses in {len(sections)} sections -> {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
