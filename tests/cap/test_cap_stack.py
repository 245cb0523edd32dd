"""What a stack governs and declares, as `mlgov cap` reads it from the stack files."""

from __future__ import annotations

from governance.cap.stack import Ceiling, Stack, stack_of
from governance.inputs.project import read_stack_config
from governance.settings import settings_from_config
from tests.cap.conftest import REPO


def _stack(name: str) -> Stack:
    path = REPO / "stacks" / f"Pulumi.{name}.yaml"
    return stack_of(name, settings_from_config(read_stack_config(path)))


def test_prod_governs_its_project_and_declares_its_pools_and_nap_limits():
    s = _stack("prod")
    assert s.governed == {"acme-ml-prod": ("europe-west4-a", "europe-west4-b")}
    assert s.regions("acme-ml-prod") == ("europe-west4",)
    assert s.own_cluster == ("acme-ml-prod", "europe-west4", "acme-prod-ml")
    assert s.unlinks_billing is False  # never in prod
    own = ("acme-ml-prod", "europe-west4", "acme-prod-ml")
    assert s.pool_ceiling(*own, "l4-spot") == Ceiling(16, "training_pools.l4-spot.max_nodes")
    assert s.pool_ceiling(*own, "tpu-v5e").value == 8
    # A pool the stack does not declare: its largest declared pool bounds it.
    assert s.pool_ceiling(*own, "nap-pool") == Ceiling(
        16, "not declared by the stack; its largest pool, training_pools.l4-spot.max_nodes"
    )
    assert s.pool_ceiling("acme-ml-prod", "europe-west4-a", "other", "l4-spot").value == 16
    assert s.nap_ceiling(*own, "nvidia-l4") == Ceiling(
        32, "gke.autoprovisioning.accelerators.nvidia-l4"
    )
    assert s.nap_ceiling("acme-ml-prod", "europe-west4-a", "other", "nvidia-l4").value == 32
    assert s.nap_ceiling(*own, "nvidia-h100-80gb").value == 0


def test_dev_lets_the_cap_unlink_billing():
    s = _stack("dev")
    assert s.unlinks_billing is True
    assert s.nap == {"nvidia-tesla-t4": 4}
