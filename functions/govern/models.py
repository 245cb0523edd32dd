"""Frozen value objects: the policy the functions run under, inputs read from GCP, actions.

Owns the `MLGOV_POLICY` wire format (`ActionPolicy.from_json`) and the action classes with the
IAM permissions each one needs. Parsing raw API payloads lives in parse.py, deciding in decide.py.
Standard library only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

EXPIRES_LABEL = "mlgov-expires-on"

Kind = Literal["compute", "notebook", "tpu"]
Outcome = Literal["done", "simulated", "skipped", "failed"]


class PolicyError(ValueError):
    """MLGOV_POLICY is missing, not JSON, or breaks the schema; the message names the key path."""


@dataclass(frozen=True)
class ProjectPolicy:
    """One governed project: its environment, the zones automation looks at, billing opt-in."""

    environment: str
    zones: tuple[str, ...]
    allow_billing_disable: bool


@dataclass(frozen=True)
class BudgetPolicy:
    """What a budget's notifications may do; thresholds are fractions of the budget amount."""

    projects: tuple[str, ...]
    stop_at: float
    disable_billing_at: float | None


@dataclass(frozen=True)
class IdleGpuPolicy:
    """When a GPU VM counts as idle: mean utilization below the limit over the window."""

    max_utilization_percent: float = 5.0
    window_minutes: int = 60
    workloads: tuple[str, ...] = ("training", "notebook")


@dataclass(frozen=True)
class ActionPolicy:
    """Everything the functions are allowed to do, read once from `MLGOV_POLICY`."""

    exempt_label: tuple[str, str]
    projects: Mapping[str, ProjectPolicy]
    budgets: Mapping[str, BudgetPolicy]
    dry_run: bool = True
    idle_gpu: IdleGpuPolicy = field(default_factory=IdleGpuPolicy)
    time_budget_seconds: float = 45.0
    max_concurrency: int = 16
    max_requests_per_second_per_project: float = 10.0

    @classmethod
    def from_json(cls, text: str | bytes | None) -> ActionPolicy:
        """Parse and validate the policy JSON strictly.

        Raises:
            PolicyError: naming the offending key path, e.g. `MLGOV_POLICY.budgets.b1.stop_at`.
        """
        if text is None or not str(text if isinstance(text, str) else text.decode()).strip():
            raise PolicyError("MLGOV_POLICY: not set or empty")
        try:
            raw = json.loads(text)
        except ValueError as err:
            raise PolicyError(f"MLGOV_POLICY: not valid JSON ({err})") from None
        return _policy(raw)

    def is_exempt(self, labels: Mapping[str, str]) -> bool:
        """True if the resource carries the exemption label with its exact value."""
        key, value = self.exempt_label
        return labels.get(key) == value


# -- policy validation ---------------------------------------------------------------------------

_TOP_REQUIRED = ("exempt_label", "projects", "budgets")
_TOP_OPTIONAL = (
    "dry_run",
    "idle_gpu",
    "time_budget_seconds",
    "max_concurrency",
    "max_requests_per_second_per_project",
)


