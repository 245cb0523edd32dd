# The client libraries are only partly typed (proto-plus, google.auth); the adapters keep
# that at the boundary and hand typed models to the core.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""What every adapter shares: building a client, per-call retry and timeout, error translation.

Each client is imported and built on first use (importing `google.cloud.compute_v1` whole
costs seconds; we load just the one service module we call). An endpoint (MLGOV_API_ENDPOINTS)
points a service at another base URL with anonymous credentials, for local runs and tests.
Retries on 429/5xx use govern.retry on the invocation's clock, capped by its remaining time.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from collections.abc import Generator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from govern import clock, ports
from govern.retry import GaveUp, Retrying

RETRY_CAP_SECONDS = 30.0
CALL_TIMEOUT_SECONDS = 30.0
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


def retrying() -> Retrying:
    """Retry transient errors (429, 500, 502, 503, 504) within the invocation's time left."""
    from google.api_core import exceptions as ex

    return Retrying(
        transient=(
            ex.TooManyRequests,
            ex.InternalServerError,
            ex.BadGateway,
            ex.ServiceUnavailable,
            ex.GatewayTimeout,
        ),
        timeout=clock.seconds_left(RETRY_CAP_SECONDS),
    )


def call_options() -> dict[str, Any]:
    """`retry=` and `timeout=` for one client call (pagers reuse them for each page)."""
    return {"retry": retrying(), "timeout": clock.seconds_left(CALL_TIMEOUT_SECONDS)}


@contextmanager
def translated(what: str, conflict_on_bad_request: bool = False) -> Generator[None, None, None]:
    """Client-library exceptions to port errors (narrowly: API errors only)."""
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
    except ex.GoogleAPICallError as err:
        raise ports.PortError(f"{what}: HTTP {err.code} {err.message}") from err
    except (GaveUp, ex.RetryError) as err:
        raise ports.PortError(f"{what}: gave up retrying ({err.cause})") from err


def to_dict(message: Any) -> dict[str, Any]:
    """A proto-plus message as REST JSON (camelCase keys, enum names), what parse/ reads."""
    result: dict[str, Any] = type(message).to_dict(
        message, preserving_proto_field_name=False, use_integers_for_enums=False
    )
    return result


def enum_name(value: Any) -> str:
    """An enum field's name (`PENDING`), or the value itself if it is a plain string."""
    return str(getattr(value, "name", value))
