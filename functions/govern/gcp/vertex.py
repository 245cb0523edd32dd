# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""Vertex AI training jobs and endpoints (aiplatform v1 REST on the regional hosts).

Google serves Vertex AI from `https://REGION-aiplatform.googleapis.com`; an endpoint override
(MLGOV_API_ENDPOINTS["aiplatform"]) is one base URL for every region. Methods and bodies follow
the aiplatform v1 discovery document: `customJobs.list`/`hyperparameterTuningJobs.list` with a
state filter, `<kind>.cancel`, `endpoints.list`, `endpoints.get`, `endpoints.patch` (labels),
`endpoints.undeployModel` and its operation (`GET v1/{operation name}`, a
google.longrunning.Operation). A thin adapter: it translates the port's calls and the API's
errors, nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from govern import operations, parse, ports
from govern.gcp.clients import parsed, translated
from govern.gcp.rest import Rest, error_message, error_status, session
from govern.parse.operation import OperationState, longrunning_operation
from govern.vertex import ACTIVE_STATES, Endpoint, JobKind, VertexJob

# `state` supports `=` and `!=` (customJobs.list `filter`, aiplatform v1 discovery document);
# the standard list filter joins terms with OR (https://google.aip.dev/160).
ACTIVE_FILTER = " OR ".join(f'state="{state}"' for state in ACTIVE_STATES)
# A 400 with these statuses is a stale etag or a concurrent change, not a bad request.
_STALE = ("FAILED_PRECONDITION", "ABORTED")
# How long to wait for one undeploy: Vertex AI drains and deletes the model's serving nodes.
WAIT_CAP_SECONDS = 300.0


class VertexAdapter:
    """ports.Vertex over the aiplatform v1 REST API."""

    def __init__(self, rest: Rest, base_url: str | None) -> None:
        self._rest = rest
        self._base = base_url.rstrip("/") if base_url else None

    def _url(self, region: str, path: str) -> str:
        base = self._base or f"https://{region}-aiplatform.googleapis.com"
        return f"{base}/v1/{path}"

    def _list(
        self, what: str, url: str, params: Mapping[str, str], key: str
    ) -> list[dict[str, Any]]:
        with translated(what):
            return list(self._rest.pages(url, params, key))

    def list_jobs(self, project: str, region: str, kind: JobKind) -> ports.Listing[VertexJob]:
        """Queued, pending and running jobs of `kind` in the region (one unparseable: reported).

        Vertex AI lists one region at a time and its list answers have no `unreachable` field
        (ListCustomJobsResponse etc., aiplatform v1 discovery document): a region that cannot
        be read fails the call, which the run reports.
        """
        what = f"vertex {kind}.list {project}/{region}"
        url = self._url(region, f"projects/{project}/locations/{region}/{kind}")
        return parsed(
            self._list(what, url, {"filter": ACTIVE_FILTER}, kind),
            lambda raw: parse.vertex_job(project, kind, raw),
            lambda raw: f"//aiplatform.googleapis.com/{raw.get('name', '')}",
        )

    def cancel_job(self, job: VertexJob) -> None:
        """<kind>.cancel (body {}; answers Empty)."""
        with translated(f"vertex {job.kind}.cancel {job.path}"):
            self._rest.request("POST", self._url(job.region, f"{job.path}:cancel"), body={})

    def list_endpoints(self, project: str, region: str) -> ports.Listing[Endpoint]:
        """Every endpoint of the region with its deployed models (one unparseable: reported)."""
        what = f"vertex endpoints.list {project}/{region}"
        url = self._url(region, f"projects/{project}/locations/{region}/endpoints")
        return parsed(
            self._list(what, url, {}, "endpoints"),
            lambda raw: parse.endpoint(project, raw),
            lambda raw: f"//aiplatform.googleapis.com/{raw.get('name', '')}",
        )

    def get_endpoint(self, project: str, region: str, endpoint_id: str) -> Endpoint:
        """endpoints.get: the endpoint as it is now (labels, etag, deployed models)."""
        path = f"projects/{project}/locations/{region}/endpoints/{endpoint_id}"
        what = f"vertex endpoints.get {path}"
        with translated(what):
            raw = self._rest.request("GET", self._url(region, path))
        try:
            return parse.endpoint(project, raw)
        except parse.ParseError as err:
            raise ports.PortError(f"{what}: {err}") from err

    def set_endpoint_labels(self, endpoint: Endpoint, labels: Mapping[str, str]) -> None:
        """endpoints.patch (updateMask=labels) with the endpoint's etag.

        With an etag the update is a "consistent read-modify-write" (Endpoint.etag, aiplatform
        v1 discovery document): a stale one is refused (409 ABORTED, or 400 FAILED_PRECONDITION),
        which is `ports.Conflict`, and the caller reads the endpoint again.
        """
        from google.api_core import exceptions as ex

        body: dict[str, Any] = {"labels": dict(labels)}
        if endpoint.etag:
            body["etag"] = endpoint.etag
        what = f"vertex endpoints.patch {endpoint.path}"
        with translated(what):
            try:
                self._rest.request(
                    "PATCH",
                    self._url(endpoint.region, endpoint.path),
                    params={"updateMask": "labels"},
                    body=body,
                )
            except ex.BadRequest as err:
                if error_status(err) in _STALE:
                    raise ports.Conflict(f"{what}: {error_message(err)}") from err
                raise

    def undeploy_model(
        self, endpoint: Endpoint, deployed_model_id: str, traffic_split: Mapping[str, int]
    ) -> str:
        """endpoints.undeployModel; the long-running operation's name (see `wait_operation`).

        Raises:
            ports.OperationFailed: the answer is an operation that already failed.
        """
        body: dict[str, Any] = {"deployedModelId": deployed_model_id}
        if traffic_split:
            body["trafficSplit"] = dict(traffic_split)
        url = self._url(endpoint.region, f"{endpoint.path}:undeployModel")
        what = f"vertex endpoints.undeployModel {endpoint.path}/{deployed_model_id}"
        with translated(what):
            answer = self._rest.request("POST", url, body=body)
        return operations.accepted(what, longrunning_operation(answer)).name

    def wait_operation(self, region: str, operation: str) -> str:
        """Poll the operation (GET v1/{name}) until it is done; "done".

        Raises:
            ports.OperationFailed: it finished with an error (the model is still deployed).
            clock.OutOfTime: still running when the wait (WAIT_CAP_SECONDS, within the
                invocation's deadline) ran out.
        """
        what = f"vertex operations.get {operation}"
        url = self._url(region, operation)

        def poll() -> OperationState:
            with translated(what):
                return longrunning_operation(self._rest.request("GET", url))

        operations.wait(what, poll, cap=WAIT_CAP_SECONDS)
        return "done"


def create(endpoint: str | None = None) -> VertexAdapter:
    """Vertex AI adapter: regional Google hosts, or one base URL for an endpoint override."""
    return VertexAdapter(Rest(session(endpoint)), endpoint)
