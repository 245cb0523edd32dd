# Raw REST JSON from the container and aiplatform APIs is handled as Any at this boundary.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""The REST calls `mlgov cap` makes (container v1, aiplatform v1, logging v2), and operations.

JSON over an authorized `requests` session (application default credentials), or a plain one
for a base URL override (`--endpoint` or MLGOV_API_ENDPOINTS, a local fake). GKE runs one
operation per cluster at a time: each GKE write waits until its operation is DONE; a Vertex AI
deployModel waits for its long-running operation. A failed call raises `ApiError` (the caller
reports it against the resource and goes on with the others). Methods and bodies: the discovery
documents (tests/functions/test_fake_shapes.py checks the fake against them).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any

from governance.deadlines import (
    Endpoint,
    budget,
    credentials_refused,
    http_session,
    reason,
)

GKE_OPERATION_TIMEOUT_S = 900.0
# Deploying a model provisions its nodes: Google documents it can take many minutes.
VERTEX_OPERATION_TIMEOUT_S = 1800.0
GOOGLE = {
    "container": "https://container.googleapis.com",
    "logging": "https://logging.googleapis.com",
}
# Cloud Logging's API is v2 (`cap status` reads the fan-out runs there); the others are v1.
VERSIONS = {"logging": "v2"}
_STALE = ("FAILED_PRECONDITION", "ABORTED")


class ApiError(Exception):
    """A call that failed: HTTP status (None: no answer), Google's error status, the message."""

    def __init__(
        self,
        what: str,
        status: int | None,
        error: str = "",
        message: str = "",
        reasons: frozenset[str] = frozenset(),
        *,
        repeated: bool = False,
    ) -> None:
        hint = ""
        if status == 403 and "SERVICE_DISABLED" not in reasons:
            hint = " (restore needs roles/container.clusterAdmin and roles/aiplatform.user)"
        code = f"HTTP {status}" if status is not None else "no answer"
        super().__init__(f"{what}: {code}{f' {error}' if error else ''}: {message}{hint}")
        self.status, self.error, self.message, self.reasons = status, error, message, reasons
        self.repeated = repeated
        """Not sent: the service gave no answer to an earlier call of this run."""

    @property
    def disabled(self) -> bool:
        """The API is not enabled in the project (403, ErrorInfo reason SERVICE_DISABLED)."""
        return self.status == 403 and "SERVICE_DISABLED" in self.reasons

    @property
    def stale(self) -> bool:
        """A stale labelFingerprint or etag (400 FAILED_PRECONDITION "fingerprint", or 409)."""
        if self.status == 409:
            return True
        return (
            self.status == 400
            and self.error in _STALE
            and ("fingerprint" in self.message.lower() or "etag" in self.message.lower())
        )


