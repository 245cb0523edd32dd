"""selection.py: every rule's level on mlgov's stacks, on other programs, and under a config."""

from __future__ import annotations

import pytest

from mlgov_policies.config import CONFIG_KEYS
from mlgov_policies.pack_config import parse_pack_config
from mlgov_policies.registry import ALL_RULES, RULES
from mlgov_policies.selection import MLGOV, OTHER, OTHER_PROGRAM, finding_level, rule_levels


def test_mlgov_stacks_run_every_rule_at_its_own_level() -> None:
    assert rule_levels(MLGOV) == {r.name: r.enforcement for r in RULES}


def test_the_other_program_table_names_real_rules_with_reasons() -> None:
    assert set(OTHER_PROGRAM) <= set(ALL_RULES)
    for name, other in OTHER_PROGRAM.items():
        assert other.why.strip(), name
        assert other.unless is None or other.unless in CONFIG_KEYS, name
        assert other.unless is None or other.unless in ALL_RULES[name].config_keys, name
        # An advisory entry lowers a mandatory rule; an advisory rule needs no entry.
        assert other.level == "disabled" or ALL_RULES[name].enforcement == "mandatory", name


def test_other_programs_skip_mlgov_stack_rules_and_soften_house_rules() -> None:
    levels = rule_levels(OTHER)
    for rule in RULES:
        other = OTHER_PROGRAM.get(rule.name)
        expected = rule.enforcement if other is None else other.level
        assert levels[rule.name] == expected, rule.name
    # The ones a reviewer of any program expects stay mandatory.
    for name in (
        "mlgov-iam-dedicated-service-account",
        "mlgov-compute-no-public-ip",
        "mlgov-sql-no-public-ip",
        "mlgov-storage-no-public-access",
        "mlgov-iam-no-public-members",
        "mlgov-labels-valid",
        "mlgov-sql-prod-deletion-protection",
    ):
        assert levels[name] == "mandatory", name
    for name in ("mlgov-budget-required", "mlgov-labels-required", "mlgov-budget-topic-wired"):
        assert levels[name] == "disabled", name
    assert levels["mlgov-storage-lifecycle-required"] == "advisory"


@pytest.mark.parametrize(
    ("config", "name", "level"),
    [
        ({"mlgov-budget-required": "mandatory"}, "mlgov-budget-required", "mandatory"),
        ({"mlgov-budget-required": {}}, "mlgov-budget-required", "mandatory"),  # listed: asked for
        (
            {"mlgov-labels-required": {"required_labels": ["team"]}},
            "mlgov-labels-required",
            "mandatory",
        ),
        (  # a rule off for want of a setting runs once any rule's entry gives the setting
            {"mlgov-sql-prod-backups": {"environment": "staging"}},
            "mlgov-vertex-min-replicas",
            "mandatory",
        ),
        ({"mlgov-storage-lifecycle-required": {}}, "mlgov-storage-lifecycle-required", "mandatory"),
        ({"all": "advisory"}, "mlgov-location-in-region", "advisory"),
        ({"all": "advisory"}, "mlgov-budget-required", "advisory"),  # `all` reaches every rule
        (
            {"all": "disabled", "mlgov-location-in-region": "mandatory"},
            "mlgov-location-in-region",
            "mandatory",
        ),
        ({"all": "disabled"}, "mlgov-location-in-region", "disabled"),
        ({"mlgov-location-in-region": "disabled"}, "mlgov-location-in-region", "disabled"),
        ({"mlgov-gke-cost-allocation": "mandatory"}, "mlgov-gke-cost-allocation", "mandatory"),
    ],
)
def test_a_config_wins_over_the_program_default(config: dict, name: str, level: str) -> None:
    assert rule_levels(OTHER, parse_pack_config(config))[name] == level


def test_a_config_changes_only_what_it_names_on_mlgov_stacks() -> None:
    levels = rule_levels(MLGOV, parse_pack_config({"mlgov-budget-required": "advisory"}))
    assert levels["mlgov-budget-required"] == "advisory"
    assert {n: lv for n, lv in levels.items() if n != "mlgov-budget-required"} == {
        r.name: r.enforcement for r in RULES if r.name != "mlgov-budget-required"
    }


def test_findings_outside_the_index_take_the_config_level() -> None:
    pack = parse_pack_config(
        {"mlgov-cost-unpriced": "disabled"}, level_only={"mlgov-cost-unpriced"}
    )
    assert finding_level("mlgov-cost-unpriced", "advisory", pack) == "disabled"
    assert finding_level("mlgov-cost-unpriced", "advisory", None) == "advisory"
    every = parse_pack_config({"all": "mandatory"})
    assert finding_level("mlgov-cost-budget-near", "advisory", every) == "mandatory"
