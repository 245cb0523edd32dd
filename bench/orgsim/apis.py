"""Which API method a request is, what kind of call it is, and which quota it counts against.

A request the fake cloud recorded (HTTP method + path, on the server of one service) is named by
the method of Google's discovery document that matches it (the documents ship with
google-api-python-client, a dev dependency), e.g. `compute.instances.stop`. Its class:

- `poll`: an operations `get` (Compute zoneOperations.get, GKE/TPU/Workbench operations.get): the
  confirmation of a write that started a long-running operation;
- `read`: any other GET;
- `write`: everything else (stops, resizes, label writes, marks, billing updates, publishes).

`QUOTAS` holds the limits the simulation enforces, each with its source: the organization-level
ones (Cloud Billing, Asset Inventory, Recommender), the per-project ones, and the functions' own
per-project rate limiter. Standard library only.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

CallClass = Literal["read", "write", "poll"]
Scope = Literal["organization", "project", "project-region", "cluster", "item"]

DOCUMENTS: Final = {
    "compute": "compute.v1.json",
    "container": "container.v1.json",
    "aiplatform": "aiplatform.v1.json",
    "tpu": "tpu.v2.json",
    "notebooks": "notebooks.v2.json",
    "recommender": "recommender.v1.json",
    "cloudbilling": "cloudbilling.v1.json",
    "monitoring": "monitoring.v3.json",
    "cloudasset": "cloudasset.v1.json",
    "pubsub": "pubsub.v1.json",
}
"""MLGOV_API_ENDPOINTS service key -> its discovery document."""

STOPS: Final = frozenset(
    {
        "compute.instances.stop",
        "tpu.projects.locations.nodes.stop",
        "notebooks.projects.locations.instances.stop",
        "container.projects.locations.clusters.nodePools.setSize",
        "aiplatform.projects.locations.customJobs.cancel",
        "aiplatform.projects.locations.hyperparameterTuningJobs.cancel",
        "aiplatform.projects.locations.endpoints.undeployModel",
    }
)
"""The writes that stop something that bills (a VM, a TPU VM, a pool's nodes, a job)."""

UNLINKS: Final = frozenset({"cloudbilling.projects.updateBillingInfo"})


@dataclass(frozen=True)
class Quota:
    """A limit a run must respect: `limit` calls per `per` seconds (or at once) in a `scope`."""

    name: str
    scope: Scope
    limit: float
    per: float | None
    """Seconds of the window; None: a concurrency limit (at most `limit` at once)."""
    source: str


MINUTE: Final = 60.0
QUOTAS: Final = {
    # Organization-level quotas: every project's calls count against one limit.
    "cloudbilling": Quota(
        "Cloud Billing API calls",
        "organization",
        975,
        MINUTE,
        "Cloud Billing API quota page as quoted in issue 29: 975 calls a minute per "
        "organization (so unlinking 10,000 projects takes at least 10.3 min)",
    ),
    "cloudasset": Quota(
        "Asset Inventory searchAllResources",
        "organization",
        1500,
        MINUTE,
        "Cloud Asset Inventory quota page as quoted in issue 29: searchAllResources 1,500 a "
        "minute per organization (400 per calling project)",
    ),
    "recommender": Quota(
        "Recommender reads",
        "organization",
        6000,
        MINUTE,
        "https://cloud.google.com/recommender/quotas: per organization, 6,000 reads a minute "
        "and 1,000,000 a day with a support package; on the free tier 100 a minute and 100 a "
        "DAY (see RECOMMENDER_FREE_READS_PER_DAY)",
    ),
    "recommender-write": Quota(
        "Recommender writes (markClaimed, markSucceeded, markFailed)",
        "organization",
        3000,
        MINUTE,
        "https://cloud.google.com/recommender/quotas: per organization, 3,000 writes a minute "
        "and 100,000 a DAY with a support package (RECOMMENDER_WRITES_PER_DAY); free tier 100",
    ),
    # Per-project quotas.
    "container": Quota(
        "GKE API requests",
        "project",
        3000,
        MINUTE,
        "https://cloud.google.com/kubernetes-engine/quotas (Limit for API requests): 3,000 a "
        "minute per project, enforced per 100 s",
    ),
    "container-operations": Quota(
        "GKE concurrent operations per cluster",
        "cluster",
        1,
        None,
        "https://cloud.google.com/kubernetes-engine/docs/troubleshooting/concurrent-operations: "
        "generally one cluster-level operation at a time, or one operation per node pool (the "
        "pools of a cluster in parallel); no documented limit of 5 was found (issue 29's "
        "figure). The functions keep to it by their order (functions/govern/actions/gke.py)",
    ),
    "aiplatform-lro": Quota(
        "Vertex AI long-running operations",
        "project-region",
        60,
        MINUTE,
        "Vertex AI quota as quoted in issue 29: 60 long-running operations a minute per "
        "project and region",
    ),
    "compute": Quota(
        "Compute Engine API requests per quota group",
        "project",
        1500,
        MINUTE,
        "https://cloud.google.com/compute/api-quota: 1,500 a minute per project for each "
        "quota group (reads, lists, mutations), as bench/RESULTS.md records",
    ),
    # The functions' own limit, per project and process (one work item = one project).
    "functions-rate-limiter": Quota(
        "mlgov per-project rate limiter",
        "item",
        10,
        1.0,
        "functions/govern/execute.py RateLimiter: max_requests_per_second_per_project "
        "(default 10, functions/govern/models.py), a bucket of BURST_SECONDS = 2 s",
    ),
}
RECOMMENDER_FREE_READS_PER_DAY: Final = 100
RECOMMENDER_WRITES_PER_DAY: Final = 100_000
ORGANIZATION_SERVICES: Final = frozenset(k for k, q in QUOTAS.items() if q.scope == "organization")
"""The organization-level quotas (named by service; Recommender's writes apart)."""


def org_quota(service: str, call_class: str) -> str | None:
    """The organization-level quota a call counts against (None: a per-project one)."""
    if service == "recommender" and call_class == "write":
        return "recommender-write"
    return service if service in ORGANIZATION_SERVICES else None


PUBLISH_BATCH: Final = 1000
"""Pub/Sub v1 publish: at most 1,000 messages a request (functions/govern/workitems.py)."""
ASSET_PAGE: Final = 500
"""Asset Inventory searchAllResources: pageSize 500, the largest it allows (issue 29's
contract: `pageSize=500`)."""


@dataclass(frozen=True)
class Method:
    """One method of a discovery document and the request paths it matches."""

    id: str
    http_method: str
    pattern: re.Pattern[str]
    literal: int
    """Characters of the path template outside {...}: the more, the more specific."""

    @property
    def call_class(self) -> CallClass:
        """poll (an operations get), read (other GETs) or write."""
        if re.search(r"(?i)operations\.get$", self.id):
            return "poll"
        return "read" if self.http_method == "GET" else "write"


def _template(path: str) -> tuple[re.Pattern[str], int]:
    parts = re.split(r"(\{\+?[^}]+\})", path)
    regex, literal = "", 0
    for part in parts:
        if part.startswith("{+"):
            regex += r".+"
        elif part.startswith("{"):
            regex += r"[^/]+"
        else:
            regex += re.escape(part)
            literal += len(part)
    return re.compile(regex), literal


def _walk(resource: dict[str, object]) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    methods = resource.get("methods")
    if isinstance(methods, dict):
        found += [m for m in methods.values() if isinstance(m, dict)]  # pyright: ignore[reportUnknownVariableType]
    resources = resource.get("resources")
    if isinstance(resources, dict):
        for child in resources.values():  # pyright: ignore[reportUnknownVariableType]
            if isinstance(child, dict):
                found += _walk(child)  # pyright: ignore[reportUnknownArgumentType]
    return found


def documents_dir() -> Path:
    """Where google-api-python-client keeps its discovery documents."""
    import googleapiclient  # dev dependency: only the documents are used

    return Path(googleapiclient.__file__).parent / "discovery_cache" / "documents"


@functools.cache
def methods(service: str) -> tuple[Method, ...]:
    """Every method of `service`'s discovery document, most specific path first."""
    doc = json.loads((documents_dir() / DOCUMENTS[service]).read_text())
    root = "/" + str(doc.get("servicePath", ""))
    found: list[Method] = []
    for m in _walk(doc):
        for key in ("flatPath", "path"):
            path = m.get(key)
            if isinstance(path, str):
                pattern, literal = _template(root + path)
                found.append(Method(str(m["id"]), str(m["httpMethod"]), pattern, literal))
    found.sort(key=lambda m: -m.literal)
    return tuple(found)


class UnknownCall(ValueError):
    """A request no method of the service's discovery document matches."""


def identify(service: str, http_method: str, path: str) -> Method:
    """The discovery-document method a request to `service` is.

    Raises:
        UnknownCall: no method matches (the fake answered a path Google does not have).
    """
    for m in methods(service):
        if m.http_method == http_method and m.pattern.fullmatch(path):
            return m
    raise UnknownCall(f"{service}: no discovery-document method for {http_method} {path}")


def role(method_id: str) -> str:
    """'stop', 'unlink' or '' for what a write does to spend."""
    if method_id in STOPS:
        return "stop"
    return "unlink" if method_id in UNLINKS else ""


def identify_id(service: str, method_id: str) -> Method:
    """The method of `service` whose discovery-document id is `method_id`.

    Raises:
        UnknownCall: the document has no such method.
    """
    for m in methods(service):
        if m.id == method_id:
            return m
    raise UnknownCall(f"{service}: no method {method_id}")
