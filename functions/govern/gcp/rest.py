# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""JSON over REST with google-auth's AuthorizedSession, for APIs called without a client library.

GKE (container v1) and Vertex AI (aiplatform v1) are called this way: importing and building
google-cloud-container's REST client takes 0.44-0.65 s (bench/RESULTS.md), which would push the
budget function's cold start past its 1.5 s target, and google-cloud-aiplatform is heavier still.
`requests` and google-auth are already loaded by the other REST clients, so this costs nothing.
Each call gets the same retry (govern.retry on the invocation's clock) and per-call timeout as the
client libraries' calls; errors are google.api_core exceptions, which `translated` maps.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from govern import clock
from govern.gcp.clients import retrying

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
Param = str | Sequence[str]
"""A query parameter's value; a sequence repeats the parameter (`assetTypes=a&assetTypes=b`)."""


class Rest:
    """A session that sends JSON requests with retries and raises api_core exceptions."""

    def __init__(self, session: Any) -> None:
        self._session = session

    def request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Param] | None = None,
        body: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """One call (retried on transient errors); the JSON answer, {} for an empty one."""
        from google.api_core import exceptions as ex

        def send() -> dict[str, Any]:
            response = self._session.request(
                method,
                url,
                params=dict(params or {}),
                json=None if body is None else dict(body),
                timeout=clock.call_timeout(),
            )
            if response.status_code >= 400:
                raise ex.from_http_response(response)
            answer: dict[str, Any] = response.json() if response.content else {}
            return answer

        return retrying()(send)()

    def pages(self, url: str, params: Mapping[str, Param], key: str) -> Iterator[dict[str, Any]]:
        """The objects in list `key` across every page of a list method."""
        query = dict(params)
        while True:
            page = self.request("GET", url, params=query)
            for item in page.get(key) or []:
                if isinstance(item, dict):
                    yield item
            token = page.get("nextPageToken")
            if not token:
                return
            query = {**query, "pageToken": str(token)}


@functools.cache
def _credentials() -> Any:
    """Application default credentials, looked up once per process (GKE and Vertex AI share)."""
    import google.auth

    credentials, _project = google.auth.default(scopes=[CLOUD_PLATFORM])
    return credentials


def session(endpoint: str | None) -> Any:
    """An authorized session (default credentials), or a plain one for an endpoint override."""
    import requests

    if endpoint is not None:
        return requests.Session()
    from google.auth.transport.requests import AuthorizedSession

    return AuthorizedSession(_credentials())


def _error(err: Exception) -> dict[str, Any]:
    response = getattr(err, "response", None)
    try:
        payload = response.json() if response is not None else {}
    except ValueError:
        return {}
    error = payload.get("error") if isinstance(payload, dict) else None
    return error if isinstance(error, dict) else {}


def error_status(err: Exception) -> str:
    """The `error.status` of a REST error answer (e.g. FAILED_PRECONDITION), or ""."""
    return str(_error(err).get("status", ""))


def error_message(err: Exception) -> str:
    """The `error.message` of a REST error answer, or ""."""
    return str(_error(err).get("message", ""))
