"""Fake Vertex AI (aiplatform v1): custom and tuning jobs (list with a state filter, cancel),
endpoints (list, undeployModel).

One base URL stands for every regional host (`REGION-aiplatform.googleapis.com`), as
MLGOV_API_ENDPOINTS["aiplatform"] does. Shapes follow the aiplatform v1 discovery document
(tests/functions/test_fake_shapes.py checks the answers against it). Like Vertex AI, cancel moves
a queued/pending/running job to CANCELLING and refuses any other state, and undeployModel refuses
a model that still has traffic unless the request's trafficSplit takes it away.
"""

from __future__ import annotations

import copy
import itertools
import re
import threading
from typing import Any

from tests.fakegcp.server import FakeGcp, Reply, Request, error_body

ACTIVE = ("JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING")
_ID = r"([^/:]+)"


def _refused(message: str) -> Reply:
    body = error_body(400, message)
    body["error"]["status"] = "FAILED_PRECONDITION"
    return Reply(400, body)


class FakeVertex:
    """Jobs and endpoints keyed by resource name."""

    def __init__(self, page_size: int = 50) -> None:
        self.jobs: dict[str, dict[str, Any]] = {}
        self.endpoints: dict[str, dict[str, Any]] = {}
        self.page_size = page_size
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def add_job(
        self,
        project: str,
        region: str,
        job_id: str,
        *,
        kind: str = "customJobs",
        state: str = "JOB_STATE_RUNNING",
        labels: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        name = f"projects/{project}/locations/{region}/{kind}/{job_id}"
        job: dict[str, Any] = {
            "name": name,
            "displayName": f"train-{job_id}",
            "state": state,
            "labels": dict(labels or {}),
            "createTime": "2026-11-20T10:00:00Z",
            "startTime": "2026-11-20T10:05:00Z",
            "updateTime": "2026-11-20T10:05:00Z",
        }
        spec = {
            "workerPoolSpecs": [
                {
                    "machineSpec": {
                        "machineType": "a2-highgpu-1g",
                        "acceleratorType": "NVIDIA_TESLA_A100",
                        "acceleratorCount": 1,
                    },
                    "replicaCount": "1",
                    "containerSpec": {"imageUri": "us-docker.pkg.dev/acme/train:1"},
                }
            ]
        }
        if kind == "customJobs":
            job["jobSpec"] = spec
        else:
            job.update({"trialJobSpec": spec, "maxTrialCount": 8, "parallelTrialCount": 2})
        self.jobs[name] = job
        return job

    def add_endpoint(
        self,
        project: str,
        region: str,
        endpoint_id: str,
        *,
        models: dict[str, int],
        labels: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """An endpoint; `models` maps deployed model ids to their traffic percentage."""
        name = f"projects/{project}/locations/{region}/endpoints/{endpoint_id}"
        endpoint = {
            "name": name,
            "displayName": f"serve-{endpoint_id}",
            "labels": dict(labels or {}),
            "deployedModels": [
                {
                    "id": model_id,
                    "model": f"projects/{project}/locations/{region}/models/m{model_id}",
                    "displayName": f"model-{model_id}",
                    "dedicatedResources": {
                        "machineSpec": {"machineType": "g2-standard-8", "acceleratorCount": 1},
                        "minReplicaCount": 1,
                    },
                }
                for model_id in models
            ],
            "trafficSplit": {k: v for k, v in models.items() if v},
            "etag": f"etag-{next(self._ids)}",
            "createTime": "2026-11-01T00:00:00Z",
        }
        self.endpoints[name] = endpoint
        return endpoint

    def state(self, name: str) -> str:
        return self.jobs[name]["state"]

    def deployed(self, name: str) -> list[str]:
        return [m["id"] for m in self.endpoints[name]["deployedModels"]]

    def install(self, fake: FakeGcp) -> FakeVertex:
        base = rf"/v1/projects/{_ID}/locations/{_ID}"
        fake.route("GET", rf"{base}/(customJobs|hyperparameterTuningJobs)", self._list_jobs)
        fake.route(
            "POST", rf"{base}/(customJobs|hyperparameterTuningJobs)/{_ID}:cancel", self._cancel
        )
        fake.route("GET", rf"{base}/endpoints", self._list_endpoints)
        fake.route("POST", rf"{base}/endpoints/{_ID}:undeployModel", self._undeploy)
        return self

    def _page(self, request: Request, items: list[dict[str, Any]], key: str) -> Reply:
        start = int(request.query.get("pageToken", ["0"])[0])
        page = items[start : start + self.page_size]
        body: dict[str, Any] = {key: page} if page else {}
        if start + self.page_size < len(items):
            body["nextPageToken"] = str(start + self.page_size)
        return Reply(200, body)

    def _list_jobs(self, request: Request, m: re.Match[str]) -> Reply:
        flt = request.query.get("filter", [""])[0]
        states = set(re.findall(r'state\s*=\s*"([A-Z_]+)"', flt))
        if flt and (not states or re.sub(r'state\s*=\s*"[A-Z_]+"|\s+OR\s+', "", flt).strip()):
            return Reply(400, error_body(400, f"unsupported filter {flt!r}"))
        prefix = f"projects/{m[1]}/locations/{m[2]}/{m[3]}/"
        with self._lock:
            found = [
                copy.deepcopy(j)
                for name, j in sorted(self.jobs.items())
                if name.startswith(prefix) and (not states or j["state"] in states)
            ]
        return self._page(request, found, m[3])

    def _cancel(self, request: Request, m: re.Match[str]) -> Reply:
        name = f"projects/{m[1]}/locations/{m[2]}/{m[3]}/{m[4]}"
        with self._lock:
            job = self.jobs.get(name)
            if job is None:
                return Reply(404, error_body(404, f"{name} not found"))
            if job["state"] not in ACTIVE:
                return _refused(f"cannot cancel a job in state {job['state']}")
            job["state"] = "JOB_STATE_CANCELLING"
        return Reply(200, {})

    def _list_endpoints(self, request: Request, m: re.Match[str]) -> Reply:
        prefix = f"projects/{m[1]}/locations/{m[2]}/endpoints/"
        with self._lock:
            found = [
                copy.deepcopy(e) for n, e in sorted(self.endpoints.items()) if n.startswith(prefix)
            ]
        return self._page(request, found, "endpoints")

    def _undeploy(self, request: Request, m: re.Match[str]) -> Reply:
        name = f"projects/{m[1]}/locations/{m[2]}/endpoints/{m[3]}"
        body = request.body or {}
        model_id = body.get("deployedModelId")
        with self._lock:
            endpoint = self.endpoints.get(name)
            if endpoint is None:
                return Reply(404, error_body(404, f"{name} not found"))
            ids = [d["id"] for d in endpoint["deployedModels"]]
            if model_id not in ids:
                return Reply(404, error_body(404, f"deployed model {model_id} not found"))
            remaining = [i for i in ids if i != model_id]
            split = body.get("trafficSplit")
            if split is not None:
                if set(split) - set(remaining) or (remaining and sum(split.values()) != 100):
                    return Reply(400, error_body(400, "invalid trafficSplit"))
                new_split = {k: v for k, v in split.items() if v}
            elif endpoint["trafficSplit"].get(model_id) and remaining:
                return _refused(f"deployed model {model_id} still has traffic")
            else:
                new_split = {k: v for k, v in endpoint["trafficSplit"].items() if k != model_id}
            endpoint["deployedModels"] = [
                d for d in endpoint["deployedModels"] if d["id"] != model_id
            ]
            endpoint["trafficSplit"] = new_split if remaining else {}
            op = f"{name}/operations/{next(self._ids)}"
        return Reply(
            200,
            {
                "name": op,
                "metadata": {
                    "@type": "type.googleapis.com/google.cloud.aiplatform.v1.UndeployModelOperationMetadata",
                    "genericMetadata": {"createTime": "2026-11-21T05:00:00Z"},
                },
            },
        )
