# pyright: basic
"""Fake Cloud Scheduler API v1: list jobs (paged), run, pause and resume, in the real Job shape.

Paths and bodies as the google-cloud-scheduler REST transport sends them:
`GET /v1/projects/P/locations/L/jobs`, `POST /v1/projects/P/locations/L/jobs/J:run|:pause|:resume`.
Job JSON follows the v1 REST reference (name, description, httpTarget{uri, httpMethod, headers,
oidcToken{serviceAccountEmail, audience}}, userUpdateTime, state, status, scheduleTime,
lastAttemptTime, retryConfig, schedule, timeZone, attemptDeadline).

Times: without a clock, fixed ones (tests pin them); with one (`now`, the demo's), a job's
`scheduleTime` is its schedule's next run after now in its time zone, its `lastAttemptTime` the
run before (cronsim), and running, pausing or resuming it happens now, as the real service does.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from cronsim import CronSim

from governance.fakecloud.server import FakeGcp, Reply, Request, error_body

_JOBS = r"/v1/projects/([^/]+)/locations/([^/]+)/jobs"
_JOB = _JOBS + r"/([^/:]+)"
# The client asks `$alt=json;enum-encoding=int`; the server then answers enums as numbers.
STATES = {"STATE_UNSPECIFIED": 0, "ENABLED": 1, "PAUSED": 2, "DISABLED": 3, "UPDATE_FAILED": 4}
METHODS = {"POST": 1, "GET": 2, "HEAD": 3, "PUT": 4, "DELETE": 5, "PATCH": 6, "OPTIONS": 7}


def _wire(job: dict[str, Any], request: Request) -> dict[str, Any]:
    """The job as the server would send it for this request (int enums when asked)."""
    if "enum-encoding=int" not in ";".join(request.query.get("$alt", [])):
        return dict(job)
    target = dict(job["httpTarget"], httpMethod=METHODS[job["httpTarget"]["httpMethod"]])
    return {**job, "state": STATES[job["state"]], "httpTarget": target}


class FakeScheduler:
    """Jobs keyed by full name; `page_size` forces paging of list answers."""

    def __init__(self, page_size: int = 500, now: Callable[[], datetime] | None = None) -> None:
        self.jobs: dict[str, dict[str, Any]] = {}
        self.runs: list[str] = []
        self.page_size = page_size
        self.now = now
        """The clock job times are relative to (None: the fixed times tests pin)."""
        self._lock = threading.Lock()

    def _stamp(self, fixed: str) -> str:
        """Now as the API writes times (RFC 3339, UTC), or `fixed` without a clock."""
        return fixed if self.now is None else _rfc3339(self.now())

    def add(
        self,
        project: str,
        location: str,
        job: str,
        *,
        state: str = "ENABLED",
        schedule: str = "0 * * * *",
        uri: str = "https://us-central1-p.cloudfunctions.net/f",
        last_status: dict[str, Any] | None = None,
        last_attempt: str | None = "2026-11-20T10:00:03.123456Z",
        time_zone: str = "Etc/UTC",
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "name": f"projects/{project}/locations/{location}/jobs/{job}",
            "description": f"mlgov: POST {job}",
            "httpTarget": {
                "uri": uri,
                "httpMethod": "POST",
                "headers": {
                    "Content-Type": "application/json",
                    "User-Agent": "Google-Cloud-Scheduler",
                },
                "oidcToken": {
                    "serviceAccountEmail": f"sched@{project}.iam.gserviceaccount.com",
                    "audience": uri,
                },
            },
            "userUpdateTime": "2026-11-01T09:00:00Z",
            "state": state,
            "status": dict(last_status or {}),
            "scheduleTime": "2026-11-20T11:00:00.000Z",
            "retryConfig": {
                "retryCount": 1,
                "maxRetryDuration": "0s",
                "minBackoffDuration": "60s",
                "maxBackoffDuration": "300s",
                "maxDoublings": 5,
            },
            "schedule": schedule,
            "timeZone": time_zone,
            "attemptDeadline": "900s",
        }
        if self.now is not None:
            now = self.now()
            after, before = _runs(schedule, time_zone, now)
            body["scheduleTime"] = _rfc3339(after)
            body["userUpdateTime"] = _rfc3339(before - timedelta(hours=1))  # deployed before it
            last_attempt = None if last_attempt is None else _rfc3339(before)
        if last_attempt is not None:
            body["lastAttemptTime"] = last_attempt
        self.jobs[body["name"]] = body
        return body

    def install(self, fake: FakeGcp) -> FakeScheduler:
        fake.route("GET", _JOBS, self._list)
        fake.route("POST", _JOB + r":run", self._run)
        fake.route("POST", _JOB + r":pause", self._pause)
        fake.route("POST", _JOB + r":resume", self._resume)
        return self

    # -- handlers ------------------------------------------------------------
    def _list(self, request: Request, m: re.Match[str]) -> Reply:
        parent = f"projects/{m.group(1)}/locations/{m.group(2)}"
        with self._lock:
            names = sorted(n for n in self.jobs if n.startswith(parent + "/jobs/"))
            start = int((request.query.get("pageToken") or ["0"])[0] or 0)
            page = names[start : start + self.page_size]
            body: dict[str, Any] = (
                {"jobs": [_wire(self.jobs[n], request) for n in page]} if page else {}
            )
            if start + self.page_size < len(names):
                body["nextPageToken"] = str(start + self.page_size)
        return Reply(200, body)

    def _job(self, m: re.Match[str]) -> dict[str, Any] | None:
        return self.jobs.get(f"projects/{m.group(1)}/locations/{m.group(2)}/jobs/{m.group(3)}")

    def _missing(self, m: re.Match[str]) -> Reply:
        return Reply(
            404,
            error_body(
                404,
                f"Job not found: projects/{m.group(1)}/locations/{m.group(2)}/jobs/{m.group(3)}.",
            ),
        )

    def _run(self, request: Request, m: re.Match[str]) -> Reply:
        with self._lock:
            job = self._job(m)
            if job is None:
                return self._missing(m)
            self.runs.append(job["name"])
            job["lastAttemptTime"] = self._stamp("2026-11-20T10:30:00Z")
            return Reply(200, _wire(job, request))

    def _pause(self, request: Request, m: re.Match[str]) -> Reply:
        return self._set_state(request, m, "PAUSED")

    def _resume(self, request: Request, m: re.Match[str]) -> Reply:
        return self._set_state(request, m, "ENABLED")

    def _set_state(self, request: Request, m: re.Match[str], state: str) -> Reply:
        with self._lock:
            job = self._job(m)
            if job is None:
                return self._missing(m)
            job["state"] = state
            job["userUpdateTime"] = self._stamp("2026-11-20T10:31:00Z")
            return Reply(200, _wire(job, request))


def _runs(schedule: str, time_zone: str, now: datetime) -> tuple[datetime, datetime]:
    """The schedule's next run after `now` and its last one before, in `time_zone`."""
    local = now.astimezone(ZoneInfo(time_zone))
    return next(CronSim(schedule, local)), next(CronSim(schedule, local, reverse=True))


def _rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
