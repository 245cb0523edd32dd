"""Every field a stack's `mlgov:settings` (and `mlgov:plan`) can carry, classified, and each
governance field shown as a weakening when a PR moves it the weakening way (and not the other).

`FIELDS` walks the settings models: a field added without a line in one of the tables below fails
`test_every_field_is_classified`, so nobody adds a setting the PR check has not been asked about.
Each governance field is planned on the shipped prod stack with one edit, in-process as
`mlgov plan` does, and compared with the governance diff a reviewer sees.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any, get_args, get_origin

import pytest
from pydantic import BaseModel

from governance.errors import CliError
from governance.review.govdiff import review
from governance.settings.context import PlanSettings
from governance.settings.errors import key_part
from governance.settings.root import Settings
from tests.govdiff.stacks import config_of, plan

# --------------------------------------------------------------------------- the walk


def _models(annotation: Any) -> Iterator[tuple[type[BaseModel], bool]]:
    """(model, is a named entry) inside an annotation (Optional, tuple, dict values)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation, False
        return
    args = get_args(annotation)
    if get_origin(annotation) is dict:
        for model, _ in _models(args[1]):
            yield model, True
        return
    for arg in args:
        yield from _models(arg)


def walk(model: type[BaseModel], prefix: str = "") -> Iterator[str]:
    """Dotted paths of every leaf field (`<name>` where the user names an entry)."""
    for name, field in model.model_fields.items():
        path = prefix + (field.alias or name)
        found = list(_models(field.annotation))
        if not found:
            yield path
        for sub, named in found:
            yield from walk(sub, f"{path}.<name>." if named else f"{path}.")


FIELDS = sorted(set(walk(Settings)))
PLAN_FIELDS = sorted(set(walk(PlanSettings)))

