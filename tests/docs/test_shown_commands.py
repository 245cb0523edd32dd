"""Every `mlgov` command the README and the docs show runs as written (issue 32 item 5).

The README's quick start puts `.venv/bin` (where `make install` puts `mlgov`) on PATH before its
first bare `mlgov` command; each command in a shell block of README.md and docs/ names a real
subcommand with real flags, checked through the CLI's own argument parser (no file it names
needs to exist). tests/docs/test_fresh_clone.py runs the quick start itself on a fresh clone.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from governance.cli.main import build_parser
from tests.conftest import REPO

SHELL_BLOCK = re.compile(r"```(?:sh|bash|shell|console)\n(.*?)```", re.S)
COMMAND_WORDS = ("mlgov", ".venv/bin/mlgov")
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def shell_lines(page: Path) -> list[str]:
    """The lines of a page's shell blocks, continuations joined."""
    lines: list[str] = []
    for block in SHELL_BLOCK.findall(page.read_text(encoding="utf-8")):
        lines += [line.strip() for line in block.replace("\\\n", " ").splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def mlgov_commands(line: str) -> list[list[str]]:
    """The arguments of each `mlgov` run on one shell line (pipes, `&&`, `;` and `>` split)."""
    commands: list[list[str]] = []
    for part in re.split(r"\|\||&&|[|;]", line.split(" #", 1)[0]):
        if not part.strip().startswith(COMMAND_WORDS):
            continue
        words = shlex.split(part, comments=True)
        if ">" in words:
            words = words[: words.index(">")]
        if words and words[0] in COMMAND_WORDS:
            commands.append(words[1:])
    return commands


SHOWN = [
    (f"{page.relative_to(REPO)}: {line}", args)
    for page in PAGES
    for line in shell_lines(page)
    for args in mlgov_commands(line)
]


def test_the_pages_show_commands() -> None:
    assert len(SHOWN) > 40
    assert any(where.startswith("README.md") for where, _args in SHOWN)


@pytest.mark.parametrize(("where", "args"), SHOWN, ids=[where for where, _args in SHOWN])
def test_each_shown_command_parses(
    where: str, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code: object = 0
    try:
        build_parser().parse_args(args)
    except SystemExit as exited:  # `--version`, `--help`: exit 0 after printing
        code = exited.code
    assert code == 0, f"{where}\n{capsys.readouterr().err}"


def test_the_readme_puts_mlgov_on_path_before_its_first_bare_mlgov() -> None:
    """Bare `mlgov ...` after `make plan` was "command not found": nothing put it on PATH."""
    lines = shell_lines(REPO / "README.md")
    path_step = next(
        (i for i, line in enumerate(lines) if re.search(r"PATH=.*\.venv/bin", line)), None
    )
    assert path_step is not None, "the quick start does not put .venv/bin on PATH"
    first_bare = next(i for i, line in enumerate(lines) if line.startswith("mlgov "))
    assert path_step < first_bare
    quick_start = (REPO / "README.md").read_text().split("## Quick start", 1)[1]
    assert "export PATH=" in quick_start.split("\n## ", 1)[0]
