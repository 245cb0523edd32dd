"""Stack settings: the typed, validated form of `mlgov:settings` (and `gcp:project`/`gcp:region`).

This is the ONLY module that reads `pulumi.Config`. Structure (types, ranges, unknown keys) is
checked by pydantic; meaning across fields (zones in the region, idle timeouts under the
environment's maximum, allow-lists, prod safety) is checked by `_semantic_problems`, which reports
the exact key path of each problem. Errors become one line per problem, each naming the key path
and the fix, raised as `SettingsError` (a `pulumi.errors.RunError`, so `pulumi up` ends without a
stack trace, and the offline CLI exits 2).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Mapping
from datetime import date
from typing import Annotated, Any, Literal, cast, get_args, get_origin

from pulumi.errors import RunError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from governance.costs.assumptions import UsageAssumptions
from governance.labels import REQUIRED_KEYS, label_problem

Environment = Literal["dev", "staging", "prod"]
ROOT = "mlgov:settings"

_REGION = r"[a-z]+-[a-z]+[0-9]+"
_ZONE = r"[a-z]+-[a-z]+[0-9]+-[a-z]"
_HHMM = r"([01][0-9]|2[0-3]):[0-5][0-9]"

Positive = Annotated[int, Field(gt=0)]
Fraction = Annotated[float, Field(gt=0, le=5)]


class SettingsError(RunError):
    """Invalid stack configuration; the message has one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("invalid stack config:\n" + "\n".join(f"  {p}" for p in problems))


class _Model(BaseModel):
    # extra="forbid": a typo in a key is an error, not a silently ignored setting.
    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- limits per env
class Limits(_Model):
    """Guardrails per environment; the policy checks enforce the same values."""

    max_idle_minutes: Annotated[int, Field(ge=10, le=1440)]
    notebook_machine_types: tuple[str, ...]
    notebook_gpu_types: tuple[str, ...]
    sql_tiers: tuple[str, ...]
    allowed_bigquery_locations: tuple[str, ...] = ()
    max_gpu_vm_run_hours: Annotated[int, Field(ge=1, le=720)] = 24


_SMALL_MACHINES = ("e2-standard-2", "e2-standard-4", "n1-standard-4", "n2-standard-4")
ENV_LIMITS: dict[str, dict[str, Any]] = {
    "dev": {
        "max_idle_minutes": 120,
        "notebook_machine_types": [*_SMALL_MACHINES, "n1-standard-8", "g2-standard-4"],
        "notebook_gpu_types": ["NVIDIA_TESLA_T4", "NVIDIA_L4"],
        "sql_tiers": ["db-g1-small", "db-custom-1-3840", "db-custom-2-7680"],
        "max_gpu_vm_run_hours": 12,
    },
    "staging": {
        "max_idle_minutes": 180,
        "notebook_machine_types": [
            *_SMALL_MACHINES,
            "n1-standard-8",
            "n2-standard-8",
            "g2-standard-8",
        ],
        "notebook_gpu_types": ["NVIDIA_TESLA_T4", "NVIDIA_L4"],
        "sql_tiers": ["db-custom-1-3840", "db-custom-2-7680", "db-custom-4-15360"],
        "max_gpu_vm_run_hours": 24,
    },
    "prod": {
        "max_idle_minutes": 240,
        "notebook_machine_types": [
            *_SMALL_MACHINES,
            "n1-standard-8",
            "n1-standard-16",
            "n2-standard-8",
            "n2-standard-16",
            "g2-standard-8",
            "g2-standard-16",
        ],
        "notebook_gpu_types": ["NVIDIA_TESLA_T4", "NVIDIA_L4", "NVIDIA_TESLA_V100"],
        "sql_tiers": ["db-custom-2-7680", "db-custom-4-15360", "db-custom-8-30720"],
        "max_gpu_vm_run_hours": 72,
    },
}


# --------------------------------------------------------------------------- pieces
class NetworkSettings(_Model):
    """The VPC mlgov creates: one subnet in the region, private access, NAT for egress."""

    subnet_cidr: str = "10.10.0.0/20"
    pods_cidr: str = "10.20.0.0/16"
    services_cidr: str = "10.30.0.0/20"
    gke_master_cidr: str = "172.16.0.32/28"
    private_service_prefix_length: Annotated[int, Field(ge=16, le=24)] = 20

    @field_validator("subnet_cidr", "pods_cidr", "services_cidr", "gke_master_cidr")
    @classmethod
    def _cidr(cls, value: str) -> str:
        if not re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}/\d{1,2}", value):
            raise ValueError("must be an IPv4 CIDR range such as 10.10.0.0/20")
        return value


