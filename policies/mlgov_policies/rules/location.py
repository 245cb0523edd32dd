"""Location rule: every regional or zonal resource sits in the stack's one region.

LOCATION_FIELDS says which inputs hold a region or zone per type; a new regional type is one
entry there. BigQuery datasets may also use the configured multi-regions. The region comes from
PolicyConfig; without one, a resource of another team's program (read from a Pulumi file) is
judged against the region its own provider or the stack config gives it (`own_region`), and
other resources against the one region they all agree on, if any.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_list, as_str, dig
from mlgov_policies.rule import StackResource, StackRule

# Region and zone names: https://cloud.google.com/compute/docs/regions-zones ("us-central1",
# zone = region + "-" + letter, "us-central1-a").
_REGION = re.compile(r"[a-z]+-[a-z]+\d+")
_ZONE = re.compile(r"([a-z]+-[a-z]+\d+)-[a-z]")

# Fields holding a region or zone, per type. List fields are expanded item by item.
LOCATION_FIELDS: Mapping[str, tuple[str, ...]] = {
    v.WORKBENCH_INSTANCE: ("location",),
    v.GKE_CLUSTER: ("location", "nodeLocations"),
    v.GKE_NODE_POOL: ("location", "nodeLocations"),
    v.TPU_VM: ("zone",),
    v.COMPUTE_INSTANCE: ("zone",),
    v.COMPUTE_DISK: ("zone",),
    v.COMPUTE_SUBNETWORK: ("region",),
    v.COMPUTE_ROUTER: ("region",),
    v.COMPUTE_ROUTER_NAT: ("region",),
    v.COMPUTE_RESOURCE_POLICY: ("region",),
    v.COMPUTE_ADDRESS: ("region",),
    v.SQL_INSTANCE: ("region",),
    v.BQ_DATASET: ("location",),
    v.STORAGE_BUCKET: ("location",),
    v.FUNCTION_V2: ("location", "eventTrigger.triggerRegion"),
    v.SCHEDULER_JOB: ("region",),
    v.CLOUD_RUN_SERVICE: ("location",),
    v.ARTIFACT_REPOSITORY: ("location",),
    v.VERTEX_ENDPOINT: ("location",),
    v.VERTEX_MODEL_GARDEN_ENDPOINT: ("location",),
    v.VERTEX_DEPLOYMENT_POOL: ("region",),
    v.VERTEX_INDEX_ENDPOINT: ("region",),
    v.VERTEX_DEPLOYED_INDEX: ("region",),
    v.VERTEX_PERSISTENT_RESOURCE: ("location",),
    v.VERTEX_FEATURE_ONLINE_STORE: ("region",),
    v.VERTEX_TENSORBOARD: ("region",),
    v.VERTEX_METADATA_STORE: ("region",),
}


def _region_of(location: str) -> str | None:
    lowered = location.lower()
    if _REGION.fullmatch(lowered):
        return lowered
    zone = _ZONE.fullmatch(lowered)
    return zone.group(1) if zone else None


def _locations(resource: StackResource) -> Iterator[tuple[str, str]]:
    for field in LOCATION_FIELDS.get(resource.type, ()):
        value = dig(resource.props, *field.split("."))
        values = as_list(value) or [value]
        for item in values:
            text = as_str(item)
            if text:
                yield field, text


def _stack_region(resources: Sequence[StackResource]) -> str | None:
    """The one region all regional resources agree on, or None when there are zero or several."""
    regions: set[str] = set()
    for resource in resources:
        for _field, location in _locations(resource):
            region = _region_of(location)
            if region is not None:
                regions.add(region)
    return regions.pop() if len(regions) == 1 else None


def _reference(
    resource: StackResource, stack: str | None, inferred: str | None
) -> tuple[str, str] | None:
    """(region, how a finding names it) the resource is judged against, or None (nothing)."""
    if stack is not None:
        return stack, f"the stack region '{stack}'"
    if resource.own_region is not None:
        region, where = resource.own_region
        region = region.lower()
        return region, f"'{region}', the region its own provider gives it ({where})"
    if inferred is not None:
        return inferred, f"the stack region '{inferred}' (the one region its resources share)"
    return None


def in_region(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int | None, str]]:
    """Every regional or zonal resource is in the stack's region (BigQuery: allowed locations).

    The stack's region is the configured one. Without one, a resource read from another team's
    Pulumi file is judged against the region its own provider (or the stack config) gives it,
    which its finding names; any other against the one region all resources share, if they do.
    """
    stack = config.region.lower() if config.region else None
    inferred = None if stack is not None else _stack_region(resources)
    for index, resource in enumerate(resources):
        reference = _reference(resource, stack, inferred)
        if reference is None:
            continue  # nothing to compare with
        region, named = reference
        bigquery = config.bigquery_locations(region)
        for field, location in _locations(resource):
            if resource.type == v.BQ_DATASET:
                if location.lower() not in bigquery:
                    yield (
                        index,
                        (
                            f"{field} '{location}' is not an allowed BigQuery location "
                            f"{sorted(bigquery)}"
                        ),
                    )
            elif _region_of(location) != region:
                yield index, f"{field} '{location}' is outside {named}"


IN_REGION = StackRule(
    name="mlgov-location-in-region",
    check=in_region,
    types=frozenset(LOCATION_FIELDS),
    enforcement="mandatory",
    config_keys=("region", "allowed_bigquery_locations"),
    why="Cross-region traffic is billed, quotas and prices differ per region, and the "
    "automation only watches the stack's zones.",
    remediation="Put the resource in the stack's region (zones <region>-a/b/...), or, in "
    "another team's program, in its provider's region (or give it a provider of its own "
    "region); BigQuery may also use the configured allowed_bigquery_locations.",
)
