"""mlgov-workbench-*: idle shutdown, guest attributes, public IP, machine and GPU allow-lists, root.

Cases for mlgov_policies/rules/workbench.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, apply, case_id, cfg, check_case, d, s
from policy_fixtures import PROD_CONFIG

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources

CASES: tuple[Case, ...] = (
    Case(
        "idle-missing",
        "mlgov-workbench-idle-shutdown",
        (d("nb-alice", "gceSetup.metadata.idle-timeout-seconds"),),
    ),
    Case(
        "idle-too-long",
        "mlgov-workbench-idle-shutdown",
        (s("nb-alice", "gceSetup.metadata.idle-timeout-seconds", "86400"),),
    ),
    Case(
        "idle-garbage",
        "mlgov-workbench-idle-shutdown",
        (s("nb-alice", "gceSetup.metadata.idle-timeout-seconds", "soon"),),
    ),
    Case("idle-at-limit", None, (s("nb-alice", "gceSetup.metadata.idle-timeout-seconds", "7200"),)),
    Case("idle-number", None, (s("nb-alice", "gceSetup.metadata.idle-timeout-seconds", 3600.0),)),
    Case(
        "guest-attributes-off",
        "mlgov-workbench-guest-attributes",
        (s("nb-alice", "gceSetup.metadata.enable-guest-attributes", "FALSE"),),
    ),
    Case(
        "guest-attributes-missing",
        "mlgov-workbench-guest-attributes",
        (d("nb-alice", "gceSetup.metadata.enable-guest-attributes"),),
    ),
    Case(
        "notebook-public-ip",
        "mlgov-workbench-no-public-ip",
        (s("nb-alice", "gceSetup.disablePublicIp", False),),
    ),
    Case(
        "notebook-public-ip-default",
        "mlgov-workbench-no-public-ip",
        (d("nb-alice", "gceSetup.disablePublicIp"),),
    ),
    Case(
        "notebook-machine",
        "mlgov-workbench-machine-type-allowed",
        (s("nb-alice", "gceSetup.machineType", "a2-highgpu-1g"),),
    ),
    Case(
        "notebook-machine-any",
        None,
        (s("nb-alice", "gceSetup.machineType", "a2-highgpu-1g"),),
        cfg(notebook_machine_types=[]),
    ),
    Case(
        "notebook-gpu",
        "mlgov-workbench-gpu-allowed",
        (
            s(
                "nb-alice",
                "gceSetup.acceleratorConfigs",
                [{"type": "NVIDIA_TESLA_A100", "coreCount": "1"}],
            ),
        ),
    ),
    Case(
        "notebook-gpu-none-allowed",
        "mlgov-workbench-gpu-allowed",
        (),
        cfg(notebook_gpu_types=[]),
        resource="nb-alice",
    ),
    Case(
        "notebook-no-gpu",
        None,
        (d("nb-alice", "gceSetup.acceleratorConfigs"),),
        cfg(notebook_gpu_types=[]),
    ),
    Case(
        "root-by-default",
        "mlgov-workbench-root-access",
        (d("nb-alice", "gceSetup.metadata.notebook-disable-root"),),
    ),
    Case(
        "root-explicit",
        "mlgov-workbench-root-access",
        (s("nb-alice", "gceSetup.metadata.notebook-disable-root", "false"),),
    ),
    Case(
        "root-opted-in",
        None,
        (
            s("nb-alice", "gceSetup.metadata.notebook-disable-root", "false"),
            s("nb-alice", "labels.mlgov-root-access", "true"),
        ),
    ),
    Case(
        "root-label-wrong-value",
        "mlgov-workbench-root-access",
        (
            d("nb-alice", "gceSetup.metadata.notebook-disable-root"),
            s("nb-alice", "labels.mlgov-root-access", "yes"),
        ),
    ),
    Case(
        "root-off-uppercase",
        None,
        (s("nb-alice", "gceSetup.metadata.notebook-disable-root", "TRUE"),),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


def test_messages_name_the_offending_value() -> None:
    stack = apply((s("nb-alice", "gceSetup.metadata.idle-timeout-seconds", "86400"),))
    (violation,) = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert violation.resource == "nb-alice"
    assert violation.type == "gcp:workbench/instance:Instance"
    assert "86400s" in violation.message
    assert "120 min" in violation.message
