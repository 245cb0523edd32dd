"""`automation.scopes`, `automation.blast_radius` and fan-out: governing folders and organizations.

A scope is a folder or an organization whose ACTIVE projects (optionally only those carrying a
label selector) the functions govern, resolved at run time through Cloud Asset Inventory. The
blast-radius limits bound what the reapers may stop in one run. `problems` holds the checks
across sections: fan-out for scoped stacks, the organization custom roles live in, billing unlink
never for prod, budget scopes declared, canaries inside what the stack governs. The policy JSON
is rendered in governance/components/action_settings.py; the fan-out pieces and the folder and
organization grants are deployed by governance/components/automation.py and fan_out.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Final, Literal, Protocol

from pydantic import Field

from governance.labels import label_problem
from governance.settings.accepted import Flag
from governance.settings.base import Environment, Model, Problem, Region, matching, shown

FOLDER_PATTERN = r"folders/[1-9][0-9]{0,19}"
ORGANIZATION_PATTERN = r"organizations/[1-9][0-9]{0,19}"
ScopeKey = Annotated[
    str,
    matching(
        f"{FOLDER_PATTERN}|{ORGANIZATION_PATTERN}",
        "a folder or an organization: folders/<digits> or organizations/<digits> "
        "(e.g. folders/123456789012)",
    ),
]
"""A scope's parent, as Resource Manager names it."""
OrganizationKey = Annotated[
    str, matching(ORGANIZATION_PATTERN, "an organization: organizations/<digits>")
]
CanaryKey = Annotated[
    str,
    matching(
        rf"projects/[a-z][a-z0-9-]{{4,28}}[a-z0-9]|{FOLDER_PATTERN}",
        "a canary: projects/<project id> or folders/<digits> (e.g. projects/acme-canary)",
    ),
]

Reaper = Literal["reap_idle_vms", "reap_expired", "reap_idle_gpus"]
REAPERS: Final[tuple[Reaper, ...]] = ("reap_idle_vms", "reap_expired", "reap_idle_gpus")
"""The reapers that exist today. `acting_reapers` defaults to them and is always rendered, so a
reaper kind added later simulates (dry run) until a stack lists it."""

MAX_STOPS_PER_RUN: Final = 100
MAX_ERROR_RATE: Final = 0.05
FAN_OUT_WHY: Final = (
    "one invocation stops at 540 s, about 2,000 projects at 50 ms a call and under 1,000 at "
    "300 ms (bench/functions_cap.py), and a scope can hold thousands of projects"
)


class ScopeSettings(Model):
    """A folder or organization whose projects the functions govern, in every zone."""

    # None: the stack's environment. A prod scope never allows billing unlink.
    environment: Environment | None = None
    # Only projects carrying every one of these labels (exact values); empty: every project.
    labels: dict[str, str] = Field(default_factory=dict[str, str])
    allow_billing_disable: Flag = False
    # Where Vertex AI jobs are read for the scope's projects (None: the functions' default,
    # the regions of the stack's zones).
    vertex_regions: tuple[Region, ...] | None = Field(default=None, min_length=1)


class BlastRadiusSettings(Model):
    """What the reapers may do in one run (the budget kill switch is exempt, never the scope)."""

    max_stops_per_run: Annotated[int, Field(ge=1, le=100_000)] = MAX_STOPS_PER_RUN
    # Percent of the running estate a run read; None: no percentage limit.
    max_stop_percent: Annotated[float, Field(gt=0, le=100)] | None = None
    # Fraction of a run's API calls that may fail before it stops acting (after 20 calls).
    max_error_rate: Annotated[float, Field(ge=0, le=0.5)] = MAX_ERROR_RATE
    # Acted on first; if any canary action fails, no other project is acted on.
    canary: tuple[CanaryKey, ...] = ()
    # Reapers that act; any other (a kind added later included) only simulates.
    acting_reapers: tuple[Reaper, ...] = REAPERS


class _ScopedAutomation(Protocol):
    """What the checks here read of `automation` (automation.py's settings, which import these)."""

    @property
    def allow_billing_disable(self) -> bool: ...

    @property
    def fan_out(self) -> bool: ...

    @property
    def organization(self) -> str | None: ...

    @property
    def scopes(self) -> Mapping[str, ScopeSettings]: ...

    @property
    def blast_radius(self) -> BlastRadiusSettings: ...


class _ScopedBudget(Protocol):
    """What the checks here read of `budget` (budget.py's settings, which import these)."""

    @property
    def scopes(self) -> tuple[str, ...]: ...


