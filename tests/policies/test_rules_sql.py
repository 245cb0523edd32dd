"""mlgov-sql-*: private IP, tier allow-list, deletion protection and backups in prod.

Cases for mlgov_policies/rules/sql.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, apply, case_id, cfg, check_case, d, s
from policy_fixtures import PROD_CONFIG

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources

CASES: tuple[Case, ...] = (
    Case(
        "sql-public-no-networks",
        "mlgov-sql-no-public-ip",
        (s("metadata-db", "settings.ipConfiguration.ipv4Enabled", True),),
    ),
    Case(
        "sql-public-default",
        "mlgov-sql-no-public-ip",
        (d("metadata-db", "settings.ipConfiguration"),),
    ),
    Case(
        "sql-public-open",
        "mlgov-sql-no-public-ip",
        (
            s("metadata-db", "settings.ipConfiguration.ipv4Enabled", True),
            s(
                "metadata-db",
                "settings.ipConfiguration.authorizedNetworks",
                [{"value": "0.0.0.0/0"}],
            ),
        ),
    ),
    Case(
        "sql-public-restricted",
        None,
        (
            s("metadata-db", "settings.ipConfiguration.ipv4Enabled", True),
            s(
                "metadata-db",
                "settings.ipConfiguration.authorizedNetworks",
                [{"name": "office", "value": "203.0.113.0/24"}],
            ),
        ),
    ),
    Case(
        "sql-tier",
        "mlgov-sql-tier-allowed",
        (s("metadata-db", "settings.tier", "db-custom-16-61440"),),
    ),
    Case(  # not configured (None): any tier
        "sql-tier-any",
        None,
        (s("metadata-db", "settings.tier", "db-custom-16-61440"),),
        cfg(sql_tiers=None),
    ),
    Case(  # empty: none, as `mlgov:settings` reads an empty limits.sql_tiers
        "sql-tier-none",
        "mlgov-sql-tier-allowed",
        (),  # the known-good database's own tier, allowed by the fixture's list
        cfg(sql_tiers=[]),
        "metadata-db",
    ),
    Case(
        "sql-no-protection",
        "mlgov-sql-prod-deletion-protection",
        (s("metadata-db", "deletionProtection", False),),
    ),
    Case(
        "sql-no-gcp-protection",
        "mlgov-sql-prod-deletion-protection",
        (s("metadata-db", "settings.deletionProtectionEnabled", False),),
    ),
    Case(
        "sql-no-protection-dev",
        None,
        (
            s("metadata-db", "deletionProtection", False),
            s("metadata-db", "settings.deletionProtectionEnabled", False),
        ),
        cfg(environment="dev"),
    ),
    Case(
        "sql-no-backups",
        "mlgov-sql-prod-backups",
        (s("metadata-db", "settings.backupConfiguration.enabled", False),),
    ),
    Case(
        "sql-no-backups-staging",
        None,
        (s("metadata-db", "settings.backupConfiguration.enabled", False),),
        cfg(environment="staging"),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


def test_sql_open_network_message() -> None:
    stack = apply(
        (
            s("metadata-db", "settings.ipConfiguration.ipv4Enabled", True),
            s(
                "metadata-db",
                "settings.ipConfiguration.authorizedNetworks",
                [{"value": "0.0.0.0/0"}],
            ),
        )
    )
    (violation,) = evaluate_resources(stack, PolicyConfig.from_mapping(PROD_CONFIG))
    assert "0.0.0.0/0" in violation.message
