"""The package as a user installs it: wheel built with uv, installed into a fresh venv, run.

Marked `packaging` (excluded from the default run; `make package-check`, part of `make e2e`):
it builds and installs ~85 packages from uv's cache, which takes longer than a unit test should.
The venv gets the lock's versions of the runtime dependencies (`uv export`), then the wheel.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.packaging

UV = shutil.which("uv") or str(REPO / ".tools" / "bin" / "uv")


def sh(*argv: str, cwd: Path = REPO) -> str:
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    env.pop("VIRTUAL_ENV", None)
    result = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, f"{' '.join(argv)}\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin/ folder of a fresh venv with the built wheel installed."""
    tmp = tmp_path_factory.mktemp("package")
    sh(UV, "build", "--wheel", "--out-dir", str(tmp / "dist"), "--quiet")
    [wheel] = (tmp / "dist").glob("mlgov-*.whl")
    requirements = tmp / "requirements.txt"
    sh(UV, "export", "--frozen", "--no-default-groups", "--no-emit-project", "--no-hashes",
       "--quiet", "--output-file", str(requirements))  # fmt: skip
    sh(UV, "venv", "--quiet", "--python", sys.executable, str(tmp / "venv"))
    python = tmp / "venv" / "bin" / "python"
    sh(UV, "pip", "install", "--quiet", "--python", str(python), "-r", str(requirements),
       str(wheel))  # fmt: skip
    return python.parent


def test_mlgov_version(installed: Path) -> None:
    from governance import __version__

    assert sh(str(installed / "mlgov"), "--version").strip() == f"mlgov {__version__}"


def test_components_and_bundled_functions_import_from_the_wheel(
    installed: Path, tmp_path: Path
) -> None:
    from governance.components.automation import source_files, source_hash

    code = (
        "import governance, mlgov_policies.vocabulary\n"
        "from governance.components import NotebookFleet, GovernanceFunctions\n"
        "from governance.components.automation import functions_dir, source_files, source_hash\n"
        "print(governance.__file__); print(functions_dir())\n"
        "print(source_hash(source_files(functions_dir())))\n"
    )
    module, functions, digest = sh(str(installed / "python"), "-c", code, cwd=tmp_path).split()
    site = str(installed.parent / "lib")
    assert module.startswith(site) and functions.startswith(site)  # not the checkout
    assert functions.endswith("governance/_functions")
    # The installed package deploys exactly the functions of this checkout.
    assert digest == source_hash(source_files(REPO / "functions"))


def test_check_runs_from_the_installed_command(installed: Path, tmp_path: Path) -> None:
    golden = REPO / "tests" / "golden" / "plan.dev.json"
    out = sh(str(installed / "mlgov"), "check", str(golden), cwd=tmp_path)
    assert out.rstrip().endswith("OK: no mandatory violations, 0 advisory")


def test_py_typed_is_shipped(installed: Path) -> None:
    out = sh(str(installed / "python"), "-c",
             "import importlib.resources as r; print(r.files('governance').joinpath('py.typed').is_file())")  # fmt: skip
    assert out.strip() == "True"
