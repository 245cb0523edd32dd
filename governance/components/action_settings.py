"""The governance functions as the deployer and the operator CLI see them: names and policy JSON.

`ActionSettings` is the governance-side model of the `MLGOV_POLICY` wire format (DESIGN.md
contract 2); `action_settings` renders it from validated stack settings. The functions parse the
same JSON with their own `govern.models.ActionPolicy.from_json`; tests/contract pins the two
together, because governance never imports functions/. Function and Scheduler job names live
here too, so governance/tools/jobs.py can find the jobs without importing Pulumi. Deploying the
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
from mlgov_policies.compat.spend_caps import SERVICES
from mlgov_policies.vocabulary import EXEMPT_LABEL, EXEMPT_VALUE

EntryPoint = Literal["on_budget_alert", "reap_idle_vms", "reap_expired", "reap_idle_gpus"]
ENTRY_POINTS: tuple[EntryPoint, ...] = (
    "on_budget_alert",
    "reap_idle_vms",
    "reap_expired",
    "reap_idle_gpus",
)
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


class BudgetPolicy(_Wire):
    """What one budget's notifications may do; thresholds are fractions of the budget amount.

    The last four keys say what the budget is, so the function acts only on notifications of
    this budget's account and currency, in its current period, on costAmount / amount.
    """

    projects: tuple[str, ...] = Field(min_length=1)
    stop_at: Annotated[float, Field(gt=0)]
    disable_billing_at: Annotated[float, Field(gt=0)] | None  # a required key; null = never
    billing_account: Annotated[str, Field(pattern=r"^[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}$")]
    amount: Annotated[float, Field(gt=0)]
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
    period: Literal["MONTH", "QUARTER", "YEAR"]


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

    @model_serializer(mode="wrap")
    def _caps_only_when_declared(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A stack without caps renders the policy it always did (no needless function redeploy).
        data: dict[str, Any] = handler(self)
        if not self.spend_caps:
            data.pop("spend_caps", None)
        return data

    @model_validator(mode="after")
    def _consistent(self) -> ActionSettings:
        for bid, budget in self.budgets.items():
            for pid in budget.projects:
                if pid not in self.projects:
                    raise ValueError(f"budgets.{bid}.projects: {pid!r} is not in projects")
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


def action_settings(
    s: Settings,
    budget_id: str,
    *,
    time_budget_seconds: float = 45.0,
    spend_caps: Mapping[str, SpendCapPolicy] | None = None,
) -> ActionSettings:
    """The policy the functions of one stack run under.

    `budget_id` is the id budget notifications carry (ProjectBudget.budget_id). A budget with
    neither `stop_at` nor `disable_billing_at` is left out: its alerts then change nothing.
    With only `disable_billing_at`, stopping happens at the same point (unlinking stops
    everything anyway, and the functions need a stop threshold).
    """
    allow = billing_disable_allowed(s)
    disable_at = s.budget.disable_billing_at if allow else None
    stop_at = s.budget.stop_at if s.budget.stop_at is not None else disable_at
    budgets: dict[str, BudgetPolicy] = {}
    if stop_at is not None:
        budgets[budget_id] = BudgetPolicy(
            projects=(s.project,),
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
    )
