"""GKE cluster rules: NAP limits, no GPU default pool, cost allocation, a private control plane.

Also names Autopilot clusters as out of the budget cap's reach (functions/govern/cap.py).
Covers `gcp:container/cluster:Cluster`. Node pools' spot and scale-to-zero rules live in
training.py, which also says what counts as an accelerator.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_bool, as_list, as_number, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule
from mlgov_policies.rules.training import has_accelerators

_CLUSTER = frozenset({v.GKE_CLUSTER})


def autoprovisioning_limits(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Clusters use node auto-provisioning with CPU, memory and accelerator limits."""
    del type_, config
    if as_bool(dig(props, "enableAutopilot")) is True:
        return  # Autopilot has no node auto-provisioning settings of its own
    autoscaling = dig(props, "clusterAutoscaling")
    if is_unknown(autoscaling):
        return
    enabled = dig(autoscaling, "enabled")
    if is_unknown(enabled):
        return
    if as_bool(enabled) is not True:
        yield "clusterAutoscaling.enabled is not true: node auto-provisioning is off"
        return
    limits: dict[str, object] = {}
    for limit in as_list(dig(autoscaling, "resourceLimits")):
        kind = as_str(dig(limit, "resourceType"))
        if kind:
            limits[kind.lower()] = dig(limit, "maximum")
    for kind in ("cpu", "memory"):
        if kind not in limits:
            yield f"clusterAutoscaling.resourceLimits has no '{kind}' limit"
    if not any(kind.startswith(("nvidia-", "tpu-")) for kind in limits):
        yield "clusterAutoscaling.resourceLimits has no accelerator limit (nvidia-*/tpu-*)"
    for kind, maximum in limits.items():
        number = as_number(maximum)
        if not is_unknown(maximum) and (number is None or number <= 0):
            yield f"clusterAutoscaling limit '{kind}' has no positive maximum (got {maximum!r})"


AUTOPROVISIONING_LIMITS = ResourceRule(
    name="mlgov-gke-autoprovisioning-limits",
    check=autoprovisioning_limits,
    types=_CLUSTER,
    enforcement="mandatory",
    why="Node auto-provisioning creates right-sized pools on demand; its CPU, memory and "
    "accelerator limits are the cluster's spending ceiling.",
    remediation="Set clusterAutoscaling.enabled = true with resourceLimits for cpu, memory "
    "and each accelerator type (nvidia-*/tpu-*), each with a maximum.",
)


