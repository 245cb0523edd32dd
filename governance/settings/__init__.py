"""Stack settings: the typed, validated form of `mlgov:settings` (and `gcp:project`/`gcp:region`).

One module per section (network.py, notebooks.py, training.py, ...), each with its model and the
checks of its meaning across sections; the root model and the order of those checks in root.py;
error lines in errors.py; reading and parsing config in parse.py (the only `pulumi.Config`
reader). Errors are one line per problem, naming the key the user wrote and the fix, raised as
`SettingsError` (a `pulumi.errors.RunError`, so `pulumi up` ends without a stack trace, and the
offline CLI exits 2).

Importing a submodule (`governance.settings.locations`, say) loads this package first, so the
names below are loaded on first use (PEP 562) rather than here: a reader that needs one location
check does not pay for every settings model and for pulumi (~0.6 s of CPU per CLI run).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from governance.settings.artifacts import (
        ArtifactBucketSettings,
        ArtifactRepositorySettings,
        ArtifactSettings,
    )
    from governance.settings.automation import AutomationSettings
    from governance.settings.base import Environment
    from governance.settings.billing_export import BillingExportSettings
    from governance.settings.budget import BudgetSettings
    from governance.settings.datasets import DatasetSettings, TableSettings
    from governance.settings.errors import ROOT, SettingsError, SettingsWarning
    from governance.settings.gke import AutoprovisioningSettings, GkeSettings, SystemPoolSettings
    from governance.settings.limits import ENV_LIMITS, Limits
    from governance.settings.log_volume import LoggingSettings
    from governance.settings.metadata_db import MetadataDbSettings
    from governance.settings.network import NetworkSettings
    from governance.settings.notebooks import GpuSettings, NotebookSettings, OfficeHours
    from governance.settings.parse import (
        parse_settings,
        read_settings,
        settings_from_config,
        settings_warnings,
    )
    from governance.settings.query_quotas import QueryQuotaSettings
    from governance.settings.root import Settings
    from governance.settings.training import GpuVmSettings, TpuVmSettings, TrainingPoolSettings
    from governance.settings.vertex import VertexSettings

_WHERE: dict[str, str] = {
    "ArtifactBucketSettings": "governance.settings.artifacts",
    "ArtifactRepositorySettings": "governance.settings.artifacts",
    "ArtifactSettings": "governance.settings.artifacts",
    "AutomationSettings": "governance.settings.automation",
    "AutoprovisioningSettings": "governance.settings.gke",
    "BillingExportSettings": "governance.settings.billing_export",
    "BudgetSettings": "governance.settings.budget",
    "DatasetSettings": "governance.settings.datasets",
    "ENV_LIMITS": "governance.settings.limits",
    "Environment": "governance.settings.base",
    "GkeSettings": "governance.settings.gke",
    "GpuSettings": "governance.settings.notebooks",
    "GpuVmSettings": "governance.settings.training",
    "Limits": "governance.settings.limits",
    "LoggingSettings": "governance.settings.log_volume",
    "MetadataDbSettings": "governance.settings.metadata_db",
    "NetworkSettings": "governance.settings.network",
    "NotebookSettings": "governance.settings.notebooks",
    "OfficeHours": "governance.settings.notebooks",
    "QueryQuotaSettings": "governance.settings.query_quotas",
    "ROOT": "governance.settings.errors",
    "Settings": "governance.settings.root",
    "SettingsError": "governance.settings.errors",
    "SettingsWarning": "governance.settings.errors",
    "SystemPoolSettings": "governance.settings.gke",
    "TableSettings": "governance.settings.datasets",
    "TpuVmSettings": "governance.settings.training",
    "TrainingPoolSettings": "governance.settings.training",
    "VertexSettings": "governance.settings.vertex",
    "parse_settings": "governance.settings.parse",
    "read_settings": "governance.settings.parse",
    "settings_from_config": "governance.settings.parse",
    "settings_warnings": "governance.settings.parse",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: later lookups are plain attribute reads
    return value


__all__ = [
    "ENV_LIMITS",
    "ROOT",
    "ArtifactBucketSettings",
    "ArtifactRepositorySettings",
    "ArtifactSettings",
    "AutomationSettings",
    "AutoprovisioningSettings",
    "BillingExportSettings",
    "BudgetSettings",
    "DatasetSettings",
    "Environment",
    "GkeSettings",
    "GpuSettings",
    "GpuVmSettings",
    "Limits",
    "LoggingSettings",
    "MetadataDbSettings",
    "NetworkSettings",
    "NotebookSettings",
    "OfficeHours",
    "QueryQuotaSettings",
    "Settings",
    "SettingsError",
    "SettingsWarning",
    "SystemPoolSettings",
    "TableSettings",
    "TpuVmSettings",
    "TrainingPoolSettings",
    "VertexSettings",
    "parse_settings",
    "read_settings",
    "settings_from_config",
    "settings_warnings",
]
