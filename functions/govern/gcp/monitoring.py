# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""GPU utilization from Cloud Monitoring's timeSeries.list (REST over requests).

A thin adapter: it translates the port's calls and the client's errors, nothing more.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from govern import clock, parse
from govern.gcp.clients import retrying, translated

GPU_METRIC = "agent.googleapis.com/gpu/utilization"


class MonitoringAdapter:
    """ports.Monitoring over the timeSeries.list REST method.

    google-cloud-monitoring ships gRPC transports only; the REST method is called with an
    authorized `requests` session (google-auth) and the same retry as the clients.
    """

    def __init__(
        self, session: Any, base_url: str, now: Callable[[], datetime] | None = None
    ) -> None:
        self._session = session
        self._base = base_url.rstrip("/")
        self._now = now or (lambda: clock.current().wall())

    def _page(self, url: str, params: dict[str, str]) -> dict[str, Any]:
        from google.api_core import exceptions as ex

        def fetch() -> dict[str, Any]:
            response = self._session.get(url, params=params, timeout=clock.call_timeout())
            if response.status_code >= 400:
                raise ex.from_http_response(response)
            body: dict[str, Any] = response.json()
            return body

        return retrying()(fetch)()

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
        with translated(f"monitoring timeSeries.list {project}"):
            while True:
                page = self._page(url, params)
                pages.append(page)
                token = page.get("nextPageToken")
                if not token:
                    break
                params = {**params, "pageToken": str(token)}
        return parse.gpu_utilization(pages)


def create(endpoint: str | None = None) -> MonitoringAdapter:
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
