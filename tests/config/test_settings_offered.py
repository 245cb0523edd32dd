"""settings/offered.py: a machine type, GPU or TPU the region does not sell is a settings error."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from governance.settings import SettingsError, settings_from_config
from tests.conftest import STACKS, stack_config

P = "mlgov:settings"


def problems(stack: str, mutate: Callable[[dict[str, Any]], None]) -> list[str]:
    config = copy.deepcopy(stack_config(stack))
    mutate(config[P])
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    return err.value.problems


@pytest.mark.parametrize("stack", STACKS)
def test_the_shipped_stacks_ask_only_for_what_their_regions_sell(stack: str) -> None:
    settings_from_config(copy.deepcopy(stack_config(stack)))


def test_tpu_v4_outside_us_central2_is_refused_once_per_resource() -> None:
    # Google's TPU zone list knows TPU v4 (us-central2-b only), so the zone checks
    # (settings/acceptance.py) refuse it with the zone and their source; the catalog's
    # region-level "not offered" would repeat each line.
    def mutate(s: dict[str, Any]) -> None:
        s["training_pools"]["v4"] = {"kind": "tpu", "machine_type": "ct4p-hightpu-4t"}
        s["tpu_vms"] = {"old": {"accelerator_type": "v4-8", "runtime_version": "tpu-vm-v4-base"}}

    zones = "(source: TPU regions and zones https://cloud.google.com/tpu/docs/regions-zones)"
    assert problems("dev", mutate) == [
        f"{P}.tpu_vms.old.zone: not set, so the stack's first zone 'us-central1-a': TPU v4 (v4-8) "
        f"is offered only in us-central2-b, not in us-central1-a {zones}",
        f"{P}.training_pools.v4.zones: not set, so the stack's zones ['us-central1-a', "
        "'us-central1-b']: TPU v4 (v4-4) is offered only in us-central2-b, not in us-central1-a "
        f"{zones}",
    ]


def test_a_gpu_or_machine_type_the_notebooks_or_vm_region_does_not_sell() -> None:
    def mutate(s: dict[str, Any]) -> None:
        # V100s are sold in us-central1 but not in europe-west2; G2 is not sold in europe-north2
        s["region"] = "europe-west2"
        s["zones"] = ["europe-west2-a", "europe-west2-b"]
        s["notebooks"]["alice"]["zone"] = "europe-west2-a"
        s["notebooks"]["alice"]["gpu"] = {"type": "NVIDIA_TESLA_V100", "count": 1}
        s["notebooks"]["bob"]["zone"] = "europe-west2-b"
        s["limits"] = {"notebook_gpu_types": ["NVIDIA_TESLA_V100"]}
        s["gpu_vms"] = {"eval": {"machine_type": "g2-standard-8", "zone": "europe-north2-a"}}

    found = [p for p in problems("dev", mutate) if "offered" in p]
    found[1] = found[1].split("(offered in ")[0] + "(offered in "
    assert found == [
        f"{P}.notebooks.alice.gpu.type: GPU nvidia-tesla-v100 is not offered in region "
        "europe-west2 (offered in asia-east1, europe-west4, us-central1, us-east1, us-west1; "
        "source: https://github.com/skypilot-org/skypilot-catalog/blob/"
        "006059e0f18acb1341e22a27751e9f80df6ba92f/catalogs/v8/gcp/vms.csv); choose another "
        "type or a zone in a region that offers it",
        f"{P}.gpu_vms.eval.machine_type: machine type g2-standard-8 is not offered in region "
        "europe-north2 (offered in ",
    ]
