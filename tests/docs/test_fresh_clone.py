"""The README's first screen, followed literally on a fresh clone of this commit.

Marked `freshclone` (excluded from the default run; `make fresh-clone-check`, part of `make
e2e`). The clone is of the committed HEAD, so it has no .venv, .tools or .bqemu-venv: every
command must install what it needs. Every command of the quick start's sh block runs as shown,
except `make test`: that one is what CI itself runs on a clean clone (.ci/run, pinned by
test_docs.py), and running it here would run this test inside itself.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.freshclone


def first_screen_commands(readme: str) -> list[str]:
    """Every command of the quick start's sh blocks, in order."""
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert blocks
    return [
        line.split("#", 1)[0].strip()
        for block in blocks
        for line in block.splitlines()
        if line.strip()
    ]


def test_the_first_screen_works_on_a_fresh_clone(tmp_path: Path) -> None:
    clone = tmp_path / "mlgov"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    assert not (clone / ".venv").exists()
    readme = (clone / "README.md").read_text()
    commands = first_screen_commands(readme)
    assert commands == ["make plan", "make test", 'export PATH="$PWD/.venv/bin:$PATH"']
    env = {
        k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "MAKEFLAGS", "MAKELEVEL")
    }
    for command in commands:
        if command == "make test":
            continue  # CI's own command on a clean clone (see the module docstring)
        if command.startswith("export "):
            continue  # a shell's own command: run below, with the mlgov it puts on PATH
        done = subprocess.run(
            command.split(), cwd=clone, env=env, capture_output=True, text=True, timeout=1800
        )
        assert done.returncode == 0, f"{command}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        out = done.stdout.splitlines()
        # What the first screen says `make plan` shows: the table's first and last lines.
        assert "mlgov plan for stack dev" in out
        assert any(line.startswith("estimated $") for line in out)
        assert out[-1] == "OK: no mandatory violations, 0 advisory"
        # Piped, the table is plain and at most 120 columns wide.
        table = out[out.index("mlgov plan for stack dev") :]
        assert max(len(line) for line in table) <= 120
    # The export line, then a bare `mlgov` as the README's commands show it (bash: `$PWD`).
    preview = "tests/formats/data/preview_gcp_ml-platform_show-sames.json"
    path = next(c for c in commands if c.startswith("export PATH="))
    shell = f"{path} && command -v mlgov && mlgov check -q {preview}"
    done = subprocess.run(
        ["bash", "-c", shell], cwd=clone, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.stdout.startswith(f"{clone}/.venv/bin/mlgov\n"), done.stderr[-3000:]
    assert f"mlgov check for {preview}" in done.stdout
