"""`mlgov governance-code` and `mlgov approvals`: the judge's two commands (registered by cli.py).

Both run in the PR base's checkout, with the base's mlgov (the workflow's judge step): the stack
folder and CODEOWNERS are the base's, so a PR cannot move its own files out of review.

- `governance-code --changed FILE` prints each changed path that decides governance (code.py),
  one a line: the workflow plans the head itself when there is none.
- `approvals --repository OWNER/REPO --pr N --head-sha SHA --changed FILE` prints the PR's
  review state as JSON (github.py; `GITHUB_TOKEN`, `GITHUB_API_URL`); exit 4, with the document's
  `error` set, when GitHub could not be read.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, cast

from governance.errors import CliError, Exit
from governance.review.judge.approvals import Approvals, CodeReview, review_code, teams_needed
from governance.review.judge.code import governance_code, read_changed
from governance.review.judge.owners import OwnerRules, find_codeowners
from governance.untrusted import UntrustedInputError, load_json

MAX_LIST_BYTES = 64 * 1024 * 1024


def _read_list(path: str) -> str:
    """The text of a changed-paths file (empty when the PR changes nothing)."""
    try:
        with Path(path).open("rb") as file:
            data = file.read(MAX_LIST_BYTES + 1)
    except OSError as err:
        raise CliError(f"{path}: cannot read it ({err.strerror})") from None
    if len(data) > MAX_LIST_BYTES:
        raise CliError(f"{path}: larger than {MAX_LIST_BYTES:,} bytes; refusing to read it")
    return data.decode("utf-8", errors="surrogateescape")


def _changed_code(path: str) -> list[str]:
    """The governance-deciding paths of a `git diff --name-only -z` file, for this project."""
    from governance.inputs.project import find_project

    text = _read_list(path)
    project = find_project()
    try:
        stack_dir = project.stack_dir.resolve().relative_to(project.root.resolve()).as_posix()
    except ValueError:
        stack_dir = "\0"  # a stack folder outside the repository: no changed file is one
    return governance_code(read_changed(text), stack_dir, project.ext)


def _rules() -> OwnerRules:
    from governance.inputs.project import find_project

    text, source = find_codeowners(find_project().root)
    return OwnerRules(text, source)


def code_review(changed: str, approvals: str | None) -> CodeReview:
    """The review of the changed governance files, against the approvals document (if any)."""
    from governance.inputs.project import read_source

    paths = _changed_code(changed)
    state: Approvals | None = None
    if approvals:
        text, name = read_source(approvals, MAX_LIST_BYTES)
        try:
            data: Any = load_json(text)
        except UntrustedInputError as err:
            raise CliError(f"{name}: {err}") from None
        found: dict[str, Any] = (
            cast(dict[str, Any], data) if isinstance(data, dict) else {"error": "not an object"}
        )
        state = Approvals.from_mapping(found)
    return review_code(paths, _rules(), state)


def _governance_code(args: argparse.Namespace) -> int:
    for path in _changed_code(args.changed):
        print(path)
    return Exit.OK


def _approvals(args: argparse.Namespace) -> int:
    from governance.review.judge.github import read_approvals

    paths = _changed_code(args.changed)
    doc = read_approvals(
        args.repository,
        args.pr,
        args.head_sha,
        teams_needed(paths, _rules()),
        os.environ.get("GITHUB_API_URL", ""),
        os.environ.get("GITHUB_TOKEN", ""),
    )
    print(json.dumps(doc, indent=2))
    return Exit.CLOUD if doc["error"] else Exit.OK


def register(subparsers: Any) -> None:
    """Add `governance-code` and `approvals` to an argparse subparsers object."""
    code = subparsers.add_parser(
        "governance-code",
        help="which files a PR changes that decide governance (the PR judge)",
        description="Print each path of FILE (`git diff --name-only -z BASE HEAD`) that is code "
        "or config deciding governance: everything but this project's stack files and prose.",
    )
    code.add_argument("--changed", required=True, metavar="FILE", help="the changed paths")
    code.set_defaults(func=_governance_code)

    approvals = subparsers.add_parser(
        "approvals",
        help="who approved a PR's head commit, from GitHub (the PR judge)",
        description="Read the PR's reviews from GitHub's REST API (GITHUB_TOKEN, GITHUB_API_URL) "
        "and print, as JSON, who approved its head commit and which owning teams they are in.",
    )
    approvals.add_argument("--repository", required=True, metavar="OWNER/REPO")
    approvals.add_argument("--pr", required=True, type=int, metavar="N")
    approvals.add_argument("--head-sha", required=True, metavar="SHA")
    approvals.add_argument("--changed", required=True, metavar="FILE", help="the changed paths")
    approvals.set_defaults(func=_approvals)
