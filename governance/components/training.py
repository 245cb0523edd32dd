"""SpotTrainingPools: accelerators for training, on spot capacity, costing nothing when idle.

It owns the GKE node pools for GPUs and TPUs (spot, autoscaling from zero, tainted so only
training pods land there), standalone Cloud TPU VMs (spot scheduling) and standalone GPU VMs
(SPOT provisioning plus a maximum run duration, after which GCP stops them; the Ops Agent, so the
idle-GPU reaper has utilization data), and the dedicated service accounts the GPU VMs and the TPU
VMs run as (never the default Compute account). The cluster
itself is MlCluster in gke.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

import pulumi
import pulumi_gcp as gcp

from governance.components.identity import account_with_roles
from governance.components.notebooks import Accelerator
from governance.labels import Labels
from governance.naming import account_id, resource_name
from mlgov_policies.vocabulary import component_type

SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
WORKLOAD_TAINT_KEY = "mlgov.io/workload"


# The idle-GPU reaper reads agent.googleapis.com/gpu/utilization, which only the Ops Agent
# reports (its NVML GPU metrics, collected by default where an NVIDIA driver is installed:
# https://cloud.google.com/monitoring/api/metrics_opsagent#agent-gpu). Installed at boot with
# Google's documented repository script, once per VM:
# https://cloud.google.com/stackdriver/docs/solutions/agents/ops-agent/installation
# The Deep Learning VM image installs the driver at first boot too (`install-nvidia-driver`),
# and nothing orders the two. An agent started before the driver exists may not collect GPU
# metrics until it restarts, so the script waits (bounded, 15 min) for `nvidia-smi` to answer
# and then restarts the agent once: the metric is there whichever finished first. A VM whose
# driver never appears keeps running; the reaper then reports it under `no_data`.
OPS_AGENT_STARTUP_SCRIPT = """#!/bin/bash
# mlgov: install the Ops Agent once; it reports GPU utilization for the idle-GPU reaper.
if ! systemctl is-enabled --quiet google-cloud-ops-agent 2>/dev/null; then
  curl -sSO https://dl.google.com/cloudagents/add-google-cloud-ops-agent-repo.sh
  bash add-google-cloud-ops-agent-repo.sh --also-install
fi
# mlgov: restart the agent once the NVIDIA driver answers, so it sees the GPUs.
for _ in $(seq 1 90); do
  if nvidia-smi >/dev/null 2>&1; then
    systemctl restart google-cloud-ops-agent
    break
  fi
  sleep 10
done
"""

OPS_AGENT_ROLES = ("roles/monitoring.metricWriter", "roles/logging.logWriter")

DEFAULT_GPU_IMAGE = (
    "projects/deeplearning-platform-release/global/images/family/common-cu123-debian-11"
)


@dataclass(frozen=True, kw_only=True)
class TrainingPool:
    """A GKE node pool for training: GPUs (`accelerator`) or TPUs (`tpu_topology`), from 0 nodes.

    `zones` empty means the component's `zones`.
    """

    kind: Literal["gpu", "tpu"] = "gpu"
    machine_type: str = "n1-standard-8"
    accelerator: str | None = None
    accelerator_count: int = 1
    tpu_topology: str | None = None
    max_nodes: int = 4
    zones: tuple[str, ...] = ()
    spot: bool = True
    disk_gb: int = 100
    exempt: bool = False  # mlgov-exempt: the budget cap leaves the pool alone


@dataclass(frozen=True, kw_only=True)
class TpuVm:
    """A standalone Cloud TPU VM in `zone`."""

    zone: str
    accelerator_type: str = "v5litepod-8"
    runtime_version: str = "v2-alpha-tpuv5-lite"
    spot: bool = True
    expires_on: date | None = None
    exempt: bool = False


@dataclass(frozen=True, kw_only=True)
class GpuVm:
    """A standalone spot GPU VM in `zone` that GCP stops after `max_run_hours`."""

    zone: str
    machine_type: str = "g2-standard-8"
    gpu: Accelerator = field(default_factory=lambda: Accelerator(type="nvidia-l4"))
    max_run_hours: int = 8
    image: str = DEFAULT_GPU_IMAGE
    disk_gb: int = 200
    expires_on: date | None = None
    exempt: bool = False


@dataclass(frozen=True, kw_only=True)
class SpotTrainingPoolsArgs:
    """What SpotTrainingPools needs; `cluster_name` is required when there are `pools`."""

    prefix: str
    project: str
    region: str
    zones: tuple[str, ...]
    labels: Labels
    pools: Mapping[str, TrainingPool]
    tpu_vms: Mapping[str, TpuVm]
    gpu_vms: Mapping[str, GpuVm]
    network_id: pulumi.Input[str]
    subnet_id: pulumi.Input[str]
    cluster_name: pulumi.Input[str] | None = None
    node_service_account: pulumi.Input[str] | None = None


def pool_taints(pool: TrainingPool) -> list[gcp.container.NodePoolNodeConfigTaintArgs]:
    """Taints that keep everything but training pods off expensive accelerator nodes."""
    taints = [
        gcp.container.NodePoolNodeConfigTaintArgs(
            key=WORKLOAD_TAINT_KEY, value="training", effect="NO_SCHEDULE"
        )
    ]
    if pool.kind == "gpu":
        taints.append(
            gcp.container.NodePoolNodeConfigTaintArgs(
                key="nvidia.com/gpu", value="present", effect="NO_SCHEDULE"
            )
        )
    return taints


def spot_scheduling(max_run_hours: int) -> gcp.compute.InstanceSchedulingArgs:
    """Spot scheduling that GCP itself stops after `max_run_hours`: a forgotten job can't run on."""
    return gcp.compute.InstanceSchedulingArgs(
        provisioning_model="SPOT",
        preemptible=True,
        automatic_restart=False,
        on_host_maintenance="TERMINATE",
        instance_termination_action="STOP",
        max_run_duration=gcp.compute.InstanceSchedulingMaxRunDurationArgs(
            seconds=max_run_hours * 3600
        ),
    )