# --------------------------------------------------------------------------- the classification
SKIP = object()
"""No such edit: that direction cannot be planned (said where it is used)."""
REMOVE = object()
"""The key removed from the stack file (None sets it to null)."""
# path -> (a weaker value, a stronger value): moving the prod stack's value to the first must show
# a governance weakening; to the second, none.
WEAKER: dict[str, tuple[Any, Any]] = {
    "environment": ("staging", SKIP),
    "project": ("acme-ml-prod-2", SKIP),
    "project_number": ("345678901299", SKIP),
    "billing_account": ("01D4EE-079462-DFD6ED", SKIP),
    # Fewer zones cannot be planned without moving what runs there; more zones weaken nothing.
    "zones": (SKIP, ["europe-west4-a", "europe-west4-b", "europe-west4-c"]),
    "limits.max_idle_minutes": (1440, 200),
    "limits.notebook_machine_types": (["n2-standard-8", "a2-ultragpu-8g"], ["n2-standard-8"]),
    "limits.notebook_gpu_types": (["NVIDIA_L4", "NVIDIA_H100_80GB"], ["NVIDIA_L4"]),
    "limits.sql_tiers": (["db-custom-2-7680", "db-custom-96-638976"], ["db-custom-2-7680"]),
    "limits.allowed_bigquery_locations": (["US"], SKIP),
    "limits.max_gpu_vm_run_hours": (720, 24),
    "limits.vertex_serving_gpu_types": (["NVIDIA_L4", "NVIDIA_H100_80GB"], ["NVIDIA_L4"]),
    "limits.max_log_retention_days": (3650, 90),
    # the cost guardrails (base: set, SETUP): raised or removed weakens, lowered does not
    "limits.max_monthly_increase_usd": (REMOVE, 100),
    "limits.max_monthly_increase_percent": (50, 5),
    "notebooks.<name>.idle_minutes": (240, 60),
    "notebooks.<name>.expires_on": (REMOVE, "2026-12-01"),  # base: 2026-12-31 (BASE_EDITS)
    "notebooks.<name>.exempt": (True, SKIP),
    "gke.system_pool.max_nodes": (20, 3),
    "gke.autoprovisioning.max_cpu": (4096, 256),
    "gke.autoprovisioning.max_memory_gb": (16384, 1024),
    "gke.autoprovisioning.accelerators": (
        {"nvidia-tesla-t4": 16, "nvidia-l4": 32, "nvidia-h100-80gb": 64},
        {"nvidia-tesla-t4": 16, "nvidia-l4": 8},
    ),
    "training_pools.<name>.max_nodes": (64, 4),
    "training_pools.<name>.exempt": (True, SKIP),
    "tpu_vms.<name>.expires_on": ("2027-06-30", "2026-12-01"),  # base: 2026-12-31
    "tpu_vms.<name>.exempt": (True, SKIP),
    "gpu_vms.<name>.max_run_hours": (72, 4),
    "gpu_vms.<name>.expires_on": ("2027-06-30", "2026-12-01"),
    "gpu_vms.<name>.exempt": (True, SKIP),
    "budget.amount_usd": (400000, 20000),
    "budget.thresholds": ([0.5, 1.0, 1.1], [0.25, 0.5, 0.75, 0.9, 1.0, 1.1]),
    "budget.forecast_thresholds": ([1.0], [0.5, 0.9, 1.0]),
    "budget.stop_at": (None, 1.0),  # null: the cap never stops anything
    "budget.disable_billing_at": (SKIP, SKIP),  # prod refuses any unlink (REFUSED below)
    "billing_export.dataset_id": ("billing_export_v2", SKIP),
    "automation.enabled": (False, SKIP),
    "automation.dry_run": (True, SKIP),
    "automation.reap_idle_vms_schedule": ("0 0 * * 0", "*/30 * * * *"),
    "automation.reap_expired_schedule": ("30 6 1 * *", "30 */6 * * *"),
    "automation.reap_idle_gpus_schedule": ("0 * * * *", "*/15 * * * *"),
    "automation.idle_gpu_max_utilization_percent": (1.0, 10.0),
    "automation.idle_gpu_window_minutes": (720, 30),
    "automation.idle_gpu_workloads": (["training"], ["training", "notebook", "serving"]),
    "automation.idle_tpu_max_duty_cycle_percent": (1.0, 10.0),
    "automation.idle_tpu_window_minutes": (720, 30),
    "automation.undeploy_endpoints_at_cap": (SKIP, True),  # prod ships it off: only stronger
    "bigquery_quotas.project_tib_per_day": (100.0, 5.0),
    "bigquery_quotas.user_tib_per_day": (8.0, 1.0),
    "spend_caps": ({}, {"vertex_ai": 4000}),
    # organization scale (the prod stack governs one folder, fan-out on)
    "automation.scopes.<name>.environment": ("dev", SKIP),
    "automation.scopes.<name>.labels": ({}, {"mlgov-governed": "true", "team": "vision"}),
    "automation.scopes.<name>.vertex_regions": (  # base: europe-west4, us-central1 (SETUP)
        ["europe-west4"],
        ["europe-west4", "us-central1", "us-east1"],
    ),
    "automation.blast_radius.max_stops_per_run": (1000, 50),  # base: 200
    "automation.blast_radius.max_stop_percent": (SKIP, 10),  # base: none (no percent limit)
    "automation.blast_radius.max_error_rate": (0.3, 0.01),
    "automation.blast_radius.canary": ([], ["projects/acme-ml-prod", "folders/5"]),
    # Every reaper that exists acts already: only fewer can be listed.
    "automation.blast_radius.acting_reapers": (SKIP, ["reap_expired"]),
    "budget.scopes": ([], SKIP),  # base: the folder (SETUP)
}
# The weakening direction is refused by the settings in prod, so a PR cannot plan it at all.
REFUSED: dict[str, tuple[Any, str]] = {
    "training_pools.<name>.spot": (False, "set spot: true"),
    "tpu_vms.<name>.spot": (False, "set spot: true"),
    "automation.allow_billing_disable": (True, "billing unlink is never enabled for prod"),
    "budget.disable_billing_at": (1.5, "never allowed in prod"),
    "metadata_db.backups": (False, "prod keeps backups"),
    "metadata_db.deletion_protection": (False, "prod keeps deletion protection"),
    "artifacts.repository.dry_run": (True, "only dev may try cleanup in dry run"),
    "automation.fan_out": (False, "automation.scopes needs fan-out"),
    "automation.scopes.<name>.allow_billing_disable": (True, "never allowed for prod"),
}
# Fields that do not govern (cost, naming, attribution, security, or shown in other ways), and why.
COST = "cost: the estimate shows the change; the allow-lists in limits bound it"
NOT_GOVERNANCE: dict[str, str] = {
    "region": "shown (stack.region), not judged: a region moves every resource, each listed",
    "acknowledge.change": "shown with the change it acknowledges",
    "prefix": "naming: a new prefix renames (replaces) resources; each governance resource that "
    "goes is shown as removed",
    "labels": "cost attribution; mlgov-* keys are refused",
    "network.subnet_cidr": "network layout",
    "network.pods_cidr": "network layout",
    "network.services_cidr": "network layout",
    "network.gke_master_cidr": "network layout",
    "network.private_service_prefix_length": "network layout",
    "notebooks.<name>.owner": "who uses the notebook",
    "notebooks.<name>.machine_type": COST,
    "notebooks.<name>.zone": "placement within the stack's zones",
    "notebooks.<name>.gpu.type": COST,
    "notebooks.<name>.gpu.count": COST,
    "notebooks.<name>.boot_disk_gb": COST,
    "notebooks.<name>.data_disk_gb": COST,
    "notebooks.<name>.office_hours.stop": "convenience schedule on top of the idle shutdown, "
    "which governs (idle_minutes)",
    "notebooks.<name>.office_hours.start": "convenience schedule",
    "notebooks.<name>.office_hours.days": "convenience schedule",
    "notebooks.<name>.office_hours.timezone": "convenience schedule",
    "notebooks.<name>.root_access": "security: labelled mlgov-root-access, shown as a label",
    "gke.release_channel": "upgrade cadence",
    "gke.system_pool.machine_type": COST,
    "gke.system_pool.min_nodes": COST,
    "gke.control_plane.public_endpoint": "security: refused outside dev without authorized "
    "networks (settings) and by the policies",
    "gke.control_plane.authorized_networks.cidr_block": "security: /0 refused outside dev",
    "gke.control_plane.authorized_networks.display_name": "a name",
    "gke.control_plane.dns_endpoint": "access path",
    "training_pools.<name>.kind": COST,
    "training_pools.<name>.machine_type": COST,
    "training_pools.<name>.accelerator": COST,
    "training_pools.<name>.accelerator_count": COST,
    "training_pools.<name>.tpu_topology": COST,
    "training_pools.<name>.zones": "placement within the stack's zones",
    "training_pools.<name>.disk_gb": COST,
    "tpu_vms.<name>.accelerator_type": COST,
    "tpu_vms.<name>.runtime_version": "software version",
    "tpu_vms.<name>.zone": "placement within the stack's zones",
    "gpu_vms.<name>.machine_type": COST,
    "gpu_vms.<name>.gpu.type": COST,
    "gpu_vms.<name>.gpu.count": COST,
    "gpu_vms.<name>.zone": "placement within the stack's zones",
    "gpu_vms.<name>.image": "software",
    "gpu_vms.<name>.disk_gb": COST,
    "metadata_db.tier": COST,
    "metadata_db.database_version": "software version",
    "metadata_db.disk_gb": COST,
    "metadata_db.high_availability": COST,
    "datasets.<name>.location": "placement: limits.allowed_bigquery_locations governs",
    "datasets.<name>.table_expiration_days": COST,
    "datasets.<name>.partition_expiration_days": COST,
    "datasets.<name>.tables.<name>.partition_field": "schema",
    "datasets.<name>.tables.<name>.partition_type": "schema",
    "datasets.<name>.tables.<name>.large": COST,
    "datasets.<name>.tables.<name>.clustering": "schema",
    "datasets.<name>.tables.<name>.schema": "schema",
    "billing_export.location": "placement: limits.allowed_bigquery_locations governs",
    "automation.time_zone": "when the schedules run, not how often",
    "automation.http_timeout_seconds": "function runtime",
    "automation.max_instances": "function runtime",
    "automation.scheduled_ingress": "security: network path to the functions",
    "automation.max_delivery_attempts": "delivery: how often a failing work item is retried "
    "before it is dead-lettered (and pages)",
    "automation.organization": "where the functions' custom roles live; each grant on a scope "
    "is shown (iam)",
    "artifacts.bucket.enabled": "provisioning",
    "artifacts.bucket.storage_class": COST,
    "artifacts.bucket.nearline_after_days": COST,
    "artifacts.bucket.coldline_after_days": COST,
    "artifacts.bucket.delete_after_days": COST,
    "artifacts.bucket.noncurrent_versions": COST,
    "artifacts.bucket.noncurrent_delete_after_days": COST,
    "artifacts.bucket.abort_incomplete_upload_days": COST,
    "artifacts.repository.enabled": "provisioning",
    "artifacts.repository.keep_tagged_versions": COST,
    "artifacts.repository.delete_untagged_after_days": COST,
    "artifacts.repository.delete_tagged_after_days": COST,
    "logging.retention_days": "cost: limits.max_log_retention_days governs",
    "logging.exclusions": COST,
    "vertex.tensorboard": "provisioning",
    "vertex.metadata_store": "provisioning",
    "acknowledge.reason": "shown with its acknowledgement",
}
USAGE = "usage assumption behind the estimate: moves cost visibly, never a weakening"


