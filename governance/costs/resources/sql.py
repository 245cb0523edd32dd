"""Cloud SQL instances: vCPU and RAM (or a shared-core tier), storage and backups, all month.

Regional (HA) instances bill compute and storage twice (the catalog's `sql.ha_multiplier`); an
instance with `activationPolicy: NEVER` bills storage only. A read replica (`masterInstanceName`
set) is billed like an instance of its own tier and disk (https://cloud.google.com/sql/pricing:
replicas are charged at the same rate as stand-alone instances), without backups (Cloud SQL has
no backups of replicas). Automated backups (`backupConfiguration.enabled`) are assumed as large
as the disk unless `sql_backup_gb` says otherwise; a usage file's `backup_storage_gb` is billed
whatever `backupConfiguration` says, since on-demand backups are billed too. Governance does not
change an instance's size, so the baseline equals the estimate. SQL Server instances (other than
Express) also bill a license per vCPU, which the catalog has no price for: a named unpriced part.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.context import PlanContext, ref_name
from governance.costs.errors import CostError
from governance.costs.inputs import number, text
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from governance.costs.usage_models import usage_model
from mlgov_policies.props import as_bool, as_mapping, as_str, dig

# Cloud SQL's defaults when settings leave them out (sqladmin instances API: ENTERPRISE edition,
# ZONAL availability, PD_SSD, 10 GB).
DEFAULT_EDITION = "ENTERPRISE"
DEFAULT_DISK_GB = 10.0
_CUSTOM_TIER = re.compile(r"db-custom-(\d+)-(\d+)")
# The legacy db-n1 tiers and the Enterprise edition's predefined tiers (the console's and
# pricing calculator's "Lightweight", "Standard" and "High memory" machine types). Every one is
# billed like a custom machine of the same shape: per vCPU-hour and per GiB-hour of memory
# (https://cloud.google.com/sql/pricing, "CPU and memory pricing").
_PRESET_TIER = re.compile(r"db-(?:n1-)?(standard|highmem|lightweight)-(\d+)")
# GiB per vCPU of the standard and high-memory shapes (the N1 ratios: Cloud SQL's memory range
# is 0.9 to 6.5 GiB per vCPU). A lightweight tier has 3.75 GiB whatever its vCPUs (the pricing
# calculator lists db-lightweight-2 as 2 vCPUs and 3.75 GB); db-n1-lightweight does not exist.
_GIB_PER_VCPU = {"standard": 3.75, "highmem": 6.5}
_LIGHTWEIGHT_GIB = 3.75
_SHARED_TIERS = ("db-f1-micro", "db-g1-small")


class Declared(BaseModel):
    """A Cloud SQL instance's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backup_storage_gb: float | None = Field(
        default=None, ge=0, description="GiB of backups kept (wins over sql_backup_gb)."
    )


