"""The README's quick start is exactly what CI and the Makefile run, and its examples are real.

- the quick start is two commands, and .ci/run runs the second;
- every `mlgov X` / `python -m governance X` it shows is a real subcommand;
- every fenced python block runs, under Pulumi mocks (component examples register resources);
- every block after `<!-- sample: mlgov ARGS -->` is what `mlgov ARGS` prints (COLUMNS=110,
  from the repository root); a line `…` alone stands for lines left out.
"""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest

from governance.tools.offline import run_under_mocks
from tests.conftest import REPO

README = (REPO / "README.md").read_text()
SAMPLE = re.compile(r"<!-- sample: mlgov (.*?) -->\n```text\n(.*?)```", re.S)


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "the quick start has no sh block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_quick_start_is_exactly_two_commands() -> None:
    assert quick_start_commands() == ["make plan", "make test"]


def test_ci_runs_the_readme_test_command() -> None:
    """.ci/run is the README's test command, after installing the browser the report tests use."""
    ci = (REPO / ".ci" / "run").read_text()
    commands = [
        line.strip()
        for line in ci.splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "set ", "cd "))
    ]
    assert commands == [".ci/browser", "export MLGOV_REQUIRE_BROWSER=1", quick_start_commands()[1]]


def test_makefile_targets_install_before_running() -> None:
    makefile = (REPO / "Makefile").read_text()
    for target in ("plan", "test"):
        rule = re.search(rf"^{target}:(.*)$", makefile, re.M)
        assert rule is not None, f"no `{target}` target"
        assert "install" in rule.group(1).split(), f"`make {target}` must install first"
    assert "uv.lock" in makefile and "--frozen" in makefile
    # `make test` also checks the package as a user installs it.
    test_rule = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "package-check" in test_rule


def test_make_dry_run_plan_uses_the_dev_stack() -> None:
    result = subprocess.run(
        ["make", "-n", "plan"], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert "-m governance plan --stack dev" in result.stdout


def test_install_compiles_the_pulumi_gcp_modules_the_plans_use() -> None:
    makefile = (REPO / "Makefile").read_text()
    block = re.search(r"^GCP_MODULES := (.*?)\n(?=\S)", makefile, re.M | re.S)
    assert block is not None
    listed = set(block.group(1).replace("\\", " ").split())
    used: set[str] = set()
    for stack in ("dev", "staging", "prod"):
        doc = json.loads((REPO / "tests" / "golden" / f"plan.{stack}.json").read_text())
        used |= {r["type"].split(":")[1].split("/")[0] for r in doc["resources"]}
    # mlgov's own dynamic resources (pulumi-python:dynamic/...) are no pulumi_gcp module.
    assert listed == used - {"mlgov", "pulumi", "index", "dynamic"}


def test_readme_cli_examples_name_real_subcommands() -> None:
    from governance.tools.cli import build_parser

    parser = build_parser()
    choices = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    code = re.findall(r"```(?:sh|bash)\n(.*?)```", README, re.S) + re.findall(
        r"`([^`\n]+)`", README
    )
    named = re.findall(r"(?:python -m governance|mlgov) ([a-z][a-z-]*)", "\n".join(code))
    assert named
    for command in named:
        assert command in choices, command


def test_readme_python_examples_run_under_mocks() -> None:
    blocks = re.findall(r"(<!-- skip -->\n)?```python\n(.*?)```", README, re.S)
    runnable = [code for skip, code in blocks if not skip]
    assert len(runnable) >= 2, "the README has no component example"
    registered: list[Any] = []
    for code in runnable:
        program = compile(code, "README.md", "exec")
        registered += run_under_mocks(
            lambda program=program: exec(program, {}),  # noqa: S102 - our own documentation
            {"gcp:project": "shop-ml-dev"},
        )
    assert "gcp:workbench/instance:Instance" in {r.type for r in registered}


def matches(expected: list[str], actual: list[str]) -> bool:
    """`expected` equals `actual`, where a line `…` stands for any number of lines."""
    if not expected:
        return not actual
    if expected[0] == "…":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


@pytest.mark.parametrize(("args", "sample"), SAMPLE.findall(README))
def test_readme_sample_output_is_real(
    args: str,
    sample: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from governance.tools.cli import main

    monkeypatch.chdir(REPO)
    monkeypatch.setenv("COLUMNS", "110")
    main(args.split())
    actual = capsys.readouterr().out.splitlines()
    assert matches(sample.splitlines(), actual), "\n".join(actual)


def test_the_sample_matcher_can_fail() -> None:
    assert matches(["a", "…", "d"], ["a", "b", "c", "d"])
    assert not matches(["a", "…", "e"], ["a", "b", "c", "d"])
    assert not matches(["a"], ["a", "b"])


def test_policy_rule_table_lists_the_rule_index() -> None:
    """The README's rule table is `registry.RULES`: same order, level, description and why."""
    from mlgov_policies.registry import RULES

    section = README.split("### Rules\n\n", 1)[1].split("\n\n", 1)[0]
    rows = [line.split(" | ") for line in section.splitlines()[2:]]
    table = [
        (name.strip("| `"), level, checks, why.removesuffix(" |"))
        for name, level, checks, why in rows
    ]
    assert table == [(r.name, r.enforcement, r.description, r.why) for r in RULES]
