"""The shipped stacks' plan documents, planned once per test process and handed out as copies.

Many CLI and docs tests print the plan of stacks/Pulumi.{dev,staging,prod}.yaml at some width or
in some format: what they check is the printing, not the planning, and the plan of an unchanged
stack file is the same document every time (tests/golden pins it). So the first test that needs
a stack's plan plans it for real (`plan_stack`, from the repository root), and every later one
gets a deep copy of that document: tests may change what they are given, never the kept one.

Tests whose property IS the planning (a batch of stacks in one process leaks nothing, the CLI's
document equals `plan_stack`'s, a changed stack file or environment plans differently) do not
use `shared_plans`: they plan for real every time.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from typing import Any

import pytest

from governance.review import plan
from tests.conftest import REPO, STACKS

_KEPT: dict[tuple[str, bool], Any] = {}  # (stack, cost_lines) -> the document; never handed out
_PLAN_STACK = plan.plan_stack  # the real one, whatever a test has patched in since


def shipped_plan(stack: str, cost_lines: bool = True) -> Any:
    """A copy of `plan_stack(stack, cost_lines=...)` of a shipped stack, planned once."""
    assert stack in STACKS, stack
    assert not _pulumi_config(), "PULUMI_CONFIG is set: plan this stack for real"
    key = (stack, cost_lines)
    if key not in _KEPT:
        here = os.getcwd()
        os.chdir(REPO)
        try:
            _KEPT[key] = copy.deepcopy(_PLAN_STACK(stack=stack, cost_lines=cost_lines))
        finally:
            os.chdir(here)
    return copy.deepcopy(_KEPT[key])


def _kept_for(real: Callable[..., Any]) -> Callable[..., Any]:
    """`plan_stack` that answers a shipped stack's plain plan from the kept documents.

    Anything else (another folder, --config, a usage file, a policy config, PULUMI_CONFIG set) is
    planned for real: the kept documents are only the shipped stack files' plans.
    """

    def plan_stack(
        stack: str | None = None,
        config: str | None = None,
        usage_file: Any = None,
        cost_lines: bool = True,
        policy_config: Any = None,
    ) -> Any:
        plain = config is None and usage_file is None and policy_config is None
        if stack in STACKS and plain and os.getcwd() == str(REPO) and not _pulumi_config():
            return shipped_plan(stack, cost_lines)
        return real(stack, config, usage_file, cost_lines, policy_config)

    return plan_stack


def _pulumi_config() -> str:
    return os.environ.get("PULUMI_CONFIG", "")


def use_shipped_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Until the test ends, the CLI (`main`) gets the shipped stacks' plans from `shipped_plan`."""
    monkeypatch.setattr(plan, "plan_stack", _kept_for(_PLAN_STACK))