class GpuSettings(_Model):
    """An accelerator attached to a notebook or VM."""

    type: str
    count: Annotated[int, Field(ge=1, le=8)] = 1


class OfficeHours(_Model):
    """Stop (and optionally start) a notebook on a weekly schedule, in a time zone."""

    stop: Annotated[str, Field(pattern=_HHMM)] = "19:00"
    start: Annotated[str, Field(pattern=_HHMM)] | None = None
    days: Annotated[str, Field(pattern=r"[0-6](-[0-6])?(,[0-6](-[0-6])?)*")] = "1-5"
    timezone: str = "Etc/UTC"


class NotebookSettings(_Model):
    """One Workbench instance."""

    owner: Annotated[str, Field(pattern=r"[^@\s]+@[^@\s]+\.[^@\s]+")] | None = None
    machine_type: str = "e2-standard-4"
    zone: Annotated[str, Field(pattern=_ZONE)] | None = None
    idle_minutes: Annotated[int, Field(ge=10, le=1440)] = 60
    gpu: GpuSettings | None = None
    boot_disk_gb: Annotated[int, Field(ge=150, le=4096)] = 150
    data_disk_gb: Annotated[int, Field(ge=10, le=65536)] = 100
    office_hours: OfficeHours | None = None
    expires_on: date | None = None
    exempt: bool = False


class AutoprovisioningSettings(_Model):
    """Node auto-provisioning limits: the most NAP may ever create, cluster-wide."""

    max_cpu: Positive = 64
    max_memory_gb: Positive = 256
    accelerators: dict[str, Annotated[int, Field(ge=0, le=512)]] = Field(
        default_factory=lambda: {"nvidia-tesla-t4": 4}
    )


class SystemPoolSettings(_Model):
    """The small on-demand pool for cluster services."""

    machine_type: str = "e2-standard-4"
    min_nodes: Annotated[int, Field(ge=0, le=10)] = 1
    max_nodes: Annotated[int, Field(ge=1, le=20)] = 3


class GkeSettings(_Model):
    """The GKE cluster training pools run in."""

    release_channel: Literal["RAPID", "REGULAR", "STABLE"] = "REGULAR"
    system_pool: SystemPoolSettings = SystemPoolSettings()
    autoprovisioning: AutoprovisioningSettings = AutoprovisioningSettings()


class TrainingPoolSettings(_Model):
    """A GKE node pool for training: GPUs or TPUs, spot, scaling from zero."""

    kind: Literal["gpu", "tpu"] = "gpu"
    machine_type: str = "n1-standard-8"
    accelerator: str | None = None
    accelerator_count: Annotated[int, Field(ge=1, le=16)] = 1
    tpu_topology: Annotated[str, Field(pattern=r"\d+x\d+(x\d+)?")] | None = None
    max_nodes: Annotated[int, Field(ge=1, le=1000)] = 4
    zones: tuple[Annotated[str, Field(pattern=_ZONE)], ...] = ()
    spot: bool = True
    disk_gb: Annotated[int, Field(ge=10, le=65536)] = 100


class TpuVmSettings(_Model):
    """A standalone Cloud TPU VM (spot)."""

    accelerator_type: str = "v5litepod-8"
    runtime_version: str = "v2-alpha-tpuv5-lite"
    zone: Annotated[str, Field(pattern=_ZONE)] | None = None
    spot: bool = True
    expires_on: date | None = None
    exempt: bool = False


class GpuVmSettings(_Model):
    """A standalone GPU VM for a training job: spot, stopped after `max_run_hours`."""

    machine_type: str = "g2-standard-8"
    gpu: GpuSettings = GpuSettings(type="nvidia-l4")
    zone: Annotated[str, Field(pattern=_ZONE)] | None = None
    max_run_hours: Annotated[int, Field(ge=1, le=720)] = 8
    image: str = (
        "projects/deeplearning-platform-release/global/images/family/common-cu123-debian-11"
    )
    disk_gb: Annotated[int, Field(ge=50, le=65536)] = 200
    expires_on: date | None = None
    exempt: bool = False


