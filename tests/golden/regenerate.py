"""Regenerate the golden plan documents: `.venv/bin/python tests/golden/regenerate.py`.

The goldens pin behaviour across refactors: `mlgov plan --config F --json` for each shipped
stack (run in-process through the CLI's `main`, from the repository root), with `usage.as_of`
fixed so expiry proration does not move with the calendar. Regenerate only for a deliberate
change, and say in the commit what changed and why.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml

from governance.cli.main import main

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent
STACKS = ("dev", "staging", "prod")
AS_OF = "2026-11-01"


def pinned_config(stack: str) -> dict[str, Any]:
    """The stack file with `usage.as_of` pinned."""
    data = yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8"))
    data["config"]["mlgov:settings"].setdefault("usage", {})["as_of"] = AS_OF
    return data


def plan(stack: str) -> dict[str, Any]:
    """The plan document of a shipped stack, as the CLI prints it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"Pulumi.{stack}.yaml"
        path.write_text(yaml.safe_dump(pinned_config(stack)), encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        cwd = Path.cwd()
        os.chdir(REPO)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["plan", "--config", str(path), "--json"])
        finally:
            os.chdir(cwd)
    if code not in (0, 1):
        raise RuntimeError(err.getvalue())
    # The functions archive is named by a hash of functions/: any change to that source renames
    # it, which is expected and not a change of behaviour.
    return json.loads(_ARCHIVE.sub("functions-<source-hash>.zip", out.getvalue()))


_ARCHIVE = re.compile(r"functions-[0-9a-f]{16}\.zip")


if __name__ == "__main__":
    for name in STACKS:
        (GOLDEN / f"plan.{name}.json").write_text(
            json.dumps(plan(name), indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        print(f"wrote tests/golden/plan.{name}.json")
