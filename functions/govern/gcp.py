# The client libraries are only partly typed (proto-plus, google.auth); the adapters keep
# that at the boundary and hand typed models to the core.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Thin adapters from the ports to the real google-cloud-* clients (REST transport).

They translate calls and exceptions, nothing more: no decisions here. Each client is imported
and built on first use (importing `google.cloud.compute_v1` whole costs seconds; we load just
the one service module we call). `endpoints` (MLGOV_API_ENDPOINTS) points a service at another
base URL with anonymous credentials, for local runs and tests. Retries on 429/5xx use
google.api_core.retry.Retry passed per call, capped by the invocation's remaining time.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import Any, TypeVar

from govern import parse, ports
from govern.models import Recommendation, Workload

T = TypeVar("T")
RETRY_CAP_SECONDS = 30.0
CALL_TIMEOUT_SECONDS = 30.0
IDLE_RECOMMENDER = "google.compute.instance.IdleResourceRecommender"
GPU_METRIC = "agent.googleapis.com/gpu/utilization"
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


def _client(package: str, service: str, cls: str, endpoint: str | None) -> Any:
    module = load_service(package, service)
    if endpoint is None:
        return getattr(module, cls)(transport="rest")
    from google.auth.credentials import AnonymousCredentials

    return getattr(module, cls)(
        transport="rest",
        credentials=AnonymousCredentials(),
        client_options={"api_endpoint": endpoint},
    )


def _retry() -> Any:
    from google.api_core import exceptions as ex
    from google.api_core.retry import Retry, if_exception_type

    transient = if_exception_type(
        ex.TooManyRequests,
        ex.InternalServerError,
        ex.BadGateway,
        ex.ServiceUnavailable,
        ex.GatewayTimeout,
    )
    return Retry(
        predicate=transient,
        initial=0.2,
        maximum=4.0,
        multiplier=2.0,
        timeout=ports.seconds_left(RETRY_CAP_SECONDS),
    )


def _kw() -> dict[str, Any]:
    return {"retry": _retry(), "timeout": ports.seconds_left(CALL_TIMEOUT_SECONDS)}


@contextmanager
def _translated(what: str, conflict_on_bad_request: bool = False) -> Generator[None, None, None]:
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
    except ex.RetryError as err:
        raise ports.PortError(f"{what}: gave up retrying ({err.cause})") from err


def _to_dict(message: Any) -> dict[str, Any]:
    result: dict[str, Any] = type(message).to_dict(
        message, preserving_proto_field_name=False, use_integers_for_enums=False
    )
    return result


def _enum_name(value: Any) -> str:
    return str(getattr(value, "name", value))


class ComputeAdapter:
    """ports.Compute over compute_v1.InstancesClient."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list_instances(self, project: str) -> list[Workload]:
        """All instances of the project via one aggregatedList (paged)."""
        out: list[Workload] = []
        with _translated(f"compute aggregatedList {project}"):
            pager = self._client.aggregated_list(
                request={"project": project, "return_partial_success": True}, **_kw()
            )
            for _scope, scoped in pager:
                for inst in scoped.instances:
                    raw = {
                        "name": inst.name,
                        "status": inst.status,
                        "zone": inst.zone,
                        "id": str(inst.id),
                        "labels": dict(inst.labels),
                        "machineType": inst.machine_type,
                        "guestAccelerators": [
                            {"acceleratorCount": a.accelerator_count}
                            for a in inst.guest_accelerators
                        ],
                        "metadata": {
                            "items": [{"key": i.key, "value": i.value} for i in inst.metadata.items]
                        },
                    }
                    out.append(parse.compute_instance(project, raw))
        return out

    def stop(self, project: str, zone: str, name: str) -> str:
        """instances.stop; answers the zonal operation's status (PENDING) without polling.

        `stop_unary` avoids the ExtendedOperation poller, whose internal ZoneOperationsClient
        would ignore our endpoint. Stop discards local SSD contents on GCP.
        """
        with _translated(f"compute stop {project}/{zone}/{name}"):
            op = self._client.stop_unary(project=project, zone=zone, instance=name, **_kw())
        return f"{op.name} {_enum_name(op.status)}"


class NotebooksAdapter:
    """ports.Notebooks over notebooks_v2.NotebookServiceClient."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list_instances(self, project: str) -> list[Workload]:
        """Workbench instances in all locations of the project."""
        with _translated(f"notebooks list {project}"):
            pager = self._client.list_instances(parent=f"projects/{project}/locations/-", **_kw())
            return [parse.notebook_instance(project, _to_dict(i)) for i in pager]

    def stop(self, project: str, zone: str, name: str) -> str:
        """instances.stop; returns the long-running operation name without waiting."""
        with _translated(f"notebooks stop {project}/{zone}/{name}"):
            op = self._client.stop_instance(
                request={"name": f"projects/{project}/locations/{zone}/instances/{name}"}, **_kw()
            )
        return str(op.operation.name)


