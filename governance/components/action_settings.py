"""The governance functions as the deployer and the operator CLI see them: names and policy JSON.

`ActionSettings` models the `MLGOV_POLICY` wire format (docs/architecture.md#mlgov-policy);
`action_settings` renders it from validated stack settings. The functions parse the
same JSON with their own `govern.models.ActionPolicy.from_json`; tests/contract pins the two
together, because governance never imports functions/. Function and Scheduler job names live
here too, so governance/cli/jobs.py can find the jobs without importing Pulumi. Deploying the
functions is automation.py's job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from governance.naming import resource_name
from governance.settings import Settings
from governance.settings.budget import CURRENCY, PERIOD
from governance.settings.scopes import (
    MAX_ERROR_RATE,
    MAX_STOPS_PER_RUN,
    REAPERS,
    billing_unlink_possible,
    scope_environment,
    scope_unlinks,
)
from mlgov_policies.compat.spend_caps import SERVICES
from mlgov_policies.vocabulary import EXEMPT_LABEL, EXEMPT_VALUE

EntryPoint = Literal[
    "on_budget_alert",
    "reap_idle_vms",
    "reap_expired",
    "reap_idle_gpus",
    "on_work_item",
    "on_dead_letter",
]
# The entry points that decide: with fan-out on they publish one work item per project.
DISPATCHERS: tuple[EntryPoint, ...] = (
    "on_budget_alert",
    "reap_idle_vms",
    "reap_expired",
    "reap_idle_gpus",
)
# Deployed only with fan-out: the worker that does one project's part, and the dead-letter
# logger, both pushed to by Pub/Sub.
WORKERS: tuple[EntryPoint, ...] = ("on_work_item", "on_dead_letter")
ENTRY_POINTS: tuple[EntryPoint, ...] = (*DISPATCHERS, *WORKERS)
# The HTTP entry points Cloud Scheduler calls; the budget function is triggered by Pub/Sub.
SCHEDULED: tuple[EntryPoint, ...] = ("reap_idle_vms", "reap_expired", "reap_idle_gpus")


def short_name(entry_point: str) -> str:
    """`reap-idle-vms` for `reap_idle_vms`: the name operators type."""
    return entry_point.replace("_", "-")


def function_name(prefix: str, entry_point: str) -> str:
    """The Cloud Function's name (also its Cloud Run service's name)."""
    return resource_name(prefix, short_name(entry_point))


def job_id(prefix: str, entry_point: str) -> str:
    """The Cloud Scheduler job id that calls a scheduled function."""
    return resource_name(prefix, short_name(entry_point))


# --------------------------------------------------------------------------- the wire model
class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExemptLabel(_Wire):
    """The label that keeps a resource out of every automated action."""

    key: str = EXEMPT_LABEL
    value: str = EXEMPT_VALUE


class ProjectPolicy(_Wire):
    """One governed project."""

    environment: str
    zones: tuple[str, ...] = Field(min_length=1)
    allow_billing_disable: bool


class ScopePolicy(_Wire):
    """A folder or organization whose ACTIVE projects the functions govern, in every zone.

    `labels` (every pair must match the project's labels) and `vertex_regions` are optional on
    the wire: rendered only when the stack gives them.
    """

    environment: str
    allow_billing_disable: bool
    labels: dict[str, str] = Field(default_factory=dict[str, str])
    vertex_regions: tuple[str, ...] | None = None

    @model_serializer(mode="wrap")
    def _optional_keys_when_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.labels:
            data.pop("labels", None)
        if self.vertex_regions is None:
            data.pop("vertex_regions", None)
        return data


class BudgetPolicy(_Wire):
    """What one budget's notifications may do; thresholds are fractions of the budget amount.

    The last four keys say what the budget is, so the function acts only on notifications of
    this budget's account and currency, in its current period, on costAmount / amount.
    `scopes` (rendered only when it names some) are the folders or organizations the budget's
    cap acts in besides `projects`; a budget names at least one project or scope.
    """

    projects: tuple[str, ...]
    stop_at: Annotated[float, Field(gt=0)]
    disable_billing_at: Annotated[float, Field(gt=0)] | None  # a required key; null = never
    billing_account: Annotated[str, Field(pattern=r"^[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}$")]
    amount: Annotated[float, Field(gt=0)]
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
    period: Literal["MONTH", "QUARTER", "YEAR"]
    scopes: tuple[str, ...] = ()

    @model_serializer(mode="wrap")
    def _scopes_only_when_named(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A budget of projects only renders the policy it always did (no needless redeploy).
        data: dict[str, Any] = handler(self)
        if not self.scopes:
            data.pop("scopes", None)
        return data


class BlastRadiusPolicy(_Wire):
    """What the reapers may do in one run; the budget kill switch is exempt (never the scope).

    Always rendered: `acting_reapers` lists the reapers that act, so a reaper kind the functions
    gain later simulates until a stack lists it.
    """

    max_stops_per_run: Annotated[int, Field(ge=1)] = MAX_STOPS_PER_RUN
    max_stop_percent: Annotated[float, Field(gt=0, le=100)] | None = None
    max_error_rate: Annotated[float, Field(ge=0, le=1)] = MAX_ERROR_RATE
    canary: tuple[str, ...] = ()
    acting_reapers: tuple[str, ...] = REAPERS


class FanOutPolicy(_Wire):
    """Fan-out is on: the work subscription's delivery bound and the worker's instance count.

    Workers pace their calls against organization-level quotas by `worker_instances`, so that
    all of them together stay within half of each quota.
    """

    max_delivery_attempts: Annotated[int, Field(ge=5, le=100)] = 20
    worker_instances: Annotated[int, Field(ge=1)] = 100


class IdleGpuPolicy(_Wire):
    """When a GPU VM counts as idle: mean utilization below the limit over the window."""

    max_utilization_percent: Annotated[float, Field(gt=0, le=100)] = 5.0
    window_minutes: Annotated[int, Field(ge=1)] = 60
    workloads: tuple[str, ...] = Field(default=("training", "notebook"), min_length=1)


class IdleTpuPolicy(_Wire):
    """When a TPU VM counts as idle: mean duty cycle below the limit over the window."""

    max_duty_cycle_percent: Annotated[float, Field(gt=0, le=100)] = 5.0
    window_minutes: Annotated[int, Field(ge=1)] = 60
    workloads: tuple[str, ...] = Field(default=("training", "notebook"), min_length=1)


class SpendCapPolicy(_Wire):
    """A spend cap the budget function reports on when its alerts-only pair sends a notification.

    Read-only: the function reads the cap's state (`spendCap.outputState`, `reconciling`) and logs
    it; it never lifts, changes or stops anything for a cap.
    """

    project: str
    service_key: str  # mlgov's key, e.g. vertex_ai
    service: str  # services/<Billing Catalog id>
    cap: str  # billingAccounts/<id>/budgets/<id>: the spend-cap budget to read
    amount: Annotated[float, Field(ge=0)]  # the monthly cap, in the billing account's currency


class ActionSettings(_Wire):
    """`MLGOV_POLICY`: everything the functions may do. Dump with `model_dump_json()`."""

    dry_run: bool
    exempt_label: ExemptLabel = ExemptLabel()
    projects: dict[str, ProjectPolicy]
    budgets: dict[str, BudgetPolicy]
    # Optional on the wire (the functions default them); always rendered here.
    idle_gpu: IdleGpuPolicy = IdleGpuPolicy()
    time_budget_seconds: Annotated[float, Field(gt=0)] = 45.0
    idle_tpu: IdleTpuPolicy = IdleTpuPolicy()
    undeploy_endpoints: bool = False
    # Optional on the wire (absent: no spend caps); keyed by the alerts-only budget's id.
    spend_caps: dict[str, SpendCapPolicy] = Field(default_factory=dict[str, SpendCapPolicy])
    # Organization scale (docs/architecture.md#organization-scale): scopes and fan-out are
    # rendered only when the stack has them; the blast-radius limits always.
    scopes: dict[str, ScopePolicy] = Field(default_factory=dict[str, ScopePolicy])
    blast_radius: BlastRadiusPolicy = BlastRadiusPolicy()
    fan_out: FanOutPolicy | None = None

    @model_serializer(mode="wrap")
    def _optional_sections(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A stack without caps, scopes or fan-out renders none of those keys (no needless
        # function redeploy, and the policy stays readable by functions that predate them).
        data: dict[str, Any] = handler(self)
        if not self.spend_caps:
            data.pop("spend_caps", None)
        if not self.scopes:
            data.pop("scopes", None)
        if self.fan_out is None:
            data.pop("fan_out", None)
        return data

    @model_validator(mode="after")
    def _consistent(self) -> ActionSettings:
        for bid, budget in self.budgets.items():
            if not budget.projects and not budget.scopes:
                raise ValueError(f"budgets.{bid}: names no project and no scope")
            for pid in budget.projects:
                if pid not in self.projects:
                    raise ValueError(f"budgets.{bid}.projects: {pid!r} is not in projects")
            for key in budget.scopes:
                if key not in self.scopes:
                    raise ValueError(f"budgets.{bid}.scopes: {key!r} is not in scopes")
            if budget.disable_billing_at is not None and budget.disable_billing_at < budget.stop_at:
                raise ValueError(f"budgets.{bid}.disable_billing_at: below stop_at")
        for bid, cap in self.spend_caps.items():
            if cap.project not in self.projects:
                raise ValueError(f"spend_caps.{bid}.project: {cap.project!r} is not in projects")
            if bid in self.budgets:
                raise ValueError(f"spend_caps.{bid}: also in budgets; an alert is one or the other")
        return self


def billing_disable_allowed(s: Settings) -> bool:
    """Whether the stack opted in to unlinking billing; never in prod."""
    return s.automation.allow_billing_disable and not s.is_prod


def spend_cap_policies(
    s: Settings, alert_budget_ids: Mapping[str, str], cap_names: Mapping[str, str]
) -> dict[str, SpendCapPolicy]:
    """The stack's spend caps as the budget function sees them, by alerts-only budget id.

    `alert_budget_ids` and `cap_names` are SpendCaps' outputs (service key -> id, name).
    """
    return {
        alert_budget_ids[key]: SpendCapPolicy(
            project=s.project,
            service_key=key,
            service=SERVICES[key].service,
            cap=cap_names[key],
            amount=amount,
        )
        for key, amount in s.spend_caps.items()
    }


def scope_policies(s: Settings) -> dict[str, ScopePolicy]:
    """The stack's scopes as the functions see them (environment resolved, unlink never prod)."""
    return {
        key: ScopePolicy(
            environment=scope_environment(s, key),
            allow_billing_disable=scope_unlinks(s, key),
            labels=dict(scope.labels),
            vertex_regions=scope.vertex_regions,
        )
        for key, scope in sorted(s.automation.scopes.items())
    }


def blast_radius_policy(s: Settings) -> BlastRadiusPolicy:
    """The reapers' limits, as the stack sets them (defaults otherwise)."""
    b = s.automation.blast_radius
    return BlastRadiusPolicy(
        max_stops_per_run=b.max_stops_per_run,
        max_stop_percent=b.max_stop_percent,
        max_error_rate=b.max_error_rate,
        canary=b.canary,
        acting_reapers=b.acting_reapers,
    )


def fan_out_policy(s: Settings, worker_instances: int) -> FanOutPolicy | None:
    """The fan-out section when the stack turns fan-out on, else None."""
    if not s.automation.fan_out:
        return None
    return FanOutPolicy(
        max_delivery_attempts=s.automation.max_delivery_attempts,
        worker_instances=worker_instances,
    )


def action_settings(
    s: Settings,
    budget_id: str,
    *,
    time_budget_seconds: float = 45.0,
    spend_caps: Mapping[str, SpendCapPolicy] | None = None,
    worker_instances: int = 100,
) -> ActionSettings:
    """The policy the functions of one stack run under.

    `budget_id` is the id budget notifications carry (ProjectBudget.budget_id). A budget with
    neither `stop_at` nor `disable_billing_at` is left out: its alerts then change nothing.
    With only `disable_billing_at`, stopping happens at the same point (unlinking stops
    everything anyway, and the functions need a stop threshold). A budget that names scopes
    acts in them instead of the stack's project (its filter counts their spend, budgets.py).
    `worker_instances` is the worker's max instances (fan_out.py sizes it), rendered with
    fan-out.
    """
    allow = billing_disable_allowed(s)
    disable_at = s.budget.disable_billing_at if billing_unlink_possible(s) else None
    stop_at = s.budget.stop_at if s.budget.stop_at is not None else disable_at
    budgets: dict[str, BudgetPolicy] = {}
    if stop_at is not None:
        budgets[budget_id] = BudgetPolicy(
            projects=() if s.budget.scopes else (s.project,),
            scopes=s.budget.scopes,
            stop_at=stop_at,
            disable_billing_at=disable_at,
            billing_account=s.billing_account,
            amount=float(s.budget.amount_usd),
            currency=CURRENCY,
            period=PERIOD,
        )
    a = s.automation
    return ActionSettings(
        dry_run=a.dry_run,
        projects={
            s.project: ProjectPolicy(
                environment=s.environment, zones=s.zones, allow_billing_disable=allow
            )
        },
        budgets=budgets,
        idle_gpu=IdleGpuPolicy(
            max_utilization_percent=a.idle_gpu_max_utilization_percent,
            window_minutes=a.idle_gpu_window_minutes,
            workloads=a.idle_gpu_workloads,
        ),
        time_budget_seconds=time_budget_seconds,
        idle_tpu=IdleTpuPolicy(
            max_duty_cycle_percent=a.idle_tpu_max_duty_cycle_percent,
            window_minutes=a.idle_tpu_window_minutes,
            workloads=a.idle_gpu_workloads,
        ),
        undeploy_endpoints=a.undeploy_endpoints_at_cap,
        spend_caps=dict(spend_caps or {}),
        scopes=scope_policies(s),
        blast_radius=blast_radius_policy(s),
        fan_out=fan_out_policy(s, worker_instances),
    )