class MetadataDbSettings(_Model):
    """Cloud SQL (PostgreSQL) for ML pipeline metadata."""

    tier: str = "db-custom-1-3840"
    database_version: Literal["POSTGRES_14", "POSTGRES_15", "POSTGRES_16", "MYSQL_8_0"] = (
        "POSTGRES_15"
    )
    disk_gb: Annotated[int, Field(ge=10, le=65536)] = 20
    high_availability: bool = False
    backups: bool | None = None  # None: on in staging and prod, off in dev
    deletion_protection: bool | None = None  # None: on in prod only


class TableSettings(_Model):
    """A time-partitioned BigQuery table."""

    partition_field: str | None = None  # None: ingestion-time partitioning
    partition_type: Literal["HOUR", "DAY", "MONTH", "YEAR"] = "DAY"
    large: bool = False  # large tables require a partition filter in queries
    clustering: tuple[str, ...] = ()
    schema_fields: tuple[dict[str, str], ...] = Field(default=(), alias="schema")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class DatasetSettings(_Model):
    """A BigQuery dataset with default expirations."""

    location: str | None = None  # None: the stack's region
    table_expiration_days: Annotated[int, Field(ge=1, le=3650)] | None = None
    partition_expiration_days: Annotated[int, Field(ge=1, le=3650)] | None = 90
    tables: dict[str, TableSettings] = Field(default_factory=dict[str, TableSettings])


class BudgetSettings(_Model):
    """The monthly budget for the stack's project."""

    amount_usd: Positive
    thresholds: tuple[Fraction, ...] = (0.5, 0.9, 1.0)  # fractions of the budget, actual
    forecast_thresholds: tuple[Fraction, ...] = (1.0,)  # fractions, forecast spend
    stop_at: Fraction | None = 1.0  # stop governed workloads at this fraction (actual)
    disable_billing_at: Fraction | None = None  # unlink billing at this fraction (actual)


class BillingExportSettings(_Model):
    """The dataset the Cloud Billing export writes to (the export itself is a console step)."""

    dataset_id: Annotated[str, Field(pattern=r"[A-Za-z_][A-Za-z0-9_]{0,1023}")] = "billing_export"
    location: str | None = None


class AutomationSettings(_Model):
    """The governance functions: what they may do and when they run."""

    enabled: bool = True
    dry_run: bool = True
    allow_billing_disable: bool = False
    reap_idle_vms_schedule: str = "0 * * * *"
    reap_expired_schedule: str = "30 6 * * *"
    reap_idle_gpus_schedule: str = "*/30 * * * *"
    time_zone: str = "Etc/UTC"
    # gt=0: the functions reject a zero threshold (a GPU at exactly 0% would never count as idle).
    idle_gpu_max_utilization_percent: Annotated[float, Field(gt=0, le=100)] = 5.0
    idle_gpu_window_minutes: Annotated[int, Field(ge=10, le=1440)] = 60
    idle_gpu_workloads: tuple[Annotated[str, Field(min_length=1)], ...] = Field(
        default=("training", "notebook"), min_length=1
    )
    http_timeout_seconds: Annotated[int, Field(ge=60, le=1800)] = 900  # reapers; <= Scheduler max
    max_instances: Annotated[int, Field(ge=1, le=10)] = 1  # per function: one run at a time

    @field_validator("reap_idle_vms_schedule", "reap_expired_schedule", "reap_idle_gpus_schedule")
    @classmethod
    def _cron(cls, value: str) -> str:
        # Cloud Scheduler takes unix-cron: exactly five fields (minute hour day month weekday).
        if len(value.split()) != 5 or not re.fullmatch(r"[0-9A-Za-z*/,\- ]+", value):
            raise ValueError("must be a unix-cron schedule with five fields, e.g. '0 * * * *'")
        return value


