"""Plan the shipped stacks with one edit each, in-process (the program under mocks), for the
governance diff tests. `edited(stack, edit)` returns the plan document of the stack file with
`edit` applied to its `mlgov:settings` (or the whole config), exactly as `mlgov plan` makes it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from governance.inputs.project import find_project
from governance.review.plan import plan_config
from mlgov_policies.pack_config import PackConfig

REPO = Path(__file__).resolve().parents[2]
AS_OF = "2026-11-01"
Edit = Callable[[dict[str, Any]], None]
"""Changes a stack file's `config` map in place."""


def config_of(stack: str) -> dict[str, Any]:
    data = yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8"))
    config: dict[str, Any] = data["config"]
    config["mlgov:settings"].setdefault("usage", {})["as_of"] = AS_OF
    return config


def plan(stack: str, config: dict[str, Any], pack: PackConfig | None = None) -> dict[str, Any]:
    """The plan document, checked with `pack` (a `--policy-config`) when given."""
    project = find_project(REPO)
    source = REPO / "stacks" / f"Pulumi.{stack}.yaml"
    doc = plan_config(copy.deepcopy(config), stack, project.program, source, policy_config=pack)
    return dict(doc)


@cache
def _base(stack: str) -> str:
    import json

    return json.dumps(plan(stack, config_of(stack)))


def base(stack: str) -> dict[str, Any]:
    """The shipped stack's plan (planned once per process)."""
    import json

    return json.loads(_base(stack))


def edited(stack: str, edit: Edit) -> dict[str, Any]:
    """The plan of the shipped stack file with `edit` applied."""
    config = config_of(stack)
    edit(config)
    return plan(stack, config)


def settings(config: dict[str, Any]) -> dict[str, Any]:
    """The `mlgov:settings` map of a stack file's config."""
    return config["mlgov:settings"]