class TpuAdapter:
    """ports.Tpus over tpu_v2.TpuClient."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list_nodes(self, project: str, zone: str) -> list[Workload]:
        """TPU VMs in one zone."""
        with _translated(f"tpu list {project}/{zone}"):
            pager = self._client.list_nodes(parent=f"projects/{project}/locations/{zone}", **_kw())
            return [parse.tpu_node(project, _to_dict(n)) for n in pager]

    def stop(self, project: str, zone: str, name: str) -> str:
        """nodes.stop; returns the long-running operation name without waiting."""
        with _translated(f"tpu stop {project}/{zone}/{name}"):
            op = self._client.stop_node(
                request={"name": f"projects/{project}/locations/{zone}/nodes/{name}"}, **_kw()
            )
        return str(op.operation.name)


class BillingAdapter:
    """ports.Billing over billing_v1.CloudBillingClient."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def billing_enabled(self, project: str) -> bool:
        """projects.getBillingInfo -> billingEnabled."""
        with _translated(f"billing getBillingInfo {project}"):
            info = self._client.get_project_billing_info(name=f"projects/{project}", **_kw())
        return bool(info.billing_enabled and info.billing_account_name)

    def unlink(self, project: str) -> None:
        """projects.updateBillingInfo with an empty billing account (the wire body is `{}`)."""
        # An empty ProjectBillingInfo: proto3 drops the empty account name, so the body is `{}`.
        request = {
            "name": f"projects/{project}",
            "project_billing_info": {"billing_account_name": ""},
        }
        with _translated(f"billing updateBillingInfo {project}"):
            self._client.update_project_billing_info(request=request, **_kw())


