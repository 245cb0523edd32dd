"""Compute scheduling rule: Spot, preemptible, run-time limits and GPU host maintenance."""

from __future__ import annotations

import pytest
from acceptance_support import DELETE, changed, run, shipped

from mlgov_policies import vocabulary as v
from mlgov_policies.props import UNKNOWN_SENTINELS

RULE = "mlgov-compute-scheduling-valid"
SPOT_DOC = "Compute Engine API Scheduling (discovery document compute.v1) and pulumi-gcp compute.InstanceSchedulingArgs https://cloud.google.com/compute/docs/reference/rest/v1/instances"
RUNTIME_DOC = (
    "Limit the run time of a VM https://cloud.google.com/compute/docs/instances/limit-vm-runtime"
)
MIGRATION_DOC = "Live migration process: limitations https://cloud.google.com/compute/docs/instances/live-migration-process#limitations"
UNKNOWN = next(iter(UNKNOWN_SENTINELS))


def vm() -> dict:
    # staging's nightly-eval GPU VM: SPOT, automaticRestart false, TERMINATE, maxRunDuration, STOP.
    return shipped("staging", "training-nightly-eval")


def test_shipped_spot_gpu_vm_passes() -> None:
    assert run(RULE, v.COMPUTE_INSTANCE, vm()) == []
    assert run(RULE, v.COMPUTE_INSTANCE_TEMPLATE, vm()) == []


def test_spot_with_automatic_restart_fails() -> None:
    assert run(RULE, v.COMPUTE_INSTANCE, changed(vm(), "scheduling.automaticRestart", True)) == [
        "scheduling.automaticRestart is True with scheduling.provisioningModel 'SPOT': Spot and "
        f"preemptible VMs cannot restart automatically; set it to false (source: {SPOT_DOC})"
    ]


def test_spot_with_automatic_restart_unset_fails() -> None:
    props = changed(vm(), "scheduling.automaticRestart", DELETE)
    assert run(RULE, v.COMPUTE_INSTANCE, props) == [
        "scheduling.automaticRestart is not set (pulumi-gcp default true) with "
        "scheduling.provisioningModel 'SPOT': Spot and preemptible VMs cannot restart "
        f"automatically; set it to false (source: {SPOT_DOC})"
    ]


def test_spot_with_migrate_fails() -> None:
    props = changed(vm(), "scheduling.onHostMaintenance", "MIGRATE")
    assert run(RULE, v.COMPUTE_INSTANCE, props) == [
        "scheduling.onHostMaintenance is 'MIGRATE' with scheduling.provisioningModel 'SPOT': Spot "
        f"and preemptible VMs can only TERMINATE (source: {SPOT_DOC})"
    ]


def test_preemptible_with_standard_model_fails() -> None:
    props = changed(vm(), "scheduling.provisioningModel", "STANDARD")
    props = changed(props, "scheduling.maxRunDuration", DELETE)
    assert run(RULE, v.COMPUTE_INSTANCE, props) == [
        "scheduling.preemptible is true with scheduling.provisioningModel 'STANDARD': for "
        f"preemptible VMs the only allowed provisioning model is SPOT (source: {SPOT_DOC})"
    ]


def test_max_run_duration_without_termination_action_fails() -> None:
    props = changed(vm(), "scheduling.instanceTerminationAction", DELETE)
    assert run(RULE, v.COMPUTE_INSTANCE, props) == [
        "scheduling.maxRunDuration is set but scheduling.instanceTerminationAction is not set: a "
        f"time-limited VM needs STOP or DELETE (source: {RUNTIME_DOC})"
    ]


def test_termination_time_without_termination_action_fails() -> None:
    props = changed(vm(), "scheduling.maxRunDuration", DELETE)
    props = changed(props, "scheduling.terminationTime", "2026-12-01T00:00:00Z")
    props = changed(props, "scheduling.instanceTerminationAction", DELETE)
    assert run(RULE, v.COMPUTE_INSTANCE, props) == [
        "scheduling.terminationTime is set but scheduling.instanceTerminationAction is not set: a "
        f"time-limited VM needs STOP or DELETE (source: {RUNTIME_DOC})"
    ]


@pytest.mark.parametrize(("seconds", "shown"), [(10.0, "10s"), (121 * 86400.0, "10454400s")])
def test_max_run_duration_out_of_range_fails(seconds: float, shown: str) -> None:
    props = changed(vm(), "scheduling.maxRunDuration.seconds", seconds)
    assert run(RULE, v.COMPUTE_INSTANCE, props) == [
        f"scheduling.maxRunDuration.seconds: {shown} is outside a VM's scheduling.maxRunDuration: "
        f"30s to 10368000s (source: {RUNTIME_DOC})"
    ]


def test_legacy_preemptible_with_time_limit_fails() -> None:
    props = changed(vm(), "scheduling.provisioningModel", DELETE)
    assert run(RULE, v.COMPUTE_INSTANCE, props) == [
        "scheduling.maxRunDuration is set on a legacy preemptible VM (preemptible true without "
        f"provisioningModel 'SPOT'): time limits need a Spot or standard VM (source: {RUNTIME_DOC})"
    ]


def test_standard_gpu_vm_must_terminate_on_maintenance() -> None:
    props = changed(vm(), "scheduling", {"onHostMaintenance": "TERMINATE"})
    assert run(RULE, v.COMPUTE_INSTANCE, props) == []
    props = changed(vm(), "scheduling", {"automaticRestart": True})
    assert run(RULE, v.COMPUTE_INSTANCE, props) == [
        "scheduling.onHostMaintenance is not set (default MIGRATE) on a VM with GPUs: instances "
        "with guest accelerators do not support live migration; set it to TERMINATE "
        f"(source: {MIGRATION_DOC})"
    ]


def test_standard_vm_without_gpus_may_migrate() -> None:
    props = changed(vm(), "scheduling", DELETE)
    props = changed(changed(props, "machineType", "e2-standard-4"), "guestAccelerators", DELETE)
    assert run(RULE, v.COMPUTE_INSTANCE, props) == []


def test_flex_start_contract() -> None:
    props = changed(vm(), "scheduling", {"provisioningModel": "FLEX_START"})
    assert run(RULE, v.COMPUTE_INSTANCE, props) == [
        f"scheduling.automaticRestart is not set with provisioningModel 'FLEX_START': set it to false (source: {SPOT_DOC})",
        f"scheduling.instanceTerminationAction is not set with provisioningModel 'FLEX_START': it must be DELETE (source: {SPOT_DOC})",
        f"scheduling.maxRunDuration is not set with provisioningModel 'FLEX_START': Flex-start VMs need one (source: {SPOT_DOC})",
    ]
    good = {"provisioningModel": "FLEX_START", "automaticRestart": False,
            "instanceTerminationAction": "DELETE", "maxRunDuration": {"seconds": 3600.0}}  # fmt: skip
    assert run(RULE, v.COMPUTE_INSTANCE, changed(vm(), "scheduling", good)) == []


def test_unknown_values_are_skipped() -> None:
    assert run(RULE, v.COMPUTE_INSTANCE, changed(vm(), "scheduling", UNKNOWN)) == []
    assert (
        run(RULE, v.COMPUTE_INSTANCE, changed(vm(), "scheduling.provisioningModel", UNKNOWN)) == []
    )
    props = changed(vm(), "scheduling.automaticRestart", UNKNOWN)
    assert run(RULE, v.COMPUTE_INSTANCE, props) == []
