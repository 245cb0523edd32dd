"""MlCluster: the GKE cluster training runs in, sized by demand and scaled to zero.

It owns the regional cluster (node auto-provisioning with CPU, memory and accelerator limits,
the OPTIMIZE_UTILIZATION autoscaling profile, GKE cost allocation, Workload Identity, private
nodes, and who may reach the control plane), the node service account, and a small on-demand
system pool. Spot GPU/TPU pools are SpotTrainingPools in training.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_gcp as gcp

from governance.components.identity import account_with_roles
from governance.labels import Labels
from governance.naming import account_id, cluster_name
from mlgov_policies.vocabulary import component_type

NODE_SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
# What a node needs to ship logs and metrics and pull images; nothing primitive.
NODE_ROLES = (
    "roles/logging.logWriter",
    "roles/monitoring.metricWriter",
    "roles/monitoring.viewer",
    "roles/stackdriver.resourceMetadata.writer",
    "roles/artifactregistry.reader",
)


@dataclass(frozen=True, kw_only=True)
class Autoprovisioning:
    """Node auto-provisioning limits: the most NAP may create, cluster-wide (GPUs by type)."""

    max_cpu: int = 64
    max_memory_gb: int = 256
    accelerators: Mapping[str, int] = field(default_factory=lambda: {"nvidia-tesla-t4": 4})


@dataclass(frozen=True, kw_only=True)
class SystemPool:
    """The small on-demand pool for cluster services."""

    machine_type: str = "e2-standard-4"
    min_nodes: int = 1
    max_nodes: int = 3


@dataclass(frozen=True, kw_only=True)
class AuthorizedNetwork:
    """A network (IPv4 CIDR) that may reach the control plane's IP endpoints."""

    cidr_block: str
    display_name: str | None = None


@dataclass(frozen=True, kw_only=True)
class ControlPlane:
    """Who can reach the Kubernetes API.

    `public_endpoint` keeps the public IP endpoint (limited to `authorized_networks` when any are
    listed); `dns_endpoint` lets IAM-authorized callers (`container.clusters.connect`) reach the
    API from anywhere through the cluster's DNS name. Google's best practice is "Use only the
    DNS-based endpoint to access your control plane" (About network isolation in GKE,
    https://cloud.google.com/kubernetes-engine/docs/concepts/network-isolation).
    """

    public_endpoint: bool = False
    authorized_networks: tuple[AuthorizedNetwork, ...] = ()
    dns_endpoint: bool = True


@dataclass(frozen=True, kw_only=True)
class MlClusterArgs:
    """What MlCluster needs."""

    prefix: str
    project: str
    region: str
    zones: tuple[str, ...]
    labels: Labels
    release_channel: pulumi.Input[str] = "REGULAR"
    system_pool: SystemPool = SystemPool()
    autoprovisioning: Autoprovisioning = Autoprovisioning()
    deletion_protection: bool
    network_id: pulumi.Input[str]
    subnet_id: pulumi.Input[str]
    pods_range: str
    services_range: str
    master_cidr: str
    control_plane: ControlPlane = ControlPlane()


def authorized_networks(
    plane: ControlPlane,
) -> gcp.container.ClusterMasterAuthorizedNetworksConfigArgs | None:
    """The authorized-networks block: the listed networks, or None (no IP allow-list)."""
    if not plane.authorized_networks:
        # Without a public endpoint there is nothing to open; with one (dev only, by settings)
        # the endpoint stays unrestricted, as the stack asked.
        return None
    return gcp.container.ClusterMasterAuthorizedNetworksConfigArgs(
        cidr_blocks=[
            gcp.container.ClusterMasterAuthorizedNetworksConfigCidrBlockArgs(
                cidr_block=n.cidr_block, display_name=n.display_name
            )
            for n in plane.authorized_networks
        ]
    )


def endpoints(plane: ControlPlane) -> gcp.container.ClusterControlPlaneEndpointsConfigArgs:
    """The DNS endpoint: open to IAM-authorized callers from anywhere, or to Google only."""
    dns = gcp.container.ClusterControlPlaneEndpointsConfigDnsEndpointConfigArgs(
        allow_external_traffic=plane.dns_endpoint
    )
    return gcp.container.ClusterControlPlaneEndpointsConfigArgs(dns_endpoint_config=dns)


def resource_limits(
    nap: Autoprovisioning,
) -> list[gcp.container.ClusterClusterAutoscalingResourceLimitArgs]:
    """NAP limits: the cluster-wide ceiling on what auto-provisioning may create."""
    limits = [
        gcp.container.ClusterClusterAutoscalingResourceLimitArgs(
            resource_type="cpu", minimum=0, maximum=nap.max_cpu
        ),
        gcp.container.ClusterClusterAutoscalingResourceLimitArgs(
            resource_type="memory", minimum=0, maximum=nap.max_memory_gb
        ),
    ]
    limits += [
        gcp.container.ClusterClusterAutoscalingResourceLimitArgs(
            resource_type=accelerator, minimum=0, maximum=maximum
        )
        for accelerator, maximum in sorted(nap.accelerators.items())
    ]
    return limits


