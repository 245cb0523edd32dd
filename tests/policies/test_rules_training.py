"""mlgov-training-*: spot capacity, scale-from-zero and run-time caps for GPU/TPU capacity.

Cases for mlgov_policies/rules/training.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, check_case, d, s
from policy_fixtures import NODES_SA, labels

CASES: tuple[Case, ...] = (
    Case("pool-on-demand", "mlgov-training-spot", (s("gpu-pool", "nodeConfig.spot", False),)),
    Case(
        "pool-preemptible",
        None,
        (d("gpu-pool", "nodeConfig.spot"), s("gpu-pool", "nodeConfig.preemptible", True)),
    ),
    Case("system-pool-on-demand", None, (s("system-pool", "nodeConfig.spot", False),)),
    Case(
        "tpu-pool-on-demand",
        "mlgov-training-spot",
        (
            s(
                "gpu-pool",
                "nodeConfig",
                {
                    "machineType": "ct5lp-hightpu-4t",
                    "resourceLabels": labels("training"),
                    "serviceAccount": NODES_SA,
                },
            ),
            # The fixture pool's us-central1-b offers no TPU v5e (TPU regions and zones).
            s("gpu-pool", "nodeLocations", ["us-central1-a"]),
        ),
    ),
    Case("tpu-vm-on-demand", "mlgov-training-spot", (s("tpu", "schedulingConfig", {}),)),
    Case("tpu-vm-preemptible", None, (s("tpu", "schedulingConfig", {"preemptible": True}),)),
    Case(
        "gpu-vm-standard",
        "mlgov-training-spot",
        (
            s("gpu-vm", "scheduling.provisioningModel", "STANDARD"),
            s("gpu-vm", "scheduling.preemptible", False),
        ),
    ),
    Case(
        "gpu-vm-builtin-gpu",
        "mlgov-training-spot",
        (
            d("gpu-vm", "guestAccelerators"),
            s("gpu-vm", "scheduling.provisioningModel", "STANDARD"),
            d("gpu-vm", "scheduling.preemptible"),
        ),
    ),
    Case(
        "cpu-vm-on-demand",
        None,
        (
            s("gpu-vm", "machineType", "e2-standard-4"),
            d("gpu-vm", "guestAccelerators"),
            s("gpu-vm", "scheduling", {}),
        ),
    ),
    Case(
        "pool-min-one",
        "mlgov-training-scale-from-zero",
        (s("gpu-pool", "autoscaling.totalMinNodeCount", 1.0),),
    ),
    Case(
        "pool-zonal-min-one",
        "mlgov-training-scale-from-zero",
        (s("gpu-pool", "autoscaling", {"minNodeCount": 1.0, "maxNodeCount": 2.0}),),
    ),
    Case("pool-no-autoscaling", "mlgov-training-scale-from-zero", (d("gpu-pool", "autoscaling"),)),
    Case(
        "pool-initial-nodes",
        "mlgov-training-scale-from-zero",
        (s("gpu-pool", "initialNodeCount", 2.0),),
    ),
    Case(
        "gpu-vm-no-max-run",
        "mlgov-training-max-run-duration",
        (d("gpu-vm", "scheduling.maxRunDuration"),),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
