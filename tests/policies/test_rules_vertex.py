"""mlgov-vertex-*: bounded replicas, small outside prod, serving accelerators from an allow-list.

Cases for mlgov_policies/rules/vertex.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case). Field names follow
aiplatform.v1 (DedicatedResources, MachineSpec) as pulumi-gcp spells the inputs.
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, cfg, check_case, d, s

BOUNDS = "mlgov-vertex-autoscaling-bounds"
MIN = "mlgov-vertex-min-replicas"
GPU = "mlgov-vertex-serving-accelerators"
GARDEN = "deployConfig.dedicatedResources"
DEV = cfg(environment="dev")

CASES: tuple[Case, ...] = (
    Case("garden-no-max", BOUNDS, (d("gemma", f"{GARDEN}.maxReplicaCount"),)),
    Case("garden-max-below-min", BOUNDS, (s("gemma", f"{GARDEN}.minReplicaCount", 4.0),)),
    Case("pool-no-max", BOUNDS, (d("pool", "dedicatedResources.maxReplicaCount"),)),
    Case("index-no-max", BOUNDS, (d("deployed-index", "dedicatedResources.maxReplicaCount"),)),
    Case(
        "index-automatic-no-max",
        BOUNDS,
        (
            d("deployed-index", "dedicatedResources"),
            s("deployed-index", "automaticResources", {"minReplicaCount": 1.0}),
        ),
    ),
    Case(
        "persistent-fixed-size",
        BOUNDS,
        (s("train-cluster", "resourcePools", [{"machineSpec": {}, "replicaCount": 2.0}]),),
    ),
    Case(
        "online-store-max-below-min",
        BOUNDS,
        (s("online-store", "bigtable.autoScaling.maxNodeCount", 0.0),),
    ),
    Case("prod-may-keep-three", None, (s("pool", "dedicatedResources.minReplicaCount", 2.0),)),
    Case("dev-min-one", None, (), DEV, resource="pool"),
    Case("dev-garden-min-two", MIN, (s("gemma", f"{GARDEN}.minReplicaCount", 2.0),), DEV),
    Case("dev-pool-min-two", MIN, (s("pool", "dedicatedResources.minReplicaCount", 2.0),), DEV),
    Case(
        "dev-persistent-min-two",
        MIN,
        (
            s(
                "train-cluster",
                "resourcePools",
                [
                    {
                        "machineSpec": {"machineType": "n1-standard-4"},
                        "replicaCount": 2.0,
                        "autoscalingSpec": {"minReplicaCount": 2.0, "maxReplicaCount": 4.0},
                    }
                ],
            ),
        ),
        DEV,
    ),
    Case(
        "dev-online-store-min-two",
        MIN,
        (s("online-store", "bigtable.autoScaling.minNodeCount", 2.0),),
        DEV,
    ),
    Case(
        "garden-gpu-allowed",
        None,
        (s("gemma", f"{GARDEN}.machineSpec.acceleratorType", "NVIDIA_L4"),),
    ),
    Case(
        "garden-gpu-not-allowed",
        GPU,
        (s("gemma", f"{GARDEN}.machineSpec.acceleratorType", "NVIDIA_H100_80GB"),),
    ),
    Case(
        "pool-gpu-none-allowed",
        GPU,
        (s("pool", "dedicatedResources.machineSpec.acceleratorType", "NVIDIA_TESLA_T4"),),
        cfg(vertex_serving_gpu_types=[]),
    ),
    Case(
        "garden-unspecified-accelerator",
        None,
        (s("gemma", f"{GARDEN}.machineSpec.acceleratorType", "ACCELERATOR_TYPE_UNSPECIFIED"),),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
