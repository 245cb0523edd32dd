# The client libraries are only partly typed (proto-plus, google.auth); the adapters keep
# that at the boundary and hand typed models to the core.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""What every adapter shares: building a client, per-call retry and timeout, error translation.

Each client is imported and built on first use (importing `google.cloud.compute_v1` whole
costs seconds; we load just the one service module we call). An endpoint (MLGOV_API_ENDPOINTS)
points a service at another base URL with anonymous credentials, for local runs and tests.
Adapters get the failure rules by using `call_options()` (retry of transient errors, with
Retry-After, and the call timeout) and `translated()` (errors to ports errors), and `parsed()`
for listings (one unparseable resource is reported, not fatal); a new adapter built on these
three behaves like the others with nothing else to do.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
import sys
import threading
from collections.abc import Callable, Generator, Iterable, Mapping
from contextlib import contextmanager
from types import ModuleType
from typing import Any, TypeVar

from govern import clock, ports
from govern.parse import ParseError
from govern.parse.operation import OperationState, longrunning_operation
from govern.parse.reader import last_segment
from govern.retry import GaveUp, Retrying, retry_after_seconds

T = TypeVar("T")

RETRY_CAP_SECONDS = 30.0
_import_lock = threading.Lock()


def load_service(package: str, service: str) -> ModuleType:
    """Import `package.services.<service>` without running the package's eager __init__.

    `google/cloud/compute_v1/__init__.py` imports all 124 Compute services (1.5-5 s here);
    a blank package module lets the one service we use load alone. The blank stays only for the
    duration of the import, so a later full `import google.cloud.compute_v1` still works.
    """
    name = f"{package}.services.{service}"
    with _import_lock:
        if name in sys.modules or package in sys.modules:
            return importlib.import_module(name)
        spec = importlib.util.find_spec(package)
        if spec is None:
            raise ModuleNotFoundError(package)
        sys.modules[package] = importlib.util.module_from_spec(spec)
        try:
            return importlib.import_module(name)
        finally:
            del sys.modules[package]


def build_client(package: str, service: str, cls: str, endpoint: str | None) -> Any:
    """A GAPIC client over REST; with `endpoint`, at that base URL with anonymous credentials."""
    module = load_service(package, service)
    if endpoint is None:
        return getattr(module, cls)(transport="rest")
    from google.auth.credentials import AnonymousCredentials

    return getattr(module, cls)(
        transport="rest",
        credentials=AnonymousCredentials(),
        client_options={"api_endpoint": endpoint},
    )


def is_transient(err: BaseException) -> bool:
    """Worth retrying: HTTP 429/500/502/503/504, a rate-limit 403, or a transport failure.

    Not a quota counted per day (`daily_quota`): it refills tomorrow, so waiting out this
    invocation's retries could never succeed; it is reported at once, naming the quota.

    Transport failures (connection reset or refused, DNS, a reply slower than the call
    timeout) reach us as requests/urllib3/google-auth exceptions that are no API error at all;
    they are retried like a 503. Compute answers a rate quota with 403 `rateLimitExceeded`,
    not 429 ("wait a minute then try your request again":
    https://cloud.google.com/compute/api-quota).
    """
    from google.api_core import exceptions as ex

    if isinstance(err, ex.GoogleAPICallError) and daily_quota(err):
        return False
    if isinstance(err, _transient_api_errors()):
        return True
    if isinstance(err, ex.Forbidden):
        return _rate_limited(err)
    return isinstance(err, _transport_errors())


@functools.cache
def _transient_api_errors() -> tuple[type[BaseException], ...]:
    from google.api_core import exceptions as ex

    return (
        ex.TooManyRequests,
        ex.InternalServerError,
        ex.BadGateway,
        ex.ServiceUnavailable,
        ex.GatewayTimeout,
        ex.DeadlineExceeded,
        ex.RetryError,  # raised by a client library's own retry when it gave up
    )