def _obj(
    value: Any, path: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PolicyError(f"{path}: must be an object, got {type(value).__name__}")
    obj: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    missing = [k for k in required if k not in obj]
    if missing:
        raise PolicyError(f"{path}: missing required key(s) {', '.join(missing)}")
    unknown = sorted(k for k in obj if k not in required and k not in optional)
    if unknown:
        raise PolicyError(f"{path}: unknown key(s) {', '.join(unknown)}")
    return obj


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise PolicyError(f"{path}: must be true or false, got {value!r}")
    return value


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value:
        raise PolicyError(f"{path}: must be a non-empty string, got {value!r}")
    return value


def _num(value: Any, path: str, *, minimum: float = 0.0, integer: bool = False) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value <= minimum:
        raise PolicyError(f"{path}: must be a number > {minimum:g}, got {value!r}")
    if integer and int(value) != value:
        raise PolicyError(f"{path}: must be a whole number, got {value!r}")
    return float(value)


def _str_list(value: Any, path: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise PolicyError(f"{path}: must be a non-empty list of strings")
    items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
    return tuple(_str(v, f"{path}[{i}]") for i, v in enumerate(items))


def _policy(raw: Any) -> ActionPolicy:
    top = _obj(raw, "MLGOV_POLICY", _TOP_REQUIRED, _TOP_OPTIONAL)
    exempt = _obj(top["exempt_label"], "MLGOV_POLICY.exempt_label", ("key", "value"))
    projects_raw = top["projects"]
    if not isinstance(projects_raw, dict):
        raise PolicyError("MLGOV_POLICY.projects: must be an object keyed by project id")
    projects: dict[str, ProjectPolicy] = {}
    projects_obj: dict[str, Any] = projects_raw  # pyright: ignore[reportUnknownVariableType]
    for pid, praw in projects_obj.items():
        path = f"MLGOV_POLICY.projects.{pid}"
        p = _obj(praw, path, ("environment", "zones", "allow_billing_disable"))
        projects[str(pid)] = ProjectPolicy(
            environment=_str(p["environment"], f"{path}.environment"),
            zones=_str_list(p["zones"], f"{path}.zones"),
            allow_billing_disable=_bool(
                p["allow_billing_disable"], f"{path}.allow_billing_disable"
            ),
        )
    budgets_raw = top["budgets"]
    if not isinstance(budgets_raw, dict):
        raise PolicyError("MLGOV_POLICY.budgets: must be an object keyed by budgetId")
    budgets: dict[str, BudgetPolicy] = {}
    budgets_obj: dict[str, Any] = budgets_raw  # pyright: ignore[reportUnknownVariableType]
    for bid, braw in budgets_obj.items():
        path = f"MLGOV_POLICY.budgets.{bid}"
        b = _obj(braw, path, ("projects", "stop_at", "disable_billing_at"))
        bprojects = _str_list(b["projects"], f"{path}.projects")
        for i, pid in enumerate(bprojects):
            if pid not in projects:
                raise PolicyError(f"{path}.projects[{i}]: {pid!r} is not in MLGOV_POLICY.projects")
        stop_at = _num(b["stop_at"], f"{path}.stop_at")
        disable_raw = b["disable_billing_at"]
        disable = None if disable_raw is None else _num(disable_raw, f"{path}.disable_billing_at")
        if disable is not None and disable < stop_at:
            raise PolicyError(
                f"{path}.disable_billing_at: {disable:g} is below stop_at {stop_at:g}; unlinking "
                "billing must come after stopping workloads"
            )
        budgets[str(bid)] = BudgetPolicy(bprojects, stop_at, disable)
    gpu = IdleGpuPolicy()
    if "idle_gpu" in top:
        g = _obj(
            top["idle_gpu"],
            "MLGOV_POLICY.idle_gpu",
            (),
            ("max_utilization_percent", "window_minutes", "workloads"),
        )
        gpu = IdleGpuPolicy(
            max_utilization_percent=_num(
                g.get("max_utilization_percent", gpu.max_utilization_percent),
                "MLGOV_POLICY.idle_gpu.max_utilization_percent",
            ),
            window_minutes=int(
                _num(
                    g.get("window_minutes", gpu.window_minutes),
                    "MLGOV_POLICY.idle_gpu.window_minutes",
                    integer=True,
                )
            ),
            workloads=_str_list(
                g.get("workloads", list(gpu.workloads)), "MLGOV_POLICY.idle_gpu.workloads"
            ),
        )
    defaults = ActionPolicy(exempt_label=("", ""), projects={}, budgets={})
    return ActionPolicy(
        dry_run=_bool(top.get("dry_run", True), "MLGOV_POLICY.dry_run"),  # simulate unless told
        exempt_label=(
            _str(exempt["key"], "MLGOV_POLICY.exempt_label.key"),
            _str(exempt["value"], "MLGOV_POLICY.exempt_label.value"),
        ),
        projects=projects,
        budgets=budgets,
        idle_gpu=gpu,
        time_budget_seconds=_num(
            top.get("time_budget_seconds", defaults.time_budget_seconds),
            "MLGOV_POLICY.time_budget_seconds",
        ),
        max_concurrency=int(
            _num(
                top.get("max_concurrency", defaults.max_concurrency),
                "MLGOV_POLICY.max_concurrency",
                integer=True,
            )
        ),
        max_requests_per_second_per_project=_num(
            top.get(
                "max_requests_per_second_per_project", defaults.max_requests_per_second_per_project
            ),
            "MLGOV_POLICY.max_requests_per_second_per_project",
        ),
    )


# -- what we read from GCP -----------------------------------------------------------------------

_SERVICE: dict[Kind, str] = {
    "compute": "//compute.googleapis.com/projects/{p}/zones/{z}/instances/{n}",
    "notebook": "//notebooks.googleapis.com/projects/{p}/locations/{z}/instances/{n}",
    "tpu": "//tpu.googleapis.com/projects/{p}/locations/{z}/nodes/{n}",
}
_RUNNING: dict[Kind, frozenset[str]] = {
    "compute": frozenset({"RUNNING", "PROVISIONING", "STAGING", "REPAIRING"}),
    "notebook": frozenset({"ACTIVE", "STARTING", "PROVISIONING", "INITIALIZING"}),
    "tpu": frozenset({"READY", "CREATING", "STARTING", "RESTARTING", "REPAIRING", "REIMAGING"}),
}


@dataclass(frozen=True)
class Workload:
    """A stoppable resource: a Compute VM, a Workbench instance or a TPU VM.

    `managed_by` names the service that owns a Compute VM underneath (gke, workbench, mig);
    such VMs are stopped through their owner or not at all.
    """

    kind: Kind
    project: str
    zone: str
    name: str
    state: str
    labels: Mapping[str, str] = field(default_factory=dict[str, str])
    gpus: int = 0
    instance_id: str = ""
    managed_by: str | None = None

    @property
    def target(self) -> str:
        """Full resource name (Cloud Asset style), used in reports and logs."""
        return _SERVICE[self.kind].format(p=self.project, z=self.zone, n=self.name)

    @property
    def running(self) -> bool:
        """True while the workload costs compute money and a stop makes sense."""
        return self.state in _RUNNING[self.kind]

    @property
    def key(self) -> tuple[str, str, str]:
        """(project, zone, name): how recommendations and metrics find their instance."""
        return (self.project, self.zone, self.name)


@dataclass(frozen=True)
class Recommendation:
    """An idle-VM recommendation; `instance` is the zone/name target, None if unresolvable."""

    name: str
    etag: str
    state: str
    subtype: str
    project: str  # the project id we listed under (the name itself carries the number)
    zone: str
    instance: str | None
    problem: str = ""


@dataclass(frozen=True)
class BudgetAlert:
    """One budget notification (Pub/Sub attributes + data)."""

    budget_id: str
    cost_amount: float
    budget_amount: float
    alert_threshold: float | None = None
    forecast_threshold: float | None = None
    billing_account_id: str = ""
    display_name: str = ""
    currency: str = ""
    cost_interval_start: str = ""
    message_id: str = ""

    @property
    def actual_fraction(self) -> float | None:
        """The actual-spend threshold this alert reports; forecasts never count.

        `alertThresholdExceeded` when present, else costAmount / budgetAmount (the field is
        absent until a threshold is crossed); None when neither says anything.
        """
        if self.alert_threshold is not None:
            return self.alert_threshold
        if self.budget_amount > 0:
            return self.cost_amount / self.budget_amount
        return None


# -- actions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """Something to do to one target; subclasses state the IAM permissions they need."""

    target: str
    reason: str
    verb: ClassVar[str] = "stop"
    permissions: ClassVar[tuple[str, ...]] = ()

    @property
    def project(self) -> str:
        """The project this action spends API quota in (rate limits are per project)."""
        parts = self.target.split("/")
        return parts[parts.index("projects") + 1] if "projects" in parts else ""


@dataclass(frozen=True)
class Skip(Action):
    """A resource considered and deliberately left alone (exempt, stopped, no data...)."""


@dataclass(frozen=True)
class StopInstance(Action):
    """Stop a Compute Engine VM (discards local SSD data; persistent disks are kept)."""

    workload: Workload | None = None
    permissions: ClassVar[tuple[str, ...]] = ("compute.instances.list", "compute.instances.stop")


@dataclass(frozen=True)
class StopNotebook(Action):
    """Stop a Vertex AI Workbench instance through the Notebooks v2 API."""

    workload: Workload | None = None
    permissions: ClassVar[tuple[str, ...]] = (
        "notebooks.instances.list",
        "notebooks.instances.stop",
    )


@dataclass(frozen=True)
class StopTpuNode(Action):
    """Stop a Cloud TPU VM through the TPU v2 API."""

    workload: Workload | None = None
    permissions: ClassVar[tuple[str, ...]] = ("tpu.nodes.list", "tpu.nodes.stop")


@dataclass(frozen=True)
class ReapRecommendation(Action):
    """Claim an idle-VM recommendation, stop its VM, then mark it succeeded (or failed)."""

    recommendation: Recommendation | None = None
    workload: Workload | None = None
    permissions: ClassVar[tuple[str, ...]] = (
        "compute.instances.list",
        "compute.instances.stop",
        "recommender.computeInstanceIdleResourceRecommendations.list",
        "recommender.computeInstanceIdleResourceRecommendations.update",
    )


@dataclass(frozen=True)
class DisableBilling(Action):
    """Unlink the project's billing account (stops every paid service in it)."""

    verb: ClassVar[str] = "disable_billing"
    permissions: ClassVar[tuple[str, ...]] = (
        "resourcemanager.projects.get",  # projects.getBillingInfo
        "resourcemanager.projects.deleteBillingAssignment",
    )


@dataclass(frozen=True)
class ReadGpuUtilization(Action):
    """Not an action on a resource: the read reap_idle_gpus needs (listed for permissions)."""

    permissions: ClassVar[tuple[str, ...]] = ("monitoring.timeSeries.list",)


@dataclass(frozen=True)
class Result:
    """What happened to one action; one line of the report."""

    target: str
    action: str
    outcome: Outcome
    reason: str

    def as_dict(self) -> dict[str, str]:
        """The report entry shape fixed by DESIGN.md."""
        return {
            "target": self.target,
            "action": self.action,
            "outcome": self.outcome,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Report:
    """The answer of one invocation."""

    entry_point: str
    dry_run: bool
    results: tuple[Result, ...]
    unfinished: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    def counts(self) -> dict[str, int]:
        """Number of results per outcome."""
        out: dict[str, int] = {}
        for r in self.results:
            out[r.outcome] = out.get(r.outcome, 0) + 1
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready report: `actions` has one entry per resource considered."""
        return {
            "entry_point": self.entry_point,
            "dry_run": self.dry_run,
            "counts": self.counts(),
            "actions": [r.as_dict() for r in self.results],
            "unfinished": list(self.unfinished),
            "errors": list(self.errors),
        }