class Api:
    """The calls, against Google's hosts or the base URLs given per service."""

    def __init__(self, sessions: Mapping[str, Any], bases: Mapping[str, str | None]) -> None:
        self._sessions = dict(sessions)
        self._bases = dict(bases)
        # Services that gave no answer at all: later calls to them fail at once instead of
        # waiting again per project and region (fail fast; the first error names the endpoint).
        self._silent: dict[str, str] = {}

    def _url(self, service: str, path: str, region: str) -> str:
        base = self._bases.get(service)
        if base is None:
            base = GOOGLE.get(service) or f"https://{region}-aiplatform.googleapis.com"
        return f"{base.rstrip('/')}/{VERSIONS.get(service, 'v1')}/{path}"

    def call(
        self,
        method: str,
        service: str,
        path: str,
        *,
        region: str = "",
        body: Mapping[str, Any] | None = None,
        params: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """One call; the JSON answer ({} for an empty one).

        Raises:
            ApiError: an error answer, or none at all.
        """
        import google.auth.exceptions
        import requests

        what = f"{method} {path}"
        if service in self._silent:
            raise ApiError(what, None, message=self._silent[service], repeated=True)
        try:
            response = self._sessions[service].request(
                method,
                self._url(service, path, region),
                json=None if body is None else dict(body),
                params=dict(params or {}),
                # (connect, read): an endpoint that never answers fails in seconds
                timeout=budget().http_timeout,
            )
        # An authorized session first trades the credentials for an access token: with no
        # network that call fails before the API's does, and an expired login is refused there.
        except google.auth.exceptions.TransportError as err:
            message = (
                f"no access token: Google's sign-in endpoint did not answer ({reason(err)}); "
                "check the network (and any proxy settings)"
            )
            self._silent[service] = f"not called: {message}"
            raise ApiError(what, None, message=message) from None
        except google.auth.exceptions.RefreshError as err:
            message = credentials_refused(err)
            self._silent[service] = f"not called: {message}"
            raise ApiError(what, None, message=message) from None
        except requests.RequestException as err:
            message = f"{type(err).__name__}: {err}"
            if isinstance(err, requests.ConnectionError | requests.Timeout):
                self._silent[service] = f"not called: {service} gave no answer before ({message})"
            raise ApiError(what, None, message=message) from None
        if response.status_code >= 400:
            raise _error(what, response)
        try:
            answer: Any = response.json() if response.content else {}
        except ValueError:  # an answer that is not JSON (a proxy's error page, a wrong URL)
            answer = None
        if not isinstance(answer, dict):
            raise ApiError(what, response.status_code, message="the answer is not a JSON object")
        return answer

    def pages(self, service: str, path: str, key: str, region: str) -> Iterator[dict[str, Any]]:
        """The objects in list `key` across every page of a list method."""
        params: dict[str, str] = {}
        while True:
            page = self.call("GET", service, path, region=region, params=params)
            yield from (item for item in page.get(key) or [] if isinstance(item, dict))
            token = page.get("nextPageToken")
            if not token:
                return
            params = {"pageToken": str(token)}

    def gke_write(
        self, method: str, path: str, body: Mapping[str, Any], project: str, location: str
    ) -> None:
        """A GKE write, then wait until its operation is DONE (one per cluster at a time)."""
        op = self.call(method, "container", path, body=body)
        started, pause = time.monotonic(), 0.0
        while op.get("status") != "DONE":
            if time.monotonic() - started > GKE_OPERATION_TIMEOUT_S:
                raise ApiError(
                    f"operation {op.get('name')}", None, message=f"still {op.get('status')}"
                )
            time.sleep(pause)
            op_path = f"projects/{project}/locations/{location}/operations/{op['name']}"
            op = self.call("GET", "container", op_path)
            pause = min(max(pause * 2, 1.0), 10.0)
        error = op.get("error") or {}
        if error.get("code"):
            raise ApiError(f"operation {op.get('name')}", None, message=str(error.get("message")))
        # The deprecated `statusMessage` is "a textual description of the error" (container v1
        # discovery document): an operation DONE with one and no `error` failed all the same.
        if op.get("statusMessage"):
            raise ApiError(f"operation {op.get('name')}", None, message=str(op["statusMessage"]))

    def vertex_wait(self, op: Mapping[str, Any], region: str) -> None:
        """Wait until a Vertex AI long-running operation is done; raise if it failed."""
        started, pause, current = time.monotonic(), 0.0, dict(op)
        while not current.get("done"):
            if time.monotonic() - started > VERTEX_OPERATION_TIMEOUT_S:
                raise ApiError(f"operation {op.get('name')}", None, message="still running")
            time.sleep(pause)
            current = self.call("GET", "aiplatform", str(op["name"]), region=region)
            pause = min(max(pause * 2, 1.0), 15.0)
        error = current.get("error") or {}
        if error.get("code"):
            raise ApiError(f"operation {op.get('name')}", None, message=str(error.get("message")))


def _error(what: str, response: Any) -> ApiError:
    """The ApiError of an error answer: its HTTP status, error.status, message and reasons."""
    error, message, reasons = "", str(response.text)[:300], frozenset[str]()
    try:
        payload = response.json()["error"]
        error, message = str(payload.get("status", "")), str(payload.get("message", ""))
        details = payload.get("details") or []
        reasons = frozenset(str(d.get("reason", "")) for d in details if isinstance(d, dict))
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    return ApiError(what, response.status_code, error, message, reasons)


def sessions(anonymous: bool, bases: Mapping[str, str | None]) -> dict[str, Any]:
    """One session per service: authorized (application default credentials), or plain for fakes.

    Each fails fast (deadlines.http_session): the first call that gets no answer ends in seconds
    with that service's endpoint named.

    Raises:
        governance.errors.CliError: no credentials (exit 2, with what to run).
    """
    endpoints = {service: Endpoint(service, url, "--endpoint") for service, url in bases.items()}
    if anonymous:
        return {service: http_session(where) for service, where in endpoints.items()}
    import google.auth
    import google.auth.exceptions
    from google.auth.transport.requests import AuthorizedSession

    from governance.errors import CliError

    try:
        credentials, _ = google.auth.default(
            scopes=["https://www.googleapis.com/auth/cloud-platform"]
        )
    except google.auth.exceptions.DefaultCredentialsError:
        raise CliError(
            "no Google credentials: run `gcloud auth application-default login` "
            "(or pass --endpoint for a local server)"
        ) from None
    return {
        service: http_session(where, AuthorizedSession(credentials))
        for service, where in endpoints.items()
    }