class SpotTrainingPools(pulumi.ComponentResource):
    """All training capacity of a stack: GKE GPU/TPU pools, TPU VMs and GPU VMs, all spot."""

    pool_names: pulumi.Output[list[str]]
    vm_names: pulumi.Output[list[str]]

    def __init__(
        self, name: str, args: SpotTrainingPoolsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("SpotTrainingPools"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        labels = args.labels.for_workload("training")
        pools = [
            self._node_pool(name, key, pool, args, labels, child)
            for key, pool in args.pools.items()
        ]
        vms: list[pulumi.Output[str]] = []
        if args.tpu_vms:
            # A dedicated account: with none set, a TPU VM runs as the default Compute service
            # account (tpu.v2 Node.serviceAccount), which is Editor on the project. It may write
            # logs and metrics; grant it read access to your training data yourself.
            tpu_sa = account_with_roles(
                f"{name}-tpu-vm",
                account_id=account_id(args.prefix, "training-tpus"),
                project=args.project,
                display_name="mlgov TPU VMs",
                roles=OPS_AGENT_ROLES,
                opts=child,
            )
            vms += [
                self._tpu_vm(name, key, tpu, args, tpu_sa.email, child).name
                for key, tpu in args.tpu_vms.items()
            ]
        if args.gpu_vms:
            # What the Ops Agent needs to ship metrics and logs (installation doc,
            # "Authorization"): no more.
            sa = account_with_roles(
                f"{name}-gpu-vm",
                account_id=account_id(args.prefix, "training-vms"),
                project=args.project,
                display_name="mlgov training VMs",
                roles=OPS_AGENT_ROLES,
                opts=child,
            )
            vms += [
                self._gpu_vm(name, key, vm, args, sa.email, child).name
                for key, vm in args.gpu_vms.items()
            ]
        self.pool_names = pulumi.Output.all(*[p.name for p in pools]).apply(list)
        self.vm_names = pulumi.Output.all(*vms).apply(list)
        self.register_outputs({"pool_names": self.pool_names, "vm_names": self.vm_names})

    @staticmethod
    def _node_pool(
        name: str,
        key: str,
        pool: TrainingPool,
        args: SpotTrainingPoolsArgs,
        labels: Labels,
        child: pulumi.ResourceOptions,
    ) -> gcp.container.NodePool:
        if args.cluster_name is None:
            raise ValueError("training pools need a cluster (cluster_name)")
        accelerators = None
        if pool.kind == "gpu" and pool.accelerator is not None:
            accelerators = [
                gcp.container.NodePoolNodeConfigGuestAcceleratorArgs(
                    type=pool.accelerator,
                    count=pool.accelerator_count,
                    gpu_driver_installation_config=gcp.container.NodePoolNodeConfigGuestAcceleratorGpuDriverInstallationConfigArgs(
                        gpu_driver_version="DEFAULT"
                    ),
                )
            ]
        placement = None
        if pool.kind == "tpu" and pool.tpu_topology is not None:
            placement = gcp.container.NodePoolPlacementPolicyArgs(
                type="COMPACT", tpu_topology=pool.tpu_topology
            )
        return gcp.container.NodePool(
            f"{name}-{key}",
            name=resource_name("", key, max_length=40),
            project=args.project,
            location=args.region,
            cluster=args.cluster_name,
            node_locations=list(pool.zones or args.zones),
            # Start empty and scale from zero: an idle accelerator pool costs nothing.
            initial_node_count=0,
            autoscaling=gcp.container.NodePoolAutoscalingArgs(
                total_min_node_count=0,
                total_max_node_count=pool.max_nodes,
                # ANY: take spot capacity in whichever zone has it.
                location_policy="ANY",
            ),
            management=gcp.container.NodePoolManagementArgs(auto_repair=True, auto_upgrade=True),
            placement_policy=placement,
            node_config=gcp.container.NodePoolNodeConfigArgs(
                machine_type=pool.machine_type,
                spot=pool.spot,
                guest_accelerators=accelerators,
                disk_size_gb=pool.disk_gb,
                disk_type="pd-balanced",
                service_account=args.node_service_account,
                oauth_scopes=SCOPES,
                resource_labels=labels.for_workload("training", exempt=pool.exempt).as_dict(),
                labels={WORKLOAD_TAINT_KEY: "training", "mlgov.io/pool": key},
                taints=pool_taints(pool),
                workload_metadata_config=gcp.container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
                    mode="GKE_METADATA"
                ),
            ),
            opts=child,
        )

    @staticmethod
    def _tpu_vm(
        name: str,
        key: str,
        tpu: TpuVm,
        args: SpotTrainingPoolsArgs,
        email: pulumi.Input[str],
        child: pulumi.ResourceOptions,
    ) -> gcp.tpu.V2Vm:
        labels = args.labels.for_workload("training", expires_on=tpu.expires_on, exempt=tpu.exempt)
        return gcp.tpu.V2Vm(
            f"{name}-{key}",
            name=resource_name(args.prefix, "tpu", key),
            project=args.project,
            zone=tpu.zone,
            accelerator_type=tpu.accelerator_type,
            runtime_version=tpu.runtime_version,
            scheduling_config=gcp.tpu.V2VmSchedulingConfigArgs(spot=tpu.spot),
            service_account=gcp.tpu.V2VmServiceAccountArgs(email=email, scopes=SCOPES),
            network_config=gcp.tpu.V2VmNetworkConfigArgs(
                network=args.network_id, subnetwork=args.subnet_id, enable_external_ips=False
            ),
            labels=labels.as_dict(),
            opts=child,
        )

    @staticmethod
    def _gpu_vm(
        name: str,
        key: str,
        vm: GpuVm,
        args: SpotTrainingPoolsArgs,
        email: pulumi.Input[str],
        child: pulumi.ResourceOptions,
    ) -> gcp.compute.Instance:
        labels = args.labels.for_workload(
            "training", expires_on=vm.expires_on, exempt=vm.exempt
        ).as_dict()
        return gcp.compute.Instance(
            f"{name}-{key}",
            name=resource_name(args.prefix, "gpu", key),
            project=args.project,
            zone=vm.zone,
            machine_type=vm.machine_type,
            guest_accelerators=[
                gcp.compute.InstanceGuestAcceleratorArgs(type=vm.gpu.type, count=vm.gpu.count)
            ],
            scheduling=spot_scheduling(vm.max_run_hours),
            boot_disk=gcp.compute.InstanceBootDiskArgs(
                auto_delete=True,
                initialize_params=gcp.compute.InstanceBootDiskInitializeParamsArgs(
                    image=vm.image, size=vm.disk_gb, type="pd-balanced", labels=labels
                ),
            ),
            # No access_configs: no public IP; egress through Cloud NAT.
            network_interfaces=[
                gcp.compute.InstanceNetworkInterfaceArgs(
                    network=args.network_id, subnetwork=args.subnet_id
                )
            ],
            service_account=gcp.compute.InstanceServiceAccountArgs(email=email, scopes=SCOPES),
            shielded_instance_config=gcp.compute.InstanceShieldedInstanceConfigArgs(
                enable_secure_boot=True, enable_vtpm=True, enable_integrity_monitoring=True
            ),
            metadata={
                "install-nvidia-driver": "True",
                "enable-guest-attributes": "TRUE",
                "startup-script": OPS_AGENT_STARTUP_SCRIPT,
            },
            labels=labels,
            opts=child,
        )