# --------------------------------------------------------------------------- the root
class Settings(_Model):
    """Everything one stack (environment) configures."""

    environment: Environment
    prefix: Annotated[str, Field(pattern=r"[a-z][a-z0-9-]{1,18}[a-z0-9]")]
    project: Annotated[str, Field(pattern=r"[a-z][a-z0-9-]{4,28}[a-z0-9]")]
    project_number: Annotated[str, Field(pattern=r"[0-9]{6,20}")]
    region: Annotated[str, Field(pattern=_REGION)]
    zones: tuple[Annotated[str, Field(pattern=_ZONE)], ...] = Field(min_length=1)
    billing_account: Annotated[str, Field(pattern=r"[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}")]
    labels: dict[str, str]
    limits: Limits
    network: NetworkSettings = NetworkSettings()
    notebooks: dict[str, NotebookSettings] = Field(default_factory=dict[str, NotebookSettings])
    gke: GkeSettings | None = None
    training_pools: dict[str, TrainingPoolSettings] = Field(
        default_factory=dict[str, TrainingPoolSettings]
    )
    tpu_vms: dict[str, TpuVmSettings] = Field(default_factory=dict[str, TpuVmSettings])
    gpu_vms: dict[str, GpuVmSettings] = Field(default_factory=dict[str, GpuVmSettings])
    metadata_db: MetadataDbSettings | None = None
    datasets: dict[str, DatasetSettings] = Field(default_factory=dict[str, DatasetSettings])
    budget: BudgetSettings
    billing_export: BillingExportSettings = BillingExportSettings()
    automation: AutomationSettings = AutomationSettings()
    usage: UsageAssumptions = Field(default_factory=UsageAssumptions)

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

    # Convenience views the components use; derived, never stored twice.
    @property
    def is_prod(self) -> bool:
        """Whether this stack is production (stricter safety defaults)."""
        return self.environment == "prod"

    def zone_for(self, zone: str | None) -> str:
        """The given zone, or the stack's first zone."""
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

    def policy_config(self) -> dict[str, Any]:
        """The per-stack policy configuration (the plan document's `policy_config`)."""
        return {
            "environment": self.environment,
            "region": self.region,
            "allowed_bigquery_locations": [self.region, *self.limits.allowed_bigquery_locations],
            "max_idle_minutes": self.limits.max_idle_minutes,
            "notebook_machine_types": list(self.limits.notebook_machine_types),
            "notebook_gpu_types": list(self.limits.notebook_gpu_types),
            "sql_tiers": list(self.limits.sql_tiers),
            "billing_export_dataset": self.billing_export.dataset_id,
            "required_labels": list(REQUIRED_KEYS),
        }


