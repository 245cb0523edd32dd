"""Cloud Functions entry points: decode the trigger, read, decide, act, report.

The only module that knows CloudEvents, HTTP requests and environment variables. Decisions
live in govern/decide.py, execution in govern/execute.py, GCP calls in govern/gcp.py.
Importing this module is cheap: no google.* import and no client is built until an entry point
needs one (each client is built once per process, on first use).

Entry points: on_budget_alert (CloudEvent, Pub/Sub messagePublished), and the HTTP POST
functions reap_idle_vms, reap_expired, reap_idle_gpus (Cloud Scheduler with OIDC).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from govern import decide, execute, parse
from govern.models import (
    Action,
    ActionPolicy,
    DisableBilling,
    PolicyError,
    Report,
    Result,
    Workload,
)
from govern.ports import Ports

if TYPE_CHECKING:
    from govern import gcp

F = TypeVar("F", bound=Callable[..., Any])
SERVICES = ("compute", "recommender", "cloudbilling", "notebooks", "tpu", "monitoring")


def _register(kind: str) -> Callable[[F], F]:
    """Apply functions_framework's `http`/`cloud_event` decorator when the framework runs us.

    The framework is always imported before it loads this file; a plain `import main` (tools,
    cold-start checks) then skips its ~0.6 s import.
    """

    def wrap(fn: F) -> F:
        framework = sys.modules.get("functions_framework")
        return getattr(framework, kind)(fn) if framework is not None else fn

    return wrap


# -- configuration and clients, built once per process ------------------------------------------


@functools.cache
def _policy() -> ActionPolicy:
    return ActionPolicy.from_json(os.environ.get("MLGOV_POLICY"))


@functools.cache
def _endpoints() -> Mapping[str, str]:
    raw = os.environ.get("MLGOV_API_ENDPOINTS", "").strip()
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        raise PolicyError("MLGOV_API_ENDPOINTS: not valid JSON") from None
    if not isinstance(value, dict) or not all(
        isinstance(v, str) and v.startswith(("http://", "https://")) for v in value.values()
    ):
        raise PolicyError("MLGOV_API_ENDPOINTS: must map service names to http(s):// base URLs")
    unknown = sorted(set(value) - set(SERVICES))
    if unknown:
        raise PolicyError(
            f"MLGOV_API_ENDPOINTS: unknown service(s) {', '.join(unknown)}; "
            f"known: {', '.join(SERVICES)}"
        )
    return dict(value)


def _gcp() -> Any:
    from govern import gcp

    return gcp


@functools.cache
def _compute() -> gcp.ComputeAdapter:
    return _gcp().compute(_endpoints().get("compute"))


@functools.cache
def _notebooks() -> gcp.NotebooksAdapter:
    return _gcp().notebooks(_endpoints().get("notebooks"))


@functools.cache
def _tpus() -> gcp.TpuAdapter:
    return _gcp().tpus(_endpoints().get("tpu"))


@functools.cache
def _billing() -> gcp.BillingAdapter:
    return _gcp().billing(_endpoints().get("cloudbilling"))


@functools.cache
def _recommender() -> gcp.RecommenderAdapter:
    return _gcp().recommender(_endpoints().get("recommender"))


@functools.cache
def _monitoring() -> gcp.MonitoringAdapter:
    return _gcp().monitoring(_endpoints().get("monitoring"))


# -- shared steps -------------------------------------------------------------------------------


def _flatten(lists: Iterable[list[Workload] | None]) -> list[Workload]:
    return [w for chunk in lists if chunk for w in chunk]


def _inventory(runner: execute.Runner, ports: Ports, projects: Sequence[str]) -> list[Workload]:
    """Compute VMs, Workbench instances and TPU VMs of `projects`, read concurrently."""
    tasks: list[Callable[[], list[Workload]]] = []
    for project in projects:
        zones = runner.policy.projects[project].zones
        if ports.compute is not None:
            tasks.append(
                functools.partial(
                    runner.gather, "compute list", project, ports.compute.list_instances, project
                )
            )
        if ports.notebooks is not None:
            tasks.append(
                functools.partial(
                    runner.gather,
                    "notebooks list",
                    project,
                    ports.notebooks.list_instances,
                    project,
                )
            )
        if ports.tpus is not None:
            tpus = ports.tpus
            tasks += [
                functools.partial(runner.gather, "tpu list", project, tpus.list_nodes, project, z)
                for z in zones
            ]
    return _flatten(runner.map(lambda task: task(), tasks))


def _report(
    entry_point: str, policy: ActionPolicy, results: Sequence[Result], runner: execute.Runner
) -> Report:
    unfinished = tuple(r.target for r in results if r.reason == execute.LEFT_REASON)
    report = Report(entry_point, policy.dry_run, tuple(results), unfinished, tuple(runner.errors))
    severity = "ERROR" if report.errors or report.counts().get("failed") else "INFO"
    execute.log(
        severity,
        f"{entry_point} finished",
        entry_point=entry_point,
        dry_run=policy.dry_run,
        counts=report.counts(),
        unfinished=len(unfinished),
        errors=list(report.errors),
        seconds=round(time.monotonic() - runner.started, 3),
    )
    return report


def _run(
    entry_point: str,
    policy: ActionPolicy,
    actions: list[Action],
    ports: Ports,
    runner: execute.Runner,
) -> Report:
    results = execute.apply(actions, ports, runner, entry_point, dry_run=policy.dry_run)
    return _report(entry_point, policy, results, runner)


def _http(
    entry_point: str, request: Any, work: Callable[[ActionPolicy], Report]
) -> tuple[str, int, dict[str, str]]:
    headers = {"Content-Type": "application/json"}
    if getattr(request, "method", "POST") != "POST":
        return (
            json.dumps({"error": f"{entry_point} accepts POST only"}),
            405,
            {**headers, "Allow": "POST"},
        )
    try:
        policy = _policy()
        _endpoints()
    except PolicyError as err:
        execute.log(
            "ERROR", f"{entry_point}: invalid configuration: {err}", entry_point=entry_point
        )
        return json.dumps({"error": f"invalid configuration: {err}"}), 500, headers
    return json.dumps(work(policy).as_dict()), 200, headers


# -- entry points -------------------------------------------------------------------------------


def _event_data(event: Any) -> Any:
    data = getattr(event, "data", None)
    if data is None and isinstance(event, Mapping):
        data = event.get("data")  # pyright: ignore[reportUnknownMemberType]
    return data


def _handle_budget_alert(event: Any, policy: ActionPolicy) -> None:
    event_id = str(event.get("id", "")) if hasattr(event, "get") else ""
    try:
        alert = parse.budget_alert(_event_data(event))
        scope = decide.budget_scope(alert, policy)
    except (parse.ParseError, decide.DecisionError) as err:
        # Acknowledge: redelivering a message we cannot read would only repeat this line.
        execute.log(
            "ERROR",
            f"budget alert ignored: {err}",
            entry_point="on_budget_alert",
            event_id=event_id,
        )
        return
    if not scope.stop_projects:
        execute.log(
            "INFO",
            f"budget alert: no action ({scope.reason})",
            entry_point="on_budget_alert",
            budget_id=alert.budget_id,
            event_id=event_id,
        )
        return
    runner = execute.Runner(policy)
    ports = Ports(
        compute=_compute(),
        notebooks=_notebooks(),
        tpus=_tpus(),
        billing=_billing() if scope.billing_projects else None,
    )
    workloads = _inventory(runner, ports, scope.stop_projects)
    billing_state: dict[str, bool] = {}
    if ports.billing is not None:
        billing = ports.billing

        def read(project: str) -> tuple[str, list[bool]]:
            return project, runner.gather(
                "billing get", project, lambda p: [billing.billing_enabled(p)], project
            )

        for item in runner.map(read, list(scope.billing_projects)):
            if item is not None and item[1]:
                billing_state[item[0]] = item[1][0]
    actions = decide.on_budget(scope, workloads, billing_state, policy)
    # Stop workloads first; unlinking billing (the last resort) comes after, in a second pass.
    stops = [a for a in actions if not isinstance(a, DisableBilling)]
    unlinks = [a for a in actions if isinstance(a, DisableBilling)]
    results = execute.apply(stops, ports, runner, "on_budget_alert", dry_run=policy.dry_run)
    results += execute.apply(unlinks, ports, runner, "on_budget_alert", dry_run=policy.dry_run)
    _report("on_budget_alert", policy, results, runner)


@_register("cloud_event")
def on_budget_alert(event: Any) -> None:
    """Budget notification (CloudEvent): stop workloads, then unlink billing where allowed.

    Never raises: a message that cannot be handled is logged as one ERROR line and
    acknowledged, so Pub/Sub does not redeliver it in a loop.
    """
    try:
        policy = _policy()
        _endpoints()
    except PolicyError as err:
        execute.log(
            "ERROR", f"on_budget_alert: invalid configuration: {err}", entry_point="on_budget_alert"
        )
        return
    try:
        _handle_budget_alert(event, policy)
    except Exception as err:
        execute.log(
            "CRITICAL",
            f"on_budget_alert: unexpected {type(err).__name__}: {err}",
            entry_point="on_budget_alert",
            traceback=traceback.format_exc(),
        )


def _reap_idle_vms(policy: ActionPolicy) -> Report:
    runner = execute.Runner(policy)
    recommender, compute = _recommender(), _compute()
    pairs = [(p, z) for p, proj in sorted(policy.projects.items()) for z in proj.zones]
    recs = [
        r
        for chunk in runner.map(
            lambda pz: runner.gather("recommender list", pz[0], recommender.list_active, *pz), pairs
        )
        if chunk
        for r in chunk
    ]
    projects = sorted({r.project for r in recs})
    instances = _flatten(
        runner.map(lambda p: runner.gather("compute list", p, compute.list_instances, p), projects)
    )
    actions = decide.reap_idle(recs, instances, policy)
    return _run(
        "reap_idle_vms", policy, actions, Ports(compute=compute, recommender=recommender), runner
    )


@_register("http")
def reap_idle_vms(request: Any) -> tuple[str, int, dict[str, str]]:
    """HTTP POST: act on ACTIVE idle-VM recommendations (claim, stop, mark succeeded/failed)."""
    return _http("reap_idle_vms", request, _reap_idle_vms)


def _reap_expired(policy: ActionPolicy) -> Report:
    runner = execute.Runner(policy)
    ports = Ports(compute=_compute(), notebooks=_notebooks(), tpus=_tpus())
    workloads = _inventory(runner, ports, sorted(policy.projects))
    actions = decide.reap_expired(workloads, policy, datetime.now(UTC).date())
    return _run("reap_expired", policy, actions, ports, runner)


@_register("http")
def reap_expired(request: Any) -> tuple[str, int, dict[str, str]]:
    """HTTP POST: stop workloads whose mlgov-expires-on date has passed."""
    return _http("reap_expired", request, _reap_expired)


def _reap_idle_gpus(policy: ActionPolicy) -> Report:
    runner = execute.Runner(policy)
    compute = _compute()
    instances = _inventory(runner, Ports(compute=compute), sorted(policy.projects))
    candidates = decide.gpu_candidates(instances, policy)
    needs_notebooks = any(w.managed_by == "workbench" for w in candidates)
    ports = Ports(
        compute=compute,
        notebooks=_notebooks() if needs_notebooks else None,
        monitoring=_monitoring() if candidates else None,
    )
    utilization: dict[str, float] = {}
    by_project: dict[str, list[str]] = {}
    for w in candidates:
        by_project.setdefault(w.project, []).append(w.instance_id)
    if ports.monitoring is not None:
        monitoring = ports.monitoring
        window = policy.idle_gpu.window_minutes

        def read(item: tuple[str, list[str]]) -> list[Mapping[str, float]]:
            project, ids = item
            return runner.gather(
                "monitoring read",
                project,
                lambda p: [monitoring.gpu_utilization(p, window, ids)],
                project,
            )

        for chunk in runner.map(read, sorted(by_project.items())):
            for found in chunk or []:
                utilization.update(found)
    actions = decide.reap_idle_gpus(candidates, utilization, policy)
    return _run("reap_idle_gpus", policy, actions, ports, runner)


@_register("http")
def reap_idle_gpus(request: Any) -> tuple[str, int, dict[str, str]]:
    """HTTP POST: stop GPU VMs (workload=training|notebook) whose GPUs stayed idle."""
    return _http("reap_idle_gpus", request, _reap_idle_gpus)