class MlCluster(pulumi.ComponentResource):
    """A private, regional GKE cluster with node auto-provisioning and cost allocation."""

    cluster_name: pulumi.Output[str]
    cluster_id: pulumi.Output[str]
    node_service_account: pulumi.Output[str]

    def __init__(
        self, name: str, args: MlClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("MlCluster"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        node_sa = account_with_roles(
            f"{name}-nodes",
            account_id=account_id(args.prefix, "gke-nodes"),
            project=args.project,
            display_name="mlgov GKE nodes",
            roles=NODE_ROLES,
            opts=child,
        )
        labels = args.labels.for_workload("gke").as_dict()
        plane = args.control_plane
        management = gcp.container.ClusterClusterAutoscalingAutoProvisioningDefaultsManagementArgs(
            auto_repair=True, auto_upgrade=True
        )
        cluster = gcp.container.Cluster(
            f"{name}-cluster",
            name=cluster_name(args.prefix),
            project=args.project,
            location=args.region,
            node_locations=list(args.zones),
            # The default pool can't be spot or scale to zero; replace it with our own pools.
            remove_default_node_pool=True,
            initial_node_count=1,
            deletion_protection=args.deletion_protection,
            network=args.network_id,
            subnetwork=args.subnet_id,
            networking_mode="VPC_NATIVE",
            ip_allocation_policy=gcp.container.ClusterIpAllocationPolicyArgs(
                cluster_secondary_range_name=args.pods_range,
                services_secondary_range_name=args.services_range,
            ),
            private_cluster_config=gcp.container.ClusterPrivateClusterConfigArgs(
                enable_private_nodes=True,
                # True turns the public IP endpoint off; nodes and the VPC use the private one.
                enable_private_endpoint=not plane.public_endpoint,
                master_ipv4_cidr_block=args.master_cidr,
            ),
            master_authorized_networks_config=authorized_networks(plane),
            control_plane_endpoints_config=endpoints(plane),
            release_channel=gcp.container.ClusterReleaseChannelArgs(channel=args.release_channel),
            workload_identity_config=gcp.container.ClusterWorkloadIdentityConfigArgs(
                workload_pool=f"{args.project}.svc.id.goog"
            ),
            # GKE cost allocation splits the bill by namespace and label in the billing export.
            cost_management_config=gcp.container.ClusterCostManagementConfigArgs(enabled=True),
            vertical_pod_autoscaling=gcp.container.ClusterVerticalPodAutoscalingArgs(enabled=True),
            cluster_autoscaling=gcp.container.ClusterClusterAutoscalingArgs(
                enabled=True,
                # Scale down aggressively: idle GPU nodes are the most expensive thing we run.
                autoscaling_profile="OPTIMIZE_UTILIZATION",
                resource_limits=resource_limits(args.autoprovisioning),
                auto_provisioning_defaults=gcp.container.ClusterClusterAutoscalingAutoProvisioningDefaultsArgs(
                    service_account=node_sa.email, oauth_scopes=NODE_SCOPES, management=management
                ),
            ),
            resource_labels=labels,
            opts=child,
        )
        system = args.system_pool
        gcp.container.NodePool(
            f"{name}-system",
            name="system",
            project=args.project,
            location=args.region,
            cluster=cluster.name,
            node_locations=list(args.zones),
            initial_node_count=system.min_nodes,
            autoscaling=gcp.container.NodePoolAutoscalingArgs(
                total_min_node_count=system.min_nodes,
                total_max_node_count=system.max_nodes,
                location_policy="BALANCED",
            ),
            management=gcp.container.NodePoolManagementArgs(auto_repair=True, auto_upgrade=True),
            node_config=gcp.container.NodePoolNodeConfigArgs(
                machine_type=system.machine_type,
                disk_size_gb=50,
                disk_type="pd-balanced",
                service_account=node_sa.email,
                oauth_scopes=NODE_SCOPES,
                resource_labels=labels,
                workload_metadata_config=gcp.container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
                    mode="GKE_METADATA"
                ),
            ),
            opts=child,
        )
        self.cluster_name = cluster.name
        self.cluster_id = cluster.id
        self.node_service_account = node_sa.email
        self.register_outputs(
            {
                "cluster_name": self.cluster_name,
                "cluster_id": self.cluster_id,
                "node_service_account": self.node_service_account,
            }
        )