class _ScopesStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def environment(self) -> Environment: ...

    @property
    def is_prod(self) -> bool: ...

    @property
    def project(self) -> str: ...

    @property
    def automation(self) -> _ScopedAutomation: ...

    @property
    def budget(self) -> _ScopedBudget: ...


def scope_environment(s: _ScopesStack, key: str) -> str:
    """A scope's environment: its own, else the stack's."""
    return s.automation.scopes[key].environment or s.environment


def scope_unlinks(s: _ScopesStack, key: str) -> bool:
    """Whether a scope lets the cap unlink billing: its opt-in, never for prod."""
    scope = s.automation.scopes[key]
    return scope.allow_billing_disable and not s.is_prod and scope_environment(s, key) != "prod"


def organization_of(s: _ScopesStack) -> str | None:
    """Where the organization custom roles live.

    `automation.organization`, else the stack's one organization scope.
    """
    a = s.automation
    if a.organization is not None:
        return a.organization
    orgs = sorted(k for k in a.scopes if k.startswith("organizations/"))
    return orgs[0] if len(orgs) == 1 else None


def problems(s: _ScopesStack) -> Iterator[Problem]:
    """Fan-out, organization, billing unlink, budget scopes and canaries."""
    yield from _scope_problems(s)
    yield from _budget_scope_problems(s)
    yield from _canary_problems(s)


def _scope_problems(s: _ScopesStack) -> Iterator[Problem]:
    a = s.automation
    if a.scopes and not a.fan_out:
        yield (
            "automation.fan_out",
            f"automation.scopes needs fan-out: {FAN_OUT_WHY}; set automation.fan_out: true so "
            "each project is a work item of its own",
        )
    orgs = sorted(k for k in a.scopes if k.startswith("organizations/"))
    organization = organization_of(s)
    for key in sorted(a.scopes):
        path = f"automation.scopes.{key}"
        scope = a.scopes[key]
        if key.startswith("folders/") and organization is None:
            yield (
                path,
                "a folder scope needs automation.organization (organizations/<digits>): the "
                "functions' custom roles are created in the organization and bound on the folder",
            )
        if key.startswith("organizations/") and organization not in (None, key):
            yield (
                path,
                f"is not automation.organization {organization!r}: custom roles of one "
                "organization cannot be granted in another; govern it from a stack of its own",
            )
        if scope.allow_billing_disable and (s.is_prod or scope_environment(s, key) == "prod"):
            yield (
                f"{path}.allow_billing_disable",
                "unlinking billing stops every service in every project of the scope; it is "
                "never allowed for prod: remove it",
            )
        for label, value in sorted(scope.labels.items()):
            if problem := label_problem(label, value):
                yield f"{path}.labels.{label}", f"{problem}: no project could ever match"
    if len(orgs) > 1:
        yield (
            "automation.scopes",
            f"{len(orgs)} organizations {orgs}: a stack governs within one organization",
        )


def _budget_scope_problems(s: _ScopesStack) -> Iterator[Problem]:
    declared = s.automation.scopes
    for i, key in enumerate(s.budget.scopes):
        if key not in declared:
            yield (
                f"budget.scopes.{i}",
                f"{key!r} is not declared in automation.scopes; declare it there (its "
                "environment, label selector and billing unlink)",
            )
    if len(set(s.budget.scopes)) != len(s.budget.scopes):
        yield "budget.scopes", "lists a scope twice"


def _canary_problems(s: _ScopesStack) -> Iterator[Problem]:
    scopes = s.automation.scopes
    for i, canary in enumerate(s.automation.blast_radius.canary):
        path = f"automation.blast_radius.canary.{i}"
        if canary.startswith("projects/"):
            if canary != f"projects/{s.project}" and not scopes:
                yield (
                    path,
                    f"{shown(canary)} is not governed by this stack: a canary must be the "
                    f"stack's project (projects/{s.project}) or inside one of automation.scopes",
                )
        elif not scopes:
            yield (
                path,
                f"{shown(canary)}: a folder canary must be inside one of automation.scopes, and "
                "this stack declares none",
            )


def billing_unlink_possible(s: _ScopesStack) -> bool:
    """Whether any target of the stack's budget may have its billing unlinked.

    The budget covers its scopes when it names some (the stack's own project is then governed
    only if it is inside one), else the stack's project.
    """
    if s.budget.scopes:
        return any(scope_unlinks(s, key) for key in s.budget.scopes)
    return s.automation.allow_billing_disable and not s.is_prod


__all__ = [
    "REAPERS",
    "BlastRadiusSettings",
    "CanaryKey",
    "OrganizationKey",
    "Reaper",
    "ScopeKey",
    "ScopeSettings",
    "billing_unlink_possible",
    "organization_of",
    "problems",
    "scope_environment",
    "scope_unlinks",
]
