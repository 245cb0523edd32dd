"""The habits people bring from other tools (issue 32 item 5): Pulumi's `-s NAME` for the stack,
and a command group called bare printing what it can do rather than argparse's
"required: prices_command".
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator

import pytest

from governance.cli.main import build_parser, main
from governance.errors import Exit
from tests.conftest import REPO


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
