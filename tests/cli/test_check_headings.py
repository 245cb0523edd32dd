"""`check` heads its output as a check of its file in the text view AND in `--markdown` (issue 32,
item 5); `plan --markdown` keeps its plan heading. The file and the stack named in the Markdown
heading are the user's input (any program's preview), so they are shown as inline code.
"""

from __future__ import annotations

import io

import pytest

from governance.cli.main import main
from governance.review.render import markdown, markdown_heading
from tests.conftest import REPO

PREVIEW = "tests/formats/data/preview_gcp_ml-platform_show-sames.json"


@pytest.fixture(autouse=True)
def _at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def _first_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    main(argv)
    return capsys.readouterr().out.splitlines()[0]


def test_check_markdown_is_headed_as_a_check_of_its_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = _first_line(["check", PREVIEW], capsys)
    assert main(["check", PREVIEW, "--markdown"]) == 1
    md = capsys.readouterr().out.splitlines()[0]
    assert text == f"mlgov check for {PREVIEW} (stack dev)"
    # That preview has mandatory findings (its own program): the failure icon, then the check.
    assert md == f"### :x: mlgov check for `{PREVIEW}` (stack `dev`)"
    assert "mlgov plan" not in md


def test_check_of_stdin_names_stdin_in_both_views(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    main(["plan", "-s", "staging", "--json"])
    document = capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO(document))
    assert _first_line(["check", "-", "--markdown"], capsys) == (
        "### :white_check_mark: mlgov check for `stdin` (stack `staging`)"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(document))
    assert _first_line(["check", "-"], capsys) == "mlgov check for stdin (stack staging)"


def test_plan_markdown_keeps_its_plan_heading(capsys: pytest.CaptureFixture[str]) -> None:
    assert _first_line(["plan", "-s", "dev", "--markdown"], capsys) == (
        "### :white_check_mark: mlgov plan: `dev`"
    )


def test_a_file_and_stack_named_with_markdown_stay_literal() -> None:
    doc = {"stack": "a`b", "resources": []}
    heading = markdown_heading(doc, "x`y|*z*.json")
    assert heading == "mlgov check for ``x`y|*z*.json`` (stack ``a`b``)"
    # A document without a stack: the file alone.
    assert markdown_heading({"resources": []}, "p.json") == "mlgov check for `p.json`"
    assert markdown({"stack": "dev", "resources": []}).startswith(
        "### :white_check_mark: mlgov plan: `dev`\n"
    )
