"""A changed PY_BOOT rebuilds .venv (or python-check says why not); the same one changes nothing.

The Makefile runs in a scratch folder with `make -n` (nothing is installed): the interpreters are
small scripts that print a version and a path the way the Makefile asks PY_BOOT for them, and
the "installed" marker is an empty file. What make would run shows what it decided.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import REPO


def _interpreter(folder: Path, name: str, version: str) -> Path:
    """A stand-in for PY_BOOT: answers the Makefile's identity question as `version path`."""
    path = folder / name
    path.write_text(f"#!/bin/sh\necho '{version} {path}'\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    shutil.copy(REPO / "Makefile", tmp_path / "Makefile")
    for name in ("pyproject.toml", "uv.lock"):
        (tmp_path / name).write_text("")
    (tmp_path / ".tools" / "bin").mkdir(parents=True)
    (tmp_path / ".tools" / "bin" / "uv").write_text("")
    (tmp_path / ".venv").mkdir()
    past = time.time() - 60
    for path in (tmp_path / "pyproject.toml", tmp_path / "uv.lock", tmp_path / ".tools/bin/uv"):
        os.utime(path, (past, past))
    (tmp_path / ".venv" / ".installed").write_text("")  # installed after its inputs
    return tmp_path


def _dry_install(checkout: Path, py_boot: Path) -> str:
    result = subprocess.run(
        ["make", "-n", "install", f"PY_BOOT={py_boot}"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return result.stdout


def test_the_same_interpreter_changes_nothing_and_another_rebuilds(checkout: Path) -> None:
    py311 = _interpreter(checkout, "python3.11", "3.11.7")
    first = _dry_install(checkout, py311)
    # An existing checkout's first stamp takes the marker's time: no rebuild for it.
    assert "uv sync" not in first
    assert (checkout / ".tools" / "py-boot").read_text().strip() == f"3.11.7 {py311}"
    assert "uv sync" not in _dry_install(checkout, py311)

    time.sleep(0.01)  # the new stamp must be newer than the marker
    py312 = _interpreter(checkout, "python3.12", "3.12.1")
    switched = _dry_install(checkout, py312)
    assert "rebuilding .venv with it" in switched
    assert "rm -rf .venv" in switched
    assert f"sync --frozen --quiet --python {py312}" in switched
    assert (checkout / ".tools" / "py-boot").read_text().strip() == f"3.12.1 {py312}"


def test_an_interpreter_that_does_not_run_is_refused_with_the_reason(checkout: Path) -> None:
    result = subprocess.run(
        ["make", "install", "PY_BOOT=python2.5-not-here"],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "mlgov needs Python 3.11, 3.12 or 3.13, but 'python2.5-not-here' is not found" in (
        result.stderr
    )
    assert not (checkout / ".tools" / "py-boot").exists()
