"""mlgov-gke-*: node auto-provisioning limits, GPU-free default pool, cost allocation.

Cases for mlgov_policies/rules/gke.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, check_case, d, s

_T4 = [{"type": "nvidia-tesla-t4", "count": 1.0}]


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
    Case("autopilot", None, (d("gke", "clusterAutoscaling"), s("gke", "enableAutopilot", True))),
    Case(
        "default-pool-gpu",
        "mlgov-gke-no-gpu-default-pool",
        (
            s("gke", "removeDefaultNodePool", False),
            s("gke", "nodeConfig", {"machineType": "n1-standard-4", "guestAccelerators": _T4}),
        ),
    ),
    Case(
        "default-pool-cpu",
        None,
        (
            s("gke", "removeDefaultNodePool", False),
            s("gke", "nodeConfig", {"machineType": "e2-standard-4"}),
        ),
    ),
    Case(
        "cost-allocation-off",
        "mlgov-gke-cost-allocation",
        (s("gke", "costManagementConfig.enabled", False),),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