def _classified(path: str) -> bool:
    return (
        path in WEAKER
        or path in REFUSED
        or path in NOT_GOVERNANCE
        or path.startswith("usage.")
        or path in ("spend_caps",)
    )


def test_every_field_is_classified() -> None:
    missing = [p for p in FIELDS if not _classified(p)]
    assert missing == [], (
        f"classify these settings (tests/govdiff/test_every_setting.py): {missing}"
    )
    stale = [p for p in (*WEAKER, *REFUSED, *NOT_GOVERNANCE) if p not in FIELDS]
    assert stale == [], stale


def test_every_mlgov_plan_field_is_one_of_the_settings() -> None:
    # `mlgov:plan` carries the same environment, limits and usage as `mlgov:settings`, plus
    # budget_required (tests/govdiff/test_own_program_edits.py).
    assert set(PLAN_FIELDS) - set(FIELDS) == {"budget_required"}


# --------------------------------------------------------------------------- edits
NAMES = {
    "notebooks": "oncall",
    "training_pools": "l4-spot",
    "tpu_vms": "research-v5e",
    "gpu_vms": "job",
    "datasets": "features",
    "tables": "events",
    "scopes": "folders/112233445566",
}
# Values the shipped prod stack leaves out, set on both sides so the field can move.
SETUP: dict[str, dict[str, Any]] = {
    "gpu_vms": {"job": {"zone": "europe-west4-a", "max_run_hours": 24, "expires_on": "2027-01-31"}},
    "notebooks.<name>.expires_on": {"expires_on": "2026-12-31"},
    "tpu_vms.<name>.expires_on": {"expires_on": "2026-12-31"},
    "automation.scopes.<name>.vertex_regions": {"vertex_regions": ["europe-west4", "us-central1"]},
    "budget.scopes": {"scopes": ["folders/112233445566"]},
    "limits.max_monthly_increase_usd": {"max_monthly_increase_usd": 500},
    "limits.max_monthly_increase_percent": {"max_monthly_increase_percent": 20},
}


