"""The CrossGuard objects (pack.POLICIES): one per rule, with the rule's metadata, same findings.

Every rule case also runs through the pack (policy_cases.check_case); this module checks the
pack as a whole and how it treats values CrossGuard does not know yet.
"""

from __future__ import annotations

import pytest
from policy_cases import apply, run_offline, run_pack
from policy_fixtures import PROD_CONFIG, good_stack
from pulumi_policy import proxy
from pulumi_policy.proxy import UNKNOWN_BOOLEAN_VALUE, UNKNOWN_STRING_VALUE

from mlgov_policies import props
from mlgov_policies.pack import POLICIES
from mlgov_policies.registry import ALL_RULES


def test_pack_has_one_policy_per_rule_with_metadata() -> None:
    assert [p.name for p in POLICIES] == list(ALL_RULES)
    for policy in POLICIES:
        rule = ALL_RULES[policy.name]
        assert policy.description == rule.description
        assert policy.remediation_steps == rule.remediation
        assert policy.enforcement_level is not None
        assert policy.enforcement_level.value == rule.enforcement
        if rule.config_keys:
            assert policy.config_schema is not None
            assert set(policy.config_schema.properties) == set(rule.config_keys)
        else:
            assert policy.config_schema is None


def test_good_stack_is_clean_in_crossguard() -> None:
    assert run_pack(good_stack(), PROD_CONFIG) == []


def test_default_pack_config_is_the_default_policy_config() -> None:
    stack = apply((("set", "nb-alice", "gceSetup.metadata.idle-timeout-seconds", "14400"),))
    # No --policy-pack-config: every policy gets None and falls back to PolicyConfig().
    found = run_pack(stack, {})
    assert ("mlgov-workbench-idle-shutdown", "nb-alice") in {(p, n) for p, n, _ in found}


def test_unknown_sentinels_match_pulumi_policy() -> None:
    expected = {
        getattr(proxy, name)
        for name in dir(proxy)
        if name.startswith("UNKNOWN_") and name.endswith("_VALUE")
    }
    assert expected == props.UNKNOWN_SENTINELS


@pytest.mark.parametrize(
    ("name", "path", "sentinel"),
    [
        ("nb-alice", "gceSetup.metadata.idle-timeout-seconds", UNKNOWN_STRING_VALUE),
        ("nb-alice", "gceSetup.metadata", UNKNOWN_STRING_VALUE),
        ("nb-alice", "gceSetup.disablePublicIp", UNKNOWN_BOOLEAN_VALUE),
        ("nb-alice", "labels", UNKNOWN_STRING_VALUE),
        ("nb-alice", "labels.team", UNKNOWN_STRING_VALUE),
        ("budget", "allUpdatesRule.pubsubTopic", UNKNOWN_STRING_VALUE),
        ("budget-fn", "eventTrigger.pubsubTopic", UNKNOWN_STRING_VALUE),
        ("budget-fn", "serviceConfig.environmentVariables.MLGOV_POLICY", UNKNOWN_STRING_VALUE),
        ("budget-fn", "serviceConfig.serviceAccountEmail", UNKNOWN_STRING_VALUE),
        ("metadata-db", "settings.ipConfiguration", UNKNOWN_STRING_VALUE),
        ("gpu-pool", "nodeConfig.spot", UNKNOWN_BOOLEAN_VALUE),
        ("reap-invoker", "member", UNKNOWN_STRING_VALUE),
        ("reap-idle", "httpTarget.uri", UNKNOWN_STRING_VALUE),
        ("tpu", "zone", UNKNOWN_STRING_VALUE),
    ],
)
def test_unknown_values_are_skipped_not_raised(name: str, path: str, sentinel: str) -> None:
    stack = apply((("set", name, path, sentinel),))
    assert run_pack(stack, PROD_CONFIG) == []
    assert run_offline(stack, PROD_CONFIG) == []