@functools.cache
def _transport_errors() -> tuple[type[BaseException], ...]:
    import google.auth.exceptions
    import requests
    import urllib3

    return (
        requests.exceptions.ConnectionError,  # reset, refused, DNS; ConnectTimeout
        requests.exceptions.Timeout,  # ReadTimeout: no reply within the call timeout
        requests.exceptions.ChunkedEncodingError,  # connection dropped mid-body
        urllib3.exceptions.HTTPError,  # what requests did not wrap
        google.auth.exceptions.TransportError,  # token refresh could not reach the server
        ConnectionError,  # the builtin ones (ConnectionResetError, BrokenPipeError)
        TimeoutError,  # socket.timeout
    )


_RATE_LIMIT_REASONS = frozenset(
    {"rateLimitExceeded", "userRateLimitExceeded", "RATE_LIMIT_EXCEEDED"}
)


# 403 reasons for "this API is not enabled in the project": google.rpc.ErrorInfo's
# SERVICE_DISABLED (https://cloud.google.com/apis/design/errors#error_info) and the legacy JSON
# error reason accessNotConfigured that Compute still sends.
_SERVICE_DISABLED_REASONS = frozenset({"SERVICE_DISABLED", "accessNotConfigured"})


def _reasons(err: Any) -> set[str]:
    """The error reasons an API error carries: legacy `errors[].reason` and ErrorInfo's `reason`.

    Over REST, api_core keeps `details` as plain dicts, on which its own `reason` property
    fails; so read both shapes here.
    """
    reasons = {str(e.get("reason", "")) for e in (err.errors or ()) if isinstance(e, dict)}
    for detail in getattr(err, "details", None) or ():
        if isinstance(detail, dict):
            reasons.add(str(detail.get("reason", "")))
        else:
            reasons.add(str(getattr(detail, "reason", "")))
    return reasons - {""}


# The older answer for an API that is not enabled carries neither ErrorInfo nor a legacy reason,
# only its message: "<API title> has not been used in project <number> before or it is disabled.
# Enable it by visiting https://console.developers.google.com/apis/api/<service>/overview?..."
_DISABLED_MESSAGE = re.compile(r"has not been used in project \S* ?before or it is disabled")
_ENABLE_LINK = re.compile(r"/apis/api/([a-z0-9.-]+)/")


def _disabled_service(err: Any) -> str:
    """The API a SERVICE_DISABLED error names (ErrorInfo metadata.service, or its link), or ""."""
    for detail in getattr(err, "details", None) or ():
        metadata = detail.get("metadata") if isinstance(detail, dict) else None
        if isinstance(metadata, dict) and metadata.get("service"):
            return str(metadata["service"])
    found = _ENABLE_LINK.search(str(getattr(err, "message", "")))
    return found[1] if found else ""


def billing_disabled(err: Any) -> bool:
    """Whether a 403 says the project's billing is disabled (nothing in it runs or bills).

    ErrorInfo reason BILLING_DISABLED, or Compute's message "This API method requires billing
    to be enabled. Please enable billing on project #P ..." (its legacy reason may be
    accessNotConfigured, the same as for an API that is not enabled).
    """
    from google.api_core import exceptions as ex

    if not isinstance(err, ex.Forbidden):
        return False
    return "BILLING_DISABLED" in _reasons(err) or _BILLING_MESSAGE in str(err.message).lower()


_BILLING_MESSAGE = "requires billing to be enabled"


def service_disabled(err: Any) -> bool:
    """Whether a 403 says the API is not enabled in the project.

    By its reason (ErrorInfo SERVICE_DISABLED, legacy accessNotConfigured), or, in the older
    answer that has neither, by its message.
    """
    from google.api_core import exceptions as ex

    if not isinstance(err, ex.Forbidden):
        return False
    reasons = _reasons(err)
    if reasons & _SERVICE_DISABLED_REASONS:
        return True
    return not reasons and bool(_DISABLED_MESSAGE.search(str(err.message)))


# A quota exceeded is named in the error's google.rpc.ErrorInfo (reason RATE_LIMIT_EXCEEDED)
# metadata: `quota_limit` (e.g. "ReadRequestsPerDayPerProject", "defaultPerDayPerProject"),
# `quota_metric`, `quota_unit` ("1/d/{project}" per day, "1/min/{project}" per minute) and
# `quota_limit_value`; the message says "Quota exceeded for quota metric '...' and limit
# '... per day' of service '...'". (ErrorInfo: https://cloud.google.com/apis/design/errors; the
# Recommender answers 429 RESOURCE_EXHAUSTED past its per-minute and per-day read and write
# quotas: https://cloud.google.com/recommender/quotas.) Legacy JSON errors say
# `dailyLimitExceeded`.
_PER_DAY_UNIT = re.compile(r"/d(/|$)")
_PER_DAY_LIMIT = re.compile(r"limit '([^']*per day[^']*)'", re.IGNORECASE)


