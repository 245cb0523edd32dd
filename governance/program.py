"""The platform as one call: settings in, components built in dependency order.

`__main__.py` stays thin by calling `build_platform`; tests call it too. Each component gets a
typed args object built from settings that settings.py has already validated, so nothing here
checks meaning. Which components exist is decided only by which settings sections are present.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from governance.action_settings import action_settings, billing_disable_allowed
from governance.automation import GovernanceFunctions, GovernanceFunctionsArgs
from governance.billing_export import BillingExport, BillingExportArgs
from governance.budgets import ProjectBudget, ProjectBudgetArgs
from governance.datasets import PartitionedDataset, PartitionedDatasetArgs
from governance.gke import MlCluster, MlClusterArgs
from governance.labels import Labels, base_labels
from governance.metadata_db import MetadataDatabase, MetadataDatabaseArgs
from governance.network import MlNetwork, MlNetworkArgs
from governance.notebooks import NotebookFleet, NotebookFleetArgs
from governance.settings import Settings
from governance.training import SpotTrainingPools, SpotTrainingPoolsArgs


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
    extra_outputs: dict[str, Any] = field(default_factory=dict[str, Any])

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
        return {**out, **self.extra_outputs}


def build_platform(s: Settings) -> Platform:
    """Build every component the settings ask for; return them for export."""
    labels = base_labels(s.environment, s.labels)
    prefix, project = s.prefix, s.project
    network = MlNetwork(
        "network",
        MlNetworkArgs(
            prefix=prefix, project=project, region=s.region, settings=s.network, labels=labels
        ),
    )
    budget = ProjectBudget(
        "budget",
        ProjectBudgetArgs(
            prefix=prefix,
            project=project,
            project_number=s.project_number,
            billing_account=s.billing_account,
            settings=s.budget,
            labels=labels,
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
    if s.automation.enabled:
        platform.functions = GovernanceFunctions(
            "governance",
            GovernanceFunctionsArgs(
                prefix=prefix,
                project=project,
                region=s.region,
                labels=labels,
                settings=s.automation,
                budget_topic_id=budget.topic_id,
                policy=budget.budget_id.apply(lambda budget_id: action_settings(s, budget_id)),
                allow_billing_disable=billing_disable_allowed(s),
            ),
        )

    if s.notebooks:
        platform.notebooks = NotebookFleet(
            "notebooks",
            NotebookFleetArgs(
                prefix=prefix,
                project=project,
                region=s.region,
                default_zone=s.zones[0],
                notebooks=s.notebooks,
                labels=labels,
                network_id=network.network_id,
                subnet_id=network.subnet_id,
            ),
        )
    if s.gke is not None:
        platform.cluster = MlCluster(
            "gke",
            MlClusterArgs(
                prefix=prefix,
                project=project,
                region=s.region,
                zones=s.zones,
                settings=s.gke,
                labels=labels,
                deletion_protection=s.is_prod,
                network_id=network.network_id,
                subnet_id=network.subnet_id,
                pods_range=network.pods_range,
                services_range=network.services_range,
                master_cidr=s.network.gke_master_cidr,
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
                default_zone=s.zones[0],
                zones=s.zones,
                labels=labels,
                pools=s.training_pools,
                tpu_vms=s.tpu_vms,
                gpu_vms=s.gpu_vms,
                network_id=network.network_id,
                subnet_id=network.subnet_id,
                cluster_name=cluster.cluster_name if cluster else None,
                node_service_account=cluster.node_service_account if cluster else None,
            ),
        )
    if s.metadata_db is not None:
        platform.metadata_db = MetadataDatabase(
            "metadata",
            MetadataDatabaseArgs(
                prefix=prefix,
                project=project,
                region=s.region,
                settings=s.metadata_db,
                labels=labels,
                backups=s.sql_backups(),
                deletion_protection=s.sql_deletion_protection(),
                network_id=network.network_id,
                depends_on=[network.peering],
            ),
        )
    for key, ds in s.datasets.items():
        platform.datasets[key] = PartitionedDataset(
            f"dataset-{key}",
            PartitionedDatasetArgs(
                project=project,
                dataset=key,
                location=s.dataset_location(ds.location),
                settings=ds,
                labels=labels,
                deletion_protection=s.is_prod,
            ),
        )
    return platform
