"""Stack settings: the typed, validated form of `mlgov:settings` (and `gcp:project`/`gcp:region`).

One module per section (network.py, notebooks.py, training.py, ...), each with its model and the
checks of its meaning across sections; the root model and the order of those checks in root.py;
error lines in errors.py; reading and parsing config in parse.py (the only `pulumi.Config`
reader). Errors are one line per problem, naming the key the user wrote and the fix, raised as
`SettingsError` (a `pulumi.errors.RunError`, so `pulumi up` ends without a stack trace, and the
offline CLI exits 2).
"""

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
