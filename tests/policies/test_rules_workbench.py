"""mlgov-workbench-*: idle shutdown, guest attributes, public IP, allow-lists, root, GPU driver.

Cases for mlgov_policies/rules/workbench.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, apply, case_id, cfg, check_case, d, s
from policy_fixtures import PROD_CONFIG

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources
from mlgov_policies.registry import RESOURCE_RULES

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
        (s("nb-alice", "gceSetup.machineType", "n1-standard-16"),),
    ),
    Case(  # not configured (None): any type
        "notebook-machine-any",
        None,
        (s("nb-alice", "gceSetup.machineType", "n1-standard-16"),),
        cfg(notebook_machine_types=None),
    ),
    Case(  # empty: none, as `mlgov:settings` reads an empty limits.notebook_machine_types
        "notebook-machine-none",
        "mlgov-workbench-machine-type-allowed",
        (),  # the known-good notebook's own type, allowed by the fixture's list
        cfg(notebook_machine_types=[]),
        "nb-alice",
    ),
    Case(
        "notebook-gpu",
        "mlgov-workbench-gpu-allowed",
        (
            s(
                "nb-alice",
                "gceSetup.acceleratorConfigs",
                [{"type": "NVIDIA_TESLA_V100", "coreCount": "1"}],
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
    Case(
        "notebook-gpu-driver-missing",
        "mlgov-workbench-gpu-driver",
        (d("nb-alice", "gceSetup.metadata.install-nvidia-driver"),),
    ),
    Case(
        "notebook-gpu-driver-off",
        "mlgov-workbench-gpu-driver",
        (s("nb-alice", "gceSetup.metadata.install-nvidia-driver", "False"),),
    ),
    Case(
        "notebook-no-gpu-no-driver",
        None,
        (
            d("nb-alice", "gceSetup.metadata.install-nvidia-driver"),
            d("nb-alice", "gceSetup.acceleratorConfigs"),
        ),
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


def test_gpu_driver_message_and_the_notebooks_api_switch() -> None:
    rule = RESOURCE_RULES["mlgov-workbench-gpu-driver"]
    stack = apply((d("nb-alice", "gceSetup.metadata.install-nvidia-driver"),))
    props = next(r["inputs"] for r in stack if r["name"] == "nb-alice")
    [message] = rule.check(rule_type(), props, PolicyConfig())
    assert message == (
        "gceSetup.acceleratorConfigs attaches a GPU but "
        "gceSetup.metadata['install-nvidia-driver'] is not set: no NVIDIA driver is installed, so "
        f"the GPU is billed while CUDA cannot use it (source: {rule.source})"
    )
    # The Notebooks v2 API's own switch (a provider without it reports the unknown property).
    props["gceSetup"]["gpuDriverConfig"] = {"enableGpuDriver": True}
    assert list(rule.check(rule_type(), props, PolicyConfig())) == []
    props["gceSetup"]["acceleratorConfigs"][0]["coreCount"] = "0"
    del props["gceSetup"]["gpuDriverConfig"]
    assert list(rule.check(rule_type(), props, PolicyConfig())) == []


def rule_type() -> str:
    return "gcp:workbench/instance:Instance"


def test_the_installed_pulumi_gcp_has_no_gpu_driver_config() -> None:
    """Why the rule's remedy is the metadata key: InstanceGceSetup lacks the API's switch.

    When a pulumi-gcp upgrade adds `gpuDriverConfig`, this fails: then prefer it in the
    remediation and in NotebookFleet.
    """
    from mlgov_policies.schema import catalog

    entry = catalog.resource_entry(rule_type())
    assert entry is not None
    setup = entry["types"]["InstanceGceSetupArgs"]["properties"]
    assert "acceleratorConfigs" in setup and "metadata" in setup
    assert "gpuDriverConfig" not in setup
