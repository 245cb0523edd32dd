"""The platform as one call: validated settings in, components built in dependency order.

`__main__.py` stays thin by calling `build_platform`; tests call it too. This is the one place
that turns the settings models into the components' plain args (zones resolved, defaults per
environment applied), so components never see pydantic models and nothing here checks meaning.
Which components exist is decided only by which settings sections are present.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

import pulumi
from pydantic import BaseModel

from governance.components.action_settings import (
    ActionSettings,
    action_settings,
    billing_disable_allowed,
    spend_cap_policies,
)
from governance.components.artifacts import (
    ArtifactBucket,
    ArtifactRepository,
    ArtifactStore,
    ArtifactStoreArgs,
)
from governance.components.automation import FanOut, GovernanceFunctions, GovernanceFunctionsArgs
from governance.components.billing_export import BillingExport, BillingExportArgs
from governance.components.budgets import ProjectBudget, ProjectBudgetArgs
from governance.components.datasets import PartitionedDataset, PartitionedDatasetArgs, Table
from governance.components.gke import (
    AuthorizedNetwork,
    Autoprovisioning,
    ControlPlane,
    MlCluster,
    MlClusterArgs,
    SystemPool,
)
from governance.components.log_volume import LogVolume, LogVolumeArgs
from governance.components.metadata_db import MetadataDatabase, MetadataDatabaseArgs
from governance.components.network import MlNetwork, MlNetworkArgs
from governance.components.notebooks import (
    Accelerator,
    Notebook,
    NotebookFleet,
    NotebookFleetArgs,
    OfficeHours,
)
from governance.components.query_quotas import QueryQuotas, QueryQuotasArgs
from governance.components.scope_grants import Scope
from governance.components.spend_caps import SpendCap, SpendCaps, SpendCapsArgs
from governance.components.training import (
    GpuVm,
    SpotTrainingPools,
    SpotTrainingPoolsArgs,
    TpuVm,
    TrainingPool,
)
from governance.components.vertex import VertexTracking, VertexTrackingArgs
from governance.components.worker_sizing import worker_size
from governance.labels import Labels, base_labels
from governance.settings import (
    ArtifactSettings,
    DatasetSettings,
    GpuVmSettings,
    NotebookSettings,
    Settings,
    TpuVmSettings,
    VertexSettings,
)
from governance.settings.artifacts import resolved_bucket, resolved_repository
from governance.settings.gke import ControlPlaneSettings
from governance.settings.log_volume import EXCLUSION_FILTERS
from governance.settings.log_volume import resolved as logging_resolved
from governance.settings.query_quotas import resolved as quotas_resolved
from governance.settings.scopes import organization_of, scope_unlinks
from mlgov_policies.compat.spend_caps import SERVICES

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Spec = TypeVar("Spec", bound="DataclassInstance")


@dataclass
class Platform:
    """The components of one stack, kept so outputs (and tests) can reach them."""

    settings: Settings
    labels: Labels
    network: MlNetwork
    budget: ProjectBudget
    billing_export: BillingExport
    notebooks: NotebookFleet | None = None
    cluster: MlCluster | None = None
    training: SpotTrainingPools | None = None
    metadata_db: MetadataDatabase | None = None
    datasets: dict[str, PartitionedDataset] = field(default_factory=dict[str, PartitionedDataset])
    functions: GovernanceFunctions | None = None
    artifacts: ArtifactStore | None = None
    query_quotas: QueryQuotas | None = None
    log_volume: LogVolume | None = None
    vertex: VertexTracking | None = None
    spend_caps: SpendCaps | None = None

    def outputs(self) -> dict[str, Any]:
        """Stack outputs: names operators look up after `pulumi up`."""
        out: dict[str, Any] = {
            "environment": self.settings.environment,
            "region": self.settings.region,
            "network": self.network.network_name,
            "budget_topic": self.budget.topic_id,
            "budget_name": self.budget.budget_name,
            "billing_export_dataset": self.billing_export.dataset_id,
        }
        if self.notebooks is not None:
            out["notebooks"] = self.notebooks.instance_names
        if self.cluster is not None:
            out["cluster"] = self.cluster.cluster_name
        if self.training is not None:
            out["training_pools"] = self.training.pool_names
            out["training_vms"] = self.training.vm_names
        if self.metadata_db is not None:
            out["metadata_db_connection"] = self.metadata_db.connection_name
            out["metadata_db_password"] = self.metadata_db.password
        if self.datasets:
            out["datasets"] = {k: d.dataset_id for k, d in self.datasets.items()}
        if self.functions is not None:
            out["functions"] = self.functions.function_names
            out["function_urls"] = self.functions.function_urls
            out["cleanup_jobs"] = self.functions.job_names
        if self.spend_caps is not None:
            out["spend_caps"] = self.spend_caps.cap_names
        if (store := self.artifacts) is not None:
            if store.bucket_name is not None:
                out["artifact_bucket"] = store.bucket_name
            if store.repository_id is not None:
                out["image_repository"] = store.repository_id
        return out


# --------------------------------------------------------------------------- settings -> args
def spec(cls: type[Spec], model: BaseModel, **given: Any) -> Spec:
    """A component's plain spec from the settings model it shares field names with.

    `given` overrides (or converts) fields: resolved zones, nested specs, renamed fields.
    """
    names = [f.name for f in fields(cls) if f.name not in given]
    return cls(**{name: getattr(model, name) for name in names}, **given)


def notebook(s: Settings, nb: NotebookSettings) -> Notebook:
    """A notebook's component spec from its settings."""
    return spec(
        Notebook,
        nb,
        zone=s.zone_for(nb.zone),
        gpu=spec(Accelerator, nb.gpu) if nb.gpu is not None else None,
        office_hours=spec(OfficeHours, nb.office_hours) if nb.office_hours is not None else None,
    )