# --------------------------------------------------------------------------- semantic checks
def _semantic_problems(s: Settings) -> Iterator[tuple[str, str]]:
    """(key path, message) for each cross-field problem; the paths are relative to ROOT."""
    region_prefix = f"{s.region}-"
    for i, zone in enumerate(s.zones):
        if not zone.startswith(region_prefix):
            yield f"zones.{i}", f"zone {zone!r} is not in region {s.region!r}; use {s.region}-a/b/c"
    for key, value in s.labels.items():
        if problem := label_problem(key, value):
            yield f"labels.{key}", problem
    for key in ("team", "cost-center"):
        if key not in s.labels:
            yield f"labels.{key}", f"required cost-attribution label {key!r} is missing; add it"
    for key in ("env", "managed-by", "workload"):
        if key in s.labels:
            yield f"labels.{key}", f"label {key!r} is set by mlgov; remove it from labels"

    lim = s.limits
    for name, nb in s.notebooks.items():
        path = f"notebooks.{name}"
        if nb.zone is not None and nb.zone not in s.zones:
            yield (
                f"{path}.zone",
                (
                    f"zone {nb.zone!r} is not one of the stack's zones "
                    f"{list(s.zones)}; notebooks must run next to the data"
                ),
            )
        if nb.idle_minutes > lim.max_idle_minutes:
            yield (
                f"{path}.idle_minutes",
                (
                    f"{nb.idle_minutes} is above the {s.environment} maximum of "
                    f"{lim.max_idle_minutes}; lower it or raise limits.max_idle_minutes"
                ),
            )
        if nb.machine_type not in lim.notebook_machine_types:
            yield (
                f"{path}.machine_type",
                (
                    f"{nb.machine_type!r} is not allowed in {s.environment}; allowed: "
                    f"{list(lim.notebook_machine_types)} (or extend limits.notebook_machine_types)"
                ),
            )
        if nb.gpu is not None and nb.gpu.type not in lim.notebook_gpu_types:
            yield (
                f"{path}.gpu.type",
                (
                    f"{nb.gpu.type!r} is not allowed in {s.environment}; allowed: "
                    f"{list(lim.notebook_gpu_types)} (Workbench names, e.g. NVIDIA_TESLA_T4)"
                ),
            )

    if s.training_pools and s.gke is None:
        yield "gke", "training_pools need a GKE cluster; add a `gke:` section"
    for name, pool in s.training_pools.items():
        path = f"training_pools.{name}"
        for i, zone in enumerate(pool.zones):
            if zone not in s.zones:
                yield f"{path}.zones.{i}", f"zone {zone!r} is not one of the stack's zones"
        if pool.kind == "gpu" and pool.accelerator is None:
            yield f"{path}.accelerator", "a gpu pool needs an accelerator, e.g. nvidia-tesla-t4"
        if pool.kind == "tpu" and not pool.machine_type.startswith("ct"):
            yield (
                f"{path}.machine_type",
                ("a tpu pool needs a TPU machine type, e.g. ct5lp-hightpu-4t"),
            )
        if not pool.spot:
            yield (
                f"{path}.spot",
                ("training pools run on spot capacity (60-91% cheaper); set spot: true"),
            )
    for name, tpu in s.tpu_vms.items():
        if tpu.zone is not None and tpu.zone not in s.zones:
            yield f"tpu_vms.{name}.zone", f"zone {tpu.zone!r} is not one of the stack's zones"
        if not tpu.spot:
            yield f"tpu_vms.{name}.spot", "TPU VMs run on spot capacity; set spot: true"
    for name, vm in s.gpu_vms.items():
        if vm.zone is not None and vm.zone not in s.zones:
            yield f"gpu_vms.{name}.zone", f"zone {vm.zone!r} is not one of the stack's zones"
        if vm.max_run_hours > lim.max_gpu_vm_run_hours:
            yield (
                f"gpu_vms.{name}.max_run_hours",
                (
                    f"{vm.max_run_hours} is above the {s.environment} maximum of "
                    f"{lim.max_gpu_vm_run_hours}; lower it or raise limits.max_gpu_vm_run_hours"
                ),
            )

    if (db := s.metadata_db) is not None:
        if db.tier not in lim.sql_tiers:
            yield (
                "metadata_db.tier",
                (f"{db.tier!r} is not allowed in {s.environment}; allowed: {list(lim.sql_tiers)}"),
            )
        if s.is_prod and db.backups is False:
            yield "metadata_db.backups", "prod keeps backups of pipeline metadata; remove the key"
        if s.is_prod and db.deletion_protection is False:
            yield (
                "metadata_db.deletion_protection",
                ("prod keeps deletion protection; remove the key"),
            )

    allowed_locations = {s.region, *lim.allowed_bigquery_locations}
    for name, ds in s.datasets.items():
        if ds.location is not None and ds.location not in allowed_locations:
            yield (
                f"datasets.{name}.location",
                (
                    f"{ds.location!r} is not the stack's region {s.region!r}; keep data next to "
                    "compute or add it to limits.allowed_bigquery_locations"
                ),
            )
        if ds.table_expiration_days is None and ds.partition_expiration_days is None:
            yield (
                f"datasets.{name}",
                ("set table_expiration_days or partition_expiration_days so unneeded data expires"),
            )
    if s.billing_export.location not in (None, *allowed_locations):
        yield (
            "billing_export.location",
            (f"{s.billing_export.location!r} is not the stack's region {s.region!r}"),
        )
    if s.billing_export.dataset_id in s.datasets:
        yield (
            "billing_export.dataset_id",
            ("the billing export dataset must not also be a managed dataset (it never expires)"),
        )

    b = s.budget
    if b.disable_billing_at is not None:
        if s.is_prod:
            yield (
                "budget.disable_billing_at",
                (
                    "unlinking billing stops every service in the "
                    "project; it is never allowed in prod: remove it"
                ),
            )
        elif not s.automation.allow_billing_disable:
            yield (
                "budget.disable_billing_at",
                (
                    "unlinking billing stops every service in the project and may delete "
                    "resources; "
                    "set automation.allow_billing_disable: true to confirm"
                ),
            )
        if b.stop_at is not None and b.disable_billing_at < b.stop_at:
            yield (
                "budget.disable_billing_at",
                (
                    f"{b.disable_billing_at} is below stop_at "
                    f"{b.stop_at}; unlink only after stopping"
                ),
            )
    if s.is_prod and s.automation.allow_billing_disable:
        yield "automation.allow_billing_disable", "billing unlink is never enabled for prod"
    if list(b.thresholds) != sorted(set(b.thresholds)):
        yield "budget.thresholds", "thresholds must be distinct and ascending, e.g. [0.5, 0.9, 1.0]"


