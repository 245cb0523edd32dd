"""The habits people bring from other tools (issue 32 item 5): Pulumi's `-s NAME` for the stack,
and a command group called bare printing what it can do rather than argparse's
"required: prices_command".
"""

from __future__ import annotations

import argparse
import codecs
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from governance.cli.main import build_parser, main
from governance.errors import Exit
from tests.conftest import REPO

# The shipped stacks' plans are planned once (tests/cli/shipped_plans.py): what is checked here
# is how the CLI reads its arguments and files and heads its output; a stack file of a test's
# own (--config) is planned for real.
pytestmark = pytest.mark.usefixtures("shared_plans")


def commands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every (sub)command's parser, by its full name (`mlgov prices refresh`), depth first."""
    yield parser.prog, parser
    for action in parser._actions:  # pyright: ignore[reportPrivateUsage]
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            for sub in dict[str, argparse.ArgumentParser](action.choices).values():
                yield from commands(sub)


def option(parser: argparse.ArgumentParser, flag: str) -> argparse.Action | None:
    return parser._option_string_actions.get(flag)  # pyright: ignore[reportPrivateUsage]


def test_every_command_that_takes_stack_takes_s_for_it() -> None:
    with_stack = {
        name: parser for name, parser in commands(build_parser()) if option(parser, "--stack")
    }
    # The commands a user names a stack in; a command that gains --stack is checked too.
    assert {"mlgov plan", "mlgov jobs", "mlgov cap", "mlgov spend", "mlgov report"} <= set(
        with_stack
    )
    assert {"mlgov comment", "mlgov init", "mlgov policy-config"} <= set(with_stack)
    for name, parser in with_stack.items():
        assert option(parser, "-s") is option(parser, "--stack"), f"{name}: -s is not --stack"


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "-s", "dev", "--json"],
        ["policy-config", "-s", "dev"],
    ],
)
def test_s_runs_the_same_as_stack(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    assert main(argv) == Exit.OK
    short = capsys.readouterr().out
    long = ["--stack" if arg == "-s" else arg for arg in argv]
    assert main(long) == Exit.OK
    assert capsys.readouterr().out == short
    assert '"dev"' in short


def test_s_parses_for_the_cloud_commands() -> None:
    parser = build_parser()
    assert parser.parse_args(["jobs", "-s", "prod", "list"]).stack == "prod"
    assert parser.parse_args(["cap", "status", "-s", "prod"]).stack == "prod"
    assert parser.parse_args(["spend", "-s", "dev"]).stack == "dev"
    assert parser.parse_args(["report", "-s", "dev", "-s", "prod"]).stack == ["dev", "prod"]
    assert parser.parse_args(["init", "-s", "qa"]).stack == "qa"
    assert parser.parse_args(["comment", "-s", "dev", "a.json", "b.json"]).stack == [
        ["dev", "a.json", "b.json"]
    ]


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        ([], ["plan", "check", "prices", "cap"]),
        (["prices"], ["refresh"]),
        (["cap"], ["status", "restore", "lift"]),
        (["jobs"], ["list", "run", "pause", "resume"]),
        (["jobs", "--stack", "dev"], ["list", "run", "pause", "resume"]),
    ],
)
def test_a_group_called_bare_prints_its_help(
    argv: list[str], names: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == Exit.INVALID
    out, err = capsys.readouterr()
    assert out == ""
    assert "arguments are required" not in err
    assert "_command" not in err
    assert err.startswith("usage: mlgov")
    assert "options:" in err  # the whole help, not only the usage line
    last = err.splitlines()[-1]
    assert last.startswith("mlgov: error: ")
    for name in names:
        assert name in last


def test_a_missing_argument_that_is_not_a_group_is_still_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["diff"])
    assert exited.value.code == Exit.INVALID
    err = capsys.readouterr().err
    assert "options:" not in err
    assert err.splitlines()[-1] == "mlgov: error: the following arguments are required: base"


