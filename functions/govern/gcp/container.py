# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
"""GKE clusters and node pools (container v1 REST): list, and writes that wait for their operation.

Methods and bodies follow the container v1 discovery document: `clusters.list` over
`locations/-`, `nodePools.update` (resourceLabels), `nodePools.setAutoscaling`,
`nodePools.setSize`, `clusters.setResourceLabels` (with labelFingerprint), `clusters.update`
(desiredClusterAutoscaling), `clusters.get`, `operations.get`.

Concurrency, as Google documents it: GKE generally runs one cluster-level operation at a time,
or one operation per node pool, and its own operations (upgrades, repairs) count too
(https://cloud.google.com/kubernetes-engine/docs/troubleshooting/concurrent-operations); node
pools can be created, updated or deleted while another pool of the cluster is (Add and manage
node pools, https://cloud.google.com/kubernetes-engine/docs/how-to/node-pools). A write that
collides answers HTTP 400 FAILED_PRECONDITION ("Operation ... is currently ... cluster ...
Please wait and try again once it is done"); it is tried again after a pause, within the
invocation's time. The same status with "fingerprint mismatch" (a stale labelFingerprint) and
HTTP 409 are `ports.Conflict`: only a fresh read can fix those (actions/gke.py does).
A thin adapter otherwise: it translates the port's calls and the API's errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from govern import clock, operations, parse, ports
from govern.gcp.clients import missing, parsed, translated
from govern.gcp.rest import Rest, error_message, error_status, session
from govern.gke import Autoscaling, Cluster, NodePool, ResourceLimit
from govern.parse.operation import OperationState, gke_operation

GOOGLE = "https://container.googleapis.com"
WAIT_CAP_SECONDS = 600.0  # one GKE operation; setSize drains nodes, which can take minutes
_BUSY = "FAILED_PRECONDITION"
# setResourceLabels with a stale labelFingerprint answers 400 FAILED_PRECONDITION too, "Labels
# could not be set due to fingerprint mismatch; try again with the proper fingerprint: ..."
# (recorded: tests/fakegcp/recorded/gke-cluster-set-label/...setResourceLabels_2.json).
_STALE = "fingerprint mismatch"


def _autoscaling_json(a: Autoscaling) -> dict[str, Any]:
    if not a.enabled:
        return {"enabled": False}
    prefix = "total" if a.total else ""
    body: dict[str, Any] = {
        "enabled": True,
        f"{prefix}MinNodeCount" if a.total else "minNodeCount": a.min_nodes,
        f"{prefix}MaxNodeCount" if a.total else "maxNodeCount": a.max_nodes,
    }
    if a.location_policy:
        body["locationPolicy"] = a.location_policy
    return body


class ContainerAdapter:
    """ports.Container over the container v1 REST API."""

    def __init__(self, rest: Rest, base_url: str) -> None:
        self._rest = rest
        self._base = base_url.rstrip("/")

    def list_clusters(self, project: str) -> ports.Listing[Cluster]:
        """clusters.list over every location.

        "If any zones are listed here [missingZones], the list of clusters returned may be
        missing those zones" (ListClustersResponse, container v1 discovery document): the
        listing carries them as `missing`, and the clusters it did return are acted on.
        """
        what = f"gke clusters.list {project}"
        with translated(what):
            body = self._rest.request(
                "GET", f"{self._base}/v1/projects/{project}/locations/-/clusters"
            )
        raws = [c for c in body.get("clusters") or [] if isinstance(c, dict)]
        listing = parsed(
            raws,
            lambda raw: parse.cluster(project, raw),
            lambda raw: (
                f"//container.googleapis.com/projects/{project}/locations/"
                f"{raw.get('location', '')}/clusters/{raw.get('name', '')}"
            ),
        )
        zones = body.get("missingZones")
        return missing(listing, [str(z) for z in zones] if isinstance(zones, list) else [])

    def get_cluster(self, project: str, location: str, name: str) -> Cluster:
        """clusters.get: the cluster as it is now (a fresh labelFingerprint, limits, pools)."""
        path = f"projects/{project}/locations/{location}/clusters/{name}"
        what = f"gke clusters.get {path}"
        with translated(what):
            body = self._rest.request("GET", f"{self._base}/v1/{path}")
        try:
            return parse.cluster(project, body)
        except parse.ParseError as err:
            raise ports.PortError(f"{what}: {err}") from err

    # -- writes --------------------------------------------------------------------------------
    def _write(
        self, what: str, where: tuple[str, str], method: str, url: str, body: dict[str, Any]
    ) -> str:
        """Send a write (again while GKE is busy with another operation), wait for it."""
        return self._wait(what, where, self._send(what, method, url, body))

    def _send(self, what: str, method: str, url: str, body: dict[str, Any]) -> dict[str, Any]:
        """Send a write, again while GKE is busy with another operation; the operation JSON."""
        from google.api_core import exceptions as ex

        with translated(what):
            pause = 2.0
            while True:
                try:
                    return self._rest.request(method, url, body=body)
                except ex.BadRequest as err:
                    if error_status(err) != _BUSY:
                        raise
                    if _STALE in error_message(err).lower():
                        # A stale labelFingerprint: sending it again can never succeed; the
                        # caller reads the cluster again and retries with the fresh one.
                        raise ports.Conflict(f"{what}: {error_message(err)}") from err
                    if clock.seconds_left(WAIT_CAP_SECONDS) <= pause:
                        # Still busy at the deadline: left for the redelivery, not a failure.
                        busy = f"{what}: the cluster is busy with another operation"
                        raise clock.OutOfTime(busy) from err
                    clock.current().sleep(pause)  # another operation runs on the cluster
                    pause = min(pause * 2, 10.0)

    def _wait(self, what: str, where: tuple[str, str], answer: dict[str, Any]) -> str:
        """Wait for the operation a write answered with (govern/operations.py); its name.

        Still running at the deadline is clock.OutOfTime: left for the redelivery (the run
        reports it unfinished and raises).
        """
        first = gke_operation(answer)
        return operations.wait(
            what, lambda: self._poll(*where, first.name), cap=WAIT_CAP_SECONDS, first=first
        ).name

    def _poll(self, project: str, location: str, name: str) -> OperationState:
        url = f"{self._base}/v1/projects/{project}/locations/{location}/operations/{name}"
        # Translated here, so that a 404 on the operation reaches operations.wait as
        # ports.Gone (which it reports as not confirmed), not as the write's own 404.
        with translated(f"container operations.get {project}/{location}/{name}"):
            return gke_operation(self._rest.request("GET", url))

    def wait_operation(self, project: str, location: str, operation: str) -> str:
        """operations.get until DONE (govern/operations.py, at once then backing off); its name."""
        what = f"gke operation {project}/{location}/{operation}"
        return operations.wait(
            what, lambda: self._poll(project, location, operation), cap=WAIT_CAP_SECONDS
        ).name

    def _pool(self, pool: NodePool, verb: str, body: dict[str, Any]) -> str:
        # nodePools.update is PUT v1/{name}; the set* methods are POST v1/{name}:verb.
        method, url = (
            ("POST", f"{self._base}/v1/{pool.path}:{verb}")
            if verb
            else ("PUT", f"{self._base}/v1/{pool.path}")
        )
        what = f"gke nodePools.{verb or 'update'} {pool.path}"
        return self._write(
            what, (pool.project, pool.location), method, url, {"name": pool.path, **body}
        )

    def set_pool_labels(self, pool: NodePool, labels: Mapping[str, str]) -> str:
        """nodePools.update with resourceLabels (GKE applies them without recreating nodes)."""
        return self._pool(pool, "", {"resourceLabels": {"labels": dict(labels)}})

    def set_pool_autoscaling(self, pool: NodePool, autoscaling: Autoscaling) -> str:
        """nodePools.setAutoscaling."""
        return self._pool(pool, "setAutoscaling", {"autoscaling": _autoscaling_json(autoscaling)})

    def request_pool_size(self, pool: NodePool, nodes: int) -> str:
        """nodePools.setSize, once accepted: its operation's name (an error in it is raised)."""
        what = f"gke nodePools.setSize {pool.path}"
        url = f"{self._base}/v1/{pool.path}:setSize"
        answer = self._send(what, "POST", url, {"name": pool.path, "nodeCount": nodes})
        return operations.accepted(what, gke_operation(answer)).name

    def set_cluster_labels(self, cluster: Cluster, labels: Mapping[str, str]) -> str:
        """clusters.setResourceLabels with the fingerprint read with the cluster."""
        body = {
            "name": cluster.path,
            "resourceLabels": dict(labels),
            "labelFingerprint": cluster.label_fingerprint,
        }
        url = f"{self._base}/v1/{cluster.path}:setResourceLabels"
        what = f"gke clusters.setResourceLabels {cluster.path}"
        return self._write(what, (cluster.project, cluster.location), "POST", url, body)

    def set_resource_limits(self, cluster: Cluster, limits: Sequence[ResourceLimit]) -> str:
        """clusters.update: desiredClusterAutoscaling = the autoscaling as read, new limits."""
        autoscaling = {
            **cluster.autoscaling,
            "resourceLimits": [
                {
                    "resourceType": lim.resource_type,
                    "minimum": str(lim.minimum),
                    "maximum": str(lim.maximum),
                }
                for lim in limits
            ],
        }
        body = {"name": cluster.path, "update": {"desiredClusterAutoscaling": autoscaling}}
        what = f"gke clusters.update {cluster.path}"
        url = f"{self._base}/v1/{cluster.path}"
        return self._write(what, (cluster.project, cluster.location), "PUT", url, body)


def create(endpoint: str | None = None) -> ContainerAdapter:
    """GKE adapter: an authorized session, or a plain one for an endpoint override."""
    return ContainerAdapter(Rest(session(endpoint)), endpoint or GOOGLE)
