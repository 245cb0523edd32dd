"""Frozen value objects: the policy the functions run under, what they read, what they report.

`ActionPolicy` is the `MLGOV_POLICY` wire format as data; its validator lives with the other
parsers (parse/policy.py, reached through `ActionPolicy.from_json`). Actions are in actions/,
decisions in decide.py. Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypeAlias

from govern.periods import Period

Kind = Literal["compute", "notebook", "tpu"]
Outcome = Literal["done", "simulated", "skipped", "failed"]


class PolicyError(ValueError):
    """MLGOV_POLICY is missing, not JSON, or breaks the schema; the message names the key path."""


@dataclass(frozen=True)
class ProjectPolicy:
    """One governed project: its environment, the zones automation looks at, billing opt-in.

    `zones` empty means every zone and region: a project found through a scope (`scope` names
    it; None for one listed in MLGOV_POLICY.projects) has no zones of its own. Vertex AI has no
    `locations/-`, so such a project's jobs are read in `vertex_regions` only (scopes.py).
    """

    environment: str
    zones: tuple[str, ...]
    allow_billing_disable: bool
    scope: str | None = None
    vertex_regions: tuple[str, ...] = ()

    @property
    def every_zone(self) -> bool:
        """True when the project is governed in every zone (found through a scope)."""
        return not self.zones


@dataclass(frozen=True)
class ScopePolicy:
    """A folder or organization whose ACTIVE projects are governed (MLGOV_POLICY.scopes).

    `labels`: every pair must match a project's labels exactly for it to be governed.
    `vertex_regions`: where its projects' Vertex AI jobs are read (empty: the default, see
    govern/resolve.py).
    """

    environment: str
    allow_billing_disable: bool
    labels: Mapping[str, str] = field(default_factory=dict[str, str])
    vertex_regions: tuple[str, ...] = ()


@dataclass(frozen=True)
class FanOutPolicy:
    """What the work-item worker is told about its deployment (MLGOV_POLICY.fan_out).

    `max_delivery_attempts`: the subscription's dead-letter limit, so a worker can say when an
    attempt is the last one. `worker_instances`: the worker's max instances, which divides the
    organization-level quotas between the worker processes (govern/pacing.py).
    """

    max_delivery_attempts: int = 5
    worker_instances: int = 100


@dataclass(frozen=True)
class BudgetPolicy:
    """What a budget's notifications may do; thresholds are fractions of the budget amount.

    The optional keys say what the stack's budget is, so a notification can be checked against
    it (notifications.py); None means the key is absent and that check is not made.
    `amount` is the configured budget amount, the denominator of the spend ratio; `period`
    defaults to a calendar month when absent.
    """

    projects: tuple[str, ...]
    stop_at: float
    disable_billing_at: float | None
    billing_account: str | None = None
    amount: float | None = None
    currency: str | None = None
    period: Period | None = None
    # Folders or organizations whose projects the budget covers too (keys of ActionPolicy.scopes).
    scopes: tuple[str, ...] = ()

    def absent(self) -> tuple[str, ...]:
        """The optional keys this budget lacks (each an unchecked part of a notification)."""
        keys = ("billing_account", "amount", "currency", "period")
        return tuple(k for k in keys if getattr(self, k) is None)


@dataclass(frozen=True)
class IdleGpuPolicy:
    """When a GPU VM counts as idle: mean utilization below the limit over the window."""

    max_utilization_percent: float = 5.0
    window_minutes: int = 60
    workloads: tuple[str, ...] = ("training", "notebook")


@dataclass(frozen=True)
class IdleTpuPolicy:
    """When a TPU VM counts as idle: mean duty cycle below the limit over the window."""

    max_duty_cycle_percent: float = 5.0
    window_minutes: int = 60
    workloads: tuple[str, ...] = ("training", "notebook")


@dataclass(frozen=True)
class SpendCapPolicy:
    """A spend cap (Cloud Billing) whose alerts-only pair publishes to the budget topic.

    The budget function only reports such a cap's state: a cap is lifted by an operator
    (`mlgov cap lift`), never by automation.
    """

    project: str
    service_key: str
    service: str  # services/<Billing Catalog id>
    cap: str  # billingAccounts/<id>/budgets/<id>
    amount: float


@dataclass(frozen=True)
class SpendCapState:
    """A spend cap as the Budget API answers it (`spendCap.outputState`, `reconciling`)."""

    name: str
    input_state: str
    output_state: str
    reconciling: bool
    amount: float | None
    currency: str


# -- blast radius (the reapers' limits; govern/blast.py decides with them) -----------------------
REAPERS: tuple[str, ...] = ("reap_idle_vms", "reap_expired", "reap_idle_gpus")
"""The reaper entry points `blast_radius.acting_reapers` may name."""


@dataclass(frozen=True)
class BlastRadius:
    """How much one reaper run may do before it stops acting and pages (MLGOV_POLICY.blast_radius).

    `max_stops_per_run`: a run planning more stops acts on none of them. `max_stop_percent`:
    likewise past this share of the running estate it read (None: off). `max_error_rate`: once
    a run has made BREAKER_MIN_CALLS calls and more than this fraction failed, it starts no new
    action. `canary`: `projects/<id>` or `folders/<digits>` acted on first; a failure there holds
    the rest. `acting_reapers`: the reapers that may act (None: every reaper follows dry_run, as
    before this key existed); a reaper not listed simulates. The budget kill switch is held to
    none of these.
    """

    max_stops_per_run: int = 100
    max_stop_percent: float | None = None
    max_error_rate: float = 0.05
    canary: tuple[str, ...] = ()
    acting_reapers: tuple[str, ...] | None = None


HoldKind = Literal["ceiling", "breaker", "canary"]


@dataclass(frozen=True)
class Hold:
    """A blast-radius limit that held a run's actions back: which, why, and whether to retry.

    `retry`: whether the caller should deliver the run again (non-2xx). A ceiling hold is not
    retried (a retry would plan the same stops and be held the same way); a tripped breaker or
    a failed canary is (the next attempt may find the API healthy again).
    """

    kind: HoldKind
    reason: str
    retry: bool

    def as_dict(self) -> dict[str, object]:
        """The report and log entry."""
        return {"kind": self.kind, "reason": self.reason, "retry": self.retry}


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
    # How long to wait for one API reply before retrying it (a socket timeout).
    call_timeout_seconds: float = 30.0
    idle_tpu: IdleTpuPolicy = field(default_factory=IdleTpuPolicy)
    # Undeploying breaks serving: off unless the stack opts in (and then only endpoints that
    # carry the opt-in label, govern/labels.py UNDEPLOY_LABEL).
    undeploy_endpoints: bool = False
    # Spend caps by the id of their alerts-only budget (absent: none); reported, never acted on.
    spend_caps: Mapping[str, SpendCapPolicy] = field(default_factory=dict[str, SpendCapPolicy])
    # Organization scale (issue 29): folders/organizations whose projects are governed too,
    # resolved at run time (govern/resolve.py), and what the fan-out worker needs to know.
    scopes: Mapping[str, ScopePolicy] = field(default_factory=dict[str, ScopePolicy])
    fan_out: FanOutPolicy = field(default_factory=FanOutPolicy)
    # The reapers' limits (ceiling, error-rate breaker, canary, which reapers act).
    blast_radius: BlastRadius = field(default_factory=BlastRadius)

    @classmethod
    def from_json(cls, text: str | bytes | None) -> ActionPolicy:
        """Parse and validate the policy JSON strictly (govern/parse/policy.py).

        Raises:
            PolicyError: naming the offending key path, e.g. `MLGOV_POLICY.budgets.b1.stop_at`.
        """
        # Imported here: the validator builds these models, so it imports this module.
        from govern.parse.policy import action_policy

        return action_policy(text)

    def is_exempt(self, labels: Mapping[str, str]) -> bool:
        """True if the resource carries the exemption label with its exact value."""
        key, value = self.exempt_label
        return labels.get(key) == value


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
# On the way down but not there: what an unconfirmed stop can leave behind (compute v1 Instance
# status: STOPPING "currently stopping", PENDING_STOP "gracefully shutting down").
STOPPING: dict[Kind, frozenset[str]] = {
    "compute": frozenset({"STOPPING", "PENDING_STOP"}),
    "notebook": frozenset({"STOPPING"}),
    "tpu": frozenset({"STOPPING"}),
}


@dataclass(frozen=True)
class Workload:
    """A stoppable resource: a Compute VM, a Workbench instance or a TPU VM.

    `managed_by` names the service that owns a Compute VM underneath (gke, workbench, mig);
    such VMs are stopped through their owner or not at all. `local_ssds` counts a Compute VM's
    Local SSD (SCRATCH) disks, whose data a plain stop discards. `user_managed_notebook`: the VM
    of a user-managed (Notebooks v1) notebook, which no API mlgov calls lists but Compute; it is
    stopped through Compute. `last_start` (UTC): when a Compute VM last started
    (lastStartTimestamp); for a TPU VM, which records no start time, when it was created; None
    when unknown.
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
    local_ssds: int = 0
    user_managed_notebook: bool = False
    last_start: datetime | None = None
    # A Compute VM's scheduling.provisioningModel (FLEX_START, SPOT, STANDARD...; "" unknown).
    provisioning_model: str = ""

    @property
    def target(self) -> str:
        """Full resource name (Cloud Asset style), used in reports and logs."""
        return _SERVICE[self.kind].format(p=self.project, z=self.zone, n=self.name)

    @property
    def running(self) -> bool:
        """True while the workload costs compute money and a stop makes sense."""
        return self.state in _RUNNING[self.kind]

    @property
    def queued(self) -> bool:
        """A Compute VM waiting for capacity (PENDING: a flex-start request).

        It bills once capacity arrives, so the budget cap stops it too (govern/queued.py).
        """
        return self.kind == "compute" and self.state == "PENDING"

    @property
    def stopping(self) -> bool:
        """True while a stop is under way and not finished (it may still fail)."""
        return self.state in STOPPING[self.kind]

    @property
    def key(self) -> tuple[str, str, str]:
        """(project, zone, name): how recommendations and metrics find their instance."""
        return (self.project, self.zone, self.name)


