"""What `mlgov plan` needs of any stack: its project and region, the policy config, the usage.

Two kinds of stack file reach the plan:

- mlgov's own program (`build_platform(read_settings())`) reads `mlgov:settings`, and everything
  the plan needs comes from those validated settings (`from_settings`);
- a Pulumi program of the user's own that builds a few components (a `NotebookFleet` alone, say)
  has no `mlgov:settings` at all. Its plan needs only Pulumi's `gcp:project` (and `gcp:region`,
  when set) and, optionally, `mlgov:plan`: the environment whose limits the policies enforce,
  limit overrides, usage assumptions, and whether the stack must hold a budget itself (default
  no: such a project is usually budgeted by another stack). `from_config` reads those.

Which kind a stack file is follows from the one key: `mlgov:settings` present or not. Both
kinds are held to the same values: `gcp:project` and `gcp:region` matched whole and the region
(like `usage.default_region` and the allowed BigQuery locations) one Google offers, so a stack
without `mlgov:settings` cannot carry what the platform's stacks may not. Pure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, cast

from pydantic import AfterValidator, Field, ValidationError, model_validator

from governance.costs.assumptions import UsageAssumptions
from governance.settings import locations
from governance.settings.accepted import Flag, ProjectId
from governance.settings.base import Environment, Model, Region
from governance.settings.errors import ROOT, SettingsError, SettingsWarning, message
from governance.settings.limits import ENV_LIMITS, Limits, policy_config, recorded_limits
from governance.settings.parse import settings_from_config, settings_warnings
from governance.settings.provider import provider_problems
from governance.settings.root import Settings
from governance.untrusted import UntrustedInputError, load_json

PLAN_KEY = "mlgov:plan"
PROJECT_KEY = "gcp:project"
REGION_KEY = "gcp:region"


class PlanSettings(Model):
    """`mlgov:plan`: how mlgov checks and prices a program of the user's own."""

    environment: Environment = "dev"
    limits: Limits
    usage: UsageAssumptions = Field(default_factory=UsageAssumptions)
    # The platform's stacks must hold a budget (mlgov-budget-required); a program of one's own
    # often lives in a project another stack budgets, so there it is opt-in.
    budget_required: Flag = False

    @model_validator(mode="before")
    @classmethod
    def _environment_limits(cls, data: Any) -> Any:
        # Limits default per environment, as in `mlgov:settings`; single keys may be overridden.
        if isinstance(data, dict):
            raw: dict[str, Any] = dict(cast(dict[str, Any], data))
            env: Any = raw.get("environment", "dev")
            given: Any = raw.get("limits") or {}
            # An unknown environment is its own error; dev's limits stand in, so it is the
            # only one.
            defaults = ENV_LIMITS[env if isinstance(env, str) and env in ENV_LIMITS else "dev"]
            if isinstance(given, dict):
                raw["limits"] = {**defaults, **cast(dict[str, Any], given)}
            return raw
        return data


def _offered_region(region: str) -> str:
    if found := locations.region_problem(region):
        raise ValueError(found)
    return region


class _Provider(Model):
    # The shapes of Settings.project and Settings.region: whole values (base.matching).
    project: ProjectId
    # Checked here rather than after, so a bad project and a bad region are reported together.
    region: Annotated[Region, AfterValidator(_offered_region)] | None = None


def _offered(plan: PlanSettings) -> Iterator[str]:
    """`mlgov:plan` regions and locations of the right shape that Google does not offer.

    The same checks locations.problems makes of `mlgov:settings`, keyed as this stack spells them.
    """
    if found := locations.region_problem(plan.usage.default_region):
        yield f"{PLAN_KEY}.usage.default_region: {found}"
    for i, location in enumerate(plan.limits.allowed_bigquery_locations):
        if found := locations.bigquery_location_problem(location):
            yield f"{PLAN_KEY}.limits.allowed_bigquery_locations.{i}: {found}"


