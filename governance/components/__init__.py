"""mlgov's Pulumi components, importable from any Pulumi program.

    from governance.components import NotebookFleet, NotebookFleetArgs, Notebook

Each component takes one frozen dataclass of plain values and `pulumi.Input`s (its `...Args`);
none reads config or validates meaning. `build_platform` (program.py) is mlgov's own assembly:
it turns validated stack settings into these args. Importing this package loads pulumi_gcp.
"""

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
from governance.components.gke import Autoprovisioning, MlCluster, MlClusterArgs, SystemPool
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
from governance.components.program import Platform, build_platform
from governance.components.query_quotas import QueryQuotas, QueryQuotasArgs
from governance.components.scope_grants import Scope
from governance.components.training import (
    GpuVm,
    SpotTrainingPools,
    SpotTrainingPoolsArgs,
    TpuVm,
    TrainingPool,
)
from governance.components.vertex import VertexTracking, VertexTrackingArgs
from governance.components.worker_sizing import WorkerSize, worker_size
from governance.labels import Labels, base_labels

__all__ = [
    "Accelerator",
    "ArtifactBucket",
    "ArtifactRepository",
    "ArtifactStore",
    "ArtifactStoreArgs",
    "Autoprovisioning",
    "BillingExport",
    "BillingExportArgs",
    "FanOut",
    "GovernanceFunctions",
    "GovernanceFunctionsArgs",
    "GpuVm",
    "Labels",
    "LogVolume",
    "LogVolumeArgs",
    "MetadataDatabase",
    "MetadataDatabaseArgs",
    "MlCluster",
    "MlClusterArgs",
    "MlNetwork",
    "MlNetworkArgs",
    "Notebook",
    "NotebookFleet",
    "NotebookFleetArgs",
    "OfficeHours",
    "PartitionedDataset",
    "PartitionedDatasetArgs",
    "Platform",
    "ProjectBudget",
    "ProjectBudgetArgs",
    "QueryQuotas",
    "QueryQuotasArgs",
    "Scope",
    "SpotTrainingPools",
    "SpotTrainingPoolsArgs",
    "SystemPool",
    "Table",
    "TpuVm",
    "TrainingPool",
    "VertexTracking",
    "VertexTrackingArgs",
    "WorkerSize",
    "base_labels",
    "build_platform",
    "worker_size",
]