def tpu_vm(s: Settings, tpu: TpuVmSettings) -> TpuVm:
    """A TPU VM's component spec from its settings."""
    return spec(TpuVm, tpu, zone=s.zone_for(tpu.zone))


def gpu_vm(s: Settings, vm: GpuVmSettings) -> GpuVm:
    """A GPU VM's component spec from its settings."""
    return spec(GpuVm, vm, zone=s.zone_for(vm.zone), gpu=spec(Accelerator, vm.gpu))


def control_plane(plane: ControlPlaneSettings) -> ControlPlane:
    """Who may reach the GKE control plane, from its settings."""
    networks = tuple(spec(AuthorizedNetwork, n) for n in plane.authorized_networks)
    return spec(ControlPlane, plane, authorized_networks=networks)


def dataset_args(
    s: Settings, key: str, ds: DatasetSettings, labels: Labels
) -> PartitionedDatasetArgs:
    """A dataset's component args from its settings."""
    return spec(
        PartitionedDatasetArgs,
        ds,
        project=s.project,
        dataset=key,
        location=s.dataset_location(ds.location),
        labels=labels,
        deletion_protection=s.is_prod,
        tables={name: spec(Table, t, schema=t.schema_fields) for name, t in ds.tables.items()},
    )


def artifact_args(s: Settings, section: ArtifactSettings, labels: Labels) -> ArtifactStoreArgs:
    """The artifact store's args: environment defaults filled, disabled parts left out."""
    bucket, repo = resolved_bucket(s), resolved_repository(s)
    return ArtifactStoreArgs(
        prefix=s.prefix,
        project=s.project,
        region=s.region,
        labels=labels,
        bucket=spec(ArtifactBucket, bucket) if section.bucket.enabled else None,
        repository=spec(ArtifactRepository, repo) if section.repository.enabled else None,
    )


