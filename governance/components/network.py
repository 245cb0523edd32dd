"""MlNetwork: the VPC the platform runs in, with no public IPs needed anywhere.

It owns the network, one subnet in the stack's region (with secondary ranges for GKE), Private
Google Access, Cloud NAT for outbound package installs, and the private services range Cloud SQL
uses for its private IP. Firewall rules beyond GCP's implied ones are left to the team.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from governance.labels import Labels
from governance.naming import resource_name
from mlgov_policies.vocabulary import component_type


@dataclass(frozen=True, kw_only=True)
class MlNetworkArgs:
    """What MlNetwork needs."""

    prefix: str
    project: str
    region: str
    labels: Labels
    subnet_cidr: pulumi.Input[str] = "10.10.0.0/20"
    pods_cidr: pulumi.Input[str] = "10.20.0.0/16"
    services_cidr: pulumi.Input[str] = "10.30.0.0/20"
    # Size of the range reserved for private services (Cloud SQL's private IP).
    private_service_prefix_length: pulumi.Input[int] = 20


class MlNetwork(pulumi.ComponentResource):
    """A private VPC with one regional subnet, NAT egress and a Cloud SQL peering range."""

    network_id: pulumi.Output[str]
    subnet_id: pulumi.Output[str]
    network_name: pulumi.Output[str]
    pods_range: str
    services_range: str
    peering: gcp.servicenetworking.Connection

    def __init__(
        self, name: str, args: MlNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("MlNetwork"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        net_name = resource_name(args.prefix, "vpc")
        network = gcp.compute.Network(
            f"{name}-vpc",
            name=net_name,
            project=args.project,
            auto_create_subnetworks=False,
            routing_mode="REGIONAL",
            opts=child,
        )
        self.pods_range = "pods"
        self.services_range = "services"
        subnet = gcp.compute.Subnetwork(
            f"{name}-subnet",
            name=resource_name(args.prefix, args.region),
            project=args.project,
            region=args.region,
            network=network.id,
            ip_cidr_range=args.subnet_cidr,
            # Private Google Access lets VMs without public IPs reach Google APIs.
            private_ip_google_access=True,
            secondary_ip_ranges=[
                gcp.compute.SubnetworkSecondaryIpRangeArgs(
                    range_name=self.pods_range, ip_cidr_range=args.pods_cidr
                ),
                gcp.compute.SubnetworkSecondaryIpRangeArgs(
                    range_name=self.services_range, ip_cidr_range=args.services_cidr
                ),
            ],
            opts=child,
        )
        router = gcp.compute.Router(
            f"{name}-router",
            name=resource_name(args.prefix, "router"),
            project=args.project,
            region=args.region,
            network=network.id,
            opts=child,
        )
        gcp.compute.RouterNat(
            f"{name}-nat",
            name=resource_name(args.prefix, "nat"),
            project=args.project,
            region=args.region,
            router=router.name,
            nat_ip_allocate_option="AUTO_ONLY",
            source_subnetwork_ip_ranges_to_nat="ALL_SUBNETWORKS_ALL_IP_RANGES",
            log_config=gcp.compute.RouterNatLogConfigArgs(enable=True, filter="ERRORS_ONLY"),
            opts=child,
        )
        peering_range = gcp.compute.GlobalAddress(
            f"{name}-peering-range",
            name=resource_name(args.prefix, "psa"),
            project=args.project,
            purpose="VPC_PEERING",
            address_type="INTERNAL",
            prefix_length=args.private_service_prefix_length,
            network=network.id,
            labels=args.labels.for_workload("network").as_dict(),
            opts=child,
        )
        self.peering = gcp.servicenetworking.Connection(
            f"{name}-peering",
            network=network.id,
            service="servicenetworking.googleapis.com",
            reserved_peering_ranges=[peering_range.name],
            opts=child,
        )
        self.network_id = network.id
        self.subnet_id = subnet.id
        self.network_name = network.name
        self.register_outputs({"network_id": self.network_id, "subnet_id": self.subnet_id})
