"""`Settings`: everything one stack configures, and the list of checks across its sections.

Each section is a model in its own module, with its own `problems(settings)` check when its
meaning depends on other sections (zones, limits, prod safety). Adding a section: a module with
the model (and `problems`), a field here, and, if it has one, its check in `CHECKS`.

A section's check does not name `Settings`: it takes a small Protocol of read-only properties,
defined next to it, with only what it reads (`_NotebooksStack`: the environment, the limits, the
zones, the notebooks). This module imports every section; were the sections to name `Settings`
back, even under TYPE_CHECKING, the folder would be one knot of seventeen files that a reader
(and pyright) must hold at once. With the Protocols each check still sits beside the model it
checks and is still checked strictly: pyright matches `Settings` against every Protocol where
`CHECKS` lists the check, so a field renamed or retyped here fails there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, Any, cast

from pydantic import Field, model_validator

from governance.costs.assumptions import UsageAssumptions
from governance.labels import label_problem, reserved_label_problem
from governance.settings import (
    acceptance,
    acknowledge,
    artifacts,
    billing_export,
    budget,
    datasets,
    gke,
    locations,
    log_volume,
    metadata_db,
    notebooks,
    offered,
    query_quotas,
    scopes,
    training,
)
from governance.settings.accepted import ProjectId
from governance.settings.acknowledge import Acknowledgement
from governance.settings.artifacts import ArtifactSettings
from governance.settings.automation import AutomationSettings
from governance.settings.base import (
    BigQueryKey,
    Environment,
    Model,
    Problem,
    Region,
    ResourceKey,
    Zone,
    matching,
)
from governance.settings.billing_export import BillingExportSettings
from governance.settings.budget import BudgetSettings
from governance.settings.datasets import DatasetSettings
from governance.settings.gke import GkeSettings
from governance.settings.limits import ENV_LIMITS, Limits, policy_config
from governance.settings.log_volume import LoggingSettings
from governance.settings.metadata_db import MetadataDbSettings
from governance.settings.network import NetworkSettings
from governance.settings.notebooks import NotebookSettings
from governance.settings.query_quotas import QueryQuotaSettings
from governance.settings.spend_caps import SpendCaps, no_spend_caps
from governance.settings.training import GpuVmSettings, TpuVmSettings, TrainingPoolSettings
from governance.settings.vertex import VertexSettings

# Labels the user must give, and the ones mlgov sets itself (base_labels, for_workload).
USER_LABELS = ("team", "cost-center")
MLGOV_LABELS = ("env", "managed-by", "workload")


class Settings(Model):
    """Everything one stack (environment) configures."""

    environment: Environment
    prefix: Annotated[
        str,
        matching(
            r"[a-z][a-z0-9-]{1,18}[a-z0-9]",
            "a name prefix: 3-20 lowercase letters, digits or hyphens, starting with a letter "
            "(e.g. acme-dev)",
        ),
    ]
    project: ProjectId
    project_number: Annotated[
        str, matching(r"[1-9][0-9]{5,19}", 'a project number: digits only (e.g. "123456789012")')
    ]
    region: Region
    zones: tuple[Zone, ...] = Field(min_length=1)
    billing_account: Annotated[
        str,
        matching(
            r"[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}",
            "a billing account id: XXXXXX-XXXXXX-XXXXXX of digits and A-F",
        ),
    ]
    labels: dict[str, str]
    limits: Limits
    network: NetworkSettings = NetworkSettings()
    notebooks: dict[ResourceKey, NotebookSettings] = Field(
        default_factory=dict[str, NotebookSettings]
    )
    gke: GkeSettings | None = None
    training_pools: dict[ResourceKey, TrainingPoolSettings] = Field(
        default_factory=dict[str, TrainingPoolSettings]
    )
    tpu_vms: dict[ResourceKey, TpuVmSettings] = Field(default_factory=dict[str, TpuVmSettings])
    gpu_vms: dict[ResourceKey, GpuVmSettings] = Field(default_factory=dict[str, GpuVmSettings])
    metadata_db: MetadataDbSettings | None = None
    datasets: dict[BigQueryKey, DatasetSettings] = Field(default_factory=dict[str, DatasetSettings])
    budget: BudgetSettings
    billing_export: BillingExportSettings = BillingExportSettings()
    automation: AutomationSettings = AutomationSettings()
    # Absent: not provisioned. Present (even `{}`): provisioned with per-environment defaults.
    artifacts: ArtifactSettings | None = None
    bigquery_quotas: QueryQuotaSettings | None = None
    logging: LoggingSettings | None = None
    vertex: VertexSettings | None = None
    usage: UsageAssumptions = Field(default_factory=UsageAssumptions)
    spend_caps: SpendCaps = Field(default_factory=no_spend_caps)
    # Weakening governance changes this stack accepts (the PR check's prod rule).
    acknowledge: tuple[Acknowledgement, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _environment_limits(cls, data: Any) -> Any:
        # Limits default per environment; a stack may override single keys.
        if isinstance(data, dict):
            raw: dict[str, Any] = dict(data)  # pyright: ignore[reportUnknownArgumentType]
            env = raw.get("environment")
            given: Any = raw.get("limits") or {}
            if isinstance(env, str) and env in ENV_LIMITS and isinstance(given, dict):
                raw["limits"] = {**ENV_LIMITS[env], **cast(dict[str, Any], given)}
            return raw
        return data

    # Derived views the platform assembly uses; computed here, never stored twice.
    @property
    def is_prod(self) -> bool:
        """Whether this stack is production (stricter safety defaults)."""
        return self.environment == "prod"

    def zone_for(self, zone: str | None) -> str:
        """The given zone, or the stack's first zone (where zonal resources go by default)."""
        return zone or self.zones[0]

    def sql_backups(self) -> bool:
        """Whether the metadata database keeps backups."""
        db = self.metadata_db
        chosen = db.backups if db is not None else None
        return chosen if chosen is not None else self.environment != "dev"

    def sql_deletion_protection(self) -> bool:
        """Whether the metadata database is protected from deletion."""
        db = self.metadata_db
        chosen = db.deletion_protection if db is not None else None
        return chosen if chosen is not None else self.is_prod

    def dataset_location(self, location: str | None) -> str:
        """A dataset's location: as configured, else the stack's region."""
        return location or self.region

    def bigquery_locations(self) -> set[str]:
        """Where BigQuery datasets may live: the region plus the allowed extra locations."""
        return {self.region, *self.limits.allowed_bigquery_locations}

    def policy_config(self) -> dict[str, Any]:
        """The per-stack policy configuration (the plan document's `policy_config`)."""
        return policy_config(
            self.environment,
            self.region,
            self.limits,
            billing_export_dataset=self.billing_export.dataset_id,
        )


