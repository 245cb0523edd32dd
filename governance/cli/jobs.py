"""`mlgov jobs`: see and drive a stack's cleanup schedules in Cloud Scheduler.

    mlgov jobs --stack dev list [--all] [--json]
    mlgov jobs --stack dev run|pause|resume JOB

The stack file gives the project, region and job ids (the names components/automation.py deploys
the jobs under; JOB may be `reap-idle-vms`, `reap_idle_vms` or the full job id). `--endpoint URL` or
`MLGOV_API_ENDPOINTS={"cloudscheduler": URL}` points the client at a local server, with anonymous
credentials. Every call is the command's first: it gets governance/deadlines.py's short budget,
so an endpoint that does not answer fails in seconds, named. Exit codes: 0 done; 4 (`Exit.CLOUD`)
Cloud Scheduler answered with an error or could not be reached (one line naming the job and the
status, or the endpoint); 2 invalid input: unknown stack or job, bad
settings or endpoint, no Google credentials. Registering the subcommand imports nothing heavy;
the client library is imported only when a handler runs.
"""

from __future__ import annotations

import argparse
import json
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from governance.deadlines import (
    Endpoint,
    budget,
    first_call_retry,
    no_answer,
    unreachable,
    waiting,
)
from governance.endpoints import ENDPOINTS_ENV, EndpointError, api_endpoint, check_url, needs_google
from governance.errors import CliError, Exit

# The Scheduler client library is imported lazily and is only partly typed: its client and Job
# objects are handled as Any here.
Client = Any
Job = Any

ACTIONS = ("list", "run", "pause", "resume")
_URL_PREFIX = re.compile(r"^[A-Z]+ https?://\S+: ")


@dataclass(frozen=True)
class Target:
    """Where a stack's cleanup jobs live, and their ids by entry point."""

    project: str
    region: str
    jobs: Mapping[str, str]  # entry point -> job id

    @property
    def parent(self) -> str:
        """The Scheduler location name, `projects/P/locations/L`."""
        return f"projects/{self.project}/locations/{self.region}"

    def name(self, job: str) -> str:
        """The full Scheduler job name for a job id."""
        return f"{self.parent}/jobs/{job}"


