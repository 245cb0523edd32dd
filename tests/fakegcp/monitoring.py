"""Fake Cloud Monitoring timeSeries.list for the Ops Agent GPU utilization metric.

Answers one aligned (ALIGN_MEAN) point per GPU series, in the v3 TimeSeries JSON shape, for
the instance ids named in the filter's one_of(...) (or all, without one).
"""

from __future__ import annotations

import re
from typing import Any

from tests.fakegcp.server import FakeGcp, Reply, Request, error_body

METRIC = "agent.googleapis.com/gpu/utilization"


class FakeMonitoring:
    """GPU utilization means per (project, instance_id): a list of per-GPU percentages."""

    def __init__(self) -> None:
        self.gpu: dict[tuple[str, str], list[float]] = {}

    def set(self, project: str, instance_id: str, *per_gpu: float) -> None:
        self.gpu[(project, instance_id)] = list(per_gpu)

    def install(self, fake: FakeGcp) -> FakeMonitoring:
        fake.route("GET", r"/v3/projects/([^/]+)/timeSeries", self._list)
        return self

    def _list(self, request: Request, m: re.Match[str]) -> Reply:
        q = {k: v[0] for k, v in request.query.items()}
        flt = q.get("filter", "")
        if f'metric.type = "{METRIC}"' not in flt or "interval.endTime" not in q:
            return Reply(
                400, error_body(400, "filter must name the metric type; interval.endTime required")
            )
        ids = None
        if om := re.search(r"resource\.labels\.instance_id = one_of\(([^)]*)\)", flt):
            ids = {s.strip().strip('"') for s in om[1].split(",")}
        series: list[dict[str, Any]] = []
        for (project, instance_id), values in sorted(self.gpu.items()):
            if project != m[1] or (ids is not None and instance_id not in ids):
                continue
            for gpu, value in enumerate(values):
                series.append(
                    {
                        "metric": {
                            "type": METRIC,
                            "labels": {"gpu_number": str(gpu), "model": "Tesla T4"},
                        },
                        "resource": {
                            "type": "gce_instance",
                            "labels": {
                                "project_id": project,
                                "instance_id": instance_id,
                                "zone": "us-central1-a",
                            },
                        },
                        "metricKind": "GAUGE",
                        "valueType": "DOUBLE",
                        "points": [
                            {
                                "interval": {
                                    "startTime": q.get("interval.startTime"),
                                    "endTime": q["interval.endTime"],
                                },
                                "value": {"doubleValue": value},
                            }
                        ],
                    }
                )
        return Reply(200, {"timeSeries": series} if series else {"unit": "%"})
