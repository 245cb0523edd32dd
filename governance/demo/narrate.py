# pyright: basic
"""How the demo talks: numbered steps, plain sentences, and each `mlgov` command with its output.

Commands run as a user runs them: a child process `python -m governance ...` (the `mlgov`
console script is the same CLI), from the repository root, with MLGOV_API_ENDPOINTS pointing at
the local servers. Output is printed as the command wrote it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import textwrap
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WIDTH = 100


def _fill(text: str, first: str = "", rest: str = "") -> str:
    # Names like mock-budget-budget or acme-ml-dev stay whole.
    return textwrap.fill(
        " ".join(text.split()),
        WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_on_hyphens=False,
        break_long_words=False,
    )


class StepFailed(RuntimeError):
    """A command answered differently from what the demo expects of it."""


@dataclass(frozen=True)
class Result:
    """One command's exit code and output."""

    code: int
    out: str
    err: str


class Narrator:
    """Prints the demo's story; `total` steps, numbered as they come."""

    def __init__(self, total: int, env: Mapping[str, str]) -> None:
        self.total = total
        self.done = 0
        self.env = dict(env)
        self.started = time.monotonic()

    def step(self, title: str) -> None:
        """Start the next numbered step."""
        self.done += 1
        print(f"\n== {self.done}/{self.total}  {title}", flush=True)

    def say(self, *paragraphs: str) -> None:
        """Plain sentences, wrapped."""
        for text in paragraphs:
            print(_fill(text), flush=True)

    def point(self, text: str) -> None:
        """One indented fact (what the demo saw in the fake cloud or the function's log)."""
        print(_fill(text, "  - ", "    "), flush=True)

    def detail(self, text: str) -> None:
        """A sentence under a point (why an action happened), further indented."""
        print(_fill(text, "      ", "      "), flush=True)

    def mlgov(
        self, args: Sequence[str], *, show: bool = True, expect: Sequence[int] = (0,)
    ) -> Result:
        """Run `mlgov ARGS`; print it and (when `show`) its output; StepFailed on other codes."""
        print(f"\n$ mlgov {shlex.join(args)}", flush=True)
        completed = subprocess.run(  # noqa: S603 - our own CLI, argv built here
            [sys.executable, "-m", "governance", *args],
            cwd=REPO,
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            check=False,
        )
        if show:
            print(completed.stdout.rstrip("\n"), flush=True)
        if completed.returncode not in expect:
            raise StepFailed(
                f"`mlgov {shlex.join(args)}` exited {completed.returncode}:\n"
                f"{completed.stderr.strip() or completed.stdout.strip()}"
            )
        if show and completed.stderr.strip():
            print(completed.stderr.rstrip("\n"), file=sys.stderr, flush=True)
        return Result(completed.returncode, completed.stdout, completed.stderr)

    def elapsed(self) -> float:
        """Seconds since the demo started."""
        return time.monotonic() - self.started
