"""The code cites files of this repository only: its contracts are docs/architecture.md's.

A comment that cites a design note, a contract number, a notes file or a brief kept outside the
repository sends a reader to a file they do not have. Every citation of a contract points at
docs/architecture.md (or the reference page that says it), and this test keeps it so for
everything shipped (the package, the functions, the policy pack, the Pulumi program and its
stacks, the demo) and for the tests and benchmarks beside them.
"""

from __future__ import annotations

import re
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
