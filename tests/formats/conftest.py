"""Shared helpers of the Pulumi-format tests: the data folder and a reader of its files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from governance.tools.document import parse_input
from governance.tools.formats.plan_input import PlanInput

DATA = Path(__file__).resolve().parent / "data"
GCP_PREVIEW = DATA / "preview_gcp_ml-platform_show-sames.json"
NO_SAMES = DATA / "preview_gcp_no-sames_unlisted-provider.json"
REPLACEMENT_STEPS = DATA / "preview_gcp_replacement-steps_read.json"
V4_EXPORT = DATA / "stackexport_gcp_v4-views-secrets_handwritten.json"


def load(name: str | Path) -> Any:
    return json.loads((DATA / name).read_text())


def read(name: str | Path) -> PlanInput:
    path = DATA / name
    return parse_input(path.read_text(), path.name)


def read_doc(doc: Any, source: str = "x.json") -> PlanInput:
    return parse_input(json.dumps(doc), source)


def by_name(resources: list[Any]) -> dict[str, Any]:
    return {r["name"]: r for r in resources}
