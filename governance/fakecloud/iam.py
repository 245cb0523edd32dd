# pyright: basic
"""Which IAM permission each REST call the fake cloud can see requires, from Google's docs.

`permission(request)` maps one recorded request (method + path, and the body where the same
method needs different permissions) to the permission Google documents for that REST method;
each row cites its reference page. tests/functions/test_permissions.py runs every flow against
the fake, maps what it saw, and compares the result with what the functions declare, so a flow
that starts calling something new, or stops calling something it is granted, fails there.
An unknown call is an error, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from governance.fakecloud.server import Request

_ID = r"[^/:]+"


@dataclass(frozen=True)
class Rule:
    """A REST method (HTTP method + path pattern) and the IAM permission it requires."""

    method: str
    path: str
    permission: str | tuple[str, ...] | Callable[[Request], str]
    source: str

    def matches(self, request: Request) -> bool:
        return request.method == self.method and re.fullmatch(self.path, request.path) is not None

    def of(self, request: Request) -> str | tuple[str, ...]:
        return self.permission(request) if callable(self.permission) else self.permission


def _update_billing_info(request: Request) -> str:
    # An empty billingAccountName unlinks the account (deleteBillingAssignment); naming one
    # links it, which needs createBillingAssignment on the project (and an account grant).
    body = request.body if isinstance(request.body, dict) else {}
    if body.get("billingAccountName"):
        return "resourcemanager.projects.createBillingAssignment"
    return "resourcemanager.projects.deleteBillingAssignment"


_COMPUTE = "https://cloud.google.com/compute/docs/reference/rest/v1/instances"
_RECS = (
    "https://cloud.google.com/recommender/docs/reference/rest/v1/"
    "projects.locations.recommenders.recommendations"
)
_GKE = "https://cloud.google.com/kubernetes-engine/docs/reference/api-permissions"
_VERTEX = "https://cloud.google.com/vertex-ai/docs/general/iam-permissions"
RULES: tuple[Rule, ...] = (
    Rule(
        "GET",
        rf"/compute/v1/projects/{_ID}/aggregated/instances",
        "compute.instances.list",
        f"{_COMPUTE}/aggregatedList",
    ),
    Rule(
        "GET",
        rf"/compute/v1/projects/{_ID}/zones/{_ID}/instances/{_ID}",
        "compute.instances.get",
        f"{_COMPUTE}/get",
    ),
    Rule(
        "POST",
        rf"/compute/v1/projects/{_ID}/zones/{_ID}/instances/{_ID}/stop",
        "compute.instances.stop",
        f"{_COMPUTE}/stop",
    ),
    Rule(
        "GET",
        rf"/compute/v1/projects/{_ID}/zones/{_ID}/operations/{_ID}",
        "compute.zoneOperations.get",
        "https://cloud.google.com/compute/docs/reference/rest/v1/zoneOperations/get",
    ),
    Rule(
        "GET",
        rf"/v2/projects/{_ID}/locations/{_ID}/instances",
        "notebooks.instances.list",
        "https://cloud.google.com/vertex-ai/docs/workbench/reference/rest/v2/projects.locations.instances/list",
    ),
    Rule(
        "POST",
        rf"/v2/projects/{_ID}/locations/{_ID}/instances/{_ID}:stop",
        "notebooks.instances.stop",
        "https://cloud.google.com/vertex-ai/docs/workbench/reference/rest/v2/projects.locations.instances/stop",
    ),
    Rule(
        "GET",
        rf"/v2/projects/{_ID}/locations/{_ID}/nodes",
        "tpu.nodes.list",
        "https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.nodes/list",
    ),
    Rule(
        "POST",
        rf"/v2/projects/{_ID}/locations/{_ID}/nodes/{_ID}:stop",
        "tpu.nodes.stop",
        "https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.nodes/stop",
    ),
    Rule(
        "GET",
        rf"/v2/projects/{_ID}/locations/{_ID}/queuedResources",
        "tpu.queuedResources.list",
        "https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.queuedResources/list",
    ),
    Rule(
        "DELETE",
        rf"/v2/projects/{_ID}/locations/{_ID}/queuedResources/{_ID}",
        "tpu.queuedResources.delete",
        "https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.queuedResources/delete",
    ),
    Rule(
        "GET",
        rf"/v1/projects/{_ID}/billingInfo",
        # "must have the resourcemanager.projects.get permission for the project"
        "resourcemanager.projects.get",
        "https://cloud.google.com/billing/docs/reference/rest/v1/projects/getBillingInfo",
    ),
    Rule(
        "PUT",
        rf"/v1/projects/{_ID}/billingInfo",
        _update_billing_info,
        "https://cloud.google.com/billing/docs/how-to/billing-access (Project Billing Manager)",
    ),
    Rule(
        "GET",
        rf"/v1/projects/{_ID}/locations/{_ID}/recommenders/"
        r"google\.compute\.instance\.IdleResourceRecommender/recommendations",
        # "Requires the recommender.*.list IAM permission for the specified recommender"
        "recommender.computeInstanceIdleResourceRecommendations.list",
        f"{_RECS}/list",
    ),
    Rule(
        "POST",
        rf"/v1/projects/{_ID}/locations/{_ID}/recommenders/"
        rf"google\.compute\.instance\.IdleResourceRecommender/recommendations/{_ID}"
        r":mark(Claimed|Succeeded|Failed)",
        # "Requires the recommender.*.update IAM permission for the specified recommender"
        "recommender.computeInstanceIdleResourceRecommendations.update",
        f"{_RECS}/markClaimed",
    ),
    # GKE: node pool and cluster writes need container.clusters.update on the cluster (the
    # page lists nodePools.create/delete/update under it; setSize and setAutoscaling are
    # node pool updates), reads container.clusters.list, operations container.operations.get.
    Rule(
        "GET",
        rf"/v1/projects/{_ID}/locations/{_ID}/clusters",
        "container.clusters.list",
        f"{_GKE} (projects.locations.clusters.list)",
    ),
    Rule(
        "PUT",
        rf"/v1/projects/{_ID}/locations/{_ID}/clusters/{_ID}",
        "container.clusters.update",
        f"{_GKE} (projects.locations.clusters.update)",
    ),
    Rule(
        "POST",
        rf"/v1/projects/{_ID}/locations/{_ID}/clusters/{_ID}:setResourceLabels",
        "container.clusters.update",
        f"{_GKE} (projects.locations.clusters.setResourceLabels)",
    ),
    Rule(
        "PUT",
        rf"/v1/projects/{_ID}/locations/{_ID}/clusters/{_ID}/nodePools/{_ID}",
        "container.clusters.update",
        f"{_GKE} (projects.locations.clusters.nodePools.update)",
    ),
    Rule(
        "POST",
        rf"/v1/projects/{_ID}/locations/{_ID}/clusters/{_ID}/nodePools/{_ID}"
        r":(setSize|setAutoscaling)",
        "container.clusters.update",
        f"{_GKE} (projects.locations.clusters.nodePools.setSize, .setAutoscaling)",
    ),
    Rule(
        "GET",
        rf"/v1/projects/{_ID}/locations/{_ID}/operations/{_ID}",
        "container.operations.get",
        f"{_GKE} (projects.locations.operations.get)",
    ),
    Rule(
        "GET",
        rf"/v1/projects/{_ID}/locations/{_ID}/clusters/{_ID}",
        "container.clusters.get",
        f"{_GKE} (projects.locations.clusters.get)",
    ),
    Rule(
        "GET",
        rf"/compute/v1/projects/{_ID}/zones/{_ID}/instanceGroupManagers/{_ID}",
        "compute.instanceGroupManagers.get",
        "https://cloud.google.com/compute/docs/reference/rest/v1/instanceGroupManagers/get",
    ),
    # Vertex AI: "List a customJob", "Cancel a customJob", ... in the permissions table.
    Rule(
        "GET",
        rf"/v1/projects/{_ID}/locations/{_ID}/customJobs",
        "aiplatform.customJobs.list",
        _VERTEX,
    ),
    Rule(
        "POST",
        rf"/v1/projects/{_ID}/locations/{_ID}/customJobs/{_ID}:cancel",
        "aiplatform.customJobs.cancel",
        _VERTEX,
    ),
    Rule(
        "GET",
        rf"/v1/projects/{_ID}/locations/{_ID}/hyperparameterTuningJobs",
        "aiplatform.hyperparameterTuningJobs.list",
        _VERTEX,
    ),
    Rule(
        "POST",
        rf"/v1/projects/{_ID}/locations/{_ID}/hyperparameterTuningJobs/{_ID}:cancel",
        "aiplatform.hyperparameterTuningJobs.cancel",
        _VERTEX,
    ),
    Rule(
        "GET",
        rf"/v1/projects/{_ID}/locations/{_ID}/endpoints",
        "aiplatform.endpoints.list",
        _VERTEX,
    ),
    Rule(
        "POST",
        rf"/v1/projects/{_ID}/locations/{_ID}/endpoints/{_ID}:undeployModel",
        "aiplatform.endpoints.undeploy",
        _VERTEX,
    ),
    Rule(
        "GET",
        rf"/v1/billingAccounts/{_ID}/budgets/{_ID}",
        # A spend cap is a single-project budget: project permissions instead of the account's.
        ("billing.resourcebudgets.read", "resourcemanager.projects.get"),
        "https://cloud.google.com/billing/docs/how-to/budget-api-access-control",
    ),
    Rule(
        "GET",
        rf"/v1/projects/{_ID}/locations/{_ID}/endpoints/{_ID}",
        "aiplatform.endpoints.get",
        _VERTEX,
    ),
    Rule(
        "PATCH",
        rf"/v1/projects/{_ID}/locations/{_ID}/endpoints/{_ID}",
        "aiplatform.endpoints.update",
        _VERTEX,
    ),
    # Waiting for a stop's or an undeploy's long-running operation (projects.locations.
    # operations.get of each API). The fakes name their operations apart (longrunning.py).
    Rule(
        "GET",
        rf"/v2/projects/{_ID}/locations/{_ID}/operations/operation-nb-{_ID}",
        "notebooks.operations.get",
        "https://cloud.google.com/vertex-ai/docs/workbench/reference/rest/v2/"
        "projects.locations.operations/get",
    ),
    Rule(
        "GET",
        rf"/v2/projects/{_ID}/locations/{_ID}/operations/operation-tpu-{_ID}",
        "tpu.operations.get",
        "https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.operations/get",
    ),
    Rule(
        "GET",
        rf"/v1/projects/{_ID}/locations/{_ID}/endpoints/{_ID}/operations/{_ID}",
        "aiplatform.operations.get",
        "https://cloud.google.com/iam/docs/roles-permissions/aiplatform",
    ),
    Rule(
        "GET",
        rf"/v3/projects/{_ID}/timeSeries",
        "monitoring.timeSeries.list",
        "https://cloud.google.com/monitoring/api/ref_v3/rest/v3/projects.timeSeries/list",
    ),
    Rule(
        "GET",
        rf"/v1/(?:folders|organizations|projects)/{_ID}:searchAllResources",
        "cloudasset.assets.searchAllResources",
        "https://cloud.google.com/asset-inventory/docs/reference/rest/v1/TopLevel/searchAllResources",
    ),
    Rule(
        "POST",
        rf"/v1/projects/{_ID}/topics/{_ID}:publish",
        "pubsub.topics.publish",
        "https://cloud.google.com/pubsub/docs/access-control",
    ),
)


class UnknownCall(LookupError):
    """A request no rule covers: add its row (with the source) rather than guess."""


def permission(request: Request) -> str | tuple[str, ...]:
    """The IAM permission(s) Google documents for the REST call `request` made."""
    for rule in RULES:
        if rule.matches(request):
            return rule.of(request)
    raise UnknownCall(f"no IAM rule for {request.method} {request.path}")


def permissions(requests: list[Request]) -> set[str]:
    """The permissions a sequence of calls needed."""
    found: set[str] = set()
    for r in requests:
        needed = permission(r)
        found |= {needed} if isinstance(needed, str) else set(needed)
    return found
