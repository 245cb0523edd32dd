"""`gke`: the GKE cluster training runs in (component: governance/components/gke.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from governance.settings.base import Model, Positive


class AutoprovisioningSettings(Model):
    """Node auto-provisioning limits: the most NAP may ever create, cluster-wide."""

    max_cpu: Positive = 64
    max_memory_gb: Positive = 256
    accelerators: dict[str, Annotated[int, Field(ge=0, le=512)]] = Field(
        default_factory=lambda: {"nvidia-tesla-t4": 4}
    )


class SystemPoolSettings(Model):
    """The small on-demand pool for cluster services."""

    machine_type: str = "e2-standard-4"
    min_nodes: Annotated[int, Field(ge=0, le=10)] = 1
    max_nodes: Annotated[int, Field(ge=1, le=20)] = 3


class GkeSettings(Model):
    """The GKE cluster training pools run in."""

    release_channel: Literal["RAPID", "REGULAR", "STABLE"] = "REGULAR"
    system_pool: SystemPoolSettings = SystemPoolSettings()
    autoprovisioning: AutoprovisioningSettings = AutoprovisioningSettings()
