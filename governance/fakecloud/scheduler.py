# pyright: basic
"""Fake Cloud Scheduler API v1: list jobs (paged), run, pause and resume, in the real Job shape.

Paths and bodies as the google-cloud-scheduler REST transport sends them:
`GET /v1/projects/P/locations/L/jobs`, `POST /v1/projects/P/locations/L/jobs/J:run|:pause|:resume`.
Job JSON follows the v1 REST reference (name, description, httpTarget{uri, httpMethod, headers,
oidcToken{serviceAccountEmail, audience}}, userUpdateTime, state, status, scheduleTime,
lastAttemptTime, retryConfig, schedule, timeZone, attemptDeadline).
"""

from __future__ import annotations

import re
import threading
from typing import Any

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

    def __init__(self, page_size: int = 500) -> None:
        self.jobs: dict[str, dict[str, Any]] = {}
        self.runs: list[str] = []
        self.page_size = page_size
        self._lock = threading.Lock()

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
            "timeZone": "Etc/UTC",
            "attemptDeadline": "900s",
        }
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
            job["lastAttemptTime"] = "2026-11-20T10:30:00Z"
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
            job["userUpdateTime"] = "2026-11-20T10:31:00Z"
            return Reply(200, _wire(job, request))
