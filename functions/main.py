"""Cloud Functions entry points: decode the trigger, build the ports, run a flow, log, answer.

The only module that knows CloudEvents, HTTP requests and environment variables. The
read-decide-act flows live in govern/flows/, the action framework in govern/execute.py, GCP
calls in govern/gcp/. Importing this module is cheap: no google.* import and no client is built
until a flow touches a port (each adapter is built once per process, on first use).

Entry points: on_budget_alert (CloudEvent, Pub/Sub messagePublished), and the HTTP POST
functions reap_idle_vms, reap_expired, reap_idle_gpus (Cloud Scheduler with OIDC).

Failure answers: an HTTP run answers 200 with its JSON report when nothing was left undone,
503 with the same complete report when anything failed or was left (Cloud Scheduler retries
any answer outside 200-299: cloudscheduler v1 discovery doc, HttpTarget), and 500 when the
function is misconfigured or broken. on_budget_alert raises in the last two cases, so Pub/Sub
redelivers the alert (event retries are on for it). Every log line carries the run id and the
trace; each run ends with one summary line, ERROR when work was left undone.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import traceback
import uuid
import warnings
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from govern import clock, execute, flows, gcp, logs, parse, ports
from govern.decide import DecisionError
from govern.models import ActionPolicy, PolicyError, Report

# The functions run on python311 (governance/components/automation.py RUNTIME). From 2026-10-24 on,
# every google-cloud-* library warns at import (a FutureWarning on stderr, so a log entry per
# library on every cold start) that Google will stop supporting Python 3.11 in new releases once
# it reaches its end of life. It says nothing about this run and nobody can act on it from here;
# only that notice is filtered (the ones for a Python past its end of life, or unsupported by the
# installed library, still show). Set at import: the adapters import their clients lazily, later.
warnings.filterwarnings(
    "ignore",
    message=r"You are using a Python version \(.*\) which Google will stop supporting",
    category=FutureWarning,
)

F = TypeVar("F", bound=Callable[..., Any])
SERVICES = tuple(gcp.ADAPTERS)
"""The MLGOV_API_ENDPOINTS keys the functions use (DESIGN.md contract 2)."""
KNOWN_SERVICES = (*SERVICES, "cloudscheduler", "bigquery")
"""Every key DESIGN.md fixes: one map may serve the operator tools (jobs, spend) too."""


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
    unknown = sorted(set(value) - set(KNOWN_SERVICES))
    if unknown:
        raise PolicyError(
            f"MLGOV_API_ENDPOINTS: unknown service(s) {', '.join(unknown)}; "
            f"known: {', '.join(KNOWN_SERVICES)}"
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

    @property
    def budgets(self) -> ports.Budgets:
        return _adapter("billingbudgets")


@functools.cache
def _ports() -> ports.Ports:
    return _CloudPorts()


# -- reporting ----------------------------------------------------------------------------------


class RunFailed(RuntimeError):
    """Raised by on_budget_alert when work was left undone, so Pub/Sub redelivers the alert."""


class Misconfigured(RuntimeError):
    """Raised by on_budget_alert while MLGOV_POLICY or MLGOV_API_ENDPOINTS is invalid."""


def _configuration() -> tuple[ActionPolicy | None, str]:
    """The policy (endpoints checked too), or None and what is wrong with the configuration."""
    try:
        policy = _policy()
        _endpoints()
    except PolicyError as err:
        return None, str(err)
    return policy, ""


def _trace_project(policy: ActionPolicy | None) -> str | None:
    # Traces belong to the project the function runs in: GOOGLE_CLOUD_PROJECT when set, else
    # the one project a stack's policy governs (the functions are deployed into it).
    project = os.environ.get("GOOGLE_CLOUD_PROJECT")
    if not project and policy is not None and len(policy.projects) == 1:
        project = next(iter(policy.projects))
    return project or None


def _log_summary(report: Report, runner: execute.Runner, answer: str) -> None:
    """The run's one summary line: ERROR if anything was left undone, with the counts."""
    severity = "ERROR" if report.failed else "WARNING" if report.unreadable else "INFO"
    logs.log(
        severity,
        f"{report.entry_point} finished: {report.summary()}",
        summary=True,
        answer=answer,
        dry_run=report.dry_run,
        failed=report.failed,
        counts=report.counts(),
        unfinished=len(report.unfinished),
        errors=list(report.errors),
        unreadable=list(report.unreadable),
        not_capped=list(report.not_capped),
        failed_scopes=list(report.failed_scopes),
        held=[h.as_dict() for h in report.holds],
        seconds=round(runner.elapsed(), 3),
    )