# --------------------------------------------------------------------------- parsing
def _path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in (ROOT, *loc))


def _message(err: Mapping[str, Any]) -> str:
    msg = str(err["msg"])
    if err["type"] == "extra_forbidden":
        model = _model_at(err["loc"][:-1])
        close = difflib.get_close_matches(str(err["loc"][-1]), model, n=1) if model else []
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"unknown key{hint}"
    if err["type"] == "missing":
        return "required key is missing"
    return msg


def _model_at(loc: tuple[Any, ...]) -> list[str]:
    """Known keys of the model at `loc`, for 'did you mean' hints ([] if unknown)."""
    model: type[BaseModel] = Settings
    user_key_next = False  # inside `dict[str, Model]`, the next part is a name the user chose
    for part in loc:
        if isinstance(part, int) or user_key_next:
            user_key_next = False
            continue
        field = model.model_fields.get(str(part))
        if field is None:
            return []
        args = get_args(field.annotation) or (field.annotation,)
        models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        if not models:
            return []
        model = models[0]
        user_key_next = get_origin(field.annotation) is dict
    return list(model.model_fields)


def parse_settings(raw: Any) -> Settings:
    """Validate raw `mlgov:settings` (plus injected project/region); pure, for tests and the CLI."""
    if not isinstance(raw, Mapping):
        raise SettingsError([f"{ROOT}: must be a mapping of settings, got {type(raw).__name__}"])
    data: Mapping[str, Any] = raw  # pyright: ignore[reportUnknownVariableType]
    try:
        settings = Settings.model_validate(dict(data))
    except ValidationError as err:
        problems = [f"{_path(e['loc'])}: {_message(e)}" for e in err.errors()]  # pyright: ignore[reportArgumentType]
        raise SettingsError(problems) from None
    problems = [f"{ROOT}.{path}: {msg}" for path, msg in _semantic_problems(settings)]
    if problems:
        raise SettingsError(problems)
    return settings


def settings_from_config(config: Mapping[str, Any]) -> Settings:
    """Settings from a flat Pulumi config map (`{"gcp:project": ..., "mlgov:settings": {...}}`).

    Values may be JSON strings, as the Pulumi CLI passes structured config.
    """

    def value(key: str) -> Any:
        v = config.get(key)
        if isinstance(v, str) and key == f"{ROOT}":
            try:
                return json.loads(v)
            except ValueError:
                raise SettingsError([f"{ROOT}: is not valid JSON"]) from None
        return v

    raw = value(ROOT)
    if raw is None:
        raise SettingsError([f"{ROOT}: required key is missing; see stacks/Pulumi.dev.yaml"])
    if not isinstance(raw, Mapping):
        raise SettingsError([f"{ROOT}: must be a mapping of settings"])
    merged: dict[str, Any] = dict(raw)  # pyright: ignore[reportUnknownArgumentType]
    problems: list[str] = []
    for provider_key, field_name in (("gcp:project", "project"), ("gcp:region", "region")):
        given = config.get(provider_key)
        if given is None:
            if field_name not in merged:
                problems.append(f"{provider_key}: required key is missing")
        elif field_name in merged and merged[field_name] != given:
            problems.append(
                f"{ROOT}.{field_name}: {merged[field_name]!r} differs from "
                f"{provider_key} {given!r}; set it once, in {provider_key}"
            )
        else:
            merged[field_name] = given
    if problems:
        raise SettingsError(problems)
    return parse_settings(merged)


def read_settings() -> Settings:
    """The stack's settings, read from Pulumi config (the only pulumi.Config reader)."""
    import pulumi

    gcp = pulumi.Config("gcp")
    config: dict[str, Any] = {
        "gcp:project": gcp.get("project"),
        "gcp:region": gcp.get("region"),
        ROOT: pulumi.Config("mlgov").get_object("settings"),
    }
    return settings_from_config(config)