# --------------------------------------------------------------------------- registration
def register(subparsers: Any) -> None:
    """Add the `jobs` subcommand to the CLI's subparsers."""
    from governance.cli.flags import stack_flags

    p = subparsers.add_parser(
        "jobs",
        help="list, run, pause or resume a stack's cleanup jobs in Cloud Scheduler",
        description="See and drive the Cloud Scheduler jobs that call the cleanup functions.\n"
        + textwrap.fill(needs_google(f"--endpoint, or {ENDPOINTS_ENV}"), 80),
        epilog=(
            "examples:\n  mlgov jobs --stack dev list\n  mlgov jobs --stack prod pause reap-expired"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    stack_flags(p)
    p.add_argument(
        "--endpoint",
        help="Cloud Scheduler base URL (http(s)://...), e.g. a local fake; anonymous credentials",
    )
    p.add_argument("action", choices=ACTIONS, help="what to do")
    p.add_argument("job", nargs="?", help="reap-idle-vms | reap-expired | reap-idle-gpus")
    p.add_argument("--all", action="store_true", help="list: every job in the stack's region")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=handler)


def handler(args: argparse.Namespace) -> int:
    """Run `jobs`; returns the exit code (problems are raised as CliError)."""
    target = _target(args)
    job = _check_job(target, args.action, args.job)
    where = Endpoint("cloudscheduler", endpoint(args.endpoint, "cloudscheduler"), "--endpoint")
    client = _client(where.url)
    if job is None:
        return _list(client, target, where, show_all=args.all, as_json=args.json)
    return _act(client, target, where, args.action, job, as_json=args.json)


# --------------------------------------------------------------------------- input
def _target(args: argparse.Namespace) -> Target:
    from governance.components.action_settings import SCHEDULED, job_id
    from governance.inputs.project import read_stack_config, settings_of, stack_file_of

    _name, path = stack_file_of(args.stack, args.config)
    s = settings_of(read_stack_config(path), path)
    return Target(s.project, s.region, {ep: job_id(s.prefix, ep) for ep in SCHEDULED})


def _choices(target: Target) -> list[str]:
    return [ep.replace("_", "-") for ep in target.jobs]


def _check_job(target: Target, action: str, given: str | None) -> str | None:
    """The job id to act on; None for `list`. CliError when JOB is missing or not expected."""
    if action == "list":
        if given:
            raise CliError(f"jobs list: takes no JOB (got {given!r})")
        return None
    if not given:
        raise CliError(f"jobs {action}: name the JOB: {', '.join(_choices(target))}")
    return _resolve(target, given)


def _resolve(target: Target, given: str) -> str:
    """The job id for what the operator typed, or CliError listing the valid names."""
    wanted = given.rsplit("/", 1)[-1]
    for entry_point, job in target.jobs.items():
        if wanted in (entry_point, entry_point.replace("_", "-"), job):
            return job
    raise CliError(f"unknown job {given!r}; this stack's jobs: {', '.join(_choices(target))}")


def endpoint(flag: str | None, service: str) -> str | None:
    """The base URL to use: `--endpoint`, else MLGOV_API_ENDPOINTS[service], else None (Google).

    Raises:
        CliError: the map is not JSON, not an object, or the URL is not http(s).
    """
    try:
        return check_url(flag, "--endpoint") if flag is not None else api_endpoint(service)
    except EndpointError as err:
        raise CliError(str(err)) from None


# --------------------------------------------------------------------------- the API
def _client(endpoint: str | None) -> Client:
    import google.auth.exceptions
    from google.cloud import scheduler_v1

    if endpoint is not None:
        from google.auth.credentials import AnonymousCredentials

        return scheduler_v1.CloudSchedulerClient(
            credentials=AnonymousCredentials(),
            transport="rest",
            client_options={"api_endpoint": endpoint},
        )
    try:
        return scheduler_v1.CloudSchedulerClient(transport="rest")
    except google.auth.exceptions.DefaultCredentialsError:
        raise CliError(
            "no Google credentials: run `gcloud auth application-default login` "
            "(or pass --endpoint for a local server)"
        ) from None


def _api_error(err: Exception, what: str, where: Endpoint, waited_s: float) -> CliError:
    from google.api_core import exceptions

    if isinstance(err, no_answer()):
        return CliError(f"cloud scheduler: {what}: {unreachable(where, err, waited_s)}", Exit.CLOUD)
    if isinstance(err, exceptions.GoogleAPICallError):
        call_error: Any = err  # partly typed in google.api_core
        grpc_code = call_error.grpc_status_code
        status = " ".join(str(p) for p in (call_error.code, getattr(grpc_code, "name", "")) if p)
        message = str(call_error.message or "")
        # REST errors read "POST http://...: message"; the URL adds nothing the job name lacks.
        detail = _URL_PREFIX.sub("", message.splitlines()[0] if message else "")
        hint = ""
        if isinstance(err, exceptions.NotFound):
            hint = " (not deployed? run `pulumi up` for this stack)"
        elif isinstance(
            err,
            exceptions.Forbidden
            | exceptions.PermissionDenied
            | exceptions.Unauthorized
            | exceptions.Unauthenticated,
        ):
            hint = " (needs roles/cloudscheduler.admin on the project, or .viewer to list)"
        return CliError(f"cloud scheduler: {what}: {status}: {detail}{hint}", Exit.CLOUD)
    return CliError(f"cloud scheduler: {what}: {type(err).__name__}: {err}", Exit.CLOUD)


def _calls_failing() -> tuple[type[Exception], ...]:
    import google.auth.exceptions
    import requests
    from google.api_core import exceptions

    return (
        exceptions.GoogleAPIError,
        google.auth.exceptions.GoogleAuthError,
        requests.RequestException,
    )


def _fetch(client: Client, target: Target, where: Endpoint) -> list[Job]:
    with waiting(where.where, budget().first_call_s) as wait:
        try:
            pager = client.list_jobs(
                parent=target.parent, retry=first_call_retry(wait.saw), timeout=budget().attempt_s
            )
            return list(pager)
        except _calls_failing() as err:
            raise _api_error(err, f"list {target.parent}", where, wait.elapsed) from None


def _act(client: Client, target: Target, where: Endpoint, action: str, job: str, *, as_json: bool):
    name = target.name(job)
    with waiting(where.where, budget().first_call_s) as wait:
        retry, timeout = first_call_retry(wait.saw), budget().attempt_s
        try:
            if action == "run":
                # Not retried: a retried run could start the cleanup twice.
                result = client.run_job(name=name, timeout=timeout)
            elif action == "pause":
                result = client.pause_job(name=name, retry=retry, timeout=timeout)
            else:
                result = client.resume_job(name=name, retry=retry, timeout=timeout)
        except _calls_failing() as err:
            raise _api_error(err, f"{action} {job}", where, wait.elapsed) from None
    row = _row(result)
    if as_json:
        print(json.dumps({"action": action, **row}, indent=2))
    else:
        done = {"run": "run requested", "pause": "paused", "resume": "resumed"}[action]
        print(f"{job}: {done}; state {row['state']}, next run {row['next_run'] or '-'}")
    return Exit.OK


# --------------------------------------------------------------------------- output
def _time(value: Any) -> str:
    if value is None:
        return ""
    iso = getattr(value, "isoformat", None)
    text = str(iso()) if callable(iso) else str(value)
    return "" if text.startswith("1970-01-01") else text.replace("+00:00", "Z")


def _row(job: Job) -> dict[str, str]:
    state = job.state.name if job.state else "STATE_UNSPECIFIED"
    status = job.status
    last = "ok" if not status.code else f"code {status.code}: {status.message}".strip()
    if not _time(job.last_attempt_time):
        last = ""
    return {
        "job": job.name.rsplit("/", 1)[-1],
        "name": job.name,
        "state": state,
        "schedule": job.schedule,
        "time_zone": job.time_zone,
        "next_run": _time(job.schedule_time),
        "last_attempt": _time(job.last_attempt_time),
        "last_result": last,
        "target": job.http_target.uri if job.http_target else "",
    }


def _missing(job: str, target: Target) -> dict[str, str]:
    return {
        "job": job,
        "name": target.name(job),
        "state": "NOT DEPLOYED",
        "schedule": "",
        "time_zone": "",
        "next_run": "",
        "last_attempt": "",
        "last_result": "",
        "target": "",
    }


def _table(rows: Sequence[Mapping[str, str]]) -> Iterable[str]:
    columns = [
        ("JOB", "job"),
        ("STATE", "state"),
        ("SCHEDULE", "schedule"),
        ("TZ", "time_zone"),
        ("NEXT RUN", "next_run"),
        ("LAST ATTEMPT", "last_attempt"),
        ("RESULT", "last_result"),
    ]
    widths = [max(len(h), *(len(r[k]) for r in rows)) for h, k in columns]
    yield "  ".join(h.ljust(w) for (h, _k), w in zip(columns, widths, strict=True)).rstrip()
    for r in rows:
        yield "  ".join(r[k].ljust(w) for (_h, k), w in zip(columns, widths, strict=True)).rstrip()


def _list(client: Client, target: Target, where: Endpoint, *, show_all: bool, as_json: bool) -> int:
    found = {j.name.rsplit("/", 1)[-1]: j for j in _fetch(client, target, where)}
    ours = list(target.jobs.values())
    rows = [_row(found[j]) if j in found else _missing(j, target) for j in ours]
    if show_all:
        rows += [_row(job) for jid, job in sorted(found.items()) if jid not in ours]
    if as_json:
        print(json.dumps({"location": target.parent, "jobs": rows}, indent=2))
    else:
        print(f"{target.parent}")
        for line in _table(rows):
            print(line)
    return Exit.OK
