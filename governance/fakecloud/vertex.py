# pyright: basic
"""Fake Vertex AI (aiplatform v1): custom and tuning jobs (list with a state filter, cancel),
endpoints (list, get, patch with an etag, deployModel, undeployModel, their operations).

One base URL stands for every regional host (`REGION-aiplatform.googleapis.com`), as
MLGOV_API_ENDPOINTS["aiplatform"] does. Shapes follow the aiplatform v1 discovery document
(tests/functions/test_fake_shapes.py checks the answers against it). Like Vertex AI, cancel moves
a queued/pending/running job to CANCELLING and refuses any other state, undeployModel refuses
a model that still has traffic unless the request's trafficSplit takes it away, and a patch with
a stale etag is refused with 409 ABORTED. Answers are proto3 JSON: empty maps are left out.
"""

from __future__ import annotations

import copy
import itertools
import re
import threading
from typing import Any

from governance.fakecloud.server import FakeGcp, Reply, Request, error_body

ACTIVE = ("JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING")
_ID = r"([^/:]+)"


def _refused(message: str) -> Reply:
    body = error_body(400, message)
    body["error"]["status"] = "FAILED_PRECONDITION"
    return Reply(400, body)


class FakeVertex:
    """Jobs and endpoints keyed by resource name."""

    def __init__(self, page_size: int = 50, op_polls: int = 1) -> None:
        self.jobs: dict[str, dict[str, Any]] = {}
        self.endpoints: dict[str, dict[str, Any]] = {}
        # name -> [operations.get calls until done, its error (google.rpc.Code, message) or None,
        # its metadata]
        self.operations: dict[str, list[Any]] = {}
        # deployed model id -> (google.rpc.Code, message): its undeploy's operation fails and
        # the model stays deployed.
        self.failing_undeploys: dict[str, tuple[int, str]] = {}
        # The next `races` endpoint patches lose a race: someone else relabels the endpoint
        # just before, so the etag they carry is stale.
        self.races = 0
        self.op_polls = op_polls
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
        if labels:
            job["labels"] = dict(labels)
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
        deployments: dict[str, dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """An endpoint; `models` maps deployed model ids to their traffic percentage.

        `deployments` overrides a model's DeployedModel JSON fields (e.g. its resources).
        """
        name = f"projects/{project}/locations/{region}/endpoints/{endpoint_id}"
        endpoint: dict[str, Any] = {
            "name": name,
            "displayName": f"serve-{endpoint_id}",
            "deployedModels": [
                {
                    "id": model_id,
                    "model": f"projects/{project}/locations/{region}/models/m{model_id}",
                    "modelVersionId": "1",
                    "displayName": f"model-{model_id}",
                    "createTime": "2026-11-01T00:05:00Z",
                    "dedicatedResources": {
                        "machineSpec": {
                            "machineType": "g2-standard-8",
                            "acceleratorType": "NVIDIA_L4",
                            "acceleratorCount": 1,
                        },
                        "minReplicaCount": 1,
                        "maxReplicaCount": 2,
                    },
                    **(deployments or {}).get(model_id, {}),
                }
                for model_id in models
            ],
            "trafficSplit": {k: v for k, v in models.items() if v},
            "createTime": "2026-11-01T00:00:00Z",
            "updateTime": "2026-11-01T00:05:00Z",
        }
        if labels:
            endpoint["labels"] = dict(labels)
        self.endpoints[name] = endpoint
        self._touch(endpoint)
        return endpoint

    def relabel(self, name: str, **labels: str) -> None:
        """Someone else changes the endpoint's labels: a new etag."""
        with self._lock:
            endpoint = self.endpoints[name]
            endpoint["labels"] = {**endpoint.get("labels", {}), **labels}
            self._touch(endpoint)

    def _touch(self, endpoint: dict[str, Any]) -> None:
        """A new etag, and proto3 JSON: empty maps and lists left out."""
        endpoint["etag"] = f"AMEw9y{next(self._ids):04d}"
        for key in ("labels", "trafficSplit", "deployedModels"):
            if not endpoint.get(key):
                endpoint.pop(key, None)

    def state(self, name: str) -> str:
        return self.jobs[name]["state"]

    def deployed(self, name: str) -> list[str]:
        return [m["id"] for m in self.endpoints[name].get("deployedModels", [])]

    def split(self, name: str) -> dict[str, int]:
        return dict(self.endpoints[name].get("trafficSplit", {}))

    def labels(self, name: str) -> dict[str, str]:
        return dict(self.endpoints[name].get("labels", {}))

    def install(self, fake: FakeGcp) -> FakeVertex:
        base = rf"/v1/projects/{_ID}/locations/{_ID}"
        fake.route("GET", rf"{base}/(customJobs|hyperparameterTuningJobs)", self._list_jobs)
        fake.route(
            "POST", rf"{base}/(customJobs|hyperparameterTuningJobs)/{_ID}:cancel", self._cancel
        )
        fake.route("GET", rf"{base}/endpoints", self._list_endpoints)
        fake.route("GET", rf"{base}/endpoints/{_ID}", self._get_endpoint)
        fake.route("PATCH", rf"{base}/endpoints/{_ID}", self._patch_endpoint)
        fake.route("POST", rf"{base}/endpoints/{_ID}:undeployModel", self._undeploy)
        fake.route("POST", rf"{base}/endpoints/{_ID}:deployModel", self._deploy)
        fake.route("GET", rf"{base}/endpoints/{_ID}/operations/{_ID}", self._operation)
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

    def _endpoint(self, m: re.Match[str]) -> tuple[str, dict[str, Any] | None]:
        name = f"projects/{m[1]}/locations/{m[2]}/endpoints/{m[3]}"
        return name, self.endpoints.get(name)

    def _get_endpoint(self, request: Request, m: re.Match[str]) -> Reply:
        with self._lock:
            name, endpoint = self._endpoint(m)
            if endpoint is None:
                return Reply(404, error_body(404, f"{name} not found"))
            return Reply(200, copy.deepcopy(endpoint))

    def _patch_endpoint(self, request: Request, m: re.Match[str]) -> Reply:
        body = request.body or {}
        fields = set(request.query.get("updateMask", [""])[0].split(",")) - {""}
        if not fields or fields - {"labels", "trafficSplit", "displayName", "description"}:
            return Reply(400, error_body(400, f"unsupported updateMask {sorted(fields)}"))
        with self._lock:
            name, endpoint = self._endpoint(m)
            if endpoint is None:
                return Reply(404, error_body(404, f"{name} not found"))
            if self.races > 0:
                self.races -= 1
                endpoint["labels"] = {**endpoint.get("labels", {}), "owner": "sre"}
                self._touch(endpoint)
            if body.get("etag") and body["etag"] != endpoint["etag"]:
                # AIP-154: a stale etag is ABORTED (HTTP 409); Vertex AI answers so, e.g.
                # googleapis/python-aiplatform#1674 ("... does not match server `etag`").
                error = error_body(
                    409,
                    f"Specified Endpoint `etag`: `{body['etag']}` does not match server "
                    f"`etag`: `{endpoint['etag']}`",
                )
                return Reply(409, error)
            if "trafficSplit" in fields:
                split = {str(k): int(v) for k, v in (body.get("trafficSplit") or {}).items()}
                deployed = {d["id"] for d in endpoint.get("deployedModels", [])}
                if set(split) - deployed or (split and sum(split.values()) != 100):
                    return Reply(400, error_body(400, f"invalid trafficSplit {split}"))
                endpoint["trafficSplit"] = {k: v for k, v in split.items() if v}
            for key in fields - {"trafficSplit"}:
                endpoint[key] = copy.deepcopy(body.get(key))
            endpoint["updateTime"] = "2026-11-21T06:00:00Z"
            self._touch(endpoint)
            return Reply(200, copy.deepcopy(endpoint))

    def _operation_reply(self, name: str, error: tuple[int, str] | None = None) -> dict[str, Any]:
        op = f"{name}/operations/{next(self._ids)}"
        metadata = {
            "@type": "type.googleapis.com/google.cloud.aiplatform.v1.DeployModelOperationMetadata",
            "genericMetadata": {
                "createTime": "2026-11-21T05:00:00.046393Z",
                "updateTime": "2026-11-21T05:00:00.046393Z",
            },
        }
        self.operations[op] = [self.op_polls, error, metadata]
        return {"name": op, "metadata": copy.deepcopy(metadata)}

    def _deploy(self, request: Request, m: re.Match[str]) -> Reply:
        body = request.body or {}
        deployed = copy.deepcopy(body.get("deployedModel") or {})
        if not deployed.get("model") or not (
            deployed.get("dedicatedResources") or deployed.get("automaticResources")
        ):
            return Reply(400, error_body(400, "deployedModel needs model and resources"))
        with self._lock:
            name, endpoint = self._endpoint(m)
            if endpoint is None:
                return Reply(404, error_body(404, f"{name} not found"))
            models = endpoint.setdefault("deployedModels", [])
            model_id = str(deployed.get("id") or next(self._ids))
            if any(d["id"] == model_id for d in models):
                return Reply(409, error_body(409, f"deployed model {model_id} already exists"))
            split = {str(k): int(v) for k, v in (body.get("trafficSplit") or {}).items()}
            if split and sum(split.values()) != 100:
                return Reply(400, error_body(400, "trafficSplit must add up to 100"))
            model, _, version = str(deployed["model"]).partition("@")
            deployed.update(
                {
                    "id": model_id,
                    "model": model,
                    "modelVersionId": version or "1",
                    "createTime": "2026-11-21T06:00:00Z",
                }
            )
            deployed.setdefault("displayName", f"model-{model_id}")
            models.append(deployed)
            if split:
                endpoint["trafficSplit"] = {
                    (model_id if k == "0" else k): v for k, v in split.items() if v
                }
            self._touch(endpoint)
            reply = self._operation_reply(name)
        reply["metadata"]["@type"] = (
            "type.googleapis.com/google.cloud.aiplatform.v1.DeployModelOperationMetadata"
        )
        return Reply(200, reply)

    def _operation(self, request: Request, m: re.Match[str]) -> Reply:
        """operations.get: running (no `done`), then done with `response` or `error`.

        The finished shape is the recorded one (vertexai-endpoint-delete/: `name`, `metadata`,
        `done: true`, `response` with its `@type`); a failed one carries `error` (a
        google.rpc.Status) in place of `response` (google.longrunning.Operation).
        """
        name = f"projects/{m[1]}/locations/{m[2]}/endpoints/{m[3]}/operations/{m[4]}"
        with self._lock:
            if name not in self.operations:
                return Reply(404, error_body(404, f"{name} not found"))
            entry = self.operations[name]
            entry[0] -= 1
            done, error, metadata = entry[0] <= 0, entry[1], copy.deepcopy(entry[2])
        body: dict[str, Any] = {"name": name, "metadata": metadata}
        if done:
            body["done"] = True
            if error is not None:
                body["error"] = {"code": error[0], "message": error[1]}
            else:
                kind = metadata["@type"].rsplit(".", 1)[-1].replace("OperationMetadata", "")
                body["response"] = {
                    "@type": f"type.googleapis.com/google.cloud.aiplatform.v1.{kind}Response"
                }
        return Reply(200, body)

    def _undeploy(self, request: Request, m: re.Match[str]) -> Reply:
        name = f"projects/{m[1]}/locations/{m[2]}/endpoints/{m[3]}"
        body = request.body or {}
        model_id = body.get("deployedModelId")
        with self._lock:
            endpoint = self.endpoints.get(name)
            if endpoint is None:
                return Reply(404, error_body(404, f"{name} not found"))
            ids = [d["id"] for d in endpoint.get("deployedModels", [])]
            if model_id not in ids:
                return Reply(404, error_body(404, f"deployed model {model_id} not found"))
            if model_id in self.failing_undeploys:
                # Accepted, then failed: the model stays deployed, with its traffic.
                reply = self._operation_reply(name, self.failing_undeploys[model_id])
                reply["metadata"]["@type"] = (
                    "type.googleapis.com/google.cloud.aiplatform.v1.UndeployModelOperationMetadata"
                )
                self.operations[reply["name"]][2]["@type"] = reply["metadata"]["@type"]
                return Reply(200, reply)
            remaining = [i for i in ids if i != model_id]
            split = body.get("trafficSplit")
            if split is not None:
                if set(split) - set(remaining) or (remaining and sum(split.values()) != 100):
                    return Reply(400, error_body(400, "invalid trafficSplit"))
                new_split = {k: v for k, v in split.items() if v}
            elif endpoint.get("trafficSplit", {}).get(model_id) and remaining:
                return _refused(f"deployed model {model_id} still has traffic")
            else:
                new_split = {
                    k: v for k, v in endpoint.get("trafficSplit", {}).items() if k != model_id
                }
            endpoint["deployedModels"] = [
                d for d in endpoint["deployedModels"] if d["id"] != model_id
            ]
            endpoint["trafficSplit"] = new_split if remaining else {}
            self._touch(endpoint)
            reply = self._operation_reply(name)
        reply["metadata"]["@type"] = (
            "type.googleapis.com/google.cloud.aiplatform.v1.UndeployModelOperationMetadata"
        )
        self.operations[reply["name"]][2]["@type"] = reply["metadata"]["@type"]
        return Reply(200, reply)