def log_volume_args(s: Settings) -> LogVolumeArgs:
    """The log volume args: retention and exclusion filters for the environment."""
    days, exclusions = logging_resolved(s)
    return LogVolumeArgs(
        prefix=s.prefix,
        project=s.project,
        retention_days=days,
        exclusions={key: EXCLUSION_FILTERS[key] for key in exclusions},
    )


def quota_args(s: Settings) -> QueryQuotasArgs:
    """The query quota args: the environment's daily caps."""
    project_tib, user_tib = quotas_resolved(s)
    return QueryQuotasArgs(
        project=s.project, project_tib_per_day=project_tib, user_tib_per_day=user_tib
    )


def vertex_args(s: Settings, vertex: VertexSettings, labels: Labels) -> VertexTrackingArgs:
    """The Vertex tracking args, in the stack's region."""
    return spec(
        VertexTrackingArgs,
        vertex,
        prefix=s.prefix,
        project=s.project,
        region=s.region,
        labels=labels,
    )


def spend_caps(s: Settings, budget: ProjectBudget) -> SpendCaps | None:
    """The stack's spend caps (settings.spend_caps), paired with alerts on the budget topic."""
    if not s.spend_caps:
        return None
    return SpendCaps(
        "spend-caps",
        SpendCapsArgs(
            prefix=s.prefix,
            project_number=s.project_number,
            billing_account=s.billing_account,
            caps={
                key: SpendCap(service=SERVICES[key].service, amount=amount)
                for key, amount in s.spend_caps.items()
            },
            topic_id=budget.topic_id,
            depends_on=(budget,),
        ),
    )


def fan_out(s: Settings) -> FanOut | None:
    """The fan-out pieces the settings ask for: the worker's size, the scopes to grant on."""
    auto = s.automation
    if not auto.fan_out:
        return None
    return FanOut(
        project_number=s.project_number,
        max_delivery_attempts=auto.max_delivery_attempts,
        worker=worker_size(),
        organization=organization_of(s) if auto.scopes else None,
        scopes=tuple(Scope(key, scope_unlinks(s, key)) for key in sorted(auto.scopes)),
    )


def policy_of(
    s: Settings, budget: ProjectBudget, caps: SpendCaps | None
) -> pulumi.Output[ActionSettings]:
    """The functions' policy, once the budget ids (and the spend caps' names) are known."""
    instances = worker_size().instances
    if caps is None:
        return budget.budget_id.apply(
            lambda budget_id: action_settings(s, budget_id, worker_instances=instances)
        )
    return pulumi.Output.all(budget.budget_id, caps.alert_budget_ids, caps.cap_names).apply(
        lambda v: action_settings(
            s, v[0], spend_caps=spend_cap_policies(s, v[1], v[2]), worker_instances=instances
        )
    )


def build_cost_controls(s: Settings, platform: Platform) -> None:
    """Artifact storage, query quotas, log volume and Vertex tracking, where the settings ask."""
    if (section := s.artifacts) is not None:
        platform.artifacts = ArtifactStore("artifacts", artifact_args(s, section, platform.labels))
    if s.bigquery_quotas is not None:
        platform.query_quotas = QueryQuotas("bigquery-quotas", quota_args(s))
    if s.logging is not None:
        platform.log_volume = LogVolume("logging", log_volume_args(s))
    if (vertex := s.vertex) is not None and (vertex.tensorboard or vertex.metadata_store):
        platform.vertex = VertexTracking("vertex", vertex_args(s, vertex, platform.labels))


