# pyright: basic
"""Fake Cloud Monitoring timeSeries.list for the accelerator metrics the idle reaper reads.

GPU: the Ops Agent's `agent.googleapis.com/gpu/utilization` (gce_instance, one series per GPU,
metric labels `gpu_number`, `model` and `uuid` as in the Ops Agent metric list,
https://cloud.google.com/monitoring/api/metrics_opsagent#agent-gpu).
TPU: `tpu.googleapis.com/accelerator/duty_cycle` (tpu_worker, one series per worker: resource
labels `project_id`, `zone`, `node_id`, `worker_id`, metric label `accelerator_id`; the metric is
listed in https://cloud.google.com/tpu/docs/troubleshooting/tpu-vm-monitoring).
Answers one point per alignment period of the interval per series (each resource's percentages
held constant), in the v3 TimeSeries JSON shape with the answer's `unit` ("%"), for the ids
named in the filter's one_of(...) (or all, without one).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from governance.fakecloud.server import FakeGcp, Reply, Request, error_body

METRIC = "agent.googleapis.com/gpu/utilization"
TPU_METRIC = "tpu.googleapis.com/accelerator/duty_cycle"
# metric -> (monitored resource type, id label, per-series metric labels, per-series resource
# labels beside project_id, zone and the id label)
_SERIES = {
    METRIC: (
        "gce_instance",
        "instance_id",
        lambda i: {"gpu_number": str(i), "model": "Tesla T4", "uuid": f"GPU-{i:08x}"},
        lambda i: {},
    ),
    TPU_METRIC: (
        "tpu_worker",
        "node_id",
        lambda i: {"accelerator_id": "0"},
        lambda i: {"worker_id": str(i)},
    ),
}


class FakeMonitoring:
    """Means per (metric, project, resource id): a list of per-GPU (per-worker) percentages.

    `since` (resource id -> time) makes a resource's series begin then, as for a VM or agent
    that started inside the window; `units` (resource id -> unit) reports a resource's series in
    another unit (series-level `unit`, as TimeSeries allows).
    """

    def __init__(self) -> None:
        self.values: dict[tuple[str, str, str], list[float]] = {}
        self.since: dict[str, datetime] = {}
        self.units: dict[str, str] = {}

    def set(self, project: str, instance_id: str, *per_gpu: float) -> None:
        self.values[(METRIC, project, instance_id)] = list(per_gpu)

    def set_tpu(self, project: str, node: str, *per_worker: float) -> None:
        self.values[(TPU_METRIC, project, node)] = list(per_worker)

    def install(self, fake: FakeGcp) -> FakeMonitoring:
        fake.route("GET", r"/v3/projects/([^/]+)/timeSeries", self._list)
        return self

    def _list(self, request: Request, m: re.Match[str]) -> Reply:
        q = {k: v[0] for k, v in request.query.items()}
        flt = q.get("filter", "")
        metric = next((name for name in _SERIES if f'metric.type = "{name}"' in flt), None)
        if metric is None or "interval.endTime" not in q:
            return Reply(
                400, error_body(400, "filter must name the metric type; interval.endTime required")
            )
        resource_type, id_label, metric_labels, resource_labels = _SERIES[metric]
        ids = None
        if om := re.search(rf"resource\.labels\.{id_label} = one_of\(([^)]*)\)", flt):
            ids = {s.strip().strip('"') for s in om[1].split(",")}
        stamps = _aligned(q)
        series: list[dict[str, Any]] = []
        for (name, project, rid), values in sorted(self.values.items()):
            if name != metric or project != m[1] or (ids is not None and rid not in ids):
                continue
            begins = self.since.get(rid)
            times = [t for t in stamps if begins is None or t >= begins]
            for i, value in enumerate(values):
                one: dict[str, Any] = {
                    "metric": {"type": metric, "labels": metric_labels(i)},
                    "resource": {
                        "type": resource_type,
                        "labels": {
                            "project_id": project,
                            id_label: rid,
                            "zone": "us-central1-a",
                            **resource_labels(i),
                        },
                    },
                    "metricKind": "GAUGE",
                    "valueType": "DOUBLE",
                    # Newest first; an aligned gauge point's interval is one instant (as recorded
                    # in filter-metrics/: startTime == endTime).
                    "points": [
                        {
                            "interval": {"startTime": _stamp(t), "endTime": _stamp(t)},
                            "value": {"doubleValue": value},
                        }
                        for t in reversed(times)
                    ],
                }
                if rid in self.units:
                    one["unit"] = self.units[rid]
                if times:
                    series.append(one)
        # The answer names the unit of all its series (ListTimeSeriesResponse.unit).
        return Reply(200, {"timeSeries": series, "unit": "%"} if series else {"unit": "%"})


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _aligned(query: dict[str, str]) -> list[datetime]:
    """The step boundaries of the query's interval, oldest first, ending at its end time.

    With an alignment period, one point per period (as ALIGN_MEAN gives); without one, a point
    a minute (the metrics are sampled every 60 s).
    """
    end = datetime.fromisoformat(query["interval.endTime"])
    start = datetime.fromisoformat(query.get("interval.startTime", query["interval.endTime"]))
    step = timedelta(seconds=float(query.get("aggregation.alignmentPeriod", "60s").rstrip("s")))
    times: list[datetime] = []
    t = end
    while t > start:
        times.append(t)
        t -= step
    return sorted(times)
