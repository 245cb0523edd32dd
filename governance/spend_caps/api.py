# google-auth is only partly typed; raw REST JSON is handled as Any at this boundary.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""The Budget API v1 and Cloud Billing v1 calls spend caps need, over REST (no decisions here).

`BudgetApi` sends JSON with `requests` (google-auth's AuthorizedSession with application default
credentials; anonymous at a local base URL given in MLGOV_API_ENDPOINTS as `billingbudgets` and
`cloudbilling`, docs/architecture.md#function-environment). Methods and paths are the discovery
documents' (billingbudgets.v1 `billingAccounts.budgets.create|get|patch|delete|list`,
cloudbilling.v1 `billingAccounts.get`). Reads, deletes and etag-guarded patches are retried on
transient answers (429, 500, 502, 503, 504, a dropped connection); a create is not (a retried create
could make a second cap): the provider recovers from a lost create answer by looking for the budget
instead. Errors are `ApiError`, which names the call, the HTTP status, Google's status and message.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from governance.endpoints import api_endpoint

BUDGETS: Final = "https://billingbudgets.googleapis.com"
BILLING: Final = "https://cloudbilling.googleapis.com"
SCOPE: Final = "https://www.googleapis.com/auth/cloud-platform"
CALL_TIMEOUT_S: Final = 30.0
ATTEMPTS: Final = 4
TRANSIENT: Final = frozenset({429, 500, 502, 503, 504})


class ApiError(Exception):
    """A call the API refused or that never got an answer; `status` 0 means no answer."""

    def __init__(self, call: str, status: int, reason: str, message: str) -> None:
        self.call = call
        self.status = status
        self.reason = reason
        self.message = message
        answer = f"HTTP {status} {reason}".rstrip() if status else "no answer"
        super().__init__(f"{call}: {answer}: {message}")

    @property
    def transient(self) -> bool:
        """Whether trying again later may work."""
        return self.status == 0 or self.status in TRANSIENT


class NoCredentials(Exception):
    """No application default credentials (and no local endpoint to talk to instead)."""


@dataclass(frozen=True)
class Endpoints:
    """Base URLs of the two APIs, and whether they are local (anonymous) ones."""

    budgets: str = BUDGETS
    billing: str = BILLING
    anonymous: bool = False

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Endpoints:
        """MLGOV_API_ENDPOINTS `billingbudgets`/`cloudbilling`, else Google's.

        Raises:
            governance.endpoints.EndpointError: the variable is malformed.
        """
        budgets = api_endpoint("billingbudgets", environ)
        billing = api_endpoint("cloudbilling", environ)
        return cls(budgets or BUDGETS, billing or BILLING, anonymous=budgets is not None)


def session(endpoints: Endpoints, flag: str | None = None) -> Any:
    """A session that fails fast when the endpoint does not answer (governance/deadlines.py).

    Anonymous at a local endpoint, else with application default credentials. `flag` names the
    command-line flag that set the URL, for the error that names the endpoint.

    Raises:
        NoCredentials: no application default credentials for Google's endpoints.
    """
    from governance.deadlines import Endpoint, http_session

    where = Endpoint(
        "billingbudgets", endpoints.budgets if endpoints.anonymous else None, flag=flag
    )
    if endpoints.anonymous:
        return http_session(where)
    import google.auth
    import google.auth.exceptions
    from google.auth.transport.requests import AuthorizedSession

    try:
        credentials, _project = google.auth.default(scopes=[SCOPE])
    except google.auth.exceptions.DefaultCredentialsError as err:
        raise NoCredentials(
            "no Google credentials: run `gcloud auth application-default login`"
        ) from err
    return http_session(where, AuthorizedSession(credentials))


def _error(call: str, response: Any) -> ApiError:
    try:
        error = response.json()["error"]
        return ApiError(call, response.status_code, str(error.get("status", "")), error["message"])
    except (ValueError, KeyError, TypeError):
        return ApiError(call, response.status_code, "", str(response.text)[:300])