def daily_quota(err: Any) -> str:
    """The per-day quota an API error says is used up (its limit's name), or "" if none."""
    for detail in getattr(err, "details", None) or ():
        metadata = detail.get("metadata") if isinstance(detail, dict) else None
        if not isinstance(metadata, dict):
            continue
        limit = str(metadata.get("quota_limit", ""))
        unit = str(metadata.get("quota_unit", ""))
        if _PER_DAY_UNIT.search(unit) or "perday" in limit.lower():
            metric = str(metadata.get("quota_metric", ""))
            value = str(metadata.get("quota_limit_value", ""))
            return " ".join(
                part
                for part in (limit or "a per-day quota", f"of {metric}" if metric else "")
                if part
            ) + (f" (limit {value})" if value else "")
    if "dailyLimitExceeded" in _reasons(err):
        return "a daily limit (dailyLimitExceeded)"
    found = _PER_DAY_LIMIT.search(str(getattr(err, "message", "")))
    return found[1] if found else ""


def _rate_limited(err: Any) -> bool:
    return bool(_reasons(err) & _RATE_LIMIT_REASONS)


def retry_after(err: BaseException) -> float | None:
    """The wait a server asked for (Retry-After), or until Compute's next quota minute."""
    response = getattr(err, "response", None)
    headers = getattr(response, "headers", None)
    if headers:
        asked = retry_after_seconds(headers.get("Retry-After"), headers.get("Date"))
        if asked is not None:
            return asked
    from google.api_core import exceptions as ex

    if isinstance(err, ex.Forbidden) and _rate_limited(err):
        # Compute's rate quotas refill "at the start of the next synchronized interval"
        # (per minute): https://cloud.google.com/compute/api-quota
        now = clock.current().wall()
        return 60.0 - (now.second + now.microsecond / 1e6)
    return None


def retrying() -> Retrying:
    """Retry transient errors within the invocation's time left, honouring Retry-After."""
    return Retrying(
        transient=is_transient,
        timeout=clock.seconds_left(RETRY_CAP_SECONDS),
        retry_after=retry_after,
    )


def call_options() -> dict[str, Any]:
    """`retry=` and `timeout=` for one client call (pagers reuse them for each page).

    The client library's own retry hook runs govern.retry.Retrying (api_core's Retry
    schedule, on the invocation's clock, with Retry-After); `timeout` is the socket timeout
    of one attempt (MLGOV_POLICY.call_timeout_seconds, within the deadline).
    """
    return {"retry": retrying(), "timeout": clock.call_timeout()}