def _settings_path(path: str) -> list[str]:
    parts = path.split(".")
    out: list[str] = []
    for i, part in enumerate(parts):
        out.append(NAMES[parts[i - 1]] if part == "<name>" else part)
    return out


def _setup_key(path: str) -> str:
    return path if path in SETUP else path.split(".")[0] if path.split(".")[0] in SETUP else "-"


def _config(path: str, value: Any) -> dict[str, Any]:
    config = config_of("prod")
    settings = config["mlgov:settings"]
    parts = _settings_path(path)
    key = _setup_key(path)
    if key == parts[0]:
        settings[parts[0]] = copy.deepcopy(SETUP[key])
    elif key != "-":  # a field's own base value, set in its entry (or section)
        node = settings
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node.update(copy.deepcopy(SETUP[key]))
    if value is _BASE:
        return config
    if parts[0] in ("project", "region"):
        config[f"gcp:{parts[0]}"] = value
        return config
    node = settings
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    if value is REMOVE:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value
    return config


_BASE = object()


def _review(path: str, value: Any) -> Any:
    # the base: the prod stack with the field's own SETUP, if any (planned once: stacks.plan)
    base = plan("prod", _config(path if _setup_key(path) != "-" else "environment", _BASE))
    return review(base, plan("prod", _config(path, value)))


WEAKENING = [(p, w) for p, (w, _) in WEAKER.items() if w is not SKIP]
STRENGTHENING = [(p, s) for p, (_, s) in WEAKER.items() if s is not SKIP]


@pytest.mark.parametrize(("path", "value"), WEAKENING, ids=[p for p, _ in WEAKENING])
def test_the_weaker_value_is_a_named_weakening(path: str, value: Any) -> None:
    r = _review(path, value)
    assert r.weakened, f"{path} -> {value!r}: no weakening in {[c.id for c in r.changes]}"
    assert r.blocking, "prod: an unacknowledged weakening is mandatory"


@pytest.mark.parametrize(("path", "value"), STRENGTHENING, ids=[p for p, _ in STRENGTHENING])
def test_the_stronger_value_weakens_nothing(path: str, value: Any) -> None:
    r = _review(path, value)
    assert not r.weakened, [(c.id, c.before, c.after) for c in r.weakened]


@pytest.mark.parametrize(("path", "value", "says"), [(p, v, s) for p, (v, s) in REFUSED.items()])
def test_the_weaker_value_is_refused_in_prod(path: str, value: Any, says: str) -> None:
    with pytest.raises(CliError) as err:
        plan("prod", _config(path, value))
    key = "mlgov:settings." + ".".join(key_part(p) for p in _settings_path(path))
    assert f"{key}: " in str(err.value), err.value
    assert says in str(err.value), err.value