class BudgetApi:
    """The calls, each returning the answer's JSON; errors raise ApiError."""

    def __init__(
        self,
        session: Any,
        endpoints: Endpoints,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._session = session
        self.endpoints = endpoints
        self._sleep = sleep
        # Until the endpoint has answered once, no answer is not retried: a wrong URL or a
        # silent server must fail in seconds (deadlines.py), not after every retry.
        self._answered = False

    @classmethod
    def connect(cls, environ: Mapping[str, str] | None = None) -> BudgetApi:
        """A client for the configured endpoints (credentials looked up now).

        Raises:
            NoCredentials: no application default credentials for Google's endpoints.
            governance.endpoints.EndpointError: MLGOV_API_ENDPOINTS is malformed.
        """
        endpoints = Endpoints.from_environment(environ)
        return cls(session(endpoints), endpoints)

    # -- transport ---------------------------------------------------------------------------
    def _call(
        self,
        method: str,
        base: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: Mapping[str, Any] | None = None,
        retry: bool = True,
    ) -> dict[str, Any]:
        import google.auth.exceptions
        import requests

        from governance.deadlines import credentials_refused, reason

        call = f"{method} {path}"
        pause = 0.5
        for attempt in range(1, ATTEMPTS + 1):
            try:
                response = self._session.request(
                    method,
                    f"{base}/{path}",
                    params=dict(params or {}),
                    json=None if body is None else dict(body),
                    timeout=CALL_TIMEOUT_S,
                )
            # An authorized session first trades the credentials for an access token: an
            # expired login is refused there, and with no network that exchange fails first.
            except google.auth.exceptions.RefreshError as err:
                failure = ApiError(call, 0, "", credentials_refused(err))
            except google.auth.exceptions.TransportError as err:
                message = (
                    f"no access token: Google's sign-in endpoint did not answer ({reason(err)})"
                )
                failure = ApiError(call, 0, "", message)
            except requests.RequestException as err:
                failure = ApiError(call, 0, "", str(err) or type(err).__name__)
            else:
                self._answered = True
                if response.status_code < 400:
                    answer: dict[str, Any] = response.json() if response.content else {}
                    return answer
                failure = _error(call, response)
            unanswered = failure.status == 0 and not self._answered
            if not (retry and failure.transient) or unanswered or attempt == ATTEMPTS:
                raise failure
            self._sleep(pause)
            pause = min(pause * 2, 8.0)
        raise AssertionError("unreachable")  # pragma: no cover

    # -- billingbudgets v1 -------------------------------------------------------------------
    def create(self, parent: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """`billingAccounts.budgets.create` (not retried: see the module docstring)."""
        return self._call(
            "POST", self.endpoints.budgets, f"v1/{parent}/budgets", body=body, retry=False
        )

    def get(self, name: str) -> dict[str, Any]:
        """`billingAccounts.budgets.get`."""
        return self._call("GET", self.endpoints.budgets, f"v1/{name}")

    def patch(self, name: str, body: Mapping[str, Any], update_mask: str) -> dict[str, Any]:
        """`billingAccounts.budgets.patch` with `updateMask` (retried only with an etag)."""
        return self._call(
            "PATCH",
            self.endpoints.budgets,
            f"v1/{name}",
            params={"updateMask": update_mask},
            body=body,
            retry=bool(body.get("etag")),
        )

    def delete(self, name: str) -> None:
        """`billingAccounts.budgets.delete` ("Returns successfully if already deleted")."""
        try:
            self._call("DELETE", self.endpoints.budgets, f"v1/{name}")
        except ApiError as err:
            if err.status != 404:
                raise

    def budgets(self, parent: str, scope: str | None = None) -> Iterator[dict[str, Any]]:
        """`billingAccounts.budgets.list`, every page; `scope` = `projects/<id or number>`."""
        params: dict[str, str] = {"scope": scope} if scope else {}
        while True:
            page = self._call("GET", self.endpoints.budgets, f"v1/{parent}/budgets", params=params)
            for budget in page.get("budgets") or []:
                if isinstance(budget, dict):
                    yield budget
            token = page.get("nextPageToken")
            if not token:
                return
            params = {**params, "pageToken": str(token)}

    # -- cloudbilling v1 ---------------------------------------------------------------------
    def billing_account(self, account: str) -> dict[str, Any]:
        """`billingAccounts.get`: currency, reseller parent (`masterBillingAccount`), open."""
        name = account if account.startswith("billingAccounts/") else f"billingAccounts/{account}"
        return self._call("GET", self.endpoints.billing, f"v1/{name}")
