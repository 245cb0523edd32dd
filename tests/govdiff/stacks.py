"""Plan the shipped stacks with one edit each, in-process (the program under mocks), for the
governance diff tests. `edited(stack, edit)` returns the plan document of the stack file with
`edit` applied to its `mlgov:settings` (or the whole config), exactly as `mlgov plan` makes it.

A plan is a pure function of (stack, config, policy config): the golden plans hold it to that.
So each distinct input is planned once per process (`plan` keeps the document as JSON text,
the form `mlgov plan --json` prints and the PR check reads back) and every caller gets its own
fresh copy: a test that edits the document it got changes nobody else's.
"""

from __future__ import annotations

import copy
import json
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


@cache
def _stack_file(stack: str) -> dict[str, Any]:
    """The parsed stack file (read once; callers get deep copies)."""
    return yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8"))


def config_of(stack: str) -> dict[str, Any]:
    """The shipped stack file's `config` map with `usage.as_of` pinned (a fresh copy)."""
    config: dict[str, Any] = copy.deepcopy(_stack_file(stack)["config"])
    config["mlgov:settings"].setdefault("usage", {})["as_of"] = AS_OF
    return config


def plan(stack: str, config: dict[str, Any], pack: PackConfig | None = None) -> dict[str, Any]:
    """The plan document, checked with `pack` (a `--policy-config`) when given.

    Planned once per distinct input in this process; the caller owns the copy it gets.
    """
    # repr for what JSON lacks: a YAML date and the string of the same day stay distinct keys
    key = json.dumps([stack, config, repr(pack)], sort_keys=True, default=repr)
    return json.loads(_planned(key, stack, copy.deepcopy(config), pack))


_PLANS: dict[str, str] = {}


def _planned(key: str, stack: str, config: dict[str, Any], pack: PackConfig | None) -> str:
    if key not in _PLANS:  # a refused config raises here each time: errors are not kept
        project = find_project(REPO)
        source = REPO / "stacks" / f"Pulumi.{stack}.yaml"
        doc = plan_config(config, stack, project.program, source, policy_config=pack)
        _PLANS[key] = json.dumps(doc)
    return _PLANS[key]


def base(stack: str) -> dict[str, Any]:
    """The shipped stack's plan (planned once per process)."""
    return plan(stack, config_of(stack))


def edited(stack: str, edit: Edit) -> dict[str, Any]:
    """The plan of the shipped stack file with `edit` applied."""
    config = config_of(stack)
    edit(config)
    return plan(stack, config)


def settings(config: dict[str, Any]) -> dict[str, Any]:
    """The `mlgov:settings` map of a stack file's config."""
    return config["mlgov:settings"]
