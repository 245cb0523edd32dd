"""mlgov-gke-*: node auto-provisioning limits, GPU-free default pool, cost allocation, a
control plane that is not open to every address outside dev, and Autopilot clusters named as out
of the budget cap's reach.

Cases for mlgov_policies/rules/gke.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, apply, case_id, cfg, check_case, d, s
from policy_fixtures import NODES_SA, PROD_CONFIG

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources

_T4 = [{"type": "nvidia-tesla-t4", "count": 1.0}]
_OPEN = [{"cidrBlock": "203.0.113.0/24"}, {"cidrBlock": "0.0.0.0/0", "displayName": "all"}]
_OFFICE = [{"cidrBlock": "203.0.113.0/24", "displayName": "office"}]
# Two halves of the IPv4 space: every address, though no range is a /0 (issue 30, H3).
_HALVES = [{"cidrBlock": "0.0.0.0/1"}, {"cidrBlock": "128.0.0.0/1"}]
_PRIVATE_WIDE = [{"cidrBlock": "10.0.0.0/8"}]


CASES: tuple[Case, ...] = (
    Case(
        "nap-off",
        "mlgov-gke-autoprovisioning-limits",
        (s("gke", "clusterAutoscaling.enabled", False),),
    ),
    Case("nap-missing", "mlgov-gke-autoprovisioning-limits", (d("gke", "clusterAutoscaling"),)),
    Case(
        "nap-no-accelerator-limit",
        "mlgov-gke-autoprovisioning-limits",
        (
            s(
                "gke",
                "clusterAutoscaling.resourceLimits",
                [
                    {"resourceType": "cpu", "maximum": 64.0},
                    {"resourceType": "memory", "maximum": 256.0},
                ],
            ),
        ),
    ),
    Case(
        "nap-no-memory-limit",
        "mlgov-gke-autoprovisioning-limits",
        (
            s(
                "gke",
                "clusterAutoscaling.resourceLimits",
                [
                    {"resourceType": "cpu", "maximum": 64.0},
                    {"resourceType": "nvidia-l4", "maximum": 2.0},
                ],
            ),
        ),
    ),
    # Autopilot needs no NAP limits of its own, but the budget cap cannot reach it: advisory.
    Case(
        "autopilot",
        "mlgov-gke-autopilot-not-capped",
        (
            d("gke", "clusterAutoscaling"),
            s("gke", "enableAutopilot", True),
            s("gke", "clusterAutoscaling.autoProvisioningDefaults.serviceAccount", NODES_SA),
        ),
    ),
    Case(
        "autopilot-exempt",
        None,
        (
            d("gke", "clusterAutoscaling"),
            s("gke", "enableAutopilot", True),
            s("gke", "clusterAutoscaling.autoProvisioningDefaults.serviceAccount", NODES_SA),
            s("gke", "resourceLabels.mlgov-exempt", "true"),
        ),
    ),
    Case("autopilot-off", None, (s("gke", "enableAutopilot", False),)),
    Case(
        "default-pool-gpu",
        "mlgov-gke-no-gpu-default-pool",
        (
            s("gke", "removeDefaultNodePool", False),
            s(
                "gke",
                "nodeConfig",
                {
                    "machineType": "n1-standard-4",
                    "guestAccelerators": _T4,
                    "serviceAccount": NODES_SA,
                },
            ),
        ),
    ),
    Case(
        "default-pool-cpu",
        None,
        (
            s("gke", "removeDefaultNodePool", False),
            s("gke", "nodeConfig", {"machineType": "e2-standard-4", "serviceAccount": NODES_SA}),
        ),
    ),
    Case(
        "cost-allocation-off",
        "mlgov-gke-cost-allocation",
        (s("gke", "costManagementConfig.enabled", False),),
    ),
    Case(
        "public-endpoint-open",
        "mlgov-gke-control-plane-private",
        (s("gke", "privateClusterConfig.enablePrivateEndpoint", False),),
    ),
    Case(
        "public-cluster-no-private-config",
        "mlgov-gke-control-plane-private",
        (d("gke", "privateClusterConfig"),),
    ),
    Case(
        "public-endpoint-open-to-all",
        "mlgov-gke-control-plane-private",
        (
            s("gke", "privateClusterConfig.enablePrivateEndpoint", False),
            s("gke", "masterAuthorizedNetworksConfig", {"cidrBlocks": _OPEN}),
        ),
    ),
    Case(
        "public-endpoint-open-by-halves",
        "mlgov-gke-control-plane-private",
        (
            s("gke", "privateClusterConfig.enablePrivateEndpoint", False),
            s("gke", "masterAuthorizedNetworksConfig", {"cidrBlocks": _HALVES}),
        ),
    ),
    Case(
        "public-endpoint-a-slash-8",
        None,
        (
            s("gke", "privateClusterConfig.enablePrivateEndpoint", False),
            s("gke", "masterAuthorizedNetworksConfig", {"cidrBlocks": _PRIVATE_WIDE}),
        ),
    ),
    Case(
        "public-endpoint-gce-public-ips",
        "mlgov-gke-control-plane-private",
        (
            s("gke", "privateClusterConfig.enablePrivateEndpoint", False),
            s("gke", "masterAuthorizedNetworksConfig", {"gcpPublicCidrsAccessEnabled": True}),
        ),
    ),
    Case(
        "public-endpoint-authorized",
        None,
        (
            s("gke", "privateClusterConfig.enablePrivateEndpoint", False),
            s("gke", "masterAuthorizedNetworksConfig", {"cidrBlocks": _OFFICE}),
        ),
    ),
    Case(
        "public-endpoint-no-cidrs-listed",
        None,
        (
            s("gke", "privateClusterConfig.enablePrivateEndpoint", False),
            s("gke", "masterAuthorizedNetworksConfig", {}),
        ),
    ),
    Case(
        "ip-endpoints-off",
        None,
        (
            d("gke", "privateClusterConfig"),
            s("gke", "controlPlaneEndpointsConfig.ipEndpointsConfig", {"enabled": False}),
        ),
    ),
    Case(
        "public-endpoint-in-dev",
        None,
        (s("gke", "privateClusterConfig.enablePrivateEndpoint", False),),
        config=cfg(environment="dev"),
    ),
    Case(
        "public-endpoint-in-staging",
        "mlgov-gke-control-plane-private",
        (s("gke", "privateClusterConfig.enablePrivateEndpoint", False),),
        config=cfg(environment="staging"),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


def test_control_plane_messages_name_the_open_setting() -> None:
    stack = apply(
        (
            s("gke", "privateClusterConfig.enablePrivateEndpoint", False),
            s("gke", "masterAuthorizedNetworksConfig", {"cidrBlocks": _OPEN}),
        )
    )
    (violation,) = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert violation.policy == "mlgov-gke-control-plane-private"
    assert violation.message == (
        "masterAuthorizedNetworksConfig.cidrBlocks[1].cidrBlock is '0.0.0.0/0': it authorizes "
        "every address"
    )
    stack = apply((s("gke", "privateClusterConfig.enablePrivateEndpoint", False),))
    (violation,) = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert "reachable from any address in prod" in violation.message
    stack = apply(
        (
            s("gke", "privateClusterConfig.enablePrivateEndpoint", False),
            s("gke", "masterAuthorizedNetworksConfig", {"cidrBlocks": _HALVES}),
        )
    )
    found = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert [v.message for v in found] == [
        f"masterAuthorizedNetworksConfig.cidrBlocks[{i}].cidrBlock is '{c}': a public range "
        "wider than a /8: it authorizes 0.5 of every IPv4 address"
        for i, c in enumerate(("0.0.0.0/1", "128.0.0.0/1"))
    ]


def test_the_autopilot_finding_says_what_the_cap_leaves_running() -> None:
    stack = apply(
        (
            d("gke", "clusterAutoscaling"),
            s("gke", "enableAutopilot", True),
            s("gke", "clusterAutoscaling.autoProvisioningDefaults.serviceAccount", NODES_SA),
        )
    )
    (violation,) = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert (violation.policy, violation.enforcement) == (
        "mlgov-gke-autopilot-not-capped",
        "advisory",
    )
    assert "cannot scale it down" in violation.message
    assert "not_capped" in violation.message
