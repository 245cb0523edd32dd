"""MlCluster under mocks: who may reach the control plane, as camelCase cluster inputs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from governance.components.gke import AuthorizedNetwork, ControlPlane, MlCluster, MlClusterArgs
from governance.labels import base_labels
from governance.review.offline import RecordedResource

Run = Callable[..., list[RecordedResource]]
CLUSTER = "gcp:container/cluster:Cluster"


def cluster_inputs(under_mocks: Run, plane: ControlPlane | None = None) -> dict[str, Any]:
    args = MlClusterArgs(
        prefix="acme-prod",
        project="acme-ml-prod",
        region="europe-west4",
        zones=("europe-west4-a",),
        labels=base_labels("prod", {"team": "research", "cost-center": "cc-1"}),
        deletion_protection=True,
        network_id="net",
        subnet_id="sub",
        pods_range="pods",
        services_range="services",
        master_cidr="172.16.0.32/28",
    )
    if plane is not None:
        args = dataclasses.replace(args, control_plane=plane)
    resources = under_mocks(lambda: MlCluster("gke", args), {"gcp:project": "acme-ml-prod"})
    [cluster] = [r.inputs for r in resources if r.type == CLUSTER]
    return cluster


def test_default_is_private_with_the_iam_gated_dns_endpoint(under_mocks: Run) -> None:
    cluster = cluster_inputs(under_mocks)
    assert cluster["privateClusterConfig"] == {
        "enablePrivateNodes": True,
        "enablePrivateEndpoint": True,
        "masterIpv4CidrBlock": "172.16.0.32/28",
    }
    assert cluster["controlPlaneEndpointsConfig"] == {
        "dnsEndpointConfig": {"allowExternalTraffic": True}
    }
    assert "masterAuthorizedNetworksConfig" not in cluster


def test_public_endpoint_limited_to_authorized_networks(under_mocks: Run) -> None:
    plane = ControlPlane(
        public_endpoint=True,
        authorized_networks=(
            AuthorizedNetwork(cidr_block="203.0.113.0/24", display_name="office"),
            AuthorizedNetwork(cidr_block="198.51.100.0/28"),
        ),
    )
    cluster = cluster_inputs(under_mocks, plane)
    assert cluster["privateClusterConfig"]["enablePrivateEndpoint"] is False
    assert cluster["masterAuthorizedNetworksConfig"] == {
        "cidrBlocks": [
            {"cidrBlock": "203.0.113.0/24", "displayName": "office"},
            {"cidrBlock": "198.51.100.0/28"},
        ]
    }


@pytest.mark.parametrize("public", [True, False])
def test_no_networks_means_no_allow_list(under_mocks: Run, public: bool) -> None:
    cluster = cluster_inputs(under_mocks, ControlPlane(public_endpoint=public))
    assert cluster["privateClusterConfig"]["enablePrivateEndpoint"] is (not public)
    assert "masterAuthorizedNetworksConfig" not in cluster


def test_dns_endpoint_may_be_closed_to_callers(under_mocks: Run) -> None:
    cluster = cluster_inputs(under_mocks, ControlPlane(dns_endpoint=False))
    assert cluster["controlPlaneEndpointsConfig"] == {
        "dnsEndpointConfig": {"allowExternalTraffic": False}
    }
    assert cluster["privateClusterConfig"]["enablePrivateEndpoint"] is True