@dataclass(frozen=True)
class PlanContext:
    """Everything about a stack the plan document records besides its resources."""

    project: str
    region: str | None
    policy_config: dict[str, Any]
    assumptions: dict[str, Any]
    limits: dict[str, Any] = field(default_factory=dict[str, Any])
    """The stack's `limits` as validated (the governance diff compares them, also the ones no
    policy reads, such as `max_gpu_vm_run_hours`)."""
    warnings: list[SettingsWarning] = field(default_factory=list[SettingsWarning])
    settings: Settings | None = None  # the platform's settings; None for a program of one's own


def from_settings(settings: Settings, warnings: list[SettingsWarning]) -> PlanContext:
    """The context of a platform stack (its validated `mlgov:settings`)."""
    return PlanContext(
        project=settings.project,
        region=settings.region,
        policy_config=settings.policy_config(),
        assumptions=settings.usage.model_dump(mode="json"),
        limits=recorded_limits(settings.limits),
        warnings=warnings,
        settings=settings,
    )


def _problems(err: ValidationError, model: type[Model], where: Mapping[str, str]) -> list[str]:
    lines: list[str] = []
    for e in err.errors():
        loc = tuple(e["loc"])
        head = where.get(str(loc[0])) if loc else None
        path = (
            ".".join([head, *map(str, loc[1:])]) if head else ".".join([PLAN_KEY, *map(str, loc)])
        )
        text = message(model, e)
        if path == PROJECT_KEY and e["type"] == "missing":
            text += ": the project your program deploys into (pulumi config set gcp:project ID)"
        lines.append(f"{path}: {text}")
    return lines


def _mapping(value: Any, key: str) -> Mapping[str, Any]:
    if isinstance(value, str):  # the Pulumi CLI passes structured config as JSON strings
        try:
            value = load_json(value)  # bounded: a stack file may come from a pull request
        except UntrustedInputError as err:
            raise SettingsError([f"{key}: {err}"]) from None
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SettingsError([f"{key}: must be a mapping, got {type(value).__name__}"])
    return cast(Mapping[str, Any], value)


def plan_context(config: Mapping[str, Any]) -> PlanContext:
    """The plan's context of a stack file's `config:` map, whichever kind of program it serves.

    Raises:
        SettingsError: one line per problem, each naming the key as the stack file spells it.
    """
    if config.get(ROOT) is None:
        return from_config(config)
    if config.get(PLAN_KEY) is not None:
        raise SettingsError(
            [
                f"{PLAN_KEY}: not used beside {ROOT}, which already says the environment, "
                "limits and usage"
            ]
        )
    settings = settings_from_config(config)
    return from_settings(settings, settings_warnings(settings))


def from_config(config: Mapping[str, Any]) -> PlanContext:
    """The context of a stack file without `mlgov:settings` (a program of the user's own).

    Raises:
        SettingsError: `gcp:project` is missing or invalid, or `mlgov:plan` is invalid.
    """
    problems: list[str] = []
    provider: _Provider | None = None
    raw_provider = {"project": config.get(PROJECT_KEY), "region": config.get(REGION_KEY)}
    try:
        provider = _Provider.model_validate({k: v for k, v in raw_provider.items() if v})
    except ValidationError as err:
        problems += _problems(err, _Provider, {"project": PROJECT_KEY, "region": REGION_KEY})
    plan: PlanSettings | None = None
    try:
        plan = PlanSettings.model_validate(dict(_mapping(config.get(PLAN_KEY), PLAN_KEY)))
    except ValidationError as err:
        problems += _problems(err, PlanSettings, {})
    except SettingsError as err:
        problems += err.problems
    if plan is not None:
        problems += _offered(plan)
    problems += provider_problems(config)
    if problems or provider is None or plan is None:
        raise SettingsError(problems)
    return PlanContext(
        project=provider.project,
        region=provider.region,
        policy_config=policy_config(
            plan.environment, provider.region, plan.limits, budget_required=plan.budget_required
        ),
        assumptions=plan.usage.model_dump(mode="json"),
        limits=recorded_limits(plan.limits),
    )
