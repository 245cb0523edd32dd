"""Pure decisions: (inputs read from GCP, policy, now) -> actions.

No google.*, no environment, no clock, no I/O: every function here is table-tested.
Reading the inputs is the flows' job (flows/), carrying the actions out execute.py's.
Every resource considered yields exactly one action (a `Skip` says why it is left alone).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from govern import claims, scopes
from govern.actions import (
    Action,
    ConfirmStop,
    DisableBilling,
    ReapRecommendation,
    ReleaseClaim,
    Skip,
    StopInstance,
    StopNotebook,
    StopTpuNode,
)
from govern.cap import OutsideZones, outside_zones_reason
from govern.labels import EXPIRES_LABEL, WORKLOAD_LABEL
from govern.models import (
    ActionPolicy,
    BudgetAlert,
    BudgetPolicy,
    Recommendation,
    Unjudged,
    Usage,
    Workload,
)

IDLE_SUBTYPE = "STOP_VM"
# alertThresholdExceeded may exceed costAmount / budgetAmount by float rounding, no more.
RATIO_TOLERANCE = 1e-6


class DecisionError(ValueError):
    """The input is well-formed but the policy does not cover it (e.g. an unknown budget)."""


@dataclass(frozen=True)
class NoData(Skip):
    """Left alone because its accelerator reported no utilization data (listed once per run)."""


@dataclass(frozen=True)
class BudgetScope:
    """What one budget alert asks for: projects to stop, projects whose billing to unlink.

    `inconsistent`: the notification contradicts itself and is not acted on.
    """

    fraction: float
    stop_projects: tuple[str, ...]
    billing_projects: tuple[str, ...]
    reason: str
    inconsistent: bool = False


def budget_of(alert: BudgetAlert, policy: ActionPolicy) -> BudgetPolicy:
    """The stack's budget the alert's budgetId names.

    Raises:
        DecisionError: naming both the message's budgetId and the stack's budget ids.
    """
    budget = policy.budgets.get(alert.budget_id)
    if budget is None:
        ours = ", ".join(repr(b) for b in sorted(policy.budgets)) or "none"
        raise DecisionError(
            f"budget {alert.budget_id!r} is not in MLGOV_POLICY.budgets (the stack's: {ours}); "
            "not acted on"
        )
    return budget


@dataclass(frozen=True)
class BudgetLevel:
    """How far a budget alert goes before anyone asks which projects: the judgement of it.

    `level`: the highest policy level the ratio reached (`stop_at`, or `disable_billing_at`
    when it reached that too), None below stop_at or when not acted on. Fan-out work items
    carry it in their keys (workitems.budget_key).
    """

    fraction: float
    reason: str
    level: float | None = None
    unlinks: bool = False
    inconsistent: bool = False

    @property
    def stops(self) -> bool:
        """True when the alert reached stop_at (workloads are stopped)."""
        return self.level is not None


def budget_level(alert: BudgetAlert, budget: BudgetPolicy) -> BudgetLevel:
    """Decide how far a budget alert goes, on the spend ratio costAmount / budget amount.

    The budget amount is the one the stack configured (the policy's `amount`), never the
    message's `budgetAmount`, which only serves when the policy does not carry it.
    `alertThresholdExceeded` only confirms the message's own ratio, never raises it: Google
    sends the highest threshold crossed, which cannot exceed the highest configured threshold
    (so a stop level above it would be unreachable), and a message whose threshold exceeds its
    own costAmount / budgetAmount is inconsistent and not acted on. Forecasts never trigger
    anything. Whether the message is the stack's and of the current period is checked before
    (notifications.judge).
    """
    own = alert.spend_ratio
    fraction = own if budget.amount is None else alert.cost_amount / budget.amount
    if fraction is None:
        return BudgetLevel(0.0, "budgetAmount is 0: no spend ratio to act on")
    threshold = alert.alert_threshold
    if threshold is not None and own is not None and threshold > own + RATIO_TOLERANCE:
        return BudgetLevel(
            fraction,
            f"inconsistent notification: alertThresholdExceeded {threshold:g} but costAmount "
            f"{alert.cost_amount:g} / budgetAmount {alert.budget_amount:g} = {own:.4g}; "
            "not acted on",
            inconsistent=True,
        )
    spent = f"actual spend at {fraction:.0%} of budget {alert.budget_id}"
    if budget.amount is not None:
        spent += f" ({alert.cost_amount:g} of the stack's {budget.amount:g})"
    return ratio_level(fraction, budget, spent)


def ratio_level(fraction: float, budget: BudgetPolicy, spent: str) -> BudgetLevel:
    """The level a spend ratio reaches under `budget`; `spent` starts the reason."""
    if fraction < budget.stop_at:
        return BudgetLevel(fraction, f"{spent}, below stop_at {budget.stop_at:.0%}")
    if budget.disable_billing_at is not None and fraction >= budget.disable_billing_at:
        reason = f"{spent} >= disable_billing_at {budget.disable_billing_at:.0%}"
        return BudgetLevel(fraction, reason, budget.disable_billing_at, unlinks=True)
    return BudgetLevel(fraction, f"{spent} >= stop_at {budget.stop_at:.0%}", budget.stop_at)


def budget_scope(alert: BudgetAlert, policy: ActionPolicy) -> BudgetScope:
    """How far a budget alert goes (budget_level), over the budget's projects in `policy`.

    Raises:
        DecisionError: the budget id is not in the policy.
    """
    budget = budget_of(alert, policy)
    level = budget_level(alert, budget)
    return level_scope(level, budget, policy)


def level_scope(level: BudgetLevel, budget: BudgetPolicy, policy: ActionPolicy) -> BudgetScope:
    """The projects to stop and to unlink at `level`, among `budget.projects` (pure)."""
    if not level.stops:
        return BudgetScope(level.fraction, (), (), level.reason, level.inconsistent)
    billing: tuple[str, ...] = ()
    if level.unlinks:
        billing = tuple(p for p in budget.projects if policy.projects[p].allow_billing_disable)
    return BudgetScope(level.fraction, budget.projects, billing, level.reason)


def _governed(w: Workload, policy: ActionPolicy) -> bool:
    return scopes.governs_zone(policy, w.project, w.zone)


USER_MANAGED_NOTEBOOK = (
    "user-managed notebook VM (Notebooks v1, which the v2 API never lists): stopped through Compute"
)
WORKBENCH_VM = "Workbench VM: handled through the Notebooks API"


def _stop(w: Workload, reason: str) -> Action:
    if w.kind == "notebook":
        return StopNotebook(w.target, reason, workload=w)
    if w.kind == "tpu":
        return StopTpuNode(w.target, reason, workload=w)
    if w.user_managed_notebook:
        reason = f"{reason}; {USER_MANAGED_NOTEBOOK}"
    return StopInstance(w.target, reason, workload=w)


def _stop_or_leave(
    w: Workload,
    policy: ActionPolicy,
    reason: str,
    why_not: str | None,
    *,
    restop: bool = True,
    queued: bool = True,
) -> Action:
    """Stop `w`; or check again a VM an earlier stop left STOPPING; or leave it (`why_not`).

    A VM still STOPPING is what an unconfirmed stop leaves behind: taking it for "not running"
    would answer the redelivery with nothing confirmed (actions/confirm_stop.py). `restop`:
    stop it again should it be running by then. `queued`: a VM PENDING on capacity (a
    flex-start request) is stopped too, before capacity arrives and it starts billing.
    """
    if why_not is None:
        return _stop(w, reason)
    ours = w.kind == "compute" and w.managed_by is None and not policy.is_exempt(w.labels)
    if ours and w.stopping:
        reason = f"{reason}; left {w.state} by an earlier stop"
        return ConfirmStop(w.target, reason, workload=w, restop=restop)
    if ours and queued and w.queued:
        flex = ", flex-start" if w.provisioning_model == "FLEX_START" else ""
        return _stop(w, f"{reason}; {QUEUED_VM.format(state=w.state, flex=flex)}")
    return Skip(w.target, why_not)


QUEUED_VM = (
    "queued for capacity ({state}{flex}): stopped, so that capacity arriving does not start "
    "it billing"
)


def _notebooks_listed(workloads: Iterable[Workload]) -> frozenset[tuple[str, str, str]]:
    """(project, zone, name) of the instances the Notebooks v2 API listed."""
    return frozenset(w.key for w in workloads if w.kind == "notebook")


def _leave_alone(
    w: Workload, policy: ActionPolicy, notebooks: frozenset[tuple[str, str, str]] = frozenset()
) -> str | None:
    """Why `w` must not be stopped, or None if it may be.

    `notebooks`: the Workbench instances the v2 API listed. A notebook VM among them is a
    Workbench VM whatever its metadata says, and is stopped through that API, not twice.
    """
    if policy.is_exempt(w.labels):
        key, value = policy.exempt_label
        return f"exempt ({key}={value})"
    if w.managed_by == "workbench" or (w.user_managed_notebook and w.key in notebooks):
        return WORKBENCH_VM
    if w.managed_by is not None:
        return f"managed by {w.managed_by}: stopping it through Compute would fight its owner"
    if not w.running:
        return f"not running (state {w.state or 'unknown'})"
    return None


def stop_workloads(
    workloads: Iterable[Workload], policy: ActionPolicy, reason: str
) -> list[Action]:
    """Stop every running, governed, non-exempt workload (budget cap).

    One running in a governed project but outside its governed zones is named (OutsideZones,
    which the report lists in `not_capped`), never left without a trace.
    """
    actions: list[Action] = []
    workloads = list(workloads)
    notebooks = _notebooks_listed(workloads)
    for w in sorted(workloads, key=lambda w: w.target):
        if not _governed(w, policy):
            if w.project in policy.projects and _leave_alone(w, policy, notebooks) is None:
                actions.append(
                    OutsideZones(w.target, outside_zones_reason(policy, w.project, w.zone))
                )
            continue
        actions.append(_stop_or_leave(w, policy, reason, _leave_alone(w, policy, notebooks)))
    return actions


def disable_billing(billing_enabled: Mapping[str, bool], scope: BudgetScope) -> list[Action]:
    """Unlink billing for the projects in scope whose billing is still linked (idempotent)."""
    actions: list[Action] = []
    for project in scope.billing_projects:
        target = f"//cloudbilling.googleapis.com/projects/{project}/billingInfo"
        if project not in billing_enabled:
            continue  # reading it failed; the failure is reported by the reader
        if billing_enabled[project]:
            actions.append(DisableBilling(target, scope.reason))
        else:
            actions.append(Skip(target, "billing already unlinked"))
    return actions


def budget_stops(
    scope: BudgetScope, workloads: Iterable[Workload], policy: ActionPolicy
) -> list[Action]:
    """The stops of one budget alert, given the workloads read for its scope.

    Billing is decided apart (`disable_billing`), once its state is read: after every stop is
    requested (flows/budget.py).
    """
    if not scope.stop_projects:
        return []
    return stop_workloads(
        (w for w in workloads if w.project in scope.stop_projects), policy, scope.reason
    )


def reap_idle(
    recommendations: Sequence[Recommendation],
    instances: Iterable[Workload],
    policy: ActionPolicy,
    run: claims.Run,
) -> list[Action]:
    """Act on STOP_VM idle-VM recommendations whose instance is running and governed.

    ACTIVE ones are claimed; a CLAIMED one carrying mlgov's stale claim (its run is over) is
    resumed, or released when its VM needs no stop any more; other CLAIMED ones are left alone.
    """
    by_key = {w.key: w for w in instances if w.kind == "compute"}
    actions: list[Action] = []
    for rec in sorted(recommendations, key=lambda r: r.name):
        if rec.problem or rec.instance is None:
            actions.append(Skip(rec.name, rec.problem or "no target instance"))
            continue
        claim = claims.claim_of(rec)
        if rec.state == "CLAIMED":
            if claim is None:
                actions.append(Skip(rec.name, "CLAIMED by someone else (no mlgov claim)"))
                continue
            if not claims.stale(claim, run.started, policy.time_budget_seconds):
                actions.append(
                    Skip(rec.name, f"claimed by mlgov run {claim.run_id}, which may still run")
                )
                continue
        elif rec.state != "ACTIVE":
            actions.append(
                Skip(rec.name, f"recommendation is {rec.state or 'in no state'}, not ACTIVE")
            )
            continue
        if rec.subtype != IDLE_SUBTYPE:
            actions.append(
                Skip(rec.name, f"subtype {rec.subtype or 'unknown'} is not {IDLE_SUBTYPE}")
            )
            continue
        actions.append(_reap_one(rec, claim, by_key, policy, run))
    return actions


def _reap_one(
    rec: Recommendation,
    claim: claims.Claim | None,
    by_key: Mapping[tuple[str, str, str], Workload],
    policy: ActionPolicy,
    run: claims.Run,
) -> Action:
    """The action for one actionable recommendation (ACTIVE, or mlgov's stale claim)."""
    w = by_key.get((rec.project, rec.zone, str(rec.instance)))
    why_not: str | None
    if w is None:
        path = f"projects/{rec.project}/zones/{rec.zone}/instances/{rec.instance}"
        target, why_not = f"//compute.googleapis.com/{path}", "instance not found (deleted?)"
    elif not _governed(w, policy):
        target, why_not = w.target, "zone not governed by MLGOV_POLICY"
    else:
        target, why_not = w.target, _leave_alone(w, policy)
    if why_not is None and w is not None:
        reason = f"idle VM ({rec.name})"
        if claim is not None:
            reason += f", resuming the stale claim of mlgov run {claim.run_id or '?'}"
        return ReapRecommendation(target, reason, recommendation=rec, workload=w, by=run)
    if claim is None:
        return Skip(target, why_not or "not stoppable")
    if w is not None and w.stopping:
        # Its stop is under way, not confirmed: SUCCEEDED could be untrue, FAILED would end
        # the recommendation. The claim stays until a run finds the VM stopped (or running).
        return Skip(
            target,
            f"{w.state}: the stop of mlgov run {claim.run_id or '?'} is not "
            "confirmed yet; its claim is kept for the next run",
        )
    # mlgov's own stale claim on a VM that needs no stop now: close it, never strand it.
    return ReleaseClaim(
        target,
        f"stale claim of mlgov run {claim.run_id or '?'}: {why_not}",
        recommendation=rec,
        succeeded=w is not None and not w.running,
        by=run,
    )


def reap_expired(workloads: Iterable[Workload], policy: ActionPolicy, today: date) -> list[Action]:
    """Stop governed workloads whose `mlgov-expires-on` date lies before `today`."""
    actions: list[Action] = []
    workloads = list(workloads)
    notebooks = _notebooks_listed(workloads)
    for w in sorted(workloads, key=lambda w: w.target):
        raw = w.labels.get(EXPIRES_LABEL)
        if raw is None or not _governed(w, policy):
            continue
        try:
            expires = date.fromisoformat(raw) if len(raw) == 10 else None
        except ValueError:
            expires = None
        if expires is None:
            actions.append(
                Skip(w.target, f"invalid {EXPIRES_LABEL} {raw!r} (want YYYY-MM-DD); not stopped")
            )
            continue
        if expires >= today:
            actions.append(Skip(w.target, f"expires on {raw}, not yet"))
            continue
        why_not = _leave_alone(w, policy, notebooks)
        actions.append(_stop_or_leave(w, policy, f"{EXPIRES_LABEL} {raw} has passed", why_not))
    return actions


def gpu_candidates(workloads: Iterable[Workload], policy: ActionPolicy) -> list[Workload]:
    """GPU VMs the idle-GPU reaper looks at: governed, with GPUs, workload label in the list."""
    wanted = set(policy.idle_gpu.workloads)
    return sorted(
        (
            w
            for w in workloads
            if w.kind == "compute"
            and w.gpus > 0
            and w.labels.get(WORKLOAD_LABEL) in wanted
            and _governed(w, policy)
        ),
        key=lambda w: w.target,
    )


def reap_idle_gpus(
    workloads: Iterable[Workload],
    utilization: Mapping[str, Usage],
    policy: ActionPolicy,
    now: datetime,
) -> list[Action]:
    """Stop GPU VMs whose GPUs stayed under the utilization limit for the whole window.

    `utilization` maps instance id to the busiest GPU's mean over the window (percent), or why
    it cannot be judged. A VM is judged only once it has run for the whole window (its
    lastStartTimestamp): a VM starting up is idle for a few minutes, not for the window. No
    data means no action. Workbench-backed GPU VMs are stopped through the Notebooks API (same
    zone and name).
    """
    limit = policy.idle_gpu.max_utilization_percent
    window = policy.idle_gpu.window_minutes
    actions: list[Action] = []
    for w in gpu_candidates(workloads, policy):
        target = w
        if w.managed_by == "workbench":
            target = Workload(
                "notebook",
                w.project,
                w.zone,
                w.name,
                "ACTIVE" if w.running else w.state,
                w.labels,
                w.gpus,
                w.instance_id,
            )
        if policy.is_exempt(w.labels) or target.managed_by is not None or not w.running:
            why_not = _leave_alone(target, policy) or "not stopped"
            if target is w:
                why = "idle GPU VM"
                left = _stop_or_leave(w, policy, why, why_not, restop=False, queued=False)
                actions.append(left)
            else:
                actions.append(Skip(target.target, why_not))
            continue
        if too_soon := _not_run_for(w, window, now, "started"):
            actions.append(Skip(target.target, too_soon))
            continue
        actions.append(
            _by_use(target, utilization.get(w.instance_id), limit, window, "GPU utilization")
        )
    return actions


def _not_run_for(w: Workload, window: int, now: datetime, verb: str) -> str | None:
    """Why `w` cannot be judged yet: it has not run for the whole window (or nobody knows)."""
    if w.last_start is None:
        return (
            f"its start time is unknown, so it may not have run the whole {window} min; not judged"
        )
    ran = now - w.last_start
    if ran < timedelta(minutes=window):
        return (
            f"{verb} {w.last_start:%Y-%m-%dT%H:%M:%SZ}, {max(0, int(ran.total_seconds() // 60))} "
            f"min ago: judged once it has run the whole {window}-min window; not stopped"
        )
    return None


def _by_use(w: Workload, used: Usage | None, limit: float, window: int, metric: str) -> Action:
    """Stop `w` if its accelerator's mean use stayed under `limit`; no data means no action."""
    chip = metric.split()[0]
    if used is None:
        return NoData(w.target, f"no {metric} data in the last {window} min; not stopped")
    if isinstance(used, Unjudged):
        if used.no_data:
            return NoData(w.target, f"{metric}: {used.reason}, counted as no data; not stopped")
        return Skip(w.target, f"{metric}: {used.reason}; not stopped")
    if used >= limit:
        return Skip(w.target, f"{chip} busy: {used:.1f}% >= {limit:g}% over {window} min")
    return _stop(w, f"{chip} idle: {used:.1f}% < {limit:g}% over {window} min")


def tpu_candidates(workloads: Iterable[Workload], policy: ActionPolicy) -> list[Workload]:
    """TPU VMs the idle reaper looks at: governed, workload label in idle_tpu.workloads."""
    wanted = set(policy.idle_tpu.workloads)
    return sorted(
        (
            w
            for w in workloads
            if w.kind == "tpu" and w.labels.get(WORKLOAD_LABEL) in wanted and _governed(w, policy)
        ),
        key=lambda w: w.target,
    )


def reap_idle_tpus(
    workloads: Iterable[Workload],
    duty_cycle: Mapping[str, Usage],
    policy: ActionPolicy,
    now: datetime,
) -> list[Action]:
    """Stop TPU VMs whose TPUs stayed under the duty-cycle limit; no data means no action.

    `duty_cycle` maps the node's name (or its numeric id) to the busiest worker's mean %, or
    why it cannot be judged. A TPU VM records no start time: one created within the window is
    not judged, and one started again within it is judged only once its data covers the window
    (parse/resources.py).
    """
    limit, window = policy.idle_tpu.max_duty_cycle_percent, policy.idle_tpu.window_minutes
    actions: list[Action] = []
    for w in tpu_candidates(workloads, policy):
        why_not = _leave_alone(w, policy) or _not_run_for(w, window, now, "created")
        if why_not:
            actions.append(Skip(w.target, why_not))
            continue
        used = duty_cycle.get(w.name, duty_cycle.get(w.instance_id))
        actions.append(_by_use(w, used, limit, window, "TPU duty-cycle"))
    return actions
