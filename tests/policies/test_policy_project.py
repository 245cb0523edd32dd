"""The pack as Pulumi runs it: PulumiPolicy.yaml, its environment, pins, entry point, tokens.

`pulumi preview --policy-pack policies` runs `<virtualenv>/bin/python -m pulumi.policy` from
policies/ (pulumi-analyzer-policy-python), which loads __main__.py with policies/ on sys.path.
No Pulumi CLI exists here, so these tests check each piece that chain relies on.
"""

from __future__ import annotations

import ast
import re
import subprocess
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
POLICIES = ROOT / "policies"
PACKAGE = POLICIES / "mlgov_policies"


def _project() -> dict:
    return yaml.safe_load((POLICIES / "PulumiPolicy.yaml").read_text())


def test_pulumi_policy_yaml_has_python_runtime_version_and_description() -> None:
    project = _project()
    assert set(project) <= {
        "runtime",
        "version",
        "main",
        "description",
        "author",
        "website",
        "license",
    }
    assert project["runtime"]["name"] == "python"
    assert set(project["runtime"]["options"]) == {"virtualenv"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", project["version"])
    assert project["description"].strip()


def test_pack_version_is_the_package_version() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    if "version" in pyproject.get("dynamic", []):
        return  # a dynamic version is the packaging's business; semver is checked above
    assert _project()["version"] == pyproject["version"]


def test_virtualenv_is_the_environment_make_install_builds() -> None:
    virtualenv = _project()["runtime"]["options"]["virtualenv"]
    makefile = (ROOT / "Makefile").read_text()
    venv = re.search(r"^VENV := (\S+)$", makefile, re.M)
    assert venv is not None
    assert (POLICIES / virtualenv).resolve() == (ROOT / venv.group(1)).resolve()


def test_pack_environment_loads_the_policies_from_the_pack_directory() -> None:
    # What the analyzer shim does, minus serving: the pack's Python, cwd policies/, "." on the path.
    python = POLICIES / _project()["runtime"]["options"]["virtualenv"] / "bin" / "python"
    code = (
        "import sys; sys.path.insert(0, '.'); import pulumi.policy, pulumi_policy;"
        "from mlgov_policies.pack import POLICIES; print(len(POLICIES))"
    )
    result = subprocess.run(
        [str(python), "-c", code], cwd=POLICIES, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    from mlgov_policies.registry import RULES

    assert int(result.stdout) == len(RULES)


def test_pack_requirements_match_uv_lock() -> None:
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    locked = {p["name"]: p["version"] for p in lock["package"]}
    pins = {}
    for line in (POLICIES / "requirements.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.strip()] = version.strip()
    assert set(pins) == {"pulumi-policy", "pulumi"}
    for name, version in pins.items():
        assert locked[name] == version, name


def test_main_only_builds_the_pack() -> None:
    tree = ast.parse((POLICIES / "__main__.py").read_text())
    body = [node for node in tree.body if not isinstance(node, ast.Import | ast.ImportFrom)]
    docstring, *statements = body
    assert isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)
    assert len(statements) == 1
    (call,) = statements
    assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)
    assert ast.unparse(call.value.func) == "PolicyPack"
    keywords = {k.arg: ast.unparse(k.value) for k in call.value.keywords}
    assert keywords["policies"] == "POLICIES"


_TOKEN = re.compile(
    r"""["'](gcp|random|pulumi|mlgov):[A-Za-z0-9]+(/[A-Za-z0-9]+)?:[A-Za-z0-9]+["']"""
)


def test_type_tokens_are_spelled_only_in_vocabulary() -> None:
    modules = [*PACKAGE.glob("*.py"), *(PACKAGE / "rules").glob("*.py")]
    offenders = {
        path.relative_to(PACKAGE).as_posix(): [
            m.group(0) for m in _TOKEN.finditer(path.read_text())
        ]
        for path in modules
        if path.name != "vocabulary.py"
    }
    assert {name: found for name, found in offenders.items() if found} == {}
