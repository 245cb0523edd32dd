"""Who can reach a control plane or a database: the share of the IPv4 address space it opens.

A list of authorized networks is judged by how much of the internet it lets in, not by its text:
`0.0.0.0/1` and `128.0.0.0/1` open every IPv4 address as surely as `0.0.0.0/0` does. `share`
collapses the ranges (overlaps counted once) and divides by 2^32. Read from:

- a GKE cluster's public IP endpoint: closed (0) when the IP endpoints are off or the endpoint is
  private; every address (1) when it has no `masterAuthorizedNetworksConfig`; else the share of
  its `cidrBlocks` (`gcpPublicCidrsAccessEnabled` adds Google Cloud's public ranges, which no
  plan can list: shown as its own value);
- a Cloud SQL instance's public IPv4 (`settings.ipConfiguration`): closed when `ipv4Enabled` is
  false, else the share of `authorizedNetworks[].value`.

Pure; the policy that refuses wide ranges in prod is mlgov_policies/rules/gke.py.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_bool, as_list, as_mapping, as_str, dig, is_unknown

IPV4_ADDRESSES = 2**32

Row = tuple[str, str, float | str | bool | None, str]


def share(cidrs: Iterable[str]) -> float | None:
    """Fraction of all IPv4 addresses the ranges cover (overlaps once); None if one is unreadable.

    IPv6 ranges are left out of the IPv4 share (they open IPv6 addresses, never IPv4 ones).
    """
    networks: list[ipaddress.IPv4Network] = []
    for cidr in cidrs:
        try:
            network = ipaddress.ip_network(cidr.strip(), strict=False)
        except ValueError:
            return None
        if isinstance(network, ipaddress.IPv4Network):
            networks.append(network)
    covered = sum(n.num_addresses for n in ipaddress.collapse_addresses(networks))
    return covered / IPV4_ADDRESSES


def describe(value: object) -> str:
    """`50% of IPv4 (2,147,483,648 addresses)`: a share as a reviewer reads it."""
    if not isinstance(value, float | int) or isinstance(value, bool):
        return str(value)
    addresses = round(float(value) * IPV4_ADDRESSES)
    return f"{float(value) * 100:.4g}% of IPv4 ({addresses:,} addresses)"


def _texts(items: Sequence[Any], key: str) -> list[str] | None:
    found: list[str] = []
    for item in items:
        raw = dig(item, key)
        if is_unknown(raw):
            return None
        if (text := as_str(raw)) is not None:
            found.append(text)
    return found


def _cluster(inputs: Mapping[str, Any]) -> tuple[float | str | None, bool]:
    ip_enabled = dig(inputs, "controlPlaneEndpointsConfig", "ipEndpointsConfig", "enabled")
    private = dig(inputs, "privateClusterConfig", "enablePrivateEndpoint")
    if as_bool(ip_enabled) is False or as_bool(private) is True:
        return 0.0, False
    if is_unknown(ip_enabled) or is_unknown(private):
        return "(known after apply)", False
    config = as_mapping(dig(inputs, "masterAuthorizedNetworksConfig"))
    if not isinstance(dig(inputs, "masterAuthorizedNetworksConfig"), Mapping):
        return 1.0, False
    blocks = _texts(as_list(dig(config, "cidrBlocks")), "cidrBlock")
    google = as_bool(dig(config, "gcpPublicCidrsAccessEnabled")) is True
    if blocks is None:
        return "(known after apply)", google
    found = share(blocks)
    return (found if found is not None else "(unreadable range)"), google


def _sql(inputs: Mapping[str, Any]) -> float | str | None:
    ip = dig(inputs, "settings", "ipConfiguration")
    if as_bool(dig(ip, "ipv4Enabled")) is False:
        return 0.0
    blocks = _texts(as_list(dig(ip, "authorizedNetworks")), "value")
    if blocks is None:
        return "(known after apply)"
    found = share(blocks)
    return found if found is not None else "(unreadable range)"


def values(resources: Sequence[Mapping[str, Any]], key: Any) -> Iterator[Row]:
    """The share of IPv4 each cluster's public endpoint and each database's public IP opens."""
    for r in resources:
        inputs = as_mapping(r.get("inputs"))
        name = str(key(r))
        if r.get("type") == v.GKE_CLUSTER:
            opened, google = _cluster(inputs)
            yield f"{name}.controlPlane.authorizedShare", "network.share", opened, name
            yield f"{name}.controlPlane.googleCloudRanges", "network.google_ranges", google, name
        elif r.get("type") == v.SQL_INSTANCE:
            yield f"{name}.ipv4.authorizedShare", "network.share", _sql(inputs), name
