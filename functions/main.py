"""Cloud Functions entry points: decode the trigger, build the ports, run a flow, log, answer.

The only module that knows CloudEvents, HTTP requests and environment variables. The
read-decide-act flows live in govern/flows/, the action framework in govern/execute.py, GCP
calls in govern/gcp/. Importing this module is cheap: no google.* import and no client is built
until a flow touches a port (each adapter is built once per process, on first use).

Entry points: on_budget_alert (CloudEvent, Pub/Sub messagePublished), and the HTTP POST
functions reap_idle_vms, reap_expired, reap_idle_gpus (Cloud Scheduler with OIDC).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, TypeVar

from govern import execute, flows, gcp, parse, ports
from govern.decide import DecisionError
from govern.models import ActionPolicy, PolicyError, Report

F = TypeVar("F", bound=Callable[..., Any])
SERVICES = tuple(gcp.ADAPTERS)
"""The MLGOV_API_ENDPOINTS keys the functions use (DESIGN.md contract 2)."""


def _register(kind: str) -> Callable[[F], F]:
    """Apply functions_framework's `http`/`cloud_event` decorator when the framework runs us.

    The framework is always imported before it loads this file; a plain `import main` (tools,
    cold-start checks) then skips its ~0.6 s import.
    """

    def wrap(fn: F) -> F:
        framework = sys.modules.get("functions_framework")
        return getattr(framework, kind)(fn) if framework is not None else fn

    return wrap


# -- configuration and ports, built once per process --------------------------------------------


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


_adapters: dict[str, Any] = {}
_adapters_lock = threading.Lock()


def _adapter(service: str) -> Any:
    # Locked: actions may touch a port first from several worker threads at once.
    with _adapters_lock:
        if service not in _adapters:
            _adapters[service] = gcp.ADAPTERS[service](_endpoints().get(service))
        return _adapters[service]


class _CloudPorts:
    """govern.ports.Ports over the real clients; each adapter is built when first touched."""

    @property
    def compute(self) -> ports.Compute:
        return _adapter("compute")

    @property
    def notebooks(self) -> ports.Notebooks:
        return _adapter("notebooks")

    @property
    def tpus(self) -> ports.Tpus:
        return _adapter("tpu")

    @property
    def billing(self) -> ports.Billing:
        return _adapter("cloudbilling")

    @property
    def recommender(self) -> ports.Recommender:
        return _adapter("recommender")

    @property
    def monitoring(self) -> ports.Monitoring:
        return _adapter("monitoring")

    @property
    def container(self) -> ports.Container:
        return _adapter("container")

    @property
    def vertex(self) -> ports.Vertex:
        return _adapter("aiplatform")


@functools.cache
def _ports() -> ports.Ports:
    return _CloudPorts()


# -- reporting ----------------------------------------------------------------------------------


def _log_report(report: Report, runner: execute.Runner) -> None:
    severity = "ERROR" if report.errors or report.counts().get("failed") else "INFO"
    execute.log(
        severity,
        f"{report.entry_point} finished",
        entry_point=report.entry_point,
        dry_run=report.dry_run,
        counts=report.counts(),
        unfinished=len(report.unfinished),
        errors=list(report.errors),
        seconds=round(runner.elapsed(), 3),
    )


def _http(
    entry_point: str, request: Any, flow: Callable[[ports.Ports, execute.Runner], Report]
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
    runner = execute.Runner(policy)
    report = flow(_ports(), runner)
    _log_report(report, runner)
    return json.dumps(report.as_dict()), 200, headers


# -- entry points -------------------------------------------------------------------------------


def _event_data(event: Any) -> Any:
    data = getattr(event, "data", None)
    if data is None and isinstance(event, Mapping):
        data = event.get("data")  # pyright: ignore[reportUnknownMemberType]
    return data


def _handle_budget_alert(event: Any, policy: ActionPolicy) -> None:
    event_id = str(event.get("id", "")) if hasattr(event, "get") else ""
    runner = execute.Runner(policy)
    try:
        alert = parse.budget_alert(_event_data(event))
        outcome = flows.budget_alert(alert, _ports(), runner)
    except (parse.ParseError, DecisionError) as err:
        # Acknowledge: redelivering a message we cannot read would only repeat this line.
        execute.log(
            "ERROR",
            f"budget alert ignored: {err}",
            entry_point="on_budget_alert",
            event_id=event_id,
        )
        return
    if isinstance(outcome, flows.Quiet):
        execute.log(
            "INFO",
            f"budget alert: no action ({outcome.reason})",
            entry_point="on_budget_alert",
            budget_id=alert.budget_id,
            event_id=event_id,
        )
        return
    _log_report(outcome, runner)


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


@_register("http")
def reap_idle_vms(request: Any) -> tuple[str, int, dict[str, str]]:
    """HTTP POST: act on ACTIVE idle-VM recommendations (claim, stop, mark succeeded/failed)."""
    return _http("reap_idle_vms", request, flows.reap_idle_vms)


@_register("http")
def reap_expired(request: Any) -> tuple[str, int, dict[str, str]]:
    """HTTP POST: stop workloads whose mlgov-expires-on date has passed."""
    return _http(
        "reap_expired",
        request,
        lambda p, runner: flows.reap_expired(p, runner, datetime.now(UTC).date()),
    )


@_register("http")
def reap_idle_gpus(request: Any) -> tuple[str, int, dict[str, str]]:
    """HTTP POST: stop GPU VMs (workload=training|notebook) whose GPUs stayed idle."""
    return _http("reap_idle_gpus", request, flows.reap_idle_gpus)