# Pub/Sub topic and Cloud Storage bucket names may not begin with "goog"; the budget topic is
# named from the prefix, the function-source and artifact buckets from the project id.
_GOOG = "goog"


def stack_problems(s: Settings) -> Iterator[Problem]:
    """The stack-wide keys: names Google refuses, zones in the region, the attribution labels."""
    if s.prefix.startswith(_GOOG):
        yield (
            "prefix",
            f"{s.prefix!r} starts with {_GOOG!r}: the budget's Pub/Sub topic is named from it, "
            "and Pub/Sub refuses topic names that begin with 'goog'",
        )
    if s.project.startswith(_GOOG):
        yield (
            "project",
            f"{s.project!r} starts with {_GOOG!r}: mlgov's buckets are named from the project "
            "id, and Cloud Storage refuses bucket names that begin with 'goog'",
        )
    if locations.region_offered(s.region):  # else locations.py names the region, once
        for i, zone in enumerate(s.zones):
            if not zone.startswith(f"{s.region}-"):
                yield (
                    f"zones.{i}",
                    f"zone {zone!r} is not in region {s.region!r}; "
                    + (locations.zones_hint(s.region)),
                )
    for key, value in s.labels.items():
        if problem := reserved_label_problem(key) or label_problem(key, value):
            yield f"labels.{key}", problem
    for key in USER_LABELS:
        if key not in s.labels:
            yield f"labels.{key}", f"required cost-attribution label {key!r} is missing; add it"
    for key in MLGOV_LABELS:
        if key in s.labels:
            yield f"labels.{key}", f"label {key!r} is set by mlgov; remove it from labels"


# The checks across sections, in the order their problems are reported.
CHECKS: tuple[Callable[[Settings], Iterator[Problem]], ...] = (
    locations.problems,
    stack_problems,
    notebooks.problems,
    gke.problems,
    training.problems,
    offered.problems,
    metadata_db.problems,
    datasets.problems,
    billing_export.problems,
    budget.problems,
    scopes.problems,
    artifacts.problems,
    query_quotas.problems,
    log_volume.problems,
    acceptance.problems,
    acknowledge.problems,
)


def semantic_problems(s: Settings) -> Iterator[Problem]:
    """(key path, message) for each cross-field problem; the paths are relative to ROOT."""
    for check in CHECKS:
        yield from check(s)