def test_check_heads_its_output_as_a_check_of_its_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    preview = "tests/formats/data/preview_gcp_ml-platform_show-sames.json"
    main(["check", preview])
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"mlgov check for {preview} (stack dev)"
    assert "mlgov plan for" not in out
    # A plan document on stdin: named as stdin, with the stack the document names.
    main(["plan", "-s", "staging", "--json"])
    document = capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO(document))
    main(["check", "-"])
    assert capsys.readouterr().out.splitlines()[0] == "mlgov check for stdin (stack staging)"
    # plan keeps its own heading.
    main(["plan", "-s", "staging"])
    assert capsys.readouterr().out.splitlines()[0] == "mlgov plan for stack staging"


BOM = codecs.BOM_UTF8


def with_bom(source: Path, target: Path) -> Path:
    target.write_bytes(BOM + source.read_bytes())
    return target


def test_a_preview_a_plan_document_and_a_json_stack_file_may_start_with_a_bom(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows PowerShell 5 writes a byte-order mark with `-Encoding utf8`; JSON refused it."""
    monkeypatch.chdir(REPO)
    preview = REPO / "tests/formats/data/preview_gcp_ml-platform_show-sames.json"
    code = main(["check", str(preview), "--json"])
    plain = json.loads(capsys.readouterr().out)
    assert main(["check", str(with_bom(preview, tmp_path / "preview.json")), "--json"]) == code
    marked = json.loads(capsys.readouterr().out)
    assert (marked["cost"], marked["violations"]) == (plain["cost"], plain["violations"])

    document = tmp_path / "plan.json"
    assert main(["plan", "-s", "dev", "--json"]) == Exit.OK
    document.write_bytes(BOM + capsys.readouterr().out.encode())
    assert main(["check", str(document), "--json"]) == Exit.OK
    assert json.loads(capsys.readouterr().out)["stack"] == "dev"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(document.read_bytes())))
    assert main(["check", "-", "--json"]) == Exit.OK
    assert json.loads(capsys.readouterr().out)["stack"] == "dev"

    # A stack file in JSON (Pulumi reads `.json` as JSON), with a mark: the same plan.
    stack = yaml.safe_load((REPO / "stacks/Pulumi.dev.yaml").read_text())
    as_json = tmp_path / "Pulumi.dev.json"
    as_json.write_bytes(BOM + json.dumps(stack, default=str).encode())  # dates as Pulumi reads them
    assert main(["plan", "--config", str(as_json), "--json"]) == Exit.OK, capsys.readouterr()
    from_json = json.loads(capsys.readouterr().out)
    assert from_json["cost"] == json.loads(document.read_bytes()[len(BOM) :])["cost"]


def test_yaml_stack_usage_and_policy_files_may_start_with_a_bom(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    stack = with_bom(REPO / "stacks/Pulumi.staging.yaml", tmp_path / "Pulumi.staging.yaml")
    policy = with_bom(REPO / "policies/config.staging.json", tmp_path / "policy.json")
    usage = tmp_path / "usage.yml"
    usage.write_bytes(BOM + b"resource_usage:\n  artifacts-bucket:\n    storage_gb: 700\n")
    argv = ["plan", "--config", str(stack), "--json", "--policy-config", str(policy)]
    assert main([*argv, "--usage-file", str(usage)]) in (Exit.OK, Exit.FAILED)
    doc = json.loads(capsys.readouterr().out)
    bucket = next(r for r in doc["resources"] if r["name"] == "artifacts-bucket")
    assert bucket["declared_usage"] == {"storage_gb": 700.0}
    assert doc["stack"] == "staging"


@pytest.mark.parametrize("what", ["check", "usage"])
def test_utf16_is_refused_naming_the_file_and_the_encoding(
    what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What Windows PowerShell 5's `>` writes: a clear line naming the file, never a codec trace."""
    monkeypatch.chdir(REPO)
    path = tmp_path / "written-by-powershell"
    path.write_bytes("resource_usage: {}\n".encode("utf-16"))
    argv = ["check", str(path)]
    if what == "usage":
        argv = ["check", "docs/examples/head.json", "--usage-file", str(path)]
    assert main(argv) == Exit.INVALID
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1
    assert f"{path}: UTF-16 text" in err
    assert "save it as UTF-8" in err
