"""pack_config.py: CrossGuard's policy-pack config shape, read strictly, every problem named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlgov_policies.config import PolicyConfig
from mlgov_policies.pack_config import PackConfig, PackConfigError, parse_pack_config
from mlgov_policies.registry import RULES

POLICIES_DIR = Path(__file__).resolve().parents[2] / "policies"


def problems(raw: object, **kwargs: object) -> list[str]:
    with pytest.raises(PackConfigError) as err:
        parse_pack_config(raw, **kwargs)  # type: ignore[arg-type]
    return err.value.problems


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_the_generated_configs_read_back_to_their_stack_settings(stack: str) -> None:
    raw = json.loads((POLICIES_DIR / f"config.{stack}.json").read_text())
    pack = parse_pack_config(raw)
    assert pack.values["environment"] == stack
    assert pack.partial_keys() == {}  # every key at every rule that reads it
    assert pack.as_dict() == raw
    assert pack.levels == {} and pack.all_level is None
    assert set(pack.named) == set(raw)
    # The values are PolicyConfig's, normalised the same way.
    config = PolicyConfig.from_mapping(dict(pack.values))
    assert config.max_idle_minutes == {"dev": 120, "staging": 180, "prod": 240}[stack]


def test_levels_strings_objects_and_all() -> None:
    pack = parse_pack_config(
        {
            "all": {"enforcementLevel": "advisory"},
            "mlgov-budget-required": "mandatory",
            "mlgov-location-in-region": {"enforcementLevel": "disabled", "region": "europe-west4"},
            "mlgov-labels-required": {"required_labels": ["team"]},
        },
        source="p.yaml",
    )
    assert pack.all_level == "advisory"
    assert pack.level("mlgov-budget-required") == "mandatory"
    assert pack.level("mlgov-location-in-region") == "disabled"
    assert pack.level("mlgov-labels-required") == "advisory"  # from `all`
    assert pack.named == (
        "mlgov-budget-required",
        "mlgov-location-in-region",
        "mlgov-labels-required",
    )
    assert pack.values == {"region": "europe-west4", "required_labels": ("team",)}
    assert pack.source == "p.yaml"
    assert PackConfig().level("mlgov-budget-required") is None


def test_whole_floats_become_ints_and_null_is_the_default() -> None:
    pack = parse_pack_config(
        {
            "mlgov-workbench-idle-shutdown": {"max_idle_minutes": 60.0},
            "mlgov-location-in-region": {"region": None},
        }
    )
    assert pack.values == {"max_idle_minutes": 60}
    assert isinstance(pack.values["max_idle_minutes"], int)


def test_an_unknown_policy_is_named_with_a_suggestion() -> None:
    (problem,) = problems({"mlgov-lables-required": "mandatory"})
    assert problem.startswith("mlgov-lables-required: not a policy of mlgov's pack")
    assert "(did you mean 'mlgov-labels-required'?)" in problem


def test_an_unknown_key_is_named_with_a_suggestion_and_the_rules_keys() -> None:
    (problem,) = problems({"mlgov-location-in-region": {"regoin": "us-east1"}})
    assert problem.startswith("mlgov-location-in-region.regoin: ")
    assert "(did you mean 'region'?)" in problem
    assert "it reads: region, allowed_bigquery_locations, and enforcementLevel" in problem


def test_a_key_of_other_rules_names_them() -> None:
    (problem,) = problems({"mlgov-labels-required": {"environment": "prod"}})
    assert problem.startswith("mlgov-labels-required.environment: mlgov-labels-required has no")
    assert "'environment' is read by mlgov-sql-prod-deletion-protection" in problem


def test_a_rule_without_settings_takes_only_a_level() -> None:
    (problem,) = problems({"mlgov-budget-required": {"amount": 5}})
    assert problem == (
        "mlgov-budget-required.amount: mlgov-budget-required takes no settings, only "
        "enforcementLevel"
    )


@pytest.mark.parametrize(
    ("raw", "path", "words"),
    [
        (
            {"mlgov-budget-required": "mandtory"},
            "mlgov-budget-required",
            "did you mean 'mandatory'",
        ),
        ({"all": "remediate"}, "all", "none remediates"),
        ({"all": {"enforcementLevel": 1}}, "all.enforcementLevel", "not an enforcement level"),
        ({"all": {"region": "x"}}, "all", "all takes"),
        ({"mlgov-budget-required": 3}, "mlgov-budget-required", "must be an enforcement level"),
        (
            {"mlgov-workbench-idle-shutdown": {"max_idle_minutes": "60"}},
            "mlgov-workbench-idle-shutdown.max_idle_minutes",
            "whole number",
        ),
        (
            {"mlgov-labels-required": {"required_labels": ["team", ""]}},
            "mlgov-labels-required.required_labels[1]",
            "non-empty string",
        ),
        (
            {"mlgov-sql-prod-backups": {"environment": "production"}},
            "mlgov-sql-prod-backups.environment",
            "must be one of",
        ),
    ],
)
def test_bad_values_name_their_key_path(raw: object, path: str, words: str) -> None:
    found = problems(raw)
    assert any(p.startswith(f"{path}: ") and words in p for p in found), found


def test_two_values_for_one_key_are_refused() -> None:
    (problem,) = problems(
        {
            "mlgov-sql-prod-backups": {"environment": "prod"},
            "mlgov-gke-control-plane-private": {"environment": "dev"},
        }
    )
    assert problem.startswith("mlgov-gke-control-plane-private.environment: 'dev' differs from")
    assert "'prod' given for mlgov-sql-prod-backups" in problem


def test_every_problem_is_reported_at_once() -> None:
    found = problems(
        {
            "mlgov-nope": "mandatory",
            "mlgov-budget-required": "sometimes",
            "mlgov-location-in-region": {"regoin": "x"},
        }
    )
    assert [p.split(":")[0] for p in found] == [
        "mlgov-nope",
        "mlgov-budget-required",
        "mlgov-location-in-region.regoin",
    ]


@pytest.mark.parametrize("raw", [None, [], "mandatory", 3])
def test_the_root_is_an_object(raw: object) -> None:
    (problem,) = problems(raw)
    assert problem.startswith("<root>: must be an object of policy names")


def test_level_only_names_take_a_level_and_nothing_else() -> None:
    pack = parse_pack_config(
        {"mlgov-cost-unpriced": "disabled"}, level_only={"mlgov-cost-unpriced"}
    )
    assert pack.level("mlgov-cost-unpriced") == "disabled"
    assert pack.as_dict() == {"mlgov-cost-unpriced": {"enforcementLevel": "disabled"}}
    (problem,) = problems({"mlgov-cost-unpriced": {"x": 1}}, level_only={"mlgov-cost-unpriced"})
    assert problem.startswith("mlgov-cost-unpriced.x: ")
    assert problems({"mlgov-cost-unpriced": "disabled"})  # unknown without level_only


def test_partial_keys_name_the_rules_crossguard_would_leave_at_the_default() -> None:
    pack = parse_pack_config({"mlgov-sql-prod-backups": {"environment": "prod"}})
    readers = [r.name for r in RULES if "environment" in r.config_keys]
    assert pack.partial_keys() == {
        "environment": tuple(n for n in readers if n != "mlgov-sql-prod-backups")
    }
    # as_dict writes the key at every listed rule that reads it: here the one given.
    assert pack.as_dict() == {"mlgov-sql-prod-backups": {"environment": "prod"}}
