"""What the benches that run two versions of topiclens side by side share (each version an
interpreter of another worktree's environment): which topiclens each imports, an
environment that writes bytecode caches, valgrind's instruction count, and the load."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping, Sequence


def compiling_env() -> dict[str, str]:
    """This environment without PYTHONDONTWRITEBYTECODE: without bytecode caches every
    run would compile topiclens anew, and a count would include it."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def say_versions(versions: Mapping[str, str]) -> None:
    """Print each version's interpreter and where its ``import topiclens`` finds it."""
    for name, python in versions.items():
        where = subprocess.run(
            [python, "-c", "import topiclens; print(topiclens.__file__)"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        print(f"{name}: {python} (topiclens from {where})")


def compile_imports(versions: Mapping[str, str], code: str) -> None:
    """Run ``code`` (its imports) in each version's interpreter with bytecode written, so
    that no timed or counted run compiles them."""
    for python in versions.values():
        subprocess.run([python, "-c", code], check=True, env=compiling_env())


def instructions(argv: Sequence[str], *valgrind_options: str) -> int:
    """The instructions valgrind (cachegrind, no cache simulation) counts for ``argv``,
    run in :func:`compiling_env`; SystemExit with valgrind's last words if it fails."""
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         *valgrind_options, *argv],
        capture_output=True, text=True, env=compiling_env(),
    )  # fmt: skip
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"{argv[0]}: {done.stderr[-800:]}")
    return int(found.group(1).replace(",", ""))


def load() -> str:
    """The load averages, to print beside a figure."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"