@dataclass(frozen=True)
class QueuedResource:
    """A TPU queued resource: a request for TPU VMs, where, its state, its nodes' labels.

    Exemption is its nodes' (the labels they are to carry); govern/queued.py decides.
    """

    project: str
    zone: str
    name: str
    state: str
    labels: Mapping[str, str] = field(default_factory=dict[str, str])

    @property
    def target(self) -> str:
        """Full resource name, as reports name it."""
        return (
            f"//tpu.googleapis.com/projects/{self.project}/locations/{self.zone}/"
            f"queuedResources/{self.name}"
        )

    @property
    def path(self) -> str:
        """The REST name `projects/P/locations/Z/queuedResources/N`."""
        return f"projects/{self.project}/locations/{self.zone}/queuedResources/{self.name}"


@dataclass(frozen=True)
class MetricWindow:
    """The span an accelerator's use is judged over, and the step its points are aligned to."""

    start: datetime
    end: datetime
    step_seconds: int

    @property
    def minutes(self) -> int:
        """The window's length in whole minutes."""
        return round((self.end - self.start).total_seconds() / 60)


@dataclass(frozen=True)
class Unjudged:
    """An accelerator whose series cannot be judged; `reason` says why.

    `no_data`: the series counts as no data (a unit other than the documented one), reported
    with the others without data; otherwise the data does not cover the window yet.
    """

    reason: str
    no_data: bool = False


