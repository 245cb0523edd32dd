"""Cloud Functions entry points: decode the trigger, build the ports, run a flow, log, answer.

The only module that knows CloudEvents, HTTP requests and environment variables. The
read-decide-act flows live in govern/flows/, the action framework in govern/execute.py, GCP
calls in govern/gcp/. Importing this module is cheap: no google.* import and no client is built
until a flow touches a port (each adapter is built once per process, on first use).

Entry points: on_budget_alert (CloudEvent, Pub/Sub messagePublished), and the HTTP POST
functions reap_idle_vms, reap_expired, reap_idle_gpus (Cloud Scheduler with OIDC). With
MLGOV_WORK_TOPIC set (fan-out), those four judge, resolve and publish one work item per project
(govern/flows/dispatch.py), and on_work_item (CloudEvent, the work topic's push subscription)
does each project's part (govern/flows/work.py); on_dead_letter logs the items Pub/Sub gave up
on, one CRITICAL line each.

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
import re
import sys
import threading
import traceback
import uuid
import warnings
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from govern import clock, execute, flows, gcp, logs, pacing, parse, ports, workitems
from govern.decide import DecisionError
from govern.inflight import InFlight
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
"""The MLGOV_API_ENDPOINTS keys the functions use (docs/architecture.md#function-environment)."""
KNOWN_SERVICES = (*SERVICES, "cloudscheduler", "bigquery", "logging")
"""Every key docs/architecture.md fixes: one map may serve the operator tools (jobs, spend) too."""


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


# projects/P/topics/T: a topic id starts with a letter, 3-255 characters (Pub/Sub's rule).
_TOPIC = re.compile(r"projects/[a-z][a-z0-9.:-]*[a-z0-9]/topics/[A-Za-z][A-Za-z0-9._~+%-]{2,254}")


@functools.cache
def _work_topic() -> str | None:
    """MLGOV_WORK_TOPIC: fan-out on (the dispatchers publish work items there), or None."""
    raw = os.environ.get("MLGOV_WORK_TOPIC", "").strip()
    if not raw:
        return None
    if not _TOPIC.fullmatch(raw):
        raise PolicyError(f"MLGOV_WORK_TOPIC: {raw!r} is not projects/<project>/topics/<topic>")
    return raw


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

    @property
    def assets(self) -> ports.Assets:
        return _adapter("cloudasset")

    @property
    def work(self) -> ports.WorkQueue:
        return _adapter("pubsub")


@functools.cache
def _ports() -> ports.Ports:
    return _CloudPorts()


@functools.cache
def _pacer(worker_instances: int) -> pacing.Pacer:
    # One per process: every request this worker instance serves shares its quota share.
    return pacing.Pacer(worker_instances)


def _worker_ports(policy: ActionPolicy) -> ports.Ports:
    return pacing.PacedPorts(_ports(), _pacer(policy.fan_out.worker_instances))


_in_flight = InFlight()
"""The keys of the work items this process is running (govern/inflight.py)."""


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
        _work_topic()
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
    entry_point: workitems.ReaperJob,
    request: Any,
    flow: Callable[[ports.Ports, execute.Runner, datetime], Report],
) -> tuple[str, int, dict[str, str]]:
    """Run an HTTP flow (or, with fan-out on, its dispatcher) and answer its report.

    200 when nothing was left undone (every work item published); 503 with the same report when
    anything was (Cloud Scheduler retries any non-2xx answer); 500 when misconfigured or broken.
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
        topic = _work_topic()
        try:
            if topic is not None:
                report = flows.dispatch.reaper(entry_point, _ports(), runner, time.wall(), topic)
            else:
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
        topic = _work_topic()
        try:
            alert = parse.budget_alert(_event_data(event))
            if topic is not None:
                outcome = flows.dispatch.budget_alert(alert, _ports(), runner, topic)
            else:
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


# -- fan-out: the worker and the dead letters ----------------------------------------------------


class DuplicateInFlight(RuntimeError):
    """Raised by on_work_item for a delivery whose twin runs here now: Pub/Sub brings it back."""


def _not_now(message: str) -> None:
    """Answer 429 (Pub/Sub delivers the message again after its backoff), without a traceback.

    Under functions_framework (Flask) an HTTP error is an answer, not a crash; elsewhere (a
    plain call) it raises DuplicateInFlight.
    """
    flask = sys.modules.get("flask")
    if flask is not None and flask.has_request_context():
        flask.abort(429, description=message)
    raise DuplicateInFlight(message)


def _push_delivery_attempt() -> int | None:
    """The push body's `deliveryAttempt` (set when the subscription dead-letters), or None.

    functions_framework turns a raw push body into a CloudEvent and drops that field, so it is
    read from the request itself (Flask's, under the framework).
    """
    flask = sys.modules.get("flask")
    if flask is None:
        return None
    try:
        body = flask.request.get_json(silent=True)
    except RuntimeError:  # outside a request
        return None
    attempt = body.get("deliveryAttempt") if isinstance(body, dict) else None
    return attempt if isinstance(attempt, int) and not isinstance(attempt, bool) else None


_SEVERITY_OF = {
    "done": "NOTICE",
    "nothing to do": "INFO",
    "duplicate": "WARNING",
    "failed": "ERROR",
    "refused": "ERROR",
}


def _log_outcome(
    outcome: str,
    message: str,
    delivery: parse.Delivery,
    policy: ActionPolicy,
    item: dict[str, Any],
    report: Report | None = None,
    **fields: Any,
) -> None:
    """The one outcome line of a delivery (docs/architecture.md#on-work-item)."""
    attempt = delivery.delivery_attempt
    last = attempt is not None and attempt >= policy.fan_out.max_delivery_attempts
    extra: dict[str, Any] = {}
    if report is not None:
        extra = {
            "counts": report.counts(),
            "dry_run": report.dry_run,
            "errors": list(report.errors),
            "failed_targets": [r.target for r in report.results if r.outcome == "failed"],
            "unfinished": list(report.unfinished),
            "failed_scopes": list(report.failed_scopes),
            "not_capped": list(report.not_capped),
            "held": [h.as_dict() for h in report.holds],
        }
    if last and outcome in ("failed", "duplicate"):
        message += "; it was the last delivery attempt: the item goes to the dead-letter topic"
    logs.log(
        _SEVERITY_OF[outcome],
        message,
        summary=True,
        work_item=item,
        outcome=outcome,
        message_id=delivery.message_id,
        delivery_attempt=attempt,
        last_attempt=last,
        **{"counts": {}, **extra, **fields},
    )


@_register("cloud_event")
def on_work_item(event: Any) -> None:
    """One work item (CloudEvent from the work topic's push subscription): one project's part.

    Answers (returns) when the item is done, had nothing to do, or is refused (malformed, or
    not allowed by the policy: acknowledged, so it never loops to the dead-letter topic);
    raises when part of it failed (Pub/Sub redelivers it, up to the subscription's dead-letter
    limit); answers 429 for a duplicate whose twin is running in this process now (Pub/Sub
    delivers it again later).
    """
    time, run_id = clock.default(), uuid.uuid4().hex
    event_id = _event_attribute(event, "id")
    trace = logs.trace_id(None, _event_attribute(event, "traceparent")) or event_id
    policy, problem = _configuration()
    identity = {"entry_point": "on_work_item", "run_id": run_id, "event_id": event_id}
    with logs.context(**identity, **logs.trace_fields(_trace_project(policy), trace)):
        if policy is None:
            logs.log(
                "ERROR",
                f"on_work_item: invalid configuration, nothing done: {problem}",
                summary=True,
                answer="raised for redelivery",
            )
            raise Misconfigured(problem)
        try:
            delivery = parse.delivery(_event_data(event), _push_delivery_attempt())
        except parse.ParseError as err:
            logs.log("ERROR", f"work item refused: {err}", summary=True, outcome="refused")
            return
        try:
            item = parse.work_item(delivery.data)
        except parse.ParseError as err:
            attrs = delivery.attributes
            named = {
                "job": attrs.get(workitems.JOB_ATTRIBUTE),
                "project": None,
                "run": attrs.get(workitems.RUN_ATTRIBUTE),
                "key": attrs.get(workitems.KEY_ATTRIBUTE),
                "scope": None,
            }
            _log_outcome("refused", f"work item refused: {err}", delivery, policy, named)
            return
        named = workitems.identity(item)
        what = f"{item.job} {item.project} (run {item.run})"
        if not _in_flight.claim(item.key):
            _log_outcome(
                "duplicate",
                f"work item {what}: its twin is running here now; answered non-2xx so Pub/Sub "
                "delivers it again later, when live state decides",
                delivery,
                policy,
                named,
            )
            _not_now(f"on_work_item: {what} is already running in this process")
        try:
            runner = execute.Runner(policy, time, run_id)
            worked = flows.work_item(item, _worker_ports(policy), runner, time.wall())
        except Exception as err:
            _log_outcome(
                "failed",
                f"work item {what}: unexpected {type(err).__name__}: {err}",
                delivery,
                policy,
                named,
                traceback=traceback.format_exc(),
            )
            raise
        finally:
            _in_flight.release(item.key)
        if worked.outcome == "refused":
            _log_outcome(
                "refused",
                f"work item {what} refused, nothing done: {worked.reason}",
                delivery,
                policy,
                named,
            )
            return
        report = worked.report
        summary = report.summary() if report is not None else worked.outcome
        _log_outcome(
            worked.outcome, f"work item {what}: {summary}", delivery, policy, named, report
        )
        if worked.outcome == "failed":
            raise RunFailed(f"on_work_item: {what}: {summary}; Pub/Sub redelivers it")


_DEAD_LETTER_COUNT = "CloudPubSubDeadLetterSourceDeliveryCount"


@_register("cloud_event")
def on_dead_letter(event: Any) -> None:
    """A work item Pub/Sub dead-lettered: one CRITICAL line that pages; always acknowledged.

    The item's project part was never done (every delivery failed): someone must act on it.
    """
    event_id = _event_attribute(event, "id")
    identity = {"entry_point": "on_dead_letter", "run_id": uuid.uuid4().hex, "event_id": event_id}
    with logs.context(**identity):
        try:
            delivery = parse.delivery(_event_data(event))
        except parse.ParseError as err:
            logs.log(
                "CRITICAL",
                f"dead-lettered message unreadable: {err}",
                outcome="dead-lettered",
                page=True,
                work_item=None,
            )
            return
        attrs = delivery.attributes
        try:
            named: dict[str, Any] = workitems.identity(parse.work_item(delivery.data))
            unreadable = ""
        except parse.ParseError as err:
            named = {
                "job": attrs.get(workitems.JOB_ATTRIBUTE),
                "project": None,
                "run": attrs.get(workitems.RUN_ATTRIBUTE),
                "key": attrs.get(workitems.KEY_ATTRIBUTE),
                "scope": None,
            }
            unreadable = str(err)
        raw_count = attrs.get(_DEAD_LETTER_COUNT, "")
        count: int | str | None = int(raw_count) if raw_count.isdigit() else raw_count or None
        logs.log(
            "CRITICAL",
            f"work item dead-lettered after {count or 'several'} delivery attempts: "
            f"{named['job']} {named['project']} (run {named['run']}) was NOT done; act on the "
            "project by hand, or run the job again",
            outcome="dead-lettered",
            page=True,
            work_item=named,
            message_id=delivery.message_id,
            **{_DEAD_LETTER_COUNT: count},
            source_subscription=attrs.get("CloudPubSubDeadLetterSourceSubscription"),
            **({"unreadable": unreadable} if unreadable else {}),
        )
