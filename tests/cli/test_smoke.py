"""The real command, one process per exit code: `python -m governance` and the `mlgov` script.

Everything else about the CLI is tested in-process (test_plan_cli.py and the other tests/cli
modules); these check what only a process shows: the entry points, exit statuses, streams.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

MLGOV = Path(sys.executable).with_name("mlgov")


def run(argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=REPO, input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def test_exit_0_plan_of_the_dev_stack() -> None:
    result = run([sys.executable, "-m", "governance", "plan", "--stack", "dev"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("mlgov plan for stack dev\n")
    assert result.stdout.rstrip().endswith("OK: no mandatory violations, 0 advisory")
    assert result.stderr == ""


def test_exit_1_check_of_a_violating_document_on_stdin() -> None:
    doc = {
        "stack": "dev",
        "resources": [
            {
                "type": "gcp:workbench/instance:Instance",
                "name": "nb-alice",
                "inputs": {
                    "location": "us-central1-a",
                    "gceSetup": {"machineType": "e2-standard-4"},
                },
            }
        ],
    }
    result = run([str(MLGOV), "check", "-"], stdin=json.dumps(doc))
    assert result.returncode == 1, result.stderr
    assert "[MANDATORY] mlgov-workbench-idle-shutdown on nb-alice" in result.stdout
    assert "FAIL:" in result.stdout


def test_exit_2_stack_file_that_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_bytes(b"config:\n  gcp:project: \xff\xfe\n")
    result = run([str(MLGOV), "plan", "--config", str(path)])
    assert result.returncode == 2
    assert result.stderr == (
        f"mlgov: error: {path}: not UTF-8 text (invalid byte at offset 23); save it as UTF-8\n"
    )
    assert result.stdout == ""
