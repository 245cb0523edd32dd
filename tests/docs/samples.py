"""Regenerate the `<!-- sample: mlgov ARGS -->` blocks of README.md and docs/ from the code.

    .venv/bin/python -m tests.docs.samples           # list the stale samples, exit 1 if any
    .venv/bin/python -m tests.docs.samples --write   # rewrite them in place

Each command runs as tests/docs/test_docs.py runs it (repository root, COLUMNS=110, `spend`
against an emulator holding the demo's export). A block without `…` is replaced by the whole
output. A block with one `…` keeps as many lines before and after it as it had (the head and the
tail of the output); a block with several is reported for a person to update, since which lines
it keeps is an editorial choice. Demo samples (`<!-- demo-sample -->`) are checked by
tests/walkthrough/test_demo.py against a real `make demo`, and edited by hand.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime

from tests.docs import pages


@contextlib.contextmanager
def emulator_with_the_demo_export() -> Iterator[str]:
    """A BigQuery emulator holding the export `make demo` loads; yields its URL."""
    from governance.demo.export import load_month
    from governance.fakecloud.bqemulator import Emulator

    emulator = Emulator("acme-ml-dev").start()
    try:
        load_month(emulator, "acme-ml-dev", datetime.now(UTC))
        yield emulator.url
    finally:
        emulator.stop()


def output(args: str, bigquery: str | None) -> list[str]:
    """What `mlgov ARGS` prints, the way the docs quote it."""
    from governance.cli.main import main

    os.environ["COLUMNS"] = "110"
    if bigquery is not None:
        os.environ["MLGOV_API_ENDPOINTS"] = json.dumps({"bigquery": bigquery})
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(args.split())
    os.environ.pop("MLGOV_API_ENDPOINTS", None)
    return out.getvalue().splitlines()


def refreshed(sample: pages.Sample, actual: list[str]) -> list[str] | None:
    """The block's new lines, or None when a person must choose them (several `…`)."""
    elisions = sample.lines.count(pages.ELIDED)
    if elisions == 0:
        return actual
    if elisions > 1:
        return None
    cut = sample.lines.index(pages.ELIDED)
    head, tail = cut, len(sample.lines) - cut - 1
    return [*actual[:head], pages.ELIDED, *(actual[-tail:] if tail else [])]


def main() -> int:
    """Check or rewrite every sample; exit 1 when one is stale (and not rewritten)."""
    parser = argparse.ArgumentParser(prog="python -m tests.docs.samples")
    parser.add_argument("--write", action="store_true", help="rewrite the stale samples")
    write = parser.parse_args().write
    os.chdir(pages.REPO)
    stale = 0
    with contextlib.ExitStack() as stack:
        bigquery: str | None = None
        for sample in pages.samples():
            assert sample.args is not None
            if sample.args.startswith("spend") and bigquery is None:
                bigquery = stack.enter_context(emulator_with_the_demo_export())
            actual = output(sample.args, bigquery if sample.args.startswith("spend") else None)
            if pages.matches(sample.lines, actual):
                continue
            new = refreshed(sample, actual)
            if not write or new is None:
                stale += 1
                why = "" if new is not None else " (several `…`: update it by hand)"
                print(f"stale: {sample.id}{why}")
                continue
            text = sample.page.read_text(encoding="utf-8")
            marker = f"<!-- sample: mlgov {sample.args} -->\n```text\n"
            old = marker + "\n".join(sample.lines) + "\n```"
            sample.page.write_text(
                text.replace(old, marker + "\n".join(new) + "\n```", 1), encoding="utf-8"
            )
            print(f"rewrote: {sample.id}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
