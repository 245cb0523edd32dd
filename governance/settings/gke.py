"""`gke`: the GKE cluster training runs in (component: governance/components/gke.py).

`problems` checks the control plane's exposure against the environment: outside dev, a public IP
endpoint must be limited to listed networks.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Literal, Protocol

from pydantic import Field, field_validator

from governance.settings.accepted import Flag, GpuType, MachineType
from governance.settings.base import Model, Positive, Problem

if TYPE_CHECKING:
    from governance.settings.base import Environment

# GKE accepts at most 50 authorized networks (container.v1 MasterAuthorizedNetworksConfig).
MAX_AUTHORIZED_NETWORKS = 50


class AutoprovisioningSettings(Model):
    """Node auto-provisioning limits: the most NAP may ever create, cluster-wide."""

    max_cpu: Positive = 64
    max_memory_gb: Positive = 256
    accelerators: dict[GpuType, Annotated[int, Field(ge=0, le=512)]] = Field(
        default_factory=lambda: {"nvidia-tesla-t4": 4}
    )


class SystemPoolSettings(Model):
    """The small on-demand pool for cluster services."""

    machine_type: MachineType = "e2-standard-4"
    min_nodes: Annotated[int, Field(ge=0, le=10)] = 1
    max_nodes: Annotated[int, Field(ge=1, le=20)] = 3


class AuthorizedNetworkSettings(Model):
    """A network that may reach the control plane's IP endpoints."""

    cidr_block: str
    display_name: Annotated[str, Field(min_length=1)] | None = None

    @field_validator("cidr_block")
    @classmethod
    def _cidr(cls, value: str) -> str:
        try:
            ipaddress.IPv4Network(value, strict=True)
        except ValueError:
            raise ValueError(
                "must be an IPv4 CIDR range with no host bits set, such as 203.0.113.0/24"
            ) from None
        return value


class ControlPlaneSettings(Model):
    """Who can reach the cluster's Kubernetes API.

    The public IP endpoint is off unless asked for (outside dev only with authorized networks);
    the DNS endpoint, gated by IAM (`container.clusters.connect`), is how people and CI reach the
    API, as Google recommends over IP-based access.
    """

    public_endpoint: Flag = False
    authorized_networks: tuple[AuthorizedNetworkSettings, ...] = Field(
        default=(), max_length=MAX_AUTHORIZED_NETWORKS
    )
    dns_endpoint: Flag = True


class GkeSettings(Model):
    """The GKE cluster training pools run in."""

    release_channel: Literal["RAPID", "REGULAR", "STABLE"] = "REGULAR"
    system_pool: SystemPoolSettings = SystemPoolSettings()
    autoprovisioning: AutoprovisioningSettings = AutoprovisioningSettings()
    control_plane: ControlPlaneSettings = ControlPlaneSettings()


class _GkeStack(Protocol):
    """What the checks here read of a stack's settings (root.py's `Settings` is one)."""

    @property
    def environment(self) -> Environment: ...

    @property
    def gke(self) -> GkeSettings | None: ...


def problems(s: _GkeStack) -> Iterator[Problem]:
    """Outside dev, a public control-plane endpoint is limited to listed, non-open networks."""
    if s.gke is None or s.environment == "dev":
        return
    plane = s.gke.control_plane
    if not plane.public_endpoint:
        return
    path = "gke.control_plane.authorized_networks"
    if not plane.authorized_networks:
        yield (
            path,
            f"the public endpoint is open to the whole internet in {s.environment}; list the "
            "networks that may reach it, or set public_endpoint: false and use the DNS endpoint",
        )
    for i, network in enumerate(plane.authorized_networks):
        if ipaddress.IPv4Network(network.cidr_block).prefixlen == 0:
            yield (
                f"{path}.{i}.cidr_block",
                f"{network.cidr_block} authorizes the whole internet in {s.environment}; list "
                "narrower ranges, or set public_endpoint: false and use the DNS endpoint",
            )