def _http(
    entry_point: str,
    request: Any,
    flow: Callable[[ports.Ports, execute.Runner, datetime], Report],
) -> tuple[str, int, dict[str, str]]:
    """Run an HTTP flow and answer its report.

    200 when nothing was left undone; 503 with the same report when anything was (Cloud
    Scheduler retries any non-2xx answer); 500 when misconfigured or broken.
    """
    headers = {"Content-Type": "application/json"}
    if getattr(request, "method", "POST") != "POST":
        return (
            json.dumps({"error": f"{entry_point} accepts POST only"}),
            405,
            {**headers, "Allow": "POST"},
        )
    time, run_id = clock.default(), uuid.uuid4().hex
    request_headers = getattr(request, "headers", {})
    trace = logs.trace_id(
        request_headers.get("X-Cloud-Trace-Context"), request_headers.get("traceparent")
    )
    policy, problem = _configuration()
    identity = {"entry_point": entry_point, "run_id": run_id}
    with logs.context(**identity, **logs.trace_fields(_trace_project(policy), trace)):
        if policy is None:
            logs.log(
                "ERROR",
                f"{entry_point}: invalid configuration, nothing done: {problem}",
                summary=True,
                answer="HTTP 500",
            )
            body = {**identity, "error": f"invalid configuration: {problem}"}
            return json.dumps(body), 500, headers
        runner = execute.Runner(policy, time, run_id)
        try:
            report = flow(_ports(), runner, time.wall())
        except Exception as err:
            logs.log(
                "CRITICAL",
                f"{entry_point}: unexpected {type(err).__name__}: {err}",
                summary=True,
                answer="HTTP 500",
                traceback=traceback.format_exc(),
            )
            body = {**identity, "error": f"unexpected {type(err).__name__}: {err}"}
            return json.dumps(body), 500, headers
        status = 503 if report.failed else 200
        _log_summary(report, runner, f"HTTP {status}")
        return json.dumps(report.as_dict()), status, headers


# -- entry points -------------------------------------------------------------------------------


def _event_data(event: Any) -> Any:
    data = getattr(event, "data", None)
    if data is None and isinstance(event, Mapping):
        data = event.get("data")  # pyright: ignore[reportUnknownMemberType]
    return data


def _event_attribute(event: Any, name: str) -> str:
    try:
        value = event.get(name) if hasattr(event, "get") else None
    except (KeyError, TypeError):
        value = None
    return str(value) if value else ""


@_register("cloud_event")
def on_budget_alert(event: Any) -> None:
    """Budget notification (CloudEvent): stop workloads, then unlink billing where allowed.

    A notification of a spend cap's alerts-only budget only reports the cap's state (read-only).

    Raises (so Pub/Sub redelivers the alert, within the trigger's retry window) when work was
    left undone or the function is misconfigured; redelivery is idempotent (stopped workloads
    and unlinked billing are skipped). A message that can never be handled (not a budget
    notification, an unknown budget) is logged as one ERROR line and acknowledged.
    """
    time, run_id = clock.default(), uuid.uuid4().hex
    event_id = _event_attribute(event, "id")
    # Eventarc passes the W3C trace context as the `traceparent` extension when it has one;
    # otherwise the event id ties together every line of this delivery.
    trace = logs.trace_id(None, _event_attribute(event, "traceparent")) or event_id
    policy, problem = _configuration()
    identity = {"entry_point": "on_budget_alert", "run_id": run_id, "event_id": event_id}
    with logs.context(**identity, **logs.trace_fields(_trace_project(policy), trace)):
        if policy is None:
            logs.log(
                "ERROR",
                f"on_budget_alert: invalid configuration, nothing done: {problem}",
                summary=True,
                answer="raised for redelivery",
            )
            raise Misconfigured(problem)
        runner = execute.Runner(policy, time, run_id)
        try:
            alert = parse.budget_alert(_event_data(event))
            outcome = flows.budget_alert(alert, _ports(), runner)
        except (parse.ParseError, DecisionError) as err:
            # Acknowledge: redelivering a message we cannot read would only repeat this line.
            logs.log("ERROR", f"budget alert ignored: {err}", summary=True, answer="acknowledged")
            return
        except Exception as err:
            logs.log(
                "CRITICAL",
                f"on_budget_alert: unexpected {type(err).__name__}: {err}",
                summary=True,
                answer="raised for redelivery",
                traceback=traceback.format_exc(),
            )
            raise
        if isinstance(outcome, flows.SpendCapNotice):
            logs.log(
                outcome.severity,
                f"budget alert: {outcome.message()}",
                summary=True,
                answer="acknowledged",
                **outcome.as_dict(),
            )
            return
        if isinstance(outcome, flows.Quiet):
            # Acknowledged: a late, foreign or self-contradicting message stays what it is.
            logs.log(
                outcome.severity,
                f"budget alert: no action ({outcome.reason})",
                summary=True,
                answer="acknowledged",
                budget_id=alert.budget_id,
                verdict=outcome.verdict,
                **outcome.details,
            )
            return
        answer = "raised for redelivery" if outcome.failed else "acknowledged"
        _log_summary(outcome, runner, answer)
        if outcome.failed:
            raise RunFailed(f"on_budget_alert: {outcome.summary()}; Pub/Sub redelivers it")


@_register("http")
def reap_idle_vms(request: Any) -> tuple[str, int, dict[str, str]]:
    """HTTP POST: act on idle-VM recommendations (claim, stop, mark succeeded/failed)."""
    return _http("reap_idle_vms", request, flows.reap_idle_vms)


@_register("http")
def reap_expired(request: Any) -> tuple[str, int, dict[str, str]]:
    """HTTP POST: stop workloads whose mlgov-expires-on date has passed."""
    return _http(
        "reap_expired", request, lambda p, runner, now: flows.reap_expired(p, runner, now.date())
    )


@_register("http")
def reap_idle_gpus(request: Any) -> tuple[str, int, dict[str, str]]:
    """HTTP POST: stop GPU VMs (workload=training|notebook) whose GPUs stayed idle."""
    return _http("reap_idle_gpus", request, lambda p, runner, _now: flows.reap_idle_gpus(p, runner))
