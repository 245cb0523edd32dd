"""The README's quick start is exactly what CI and the Makefile run, and its examples work."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import REPO

README = (REPO / "README.md").read_text()


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "the quick start has no sh block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_quick_start_is_exactly_two_commands() -> None:
    assert quick_start_commands() == ["make plan", "make test"]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    commands = [
        line.strip()
        for line in ci.splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "set ", "cd "))
    ]
    assert commands == [quick_start_commands()[1]]


def test_makefile_targets_install_before_running() -> None:
    makefile = (REPO / "Makefile").read_text()
    for target in ("plan", "test"):
        rule = re.search(rf"^{target}:(.*)$", makefile, re.M)
        assert rule is not None, f"no `{target}` target"
        assert "install" in rule.group(1).split(), f"`make {target}` must install first"
    assert "uv.lock" in makefile and "--frozen" in makefile


def test_make_dry_run_plan_uses_the_dev_stack() -> None:
    result = subprocess.run(
        ["make", "-n", "plan"], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert "-m governance plan --stack dev" in result.stdout


def test_readme_cli_examples_name_real_subcommands() -> None:
    from governance.tools.cli import build_parser

    parser = build_parser()
    for line in re.findall(r"python -m governance ([a-z][a-z-]*)", README):
        assert line in parser._subparsers._group_actions[0].choices, line  # type: ignore[union-attr]


def test_readme_python_examples_run() -> None:
    blocks = re.findall(r"(<!-- skip -->\n)?```python\n(.*?)```", README, re.S)
    runnable = [code for skip, code in blocks if not skip]
    assert runnable, "the README has no python example"
    for code in runnable:
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - our own documentation
