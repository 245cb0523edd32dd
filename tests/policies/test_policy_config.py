"""PolicyConfig parsing: defaults, round trip, and errors that name the key."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from mlgov_policies.config import _PARSERS, CONFIG_SCHEMA, PolicyConfig, PolicyConfigError
from mlgov_policies.registry import ALL_RULES, crossguard_config

POLICIES_DIR = Path(__file__).resolve().parents[2] / "policies"


def test_defaults_are_safe() -> None:
    config = PolicyConfig.from_mapping({})
    assert config == PolicyConfig()
    assert config.environment == "dev"
    assert config.region is None
    assert config.max_idle_minutes == 180
    assert config.notebook_gpu_types == ("NVIDIA_TESLA_T4", "NVIDIA_L4")
    assert config.required_labels == ("team", "env", "cost-center", "workload", "managed-by")
    assert config.billing_export_dataset == "billing_export"
    assert PolicyConfig.from_mapping(None) == config


def test_round_trip_and_float_whole_numbers() -> None:
    config = PolicyConfig.from_mapping(
        {
            "environment": "prod",
            "region": "europe-west4",
            "max_idle_minutes": 60.0,
            "sql_tiers": ["db-g1-small"],
        }
    )
    assert config.max_idle_minutes == 60
    assert PolicyConfig.from_mapping(json.loads(json.dumps(config.as_dict()))) == config


def test_null_means_default() -> None:
    assert PolicyConfig.from_mapping({"max_idle_minutes": None}).max_idle_minutes == 180


def test_bigquery_locations_include_region() -> None:
    config = PolicyConfig.from_mapping({"allowed_bigquery_locations": ["US"]})
    assert config.bigquery_locations("us-central1") == {"us", "us-central1"}


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"enviroment": "prod"}, "enviroment"),
        ({"environment": "production"}, "environment"),
        ({"max_idle_minutes": 0}, "max_idle_minutes"),
        ({"max_idle_minutes": 90.5}, "max_idle_minutes"),
        ({"max_idle_minutes": True}, "max_idle_minutes"),
        ({"max_idle_minutes": "60"}, "max_idle_minutes"),
        ({"notebook_gpu_types": "NVIDIA_TESLA_T4"}, "notebook_gpu_types"),
        ({"notebook_gpu_types": ["NVIDIA_TESLA_T4", 3]}, "notebook_gpu_types[1]"),
        ({"sql_tiers": [""]}, "sql_tiers[0]"),
        ({"region": ""}, "region"),
        ({"billing_export_dataset": 5}, "billing_export_dataset"),
        ({"required_labels": {"team": 1}}, "required_labels"),
    ],
)
def test_errors_name_the_key(raw: dict[str, object], key: str) -> None:
    with pytest.raises(PolicyConfigError) as excinfo:
        PolicyConfig.from_mapping(raw)
    assert excinfo.value.key == key
    assert str(excinfo.value).startswith(f"policy config '{key}': ")


@pytest.mark.parametrize(
    ("raw", "key", "says"),
    [
        ({"notebook_machine_types": ["n2-standard-8", "N2 STANDARD"]}, "notebook_machine_types[1]",
         "is not a Compute Engine machine type name"),
        ({"notebook_gpu_types": ["nvidia-l4"]}, "notebook_gpu_types[0]", "did you mean NVIDIA_L4?"),
        ({"sql_tiers": ["custom-2-7680"]}, "sql_tiers[0]", "is not a Cloud SQL tier"),
        ({"vertex_serving_gpu_types": ["nvidia-l4"]}, "vertex_serving_gpu_types[0]",
         "is not a Vertex AI accelerator type"),
        ({"required_labels": ["team", "Cost Center"]}, "required_labels[1]", "is not a label key"),
        ({"billing_export_dataset": "billing-export"}, "billing_export_dataset",
         "is not a BigQuery dataset id"),
    ],
)  # fmt: skip
def test_names_google_never_uses_are_refused(raw: dict[str, object], key: str, says: str) -> None:
    # An allow-list entry Google never uses matches nothing: a typo would silently allow nothing
    # (or, in required_labels, require a label no resource can carry).
    with pytest.raises(PolicyConfigError) as excinfo:
        PolicyConfig.from_mapping(raw)
    assert excinfo.value.key == key
    assert says in str(excinfo.value)


def test_real_names_pass() -> None:
    config = PolicyConfig.from_mapping(
        {
            "notebook_machine_types": ["n2-custom-4-16384", "ct5lp-hightpu-4t"],
            "notebook_gpu_types": ["NVIDIA_H100_80GB"],
            "sql_tiers": ["db-g1-small", "db-perf-optimized-n-8"],
            "vertex_serving_gpu_types": ["TPU_V5_LITEPOD"],
            "required_labels": ["team", "équipe"],
            "billing_export_dataset": "Billing_Export_2",
        }
    )
    assert config.sql_tiers == ("db-g1-small", "db-perf-optimized-n-8")


def test_not_a_mapping() -> None:
    with pytest.raises(PolicyConfigError, match="expected an object"):
        PolicyConfig.from_mapping(["prod"])  # type: ignore[arg-type]


def test_crossguard_config_spreads_keys_per_policy() -> None:
    config = PolicyConfig.from_mapping({"environment": "prod", "region": "us-central1"})
    document = crossguard_config(config)
    assert document["mlgov-sql-prod-backups"] == {"environment": "prod"}
    assert document["mlgov-location-in-region"] == {
        "region": "us-central1",
        "allowed_bigquery_locations": [],
    }
    for name, keys in document.items():
        assert set(keys) <= set(ALL_RULES[name].config_keys)
    # region None is left out so the pack infers it
    assert "region" not in crossguard_config(PolicyConfig())["mlgov-location-in-region"]


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_sample_pack_configs_are_valid(env: str) -> None:
    document = json.loads((POLICIES_DIR / f"config.{env}.json").read_text())
    merged: dict[str, object] = {}
    for name, value in document.items():
        assert name in ALL_RULES, name
        assert isinstance(value, dict)
        settings = {k: v for k, v in value.items() if k != "enforcementLevel"}
        assert set(settings) <= set(ALL_RULES[name].config_keys), name
        merged.update(settings)
        PolicyConfig.from_mapping(settings)
    assert PolicyConfig.from_mapping(merged).environment == env


def test_every_key_has_a_parser_a_schema_and_a_json_value() -> None:
    keys = {f.name for f in fields(PolicyConfig)}
    assert set(_PARSERS) == keys
    assert set(CONFIG_SCHEMA) == keys
    assert list(PolicyConfig().as_dict()) == [f.name for f in fields(PolicyConfig)]
    assert json.loads(json.dumps(PolicyConfig().as_dict())) == PolicyConfig().as_dict()