class RecommenderAdapter:
    """ports.Recommender over recommender_v1.RecommenderClient."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list_active(self, project: str, zone: str) -> list[Recommendation]:
        """ACTIVE idle-VM recommendations for one zone (the API returns every state unfiltered)."""
        parent = f"projects/{project}/locations/{zone}/recommenders/{IDLE_RECOMMENDER}"
        with _translated(f"recommender list {project}/{zone}"):
            pager = self._client.list_recommendations(
                request={"parent": parent, "filter": "stateInfo.state = ACTIVE"}, **_kw()
            )
            return [parse.recommendation(project, _to_dict(r)) for r in pager]

    def _mark(self, method: str, name: str, etag: str, metadata: Mapping[str, str]) -> str:
        with _translated(f"recommender {method} {name}", conflict_on_bad_request=True):
            rec = getattr(self._client, method)(
                name=name, etag=etag, state_metadata=dict(metadata), **_kw()
            )
        return str(rec.etag)

    def mark_claimed(self, name: str, etag: str) -> str:
        """MarkClaimed with the current etag; returns the new one."""
        return self._mark("mark_recommendation_claimed", name, etag, {"mlgov": "reap_idle_vms"})

    def mark_succeeded(self, name: str, etag: str) -> str:
        """MarkSucceeded with the etag from markClaimed."""
        return self._mark("mark_recommendation_succeeded", name, etag, {"mlgov": "stopped"})

    def mark_failed(self, name: str, etag: str, reason: str) -> str:
        """markFailed, with the reason (trimmed) in stateMetadata."""
        return self._mark(
            "mark_recommendation_failed", name, etag, {"mlgov": "failed", "reason": reason[:200]}
        )


class MonitoringAdapter:
    """ports.Monitoring over the timeSeries.list REST method.

    google-cloud-monitoring ships gRPC transports only; the REST method is called with an
    authorized `requests` session (google-auth) and the same api_core Retry.
    """

    def __init__(
        self, session: Any, base_url: str, now: Callable[[], datetime] | None = None
    ) -> None:
        self._session = session
        self._base = base_url.rstrip("/")
        self._now = now or (lambda: datetime.now(UTC))

    def _page(self, url: str, params: dict[str, str]) -> dict[str, Any]:
        from google.api_core import exceptions as ex

        def fetch() -> dict[str, Any]:
            response = self._session.get(
                url, params=params, timeout=ports.seconds_left(CALL_TIMEOUT_SECONDS)
            )
            if response.status_code >= 400:
                raise ex.from_http_response(response)
            body: dict[str, Any] = response.json()
            return body

        return _retry()(fetch)()

    def gpu_utilization(
        self, project: str, window_minutes: int, instance_ids: Sequence[str]
    ) -> Mapping[str, float]:
        """Mean GPU utilization per GPU over the window, reduced to the busiest GPU per VM."""
        end = self._now()
        start = end - timedelta(minutes=window_minutes)
        flt = f'metric.type = "{GPU_METRIC}" AND resource.type = "gce_instance"'
        if instance_ids and len(instance_ids) <= 100:
            flt += " AND resource.labels.instance_id = one_of({})".format(
                ",".join(f'"{i}"' for i in instance_ids)
            )
        params = {
            "filter": flt,
            "interval.startTime": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "interval.endTime": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "aggregation.alignmentPeriod": f"{window_minutes * 60}s",
            "aggregation.perSeriesAligner": "ALIGN_MEAN",
            "view": "FULL",
        }
        url = f"{self._base}/v3/projects/{project}/timeSeries"
        pages: list[dict[str, Any]] = []
        with _translated(f"monitoring timeSeries.list {project}"):
            while True:
                page = self._page(url, params)
                pages.append(page)
                token = page.get("nextPageToken")
                if not token:
                    break
                params = {**params, "pageToken": str(token)}
        return parse.gpu_utilization(pages)


# -- factories (one per service; main.py caches them per process) ------------------------------


def compute(endpoint: str | None = None) -> ComputeAdapter:
    """Compute adapter; `endpoint` like http://127.0.0.1:9090 for a local fake."""
    return ComputeAdapter(
        _client("google.cloud.compute_v1", "instances", "InstancesClient", endpoint)
    )


def notebooks(endpoint: str | None = None) -> NotebooksAdapter:
    """Workbench (Notebooks v2) adapter."""
    return NotebooksAdapter(
        _client("google.cloud.notebooks_v2", "notebook_service", "NotebookServiceClient", endpoint)
    )


def tpus(endpoint: str | None = None) -> TpuAdapter:
    """TPU v2 adapter."""
    return TpuAdapter(_client("google.cloud.tpu_v2", "tpu", "TpuClient", endpoint))


def billing(endpoint: str | None = None) -> BillingAdapter:
    """Cloud Billing adapter."""
    return BillingAdapter(
        _client("google.cloud.billing_v1", "cloud_billing", "CloudBillingClient", endpoint)
    )


def recommender(endpoint: str | None = None) -> RecommenderAdapter:
    """Recommender adapter."""
    return RecommenderAdapter(
        _client("google.cloud.recommender_v1", "recommender", "RecommenderClient", endpoint)
    )


def monitoring(endpoint: str | None = None) -> MonitoringAdapter:
    """Monitoring adapter: an authorized session, or a plain one for an endpoint override."""
    if endpoint is not None:
        import requests

        return MonitoringAdapter(requests.Session(), endpoint)
    import google.auth
    from google.auth.transport.requests import AuthorizedSession

    credentials, _project = google.auth.default(
        scopes=["https://www.googleapis.com/auth/monitoring.read"]
    )
    return MonitoringAdapter(AuthorizedSession(credentials), "https://monitoring.googleapis.com")
