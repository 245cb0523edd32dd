"""Cloud SQL rules: private IP, allowed tiers, and deletion protection and backups in prod.

Covers `gcp:sql/databaseInstance:DatabaseInstance` (the ML metadata store). Databases and
users inside it carry no cost or labels of their own (registry.UNCHECKED_TYPES).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_bool, as_list, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule

_SQL = frozenset({v.SQL_INSTANCE})


def no_public_ip(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Cloud SQL has no public IPv4 unless restricted to named, non-open networks."""
    del type_, config
    ip = dig(props, "settings", "ipConfiguration")
    if is_unknown(ip):
        return
    enabled = dig(ip, "ipv4Enabled")
    if is_unknown(enabled):
        return
    if as_bool(enabled) is False:
        return
    # GCP's default for ipv4Enabled is true: an absent value means a public address.
    networks = dig(ip, "authorizedNetworks")
    if is_unknown(networks):
        return
    values = [as_str(dig(network, "value")) for network in as_list(networks)]
    open_ = [value for value in values if value and value.endswith("/0")]
    if open_:
        yield f"public IPv4 is open to the internet (authorizedNetworks {open_})"
    elif not values:
        yield (
            "settings.ipConfiguration.ipv4Enabled is not false and no authorizedNetworks are "
            "set: use a private IP (ipv4Enabled: false, privateNetwork)"
        )


NO_PUBLIC_IP = ResourceRule(
    name="mlgov-sql-no-public-ip",
    check=no_public_ip,
    types=_SQL,
    enforcement="mandatory",
    why="A metadata database with a public address (and worse, 0.0.0.0/0) is exposed to "
    "password guessing from the internet; GCP enables public IPv4 unless told not to.",
    remediation="Set settings.ipConfiguration.ipv4Enabled = false with privateNetwork; if a "
    "public IP is unavoidable, list specific authorizedNetworks (never 0.0.0.0/0).",
)


def tier(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Cloud SQL tiers come from the environment's allow-list."""
    del type_
    allowed = config.sql_tiers
    if allowed is None:  # not configured: any tier; an empty list allows none (as the settings)
        return
    value = dig(props, "settings", "tier")
    if not is_unknown(value) and value not in allowed:
        shown = list(allowed) or "none (the allow-list is empty)"
        yield f"settings.tier {value!r} is not in the allowed tiers {shown}"


TIER_ALLOWED = ResourceRule(
    name="mlgov-sql-tier-allowed",
    check=tier,
    types=_SQL,
    enforcement="mandatory",
    config_keys=("sql_tiers",),
    why="Cloud SQL bills per provisioned vCPU and memory, idle or not; tiers are sized per "
    "environment.",
    remediation="Use a tier from the environment's sql_tiers.",
)


def prod_deletion_protection(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Production Cloud SQL instances are protected from deletion (Pulumi and GCP)."""
    del type_
    if config.environment != "prod":
        return
    pulumi_level = dig(props, "deletionProtection")
    if as_bool(pulumi_level) is False:
        yield "deletionProtection is false in prod: `pulumi destroy` would delete the database"
    gcp_level = dig(props, "settings", "deletionProtectionEnabled")
    if not is_unknown(gcp_level) and as_bool(gcp_level) is not True:
        yield "settings.deletionProtectionEnabled is not true in prod"


PROD_DELETION_PROTECTION = ResourceRule(
    name="mlgov-sql-prod-deletion-protection",
    check=prod_deletion_protection,
    types=_SQL,
    enforcement="mandatory",
    config_keys=("environment",),
    why="Losing the prod metadata store loses pipeline lineage; both Pulumi and GCP must "
    "refuse to delete it.",
    remediation="In prod set deletionProtection = true and "
    "settings.deletionProtectionEnabled = true.",
)


def prod_backups(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Production Cloud SQL instances take automated backups."""
    del type_
    if config.environment != "prod":
        return
    enabled = dig(props, "settings", "backupConfiguration", "enabled")
    if not is_unknown(enabled) and as_bool(enabled) is not True:
        yield "settings.backupConfiguration.enabled is not true in prod"


PROD_BACKUPS = ResourceRule(
    name="mlgov-sql-prod-backups",
    check=prod_backups,
    types=_SQL,
    enforcement="mandatory",
    config_keys=("environment",),
    why="Prod metadata without backups cannot be restored after a bad migration.",
    remediation="In prod set settings.backupConfiguration.enabled = true.",
)