@usage_model(place=60)
class SqlUsage(BaseModel):
    """How much backup storage Cloud SQL instances keep."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sql_backup_gb: dict[str, float] = Field(
        default_factory=dict,
        description="Per-instance backup GiB, keyed by resource or instance name "
        "(default: equal to the disk size).",
    )


def _public_ipv4(q: Quote, cfg: Mapping[str, Any], *, stopped: bool) -> None:
    """Cloud SQL charges an instance's public IPv4 address only while the instance is stopped.

    Google: "There is a small charge for the IP address whenever your instance is turned off"
    (https://cloud.google.com/sql/docs/mysql/configure-ip). Public IPv4 is on unless
    `ipConfiguration.ipv4Enabled` is false. A running instance's line says there is no charge (a
    reader comparing with a tool that bills it all month sees why); a stopped one's is a named
    unpriced part, since the catalog has no price for it.
    """
    if as_bool(dig(cfg, "ipConfiguration", "ipv4Enabled")) is False:
        return
    if stopped:
        q.unpriced_part(
            "public IPv4 address while stopped",
            "Cloud SQL charges a stopped instance's public IPv4 address by the hour; the catalog "
            "has no price for it",
        )
    else:
        q.governed.note("public IPv4 address: no charge while the instance runs")


def _tier_shape(name: str, tier: str) -> tuple[float, float]:
    """(vCPUs, GiB) of a tier; (0, 0) for the shared-core tiers priced per instance."""
    if m := _CUSTOM_TIER.fullmatch(tier):
        return float(m.group(1)), int(m.group(2)) / 1024
    if (m := _PRESET_TIER.fullmatch(tier)) and not tier.startswith("db-n1-lightweight"):
        vcpus = float(m.group(2))
        if m.group(1) == "lightweight":
            return vcpus, _LIGHTWEIGHT_GIB
        return vcpus, vcpus * _GIB_PER_VCPU[m.group(1)]
    if tier in _SHARED_TIERS:
        return 0.0, 0.0
    raise CostError(f"Cloud SQL instance {name!r}: unknown tier {tier!r}")


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Compute, storage and backups; the baseline is the same bill."""
    q = Quote()
    bill = q.governed
    region = ctx.region(res.inputs, "region")
    cfg = as_mapping(res.inputs.get("settings"))
    tier = text(cfg.get("tier"), "", "settings.tier")
    edition = text(cfg.get("edition"), DEFAULT_EDITION, "settings.edition")
    edition = edition.lower().replace("_", "-")
    ha = cfg.get("availabilityType") == "REGIONAL"
    cat = ctx.catalog
    mult = cat.price("sql.ha_multiplier", "global").usd if ha else 1.0
    hours = 0.0 if cfg.get("activationPolicy") == "NEVER" else HOURS_PER_MONTH
    ha_note = f" x {mult:g} HA" if ha else ""
    vcpus, mem = _tier_shape(res.name, tier)
    primary = as_str(res.inputs.get("masterInstanceName"))
    if primary:
        bill.note(f"read replica of {ref_name(primary)}: billed as an instance of its own")
    if vcpus:
        vp = cat.price(f"sql.{edition}.vcpu", region)
        rp = cat.price(f"sql.{edition}.ram", region)
        bill.charge("vCPU", vp, vcpus * hours * mult, f"{vcpus:g} vCPU x {hours:g} h{ha_note}")
        bill.charge("RAM", rp, mem * hours * mult, f"{mem:g} GiB x {hours:g} h{ha_note}")
    else:
        bill.charge("shared core", cat.price(f"sql.shared.{tier}", region), hours * mult,
                    f"{hours:g} h{ha_note}")  # fmt: skip
    disk_kind = "pd-hdd" if cfg.get("diskType") == "PD_HDD" else "pd-ssd"
    size = number(cfg.get("diskSize"), DEFAULT_DISK_GB)
    bill.charge("storage", cat.price(f"sql.storage.{disk_kind}", region), size * mult,
                f"{size:g} GiB{ha_note}")  # fmt: skip
    declared = ctx.usage_of(res, Declared).backup_storage_gb
    if declared is not None:
        # declared backups are billed whether automated or on demand (gcloud sql backups create)
        bill.charge("backups", cat.price("sql.backup", region), declared,
                    f"{declared:g} GiB (backup_storage_gb)")  # fmt: skip
    elif as_bool(dig(cfg, "backupConfiguration", "enabled")) is True and not primary:
        backup = res.override(ctx.knobs(SqlUsage).sql_backup_gb, size)
        bill.charge("backups", cat.price("sql.backup", region), backup, f"{backup:g} GiB")
    _public_ipv4(q, cfg, stopped=hours == 0)
    version = as_str(res.inputs.get("databaseVersion")) or ""
    if version.startswith("SQLSERVER") and "EXPRESS" not in version:
        # Google bills SQL Server Standard, Enterprise and Web licenses per vCPU-hour on top
        q.unpriced_part(
            "SQL Server license",
            f"{version} is billed a license per vCPU-hour; the catalog has no license price",
        )
    q.baseline.adjust(
        bill.total, "same as estimate: governance does not change the instance's size"
    )
    return q
