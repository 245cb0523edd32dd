# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Accelerator use from Cloud Monitoring's timeSeries.list (REST over requests).

GPU VMs: the Ops Agent's `agent.googleapis.com/gpu/utilization` (gce_instance, by the resource
label instance_id; one series per GPU, told apart by the metric labels gpu_number, model and uuid;
https://cloud.google.com/monitoring/api/metrics_opsagent#agent-gpu). The agent reports it through
NVML, so only where the NVIDIA driver is installed.
TPU VMs: the built-in `tpu.googleapis.com/accelerator/duty_cycle` (tpu_worker, by the resource
label node_id; one series per worker_id), listed in
https://cloud.google.com/tpu/docs/troubleshooting/tpu-vm-monitoring (TPU VMs of the TPU API, the
only kind the program creates).

Each series is aligned (ALIGN_MEAN) in steps of a twelfth of the window, so the parser can tell
data that covers the window from data that began inside it (parse/resources.py judges that, the
points' intervals and the unit). A thin adapter otherwise: it translates the port's calls and
the client's errors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from govern import clock, parse
from govern.gcp.clients import retrying, translated
from govern.models import MetricWindow, Usage

GPU_METRIC = "agent.googleapis.com/gpu/utilization"
TPU_METRIC = "tpu.googleapis.com/accelerator/duty_cycle"
STEPS = 12
"""Aligned points per window: enough to see whether the data covers all of it."""


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

    def window(self, window_minutes: int) -> MetricWindow:
        """The window ending now, aligned in steps of a twelfth of it (at least one minute)."""
        end = self._now().replace(microsecond=0)
        step = 60 * max(1, window_minutes // STEPS)
        return MetricWindow(end - timedelta(minutes=window_minutes), end, step)

    def _series(
        self,
        project: str,
        window: MetricWindow,
        series: tuple[str, str, str],
        ids: Sequence[str],
    ) -> list[dict[str, Any]]:
        """The timeSeries.list pages of one metric (ALIGN_MEAN per step) for `ids`."""
        metric, resource_type, id_label = series
        flt = f'metric.type = "{metric}" AND resource.type = "{resource_type}"'
        if ids and len(ids) <= 100:
            quoted = ",".join(f'"{i}"' for i in ids)
            flt += f" AND resource.labels.{id_label} = one_of({quoted})"
        params = {
            "filter": flt,
            "interval.startTime": window.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "interval.endTime": window.end.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "aggregation.alignmentPeriod": f"{window.step_seconds}s",
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
        return pages

    def gpu_utilization(
        self, project: str, window_minutes: int, instance_ids: Sequence[str]
    ) -> Mapping[str, Usage]:
        """Mean GPU utilization per GPU over the window, reduced to the busiest GPU per VM."""
        window = self.window(window_minutes)
        series = (GPU_METRIC, "gce_instance", "instance_id")
        return parse.gpu_utilization(self._series(project, window, series, instance_ids), window)

    def tpu_duty_cycle(
        self, project: str, window_minutes: int, node_names: Sequence[str]
    ) -> Mapping[str, Usage]:
        """Mean TPU duty cycle per worker over the window, reduced to the busiest per node."""
        window = self.window(window_minutes)
        series = (TPU_METRIC, "tpu_worker", "node_id")
        return parse.tpu_duty_cycle(self._series(project, window, series, node_names), window)


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
