"""Compute Engine VM rule: no external IP address on a VM or an instance template.

Covers `gcp:compute/instance:Instance` and both instance template types. GPU and spot capacity
is training.py's concern, what a VM runs as is iam.py's, Compute's own scheduling limits are
acceptance/scheduling.py's. Workbench notebooks (their own `disablePublicIp`) are workbench.py's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_list, dig, is_unknown
from mlgov_policies.rule import ResourceRule

# compute.v1 NetworkInterface: "If there are no accessConfigs specified, then this instance will
# have no external internet access"; an ipv6AccessConfigs entry is an external IPv6 address.
_EXTERNAL = (("accessConfigs", "IPv4"), ("ipv6AccessConfigs", "IPv6"))


def no_public_ip(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Compute VMs and instance templates have no external IP address."""
    del type_, config
    interfaces = dig(props, "networkInterfaces")
    if is_unknown(interfaces):
        return
    for index, interface in enumerate(as_list(interfaces)):
        for field, family in _EXTERNAL:
            configs = dig(interface, field)
            if is_unknown(configs) or not as_list(configs):
                continue
            yield (
                f"networkInterfaces[{index}].{field} gives the VM an external {family} address: "
                "it is reachable from the internet (only firewall rules stand between) and the "
                "address is billed while the VM runs"
            )


NO_PUBLIC_IP = ResourceRule(
    name="mlgov-compute-no-public-ip",
    check=no_public_ip,
    types=frozenset(
        {v.COMPUTE_INSTANCE, v.COMPUTE_INSTANCE_TEMPLATE, v.COMPUTE_REGION_INSTANCE_TEMPLATE}
    ),
    enforcement="mandatory",
    why="A VM with an external address is an internet-facing host holding project credentials "
    "(its service account), and Google bills every external IPv4 address in use by the hour.",
    remediation="Remove networkInterfaces[].accessConfigs (and ipv6AccessConfigs): reach the "
    "internet through Cloud NAT and the VM through IAP TCP forwarding; if it must serve the "
    "internet, put it behind a load balancer.",
    source="compute.v1 Instance.networkInterfaces[].accessConfigs (discovery document: no "
    "accessConfigs, no external internet access); external IP address pricing "
    "https://cloud.google.com/vpc/network-pricing#ipaddress",
)