Usage: TypeAlias = float | Unjudged
"""The busiest chip's mean use over the window (percent), or why it cannot be judged."""


@dataclass(frozen=True)
class Recommendation:
    """An idle-VM recommendation; `instance` is the zone/name target, None if unresolvable.

    `state_metadata` is stateInfo.stateMetadata: who claimed it and when (claims.py reads it).
    """

    name: str
    etag: str
    state: str
    subtype: str
    project: str  # the project id we listed under (the name itself carries the number)
    zone: str
    instance: str | None
    problem: str = ""
    state_metadata: Mapping[str, str] = field(default_factory=dict[str, str])


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
    def spend_ratio(self) -> float | None:
        """Actual spend as a fraction of the budget: costAmount / budgetAmount (None if 0).

        This is what the cap decides on. `alertThresholdExceeded` only names the highest
        threshold crossed, so it never exceeds the highest configured threshold and would hide
        any stop level above it; forecasts never count (decide.budget_scope).
        """
        if self.budget_amount > 0:
            return self.cost_amount / self.budget_amount
        return None


@dataclass(frozen=True)
class Result:
    """What happened to one action; one line of the report."""

    target: str
    action: str
    outcome: Outcome
    reason: str

    def as_dict(self) -> dict[str, str]:
        """The report entry shape fixed by docs/architecture.md#answers."""
        return {
            "target": self.target,
            "action": self.action,
            "outcome": self.outcome,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Report:
    """The answer of one invocation.

    `unfinished`: targets the time budget left for the next run; `errors`: failures not tied to
    one action (a listing that failed after retries); `unreadable`: resources listed but not
    parsed (reported and skipped, not a failure: trying again cannot help).
    """

    entry_point: str
    dry_run: bool
    results: tuple[Result, ...]
    unfinished: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    unreadable: tuple[str, ...] = ()
    run_id: str = ""
    no_data: tuple[str, ...] = ()  # governed accelerators without utilization data
    # What the budget cap does not reach: Autopilot clusters (by design), what runs outside the
    # governed zones, Vertex AI outside the regions read (flows/budget.py).
    not_capped: tuple[str, ...] = ()
    # Governed locations a listing could not read (Compute `unreachables`, GKE `missingZones`,
    # TPU/Notebooks `unreachable`): what they hold was not acted on, so the run failed.
    failed_scopes: tuple[str, ...] = ()
    # Fan-out: what a dispatcher published instead of acting (flows/dispatch.py), else None.
    dispatch: Mapping[str, Any] | None = None
    # Blast-radius limits that held actions back (each paged once); see govern/blast.py.
    holds: tuple[Hold, ...] = ()

    @property
    def failed(self) -> bool:
        """True if anything was not done that a later attempt could do: the caller retries."""
        return bool(
            self.errors
            or self.unfinished
            or self.failed_scopes
            or any(r.outcome == "failed" for r in self.results)
            or any(h.retry for h in self.holds)
        )

    def summary(self) -> str:
        """One line: counts per outcome, then what failed or was left."""
        counts = self.counts()
        parts = [
            f"{counts[k]} {k}" for k in ("done", "simulated", "skipped", "failed") if k in counts
        ]
        if self.unfinished:
            parts.append(f"{len(self.unfinished)} left for the next run")
        if self.errors:
            parts.append(f"{len(self.errors)} error(s)")
        if self.failed_scopes:
            parts.append(f"{len(self.failed_scopes)} location(s) not read")
        if self.unreadable:
            parts.append(f"{len(self.unreadable)} unreadable")
        if self.not_capped:
            parts.append(f"{len(self.not_capped)} not capped")
        parts += [f"held by the {h.kind}" for h in self.holds]
        if self.dispatch is not None:
            parts.insert(0, f"{self.dispatch['items']} work item(s) published")
        return ", ".join(parts) or "nothing to do"

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
            "run_id": self.run_id,
            "dry_run": self.dry_run,
            "failed": self.failed,
            "counts": self.counts(),
            "actions": [r.as_dict() for r in self.results],
            "unfinished": list(self.unfinished),
            "errors": list(self.errors),
            "unreadable": list(self.unreadable),
            "no_data": list(self.no_data),
            "not_capped": list(self.not_capped),
            "failed_scopes": list(self.failed_scopes),
            "held": [h.as_dict() for h in self.holds],
            **({"dispatch": dict(self.dispatch)} if self.dispatch is not None else {}),
        }


@dataclass(frozen=True)
class FoundProject:
    """A project Cloud Asset Inventory found under a scope (a `searchAllResources` result).

    Asset Inventory is eventually consistent (minutes): it says which projects exist, never
    what runs in them; the flows read live state before acting.
    """

    project_id: str
    number: str  # from `project`: projects/NUMBER ("" if absent)
    state: str  # ACTIVE, DELETE_REQUESTED, DELETE_IN_PROGRESS, ...
    labels: Mapping[str, str] = field(default_factory=dict[str, str])
