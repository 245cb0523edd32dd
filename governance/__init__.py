"""mlgov's Pulumi side: validated settings, labels, one module per component, the offline CLI.

The public components are re-exported lazily, so `python -m governance check` does not pay for
importing pulumi_gcp (about 1.5 s) when it only evaluates a plan document.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from governance.billing_export import BillingExport
    from governance.budgets import ProjectBudget
    from governance.datasets import PartitionedDataset
    from governance.gke import MlCluster
    from governance.metadata_db import MetadataDatabase
    from governance.network import MlNetwork
    from governance.notebooks import NotebookFleet
    from governance.training import SpotTrainingPools

_EXPORTS = {
    "MlNetwork": "governance.network",
    "NotebookFleet": "governance.notebooks",
    "MlCluster": "governance.gke",
    "SpotTrainingPools": "governance.training",
    "MetadataDatabase": "governance.metadata_db",
    "PartitionedDataset": "governance.datasets",
    "ProjectBudget": "governance.budgets",
    "BillingExport": "governance.billing_export",
}

__all__ = [  # noqa: RUF022 - grouped as in _EXPORTS
    "MlNetwork",
    "NotebookFleet",
    "MlCluster",
    "SpotTrainingPools",
    "MetadataDatabase",
    "PartitionedDataset",
    "ProjectBudget",
    "BillingExport",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'governance' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