# --------------------------------------------------------------------------- the platform
def build_platform(s: Settings) -> Platform:
    """Build every component the settings ask for; return them for export."""
    labels = base_labels(s.environment, s.labels)
    prefix, project = s.prefix, s.project
    network = MlNetwork(
        "network",
        spec(
            MlNetworkArgs, s.network, prefix=prefix, project=project, region=s.region, labels=labels
        ),
    )
    budget = ProjectBudget(
        "budget",
        ProjectBudgetArgs(
            prefix=prefix,
            project=project,
            project_number=s.project_number,
            billing_account=s.billing_account,
            labels=labels,
            amount_usd=s.budget.amount_usd,
            scopes=s.budget.scopes,
            thresholds=s.budget.thresholds,
            forecast_thresholds=s.budget.forecast_thresholds,
        ),
    )
    billing_export = BillingExport(
        "billing-export",
        BillingExportArgs(
            project=project,
            dataset=s.billing_export.dataset_id,
            location=s.dataset_location(s.billing_export.location),
            labels=labels,
        ),
    )
    platform = Platform(
        settings=s, labels=labels, network=network, budget=budget, billing_export=billing_export
    )
    platform.spend_caps = spend_caps(s, budget)
    if (auto := s.automation).enabled:
        platform.functions = GovernanceFunctions(
            "governance",
            GovernanceFunctionsArgs(
                prefix=prefix,
                project=project,
                region=s.region,
                labels=labels,
                budget_topic_id=budget.topic_id,
                policy=policy_of(s, budget, platform.spend_caps),
                allow_billing_disable=billing_disable_allowed(s),
                undeploy_endpoints=s.automation.undeploy_endpoints_at_cap,
                read_spend_caps=bool(s.spend_caps),
                schedules=auto.schedules(),
                time_zone=auto.time_zone,
                http_timeout_seconds=auto.http_timeout_seconds,
                max_instances=auto.max_instances,
                scheduled_ingress=auto.scheduled_ingress,
                fan_out=fan_out(s),
            ),
        )

    if s.notebooks:
        platform.notebooks = NotebookFleet(
            "notebooks",
            NotebookFleetArgs(
                prefix=prefix,
                project=project,
                region=s.region,
                notebooks={key: notebook(s, nb) for key, nb in s.notebooks.items()},
                labels=labels,
                network_id=network.network_id,
                subnet_id=network.subnet_id,
            ),
        )
    if (gke := s.gke) is not None:
        platform.cluster = MlCluster(
            "gke",
            MlClusterArgs(
                prefix=prefix,
                project=project,
                region=s.region,
                zones=s.zones,
                labels=labels,
                release_channel=gke.release_channel,
                system_pool=spec(SystemPool, gke.system_pool),
                autoprovisioning=spec(Autoprovisioning, gke.autoprovisioning),
                deletion_protection=s.is_prod,
                network_id=network.network_id,
                subnet_id=network.subnet_id,
                pods_range=network.pods_range,
                services_range=network.services_range,
                master_cidr=s.network.gke_master_cidr,
                control_plane=control_plane(gke.control_plane),
            ),
        )
    if s.training_pools or s.tpu_vms or s.gpu_vms:
        cluster = platform.cluster
        platform.training = SpotTrainingPools(
            "training",
            SpotTrainingPoolsArgs(
                prefix=prefix,
                project=project,
                region=s.region,
                zones=s.zones,
                labels=labels,
                pools={key: spec(TrainingPool, p) for key, p in s.training_pools.items()},
                tpu_vms={key: tpu_vm(s, t) for key, t in s.tpu_vms.items()},
                gpu_vms={key: gpu_vm(s, v) for key, v in s.gpu_vms.items()},
                network_id=network.network_id,
                subnet_id=network.subnet_id,
                cluster_name=cluster.cluster_name if cluster else None,
                node_service_account=cluster.node_service_account if cluster else None,
            ),
        )
    if (db := s.metadata_db) is not None:
        platform.metadata_db = MetadataDatabase(
            "metadata",
            spec(
                MetadataDatabaseArgs,
                db,
                prefix=prefix,
                project=project,
                region=s.region,
                labels=labels,
                network_id=network.network_id,
                backups=s.sql_backups(),
                deletion_protection=s.sql_deletion_protection(),
                depends_on=[network.peering],
            ),
        )
    for key, ds in s.datasets.items():
        platform.datasets[key] = PartitionedDataset(
            f"dataset-{key}", dataset_args(s, key, ds, labels)
        )
    build_cost_controls(s, platform)
    return platform