@contextmanager
def translated(
    what: str, conflict_on_bad_request: bool = False, *, disabled_means_none: bool = True
) -> Generator[None, None, None]:
    """Client-library and transport exceptions to port errors; nothing else is caught.

    Transient failures that outlived their retries become `ports.Unavailable` (trying later
    may work); the rest `PortError` and its kinds. An API that is not enabled is
    `ports.ServiceDisabled` (read as "none of it runs") where `disabled_means_none`; where the
    API is how mlgov sees something that runs anyway (recommendations of idle VMs, a project's
    billing link) it is a failure naming the API to enable, never an empty answer. A project
    whose billing is disabled is `ports.ServiceDisabled` for every API: nothing there runs.
    """
    from google.api_core import exceptions as ex

    try:
        yield
    except ex.NotFound as err:
        raise ports.Gone(f"{what}: not found") from err
    except (ex.Conflict, ex.PreconditionFailed, ex.FailedPrecondition, ex.Aborted) as err:
        raise ports.Conflict(f"{what}: {err.message}") from err
    except ex.BadRequest as err:
        if conflict_on_bad_request:
            raise ports.Conflict(f"{what}: {err.message}") from err
        raise ports.PortError(f"{what}: HTTP 400 {err.message}") from err
    except ex.Forbidden as err:
        if billing_disabled(err):
            # What mlgov's own unlink (disable_billing_at) leaves: Google stops the project's
            # resources, so there is nothing to list or act on. A later alert over the budget
            # must be answered, not fail and be redelivered for a day.
            raise ports.ServiceDisabled(
                f"{what}: billing is disabled in the project (nothing there runs or bills)"
            ) from err
        if service_disabled(err):
            if disabled_means_none:
                raise ports.ServiceDisabled(
                    f"{what}: the API is not enabled in the project"
                ) from err
            service = _disabled_service(err) or "the API"
            raise ports.PortError(
                f"{what}: HTTP 403 SERVICE_DISABLED: {service} is not enabled for the caller "
                f"({err.message}); enable it, mlgov cannot see this without it"
            ) from err
        raise _quota_error(what, err) from err
    except GaveUp as err:
        raise ports.Unavailable(f"{what}: {_describe(err.cause)}: {err}") from err
    except ex.TooManyRequests as err:
        raise _quota_error(what, err) from err
    except ex.GoogleAPICallError as err:
        kind = ports.Unavailable if is_transient(err) else ports.PortError
        raise kind(f"{what}: HTTP {err.code} {err.message}") from err
    except _transport_errors() as err:
        raise ports.Unavailable(f"{what}: {_describe(err)}") from err


def _quota_error(what: str, err: Any) -> ports.PortError:
    """A 429 (or a rate-limit 403) as a port error: a used-up per-day quota named, not retried."""
    if quota := daily_quota(err):
        # Not retried (is_transient): it refills the next day, no retry of this run can help.
        return ports.PortError(
            f"{what}: HTTP {err.code}: the per-day quota {quota} is used up; not retried, it "
            "refills the next day (raise the quota, or run less often)"
        )
    kind = ports.Unavailable if is_transient(err) else ports.PortError
    return kind(f"{what}: HTTP {err.code} {err.message}")


def _describe(err: BaseException) -> str:
    code = getattr(err, "code", None)
    if code is not None:
        return f"HTTP {code}"
    return f"{type(err).__name__} (no reply)"


def parsed(
    raws: Iterable[Mapping[str, Any]],
    parse_one: Callable[[Mapping[str, Any]], T],
    target_of: Callable[[Mapping[str, Any]], str],
) -> ports.Listing[T]:
    """Parse each listed resource; one that does not parse is reported, not fatal.

    `target_of(raw)` names a resource for the report even when it cannot be parsed.
    """
    good: list[T] = []
    bad: list[ports.Unreadable] = []
    for raw in raws:
        try:
            good.append(parse_one(raw))
        except ParseError as err:
            bad.append(ports.Unreadable(target_of(raw), str(err)))
    return ports.Listing(good, bad)


def missing(listing: ports.Listing[T], scopes: Iterable[str]) -> ports.Listing[T]:
    """`listing` with the locations its API reported unreachable, as bare location names.

    APIs name them as scopes (`zones/us-central1-b`, `projects/P/locations/us-central1-b`) or
    bare zones (GKE's missingZones); the last path segment is the location either way.
    """
    places = dict.fromkeys(last_segment(s) for s in scopes if str(s).strip())
    return ports.Listing(listing, listing.unreadable, places)


def to_dict(message: Any) -> dict[str, Any]:
    """A proto-plus message as REST JSON (camelCase keys, enum names), what parse/ reads."""
    result: dict[str, Any] = type(message).to_dict(
        message, preserving_proto_field_name=False, use_integers_for_enums=False
    )
    return result


def operation_state(op: Any) -> OperationState:
    """A google.longrunning.Operation message (what GAPIC clients return) as its state.

    The same fields parse.operation.longrunning_operation reads from REST JSON: `name`, `done`,
    `error.code` and `error.message` (google.rpc.Status).
    """
    raw: dict[str, Any] = {"name": op.name, "done": bool(op.done)}
    if op.HasField("error"):
        raw["error"] = {"code": op.error.code, "message": op.error.message}
    return longrunning_operation(raw)


def enum_name(value: Any) -> str:
    """An enum field's name (`PENDING`), or the value itself if it is a plain string."""
    return str(getattr(value, "name", value))
