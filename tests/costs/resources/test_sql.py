"""Cloud SQL model: tier compute, storage and backups all month; HA doubles compute and storage."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, full_plan, one, price, unpriced

SQL = next(r for r in full_plan() if r["name"] == "metadata")  # db-custom-1-3840, 20 GiB SSD


def compute() -> float:
    return 730 * (1 * price("sql.enterprise.vcpu") + 3.75 * price("sql.enterprise.ram"))


def with_settings(**settings: object) -> dict[str, Any]:
    res = copy.deepcopy(SQL)
    res["inputs"]["settings"].update(settings)
    return res


def test_zonal_instance_with_backups():
    cost = one(SQL)
    backups = 20 * price("sql.backup")  # default: as large as the disk
    assert cost.monthly_usd == pytest.approx(compute() + 20 * price("sql.storage.pd-ssd") + backups)
    assert cost.baseline_monthly_usd == cost.monthly_usd
    assert "baseline same as estimate: governance does not change the instance's size" in cost.lines


def test_regional_doubles_compute_and_storage_not_backups():
    cost = one(with_settings(availabilityType="REGIONAL"))
    ha = price("sql.ha_multiplier", "global")
    assert cost.monthly_usd == pytest.approx(
        ha * (compute() + 20 * price("sql.storage.pd-ssd")) + 20 * price("sql.backup")
    )


def test_stopped_instance_pays_storage_only():
    cost = one(with_settings(activationPolicy="NEVER", backupConfiguration={"enabled": False}))
    assert cost.monthly_usd == pytest.approx(20 * price("sql.storage.pd-ssd"))


def test_shared_core_tier_hdd_and_backup_override():
    usage = UsageAssumptions(as_of=AS_OF, sql_backup_gb={"metadata": 5})
    cost = one(with_settings(tier="db-g1-small", diskType="PD_HDD"), usage)
    assert cost.monthly_usd == pytest.approx(
        730 * price("sql.shared.db-g1-small")
        + 20 * price("sql.storage.pd-hdd")
        + 5 * price("sql.backup")
    )


def test_legacy_n1_tier_uses_n1_memory_ratio():
    cost = one(with_settings(tier="db-n1-highmem-2", backupConfiguration={}))
    expected = 730 * (2 * price("sql.enterprise.vcpu") + 13 * price("sql.enterprise.ram"))
    assert cost.monthly_usd == pytest.approx(expected + 20 * price("sql.storage.pd-ssd"))


def test_unknown_tier_is_unpriced_naming_it():
    assert "unknown tier 'db-perf-optimized-N-8'" in unpriced(
        with_settings(tier="db-perf-optimized-N-8")
    )


def test_read_replica_is_billed_as_an_instance_without_backups():
    # a replica of its own tier and disk: the same vCPU, RAM and storage, no backups
    replica = with_settings()
    replica["name"] = "metadata-replica"
    replica["inputs"]["masterInstanceName"] = "projects/p/instances/acme-metadata"
    cost = one(replica)
    assert cost.monthly_usd == pytest.approx(compute() + 20 * price("sql.storage.pd-ssd"))
    assert "read replica of acme-metadata: billed as an instance of its own" in cost.lines


def test_declared_backup_storage_wins():
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    declared = parse_usage_file({"resource_usage": {"metadata": {"backup_storage_gb": 200}}})
    cost = estimate_resources([SQL], usage_file=declared).get("metadata")
    assert cost.monthly_usd == pytest.approx(
        compute() + 20 * price("sql.storage.pd-ssd") + 200 * price("sql.backup")
    )


@pytest.mark.parametrize(
    ("tier", "vcpus", "gib"),
    [
        ("db-standard-1", 1, 3.75),
        ("db-standard-4", 4, 15),
        ("db-highmem-4", 4, 26),
        ("db-highmem-16", 16, 104),
        ("db-lightweight-1", 1, 3.75),
        ("db-lightweight-4", 4, 3.75),  # lightweight: 3.75 GiB whatever the vCPUs
        ("db-n1-standard-2", 2, 7.5),
    ],
)
def test_predefined_tiers_are_billed_per_vcpu_and_gib(tier: str, vcpus: int, gib: float):
    cost = one(with_settings(tier=tier, backupConfiguration={}))
    expected = 730 * (vcpus * price("sql.enterprise.vcpu") + gib * price("sql.enterprise.ram"))
    assert cost.monthly_usd == pytest.approx(expected + 20 * price("sql.storage.pd-ssd"))


@pytest.mark.parametrize("tier", ["db-n1-lightweight-2", "db-standard", "db-highmem-x"])
def test_malformed_predefined_tiers_stay_unknown(tier: str):
    assert f"unknown tier '{tier}'" in unpriced(with_settings(tier=tier))


def test_declared_backups_are_billed_without_automated_backups():
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    declared = parse_usage_file({"resource_usage": {"metadata": {"backup_storage_gb": 100}}})
    res = with_settings(backupConfiguration={"enabled": False})
    cost = estimate_resources([res], usage_file=declared).get("metadata")
    assert cost.monthly_usd == pytest.approx(
        compute() + 20 * price("sql.storage.pd-ssd") + 100 * price("sql.backup")
    )


def test_sql_server_license_is_a_named_unpriced_part_except_express():
    from tests.costs.cost_plans import partial

    web = with_settings(backupConfiguration={})
    web["inputs"]["databaseVersion"] = "SQLSERVER_2019_WEB"
    cost, parts = partial(web)
    assert cost.monthly_usd == pytest.approx(compute() + 20 * price("sql.storage.pd-ssd"))
    assert "SQLSERVER_2019_WEB is billed a license per vCPU-hour" in parts["SQL Server license"]
    express = with_settings(backupConfiguration={})
    express["inputs"]["databaseVersion"] = "SQLSERVER_2019_EXPRESS"
    assert one(express).unpriced_parts == ()


def test_public_ipv4_is_free_while_running_and_a_named_part_while_stopped():
    # Cloud SQL charges the public IPv4 address only while the instance is turned off
    running = one(SQL)
    assert "public IPv4 address: no charge while the instance runs" in running.lines
    assert not running.unpriced_parts
    stopped = one(with_settings(activationPolicy="NEVER", backupConfiguration={"enabled": False}))
    assert [part for part, _ in stopped.unpriced_parts] == ["public IPv4 address while stopped"]
    private = one(with_settings(activationPolicy="NEVER", ipConfiguration={"ipv4Enabled": False}))
    assert not private.unpriced_parts
    assert not any("IPv4" in line for line in private.lines)
