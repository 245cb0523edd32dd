"""Shared helpers of the Pulumi-format tests: the data folder, a reader of its files, the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from governance.cli.main import main
from governance.inputs.document import parse_input
from governance.inputs.plan_input import PlanInput

DATA = Path(__file__).resolve().parent / "data"
GCP_PREVIEW = DATA / "preview_gcp_ml-platform_show-sames.json"
NO_SAMES = DATA / "preview_gcp_no-sames_unlisted-provider.json"
REPLACEMENT_STEPS = DATA / "preview_gcp_replacement-steps_read.json"
V4_EXPORT = DATA / "stackexport_gcp_v4-views-secrets_handwritten.json"


def load(name: str | Path) -> Any:
    return json.loads((DATA / name).read_text())


@dataclass(frozen=True)
class Read:
    """A PlanInput with plain-dict documents (the tests index keys the TypedDict marks optional)."""

    plan: Any
    before: Any
    format: str


def _plain(got: PlanInput) -> Read:
    return Read(got.plan, got.before, got.format)


def read(name: str | Path) -> Read:
    path = DATA / name
    return _plain(parse_input(path.read_text(), path.name))


def read_doc(doc: Any, source: str = "x.json") -> Read:
    return _plain(parse_input(json.dumps(doc), source))


def evaluate(doc: Any) -> Any:
    """`check`'s evaluation, as a plain dict."""
    from governance.review.plan import evaluate_document

    return evaluate_document(doc)


def by_name(resources: list[Any]) -> dict[str, Any]:
    return {r["name"]: r for r in resources}


@dataclass
class Run:
    code: int
    out: str
    err: str


Cli = Callable[..., Run]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: str | Path) -> Run:
        capsys.readouterr()
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return Run(code, out, err)

    return run
