"""The code cites files of this repository only: its contracts are docs/architecture.md's.

A comment that cites a design note, a contract number, a notes file or a brief kept outside the
repository sends a reader to a file they do not have. Every citation of a contract points at
docs/architecture.md (or the reference page that says it), and this test keeps it so for
everything shipped (the package, the functions, the policy pack, the Pulumi program and its
stacks, the demo) and for the tests and benchmarks beside them.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from tests.conftest import REPO

ROOTS = ("governance", "functions", "policies", "demo", "stacks", "tests", "bench")
TOP_FILES = ("__main__.py", "Pulumi.yaml", "pyproject.toml", "Makefile", "README.md")
SUFFIXES = frozenset({".py", ".json", ".yaml", ".yml", ".toml", ".md", ".sql", ".txt", ".cfg"})
# Spelled in pieces so that this file does not match itself.
OUTSIDE = re.compile(
    "|".join(
        (
            r"\bDESIGN" + r"\.md\b",  # the design note the contracts were first written in
            r"\bDESIGN" + r" contract\b",
            r"\bCONTRACT" + r"-\d+",  # numbered contract drafts
            r"\bFACTS" + r"\.md\b",  # the team's notes of facts: cite the fact's own source
            r"\bbrief" + r" s\d\b",  # a work brief
            r"\bcontract" + r" section \d",  # a section of a contract draft
        )
    )
)
ARCHITECTURE = REPO / "docs" / "architecture.md"


def _sources() -> list[Path]:
    files = [REPO / name for name in TOP_FILES if (REPO / name).is_file()]
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*")):
            parts = path.relative_to(REPO).parts
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in parts:
                files.append(path)
    return files


def _outside_citations(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return []
    return [
        f"{path.relative_to(REPO)}:{number}: {line.strip()[:120]}"
        for number, line in enumerate(text.splitlines(), start=1)
        if OUTSIDE.search(line)
    ]


def test_no_source_cites_a_contract_kept_outside_the_repository() -> None:
    found = [hit for path in _sources() for hit in _outside_citations(path)]
    assert found == [], (
        "cite docs/architecture.md (or the reference page that says it) instead:\n"
        + "\n".join(found)
    )


def test_the_pattern_finds_what_it_is_meant_to_find() -> None:
    # The guard above must be able to fail: each form seen in the code before is caught.
    for cited in (
        "# Organization scale (DESIGN" + ".md section 5).",
        "assert code == 2  # DESIGN" + " contract 1: spend answers",
        '"""The one outcome line of a delivery (CONTRACT' + '-29 section 4)."""',
        "# Budget periods start at midnight US/Pacific (FACTS" + ".md; Google's example ...).",
        "An attacker's review (brief" + " s4): a pull request ...",
        "The zones it reads are the ones contract" + " section 6 names",
    ):
        assert OUTSIDE.search(cited), cited
    assert not OUTSIDE.search("DESIGN_EXAMPLE = {")  # a name, not a citation


@pytest.mark.parametrize(
    "anchor",
    [
        "plan-document",
        "exit-codes",
        "spend-report",
        "spend-caps",
        "function-environment",
        "entry-points",
        "answers",
        "mlgov-policy",
        "labels",
        "organization-scale",
        "scopes",
        "fan-out",
        "work-items",
        "on-work-item",
        "blast-radius",
        "policy-rules",
    ],
)
def test_architecture_keeps_the_anchors_the_code_cites(anchor: str) -> None:
    # Code comments cite docs/architecture.md#<anchor>; `make docs` checks links between pages,
    # but nothing else would notice a renamed heading that a comment points at.
    assert "{#" + anchor + "}" in ARCHITECTURE.read_text(encoding="utf-8")


def test_every_anchor_the_code_cites_exists() -> None:
    cited = re.compile(r"docs/architecture\.md#([a-z0-9-]+)")
    text = ARCHITECTURE.read_text(encoding="utf-8")
    missing = sorted(
        {
            f"{path.relative_to(REPO)}: #{anchor}"
            for path in _sources()
            if path.suffix == ".py"
            for anchor in cited.findall(path.read_text(encoding="utf-8"))
            if "{#" + anchor + "}" not in text
        }
    )
    assert missing == []


# --------------------------------------------------------------------------- cited paths exist
# A repository path in a comment, a docstring or a doc page: `governance/review/offline.py`,
# `docs/architecture.md#exit-codes`, `tests/cli/`. The characters of a placeholder are taken in
# too, so that a stack file's name with `<stack>` in it is seen whole (and skipped), not cut off
# at the placeholder.
CITED_PATH = re.compile(
    r"(?<![\w./-])((?:governance|functions|policies|tests|bench|docs|stacks|demo|\.github|\.ci)"
    r"/[\w./<>*{},#-]*[\w/>*}])"
)
PLACEHOLDER = re.compile(r"[<>*{}]|\.\.\.|\b(?:NAME|STACK|PAGE|FILE|FOLDER)\b")
# Records of their time, which name paths as they were then: the change log and the measured
# results. And data: recorded answers and notes about other projects' files.
RECORDS = ("CHANGELOG.md", "bench/RESULTS.md")
DATA_PARTS = frozenset({"data", "recorded"})
NOT_IN_THE_REPOSITORY = {
    "bench/profiles/org_sim.json": "bench/org_sim.py's default output, written when it runs",
    "docs/CODEOWNERS": "one of the places GitHub reads CODEOWNERS from, in the user's repository",
}


def _prose_spans(path: Path, text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of what a reader reads as prose: all of a doc page; a module's
    comments and docstrings (string literals in code are data, e.g. a missing path a test feeds
    a command)."""
    if path.suffix == ".md":
        return [(0, len(text))]
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(row: int, col: int) -> int:  # tokenize and ast count rows from 1, columns in str
        return starts[row - 1] + col

    spans = [
        (offset(*token.start), offset(*token.end))
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if ast.get_docstring(node, clean=False) and first and first.end_lineno:
                end = offset(first.end_lineno, first.end_col_offset or 0)
                spans.append((offset(first.lineno, first.col_offset), end))
    return spans


def _citing_files() -> list[Path]:
    roots = ("governance", "functions", "policies", "tests", "bench", "docs", "stacks", "demo")
    files = [REPO / name for name in ("README.md", "CONTRIBUTING.md", "__main__.py")]
    for root in roots:
        files += sorted((REPO / root).rglob("*.py")) + sorted((REPO / root).rglob("*.md"))
    return [
        path
        for path in files
        if path.is_file()
        and str(path.relative_to(REPO)) not in RECORDS
        and not DATA_PARTS & set(path.relative_to(REPO).parts)
        and "__pycache__" not in path.parts
    ]


def dangling_citations(files: list[Path]) -> list[str]:
    """`file:line: path` for each cited repository path that does not exist."""
    found: list[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        missing: list[tuple[int, str]] = []
        for match in CITED_PATH.finditer(text):
            cited = match.group(1).split("#")[0].rstrip(".,")
            if PLACEHOLDER.search(cited) or cited in NOT_IN_THE_REPOSITORY:
                continue
            if not (REPO / cited).exists():
                missing.append((match.start(), cited))
        if not missing:  # most files: no need to tell prose from code (tokenizing is slow)
            continue
        prose = _prose_spans(path, text)
        where = path.relative_to(REPO) if path.is_relative_to(REPO) else path.name
        found += [
            f"{where}:{text.count(chr(10), 0, at) + 1}: {cited}"
            for at, cited in missing
            if any(start <= at < end for start, end in prose)
        ]
    return found


def test_every_repository_path_the_code_and_docs_cite_exists() -> None:
    # A file moved without its citations sends a reader nowhere (a comment once named a
    # test_offline.py in tests/govdiff, which never existed).
    assert dangling_citations(_citing_files()) == []


def test_a_dangling_citation_is_found(tmp_path: Path) -> None:
    page = REPO / "docs" / "architecture.md"
    module = tmp_path / "cites.py"
    module.write_text(
        '"""Planned by governance/review/plan.py; see docs/architecture.md#exit-codes."""\n'
        "# the old home: governance/tools/plan.py, and stacks/Pulumi.<stack>.yaml\n"
        'MISSING = "governance/no/such/file.py"  # data, not a citation\n',
        encoding="utf-8",
    )
    assert page.is_file()
    found = [hit.split(": ", 1)[1] for hit in dangling_citations([module])]
    assert found == ["governance/tools/plan.py"]
