"""`network`: the VPC mlgov creates (the component is governance/components/network.py)."""

from __future__ import annotations

import ipaddress
from typing import Annotated

from pydantic import Field, field_validator

from governance.settings.base import Model


class NetworkSettings(Model):
    """The VPC mlgov creates: one subnet in the region, private access, NAT for egress."""

    subnet_cidr: str = "10.10.0.0/20"
    pods_cidr: str = "10.20.0.0/16"
    services_cidr: str = "10.30.0.0/20"
    gke_master_cidr: str = "172.16.0.32/28"
    private_service_prefix_length: Annotated[int, Field(ge=16, le=24)] = 20

    @field_validator("subnet_cidr", "pods_cidr", "services_cidr", "gke_master_cidr")
    @classmethod
    def _cidr(cls, value: str) -> str:
        try:
            ipaddress.IPv4Network(value, strict=True)
        except ValueError:
            raise ValueError(
                "must be an IPv4 CIDR range with no host bits set, such as 10.10.0.0/20"
            ) from None
        if "/" not in value:  # IPv4Network reads a bare address as a /32
            raise ValueError("must be an IPv4 CIDR range such as 10.10.0.0/20")
        return value