def default_pool_no_gpu(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """The always-on default node pool has no GPUs (or is removed)."""
    del type_, config
    remove = dig(props, "removeDefaultNodePool")
    if is_unknown(remove) or as_bool(remove) is True:
        return
    if has_accelerators(
        dig(props, "nodeConfig", "guestAccelerators"), dig(props, "nodeConfig", "machineType")
    ):
        yield (
            "the default node pool has GPUs/TPUs: set removeDefaultNodePool=true and use a "
            "spot pool that scales from 0"
        )


NO_GPU_DEFAULT_POOL = ResourceRule(
    name="mlgov-gke-no-gpu-default-pool",
    check=default_pool_no_gpu,
    types=_CLUSTER,
    enforcement="mandatory",
    why="The default pool is on-demand and never scales to zero; GPUs there bill around the clock.",
    remediation="Set removeDefaultNodePool = true and put GPUs in a separate spot node pool.",
)


def cost_allocation(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Clusters enable GKE cost allocation so spend splits by namespace and label."""
    del type_, config
    enabled = dig(props, "costManagementConfig", "enabled")
    if not is_unknown(enabled) and as_bool(enabled) is not True:
        yield "costManagementConfig.enabled is not true: GKE spend cannot be attributed"


COST_ALLOCATION = ResourceRule(
    name="mlgov-gke-cost-allocation",
    check=cost_allocation,
    types=_CLUSTER,
    enforcement="advisory",
    why="Without GKE cost allocation, the cluster bill cannot be split by namespace or "
    "workload label.",
    remediation="Set costManagementConfig.enabled = true.",
)


_NETWORKS = "masterAuthorizedNetworksConfig"


WIDEST_PREFIX = 8
"""The widest public range an authorized network may be outside dev: a /8 (1/256 of IPv4).

Wider ranges open a large share of the internet at once: `0.0.0.0/1` and `128.0.0.0/1`
together open every IPv4 address, as `0.0.0.0/0` does (the governance diff judges the whole
list by the share it opens, governance/review/govdiff/networks.py)."""


def _too_wide(cidr: str) -> str | None:
    """Why a CIDR block opens too much (a public range wider than a /8), or None."""
    try:
        network = ipaddress.ip_network(cidr.strip(), strict=False)
    except ValueError:
        return None  # not a range: GKE refuses it (acceptance rules), this rule does not guess
    if network.prefixlen == 0:
        return "it authorizes every address"
    # IPv6 prefixes are counted in IPv4 terms: a /8 of either is 1/256 of its space.
    if network.prefixlen < WIDEST_PREFIX and not network.is_private:
        share = network.num_addresses / (2**network.max_prefixlen)
        return (
            f"a public range wider than a /{WIDEST_PREFIX}: it authorizes {share:.4g} of every "
            f"IPv{network.version} address"
        )
    return None


def control_plane_private(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Outside dev, the control plane's public IP endpoint is off or limited to narrow networks."""
    del type_
    if config.environment == "dev":
        return
    ip_enabled = dig(props, "controlPlaneEndpointsConfig", "ipEndpointsConfig", "enabled")
    if is_unknown(ip_enabled) or as_bool(ip_enabled) is False:
        return  # no IP endpoints at all: only the (IAM-gated) DNS endpoint
    private = dig(props, "privateClusterConfig", "enablePrivateEndpoint")
    if is_unknown(private) or as_bool(private) is True:
        return  # the public IP endpoint is off
    networks = dig(props, _NETWORKS)
    if is_unknown(networks):
        return
    if not isinstance(networks, Mapping):
        yield (
            "the public endpoint is on (privateClusterConfig.enablePrivateEndpoint is not true) "
            "with no masterAuthorizedNetworksConfig: the Kubernetes API is reachable from any "
            f"address in {config.environment}"
        )
        return
    if as_bool(dig(props, _NETWORKS, "gcpPublicCidrsAccessEnabled")) is True:
        yield (
            "masterAuthorizedNetworksConfig.gcpPublicCidrsAccessEnabled is true: every Compute "
            "Engine public IP may reach the public endpoint"
        )
    for index, block in enumerate(as_list(dig(props, _NETWORKS, "cidrBlocks"))):
        cidr = as_str(dig(block, "cidrBlock"))
        if cidr is not None and (why := _too_wide(cidr)) is not None:
            yield f"masterAuthorizedNetworksConfig.cidrBlocks[{index}].cidrBlock is {cidr!r}: {why}"


CONTROL_PLANE_PRIVATE = ResourceRule(
    name="mlgov-gke-control-plane-private",
    check=control_plane_private,
    types=_CLUSTER,
    enforcement="mandatory",
    config_keys=("environment",),
    why="A Kubernetes API open to every address is one leaked credential or API-server flaw away "
    "from someone else running GPUs on your bill; Google recommends reaching the control plane "
    "through the IAM-gated DNS endpoint only.",
    remediation="Set privateClusterConfig.enablePrivateEndpoint = true and reach the API "
    "through the DNS endpoint (controlPlaneEndpointsConfig.dnsEndpointConfig.allowExternalTraffic "
    "= true), or list masterAuthorizedNetworksConfig.cidrBlocks (settings: gke.control_plane).",
)


def autopilot_not_capped(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Autopilot clusters are named as out of the budget cap's reach (unless exempt)."""
    del type_, config
    if as_bool(dig(props, "enableAutopilot")) is not True:
        return
    if as_str(dig(props, "resourceLabels", v.EXEMPT_LABEL)) == v.EXEMPT_VALUE:
        return  # left out of the cap on purpose
    yield (
        "Autopilot cluster: at the budget cap mlgov cannot scale it down (GKE provisions its "
        "nodes; there are no node pools or node auto-provisioning limits to set), so its "
        "workloads keep running and billing; the cap only names it in its report's not_capped"
    )


AUTOPILOT_NOT_CAPPED = ResourceRule(
    name="mlgov-gke-autopilot-not-capped",
    check=autopilot_not_capped,
    types=_CLUSTER,
    enforcement="advisory",
    why="The budget cap stops GKE spend by closing node auto-provisioning's accelerator limits "
    "and scaling GPU/TPU node pools to zero; an Autopilot cluster has neither, so a budget "
    "alert leaves its pods, and their bill, running.",
    remediation="Run capped workloads on a Standard cluster with node auto-provisioning "
    'limits, or label the Autopilot cluster mlgov-exempt: "true" to record that the cap is '
    "not meant to stop it (and bound its spend another way, e.g. namespace resource quotas).",
)
