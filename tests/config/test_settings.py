"""Stack settings: each rejection gives one exact line naming the key path and the fix."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from governance.settings import SettingsError, parse_settings, settings_from_config
from tests.conftest import STACKS, stack_config

Mutation = Callable[[dict[str, Any]], None]
P = "mlgov:settings"


def _dev() -> dict[str, Any]:
    return copy.deepcopy(stack_config("dev"))


def _problems(mutate: Mutation, base: dict[str, Any] | None = None) -> list[str]:
    config = base if base is not None else _dev()
    mutate(config["mlgov:settings"])
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    return err.value.problems


@pytest.mark.parametrize("stack", STACKS)
def test_shipped_stacks_are_valid(stack: str) -> None:
    settings = settings_from_config(stack_config(stack))
    assert settings.environment == stack
    assert settings.project == stack_config(stack)["gcp:project"]


def test_stacks_differ_per_environment() -> None:
    dev, staging, prod = (settings_from_config(stack_config(s)) for s in STACKS)
    assert dev.limits.max_idle_minutes < staging.limits.max_idle_minutes
    assert staging.limits.max_idle_minutes < prod.limits.max_idle_minutes
    assert dev.budget.amount_usd < staging.budget.amount_usd < prod.budget.amount_usd
    assert prod.sql_deletion_protection() and prod.sql_backups()
    assert not dev.sql_deletion_protection() and not dev.sql_backups()
    assert dev.automation.dry_run and not prod.automation.dry_run
    assert prod.region != dev.region


CASES: list[tuple[str, Mutation, list[str]]] = [
    (
        "typo in a key",
        lambda s: s["notebooks"]["alice"].update(idle_minute=5),
        [f"{P}.notebooks.alice.idle_minute: unknown key; did you mean 'idle_minutes'?"],
    ),
    (
        "typo under a user-chosen name that is also a field name",
        lambda s: s["notebooks"].update(gpu={"machine_typ": "n1-standard-4"}),
        [f"{P}.notebooks.gpu.machine_typ: unknown key; did you mean 'machine_type'?"],
    ),
    (
        "typo at the top level",
        lambda s: s.update(budgte=s.pop("budget")),
        [
            f"{P}.budget: required key is missing",
            f"{P}.budgte: unknown key; did you mean 'budget'?",
        ],
    ),
    (
        "wrong type",
        lambda s: s["budget"].update(amount_usd="lots"),
        [
            f"{P}.budget.amount_usd: Input should be a valid integer, unable to parse string as an "
            "integer"
        ],
    ),
    (
        "out of range",
        lambda s: s["notebooks"]["bob"].update(idle_minutes=5),
        [f"{P}.notebooks.bob.idle_minutes: Input should be greater than or equal to 10"],
    ),
    (
        "idle timeout above the environment maximum",
        lambda s: s["notebooks"]["alice"].update(idle_minutes=500),
        [
            f"{P}.notebooks.alice.idle_minutes: 500 is above the dev maximum of 120; lower it or "
            "raise limits.max_idle_minutes"
        ],
    ),
    (
        "notebook zone outside the region",
        lambda s: s["notebooks"]["alice"].update(zone="europe-west4-a"),
        [
            f"{P}.notebooks.alice.zone: zone 'europe-west4-a' is not one of the stack's zones "
            "['us-central1-a', 'us-central1-b']; notebooks must run next to the data"
        ],
    ),
    (
        "stack zone outside the region",
        lambda s: s.update(zones=["us-central1-a", "us-east1-b"]),
        [
            f"{P}.zones.1: zone 'us-east1-b' is not in region 'us-central1'; us-central1's zones "
            "are us-central1-a, us-central1-b, us-central1-c, us-central1-f",
            f"{P}.notebooks.bob.zone: zone 'us-central1-b' is not one of the stack's zones "
            "['us-central1-a', 'us-east1-b']; notebooks must run next to the data",
        ],
    ),
    (
        "machine type not allowed",
        lambda s: s["notebooks"]["bob"].update(machine_type="a2-highgpu-8g"),
        [
            f"{P}.notebooks.bob.machine_type: 'a2-highgpu-8g' is not allowed in dev; allowed: "
            "['e2-standard-2', 'e2-standard-4', 'n1-standard-4', 'n2-standard-4', 'n1-standard-8', "
            "'g2-standard-4'] (or extend limits.notebook_machine_types)"
        ],
    ),
    (
        "GPU not allowed",
        # V100 attaches to alice's n1-standard-4; only the allow-list refuses it.
        lambda s: s["notebooks"]["alice"]["gpu"].update(type="NVIDIA_TESLA_V100"),
        [
            f"{P}.notebooks.alice.gpu.type: 'NVIDIA_TESLA_V100' is not allowed in dev; allowed: "
            "['NVIDIA_TESLA_T4', 'NVIDIA_L4'] (Workbench names, e.g. NVIDIA_TESLA_T4)"
        ],
    ),
    (
        "billing unlink without confirmation",
        lambda s: s["automation"].update(allow_billing_disable=False),
        [
            f"{P}.budget.disable_billing_at: unlinking billing stops every service in the project "
            "and may delete resources; set automation.allow_billing_disable: true to confirm"
        ],
    ),
    (
        "billing unlink before stopping",
        lambda s: s["budget"].update(disable_billing_at=0.9),
        [f"{P}.budget.disable_billing_at: 0.9 is below stop_at 1.0; unlink only after stopping"],
    ),
    (
        "invalid labels",
        lambda s: s.update(labels={"team": "Research", "cost-center": "cc-1", "env": "x"}),
        [
            f"{P}.labels.team: label value 'Research' for 'team' may contain only lowercase letters, "
            "digits, '_' or '-' (at most 63 characters; international letters count as letters)",
            f"{P}.labels.env: label 'env' is set by mlgov; remove it from labels",
        ],
    ),
    (
        "missing required label",
        lambda s: s.update(labels={"team": "research"}),
        [
            f"{P}.labels.cost-center: required cost-attribution label 'cost-center' is missing; "
            "add it"
        ],
    ),
    (
        "gpu pool without accelerator, on demand",
        lambda s: s["training_pools"]["t4-spot"].update(accelerator=None, spot=False),
        [
            f"{P}.training_pools.t4-spot.accelerator: a gpu pool needs an accelerator, "
            "e.g. nvidia-tesla-t4",
            f"{P}.training_pools.t4-spot.spot: training pools run on spot capacity (60-91% cheaper); "
            "set spot: true",
        ],
    ),
    (
        "training pools without a cluster",
        lambda s: s.pop("gke"),
        [f"{P}.gke: training_pools need a GKE cluster; add a `gke:` section"],
    ),
    (
        "sql tier not allowed",
        lambda s: s["metadata_db"].update(tier="db-custom-32-122880"),
        [
            f"{P}.metadata_db.tier: 'db-custom-32-122880' is not allowed in dev; allowed: "
            "['db-g1-small', 'db-custom-1-3840', 'db-custom-2-7680']"
        ],
    ),
    (
        "dataset in another location",
        lambda s: s["datasets"]["features"].update(location="US"),
        [
            f"{P}.datasets.features.location: 'US' is not the stack's region 'us-central1'; keep data "
            "next to compute or add it to limits.allowed_bigquery_locations"
        ],
    ),
    (
        "dataset that never expires",
        lambda s: s["datasets"]["features"].update(
            table_expiration_days=None, partition_expiration_days=None
        ),
        [
            f"{P}.datasets.features: set table_expiration_days or partition_expiration_days so "
            "unneeded data expires"
        ],
    ),
    (
        "bad expiry date",
        lambda s: s["notebooks"]["bob"].update(expires_on="next week"),
        [
            f"{P}.notebooks.bob.expires_on: 'next week' is not a date written YYYY-MM-DD "
            "(e.g. 2026-12-31)"
        ],
    ),
    (
        "office hours malformed",
        lambda s: s["notebooks"]["alice"]["office_hours"].update(stop="7pm"),
        [
            f"{P}.notebooks.alice.office_hours.stop: '7pm' is not a time of day HH:MM "
            "(00:00 to 23:59)"
        ],
    ),
    (
        "thresholds out of order",
        lambda s: s["budget"].update(thresholds=[0.9, 0.5]),
        [f"{P}.budget.thresholds: thresholds must be distinct and ascending, e.g. [0.5, 0.9, 1.0]"],
    ),
]


@pytest.mark.parametrize(("mutate", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rejection_lines(mutate: Mutation, expected: list[str]) -> None:
    assert _problems(mutate) == expected


def test_billing_unlink_is_rejected_for_prod() -> None:
    prod = copy.deepcopy(stack_config("prod"))
    problems = _problems(lambda s: s["budget"].update(disable_billing_at=1.5), prod)
    assert problems == [
        f"{P}.budget.disable_billing_at: unlinking billing stops every service in "
        "the project; it is never allowed in prod: remove it"
    ]
    prod = copy.deepcopy(stack_config("prod"))
    problems = _problems(lambda s: s["automation"].update(allow_billing_disable=True), prod)
    assert problems == [
        f"{P}.automation.allow_billing_disable: billing unlink is never enabled for prod"
    ]


def test_prod_refuses_to_drop_backups_or_protection() -> None:
    prod = copy.deepcopy(stack_config("prod"))
    problems = _problems(
        lambda s: s["metadata_db"].update(backups=False, deletion_protection=False), prod
    )
    assert problems == [
        f"{P}.metadata_db.backups: prod keeps backups of pipeline metadata; remove the key",
        f"{P}.metadata_db.deletion_protection: prod keeps deletion protection; remove the key",
    ]


def test_provider_keys_are_required_and_consistent() -> None:
    config = _dev()
    del config["gcp:project"]
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    assert err.value.problems == ["gcp:project: required key is missing"]
    config = _dev()
    config["mlgov:settings"]["region"] = "europe-west4"
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    assert err.value.problems == [
        f"{P}.region: 'europe-west4' differs from gcp:region "
        "'us-central1'; set it once, in gcp:region"
    ]


def test_provider_values_are_reported_under_the_key_the_user_wrote() -> None:
    config = _dev()
    config["gcp:project"] = "Acme_ML"
    config["gcp:region"] = "central"
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    assert [p.split(":", 2)[:2] for p in err.value.problems] == [
        ["gcp", "project"],
        ["gcp", "region"],
    ]
    assert err.value.problems == [
        "gcp:project: 'Acme_ML' is not a project id: 6-30 lowercase letters, digits or hyphens, "
        "starting with a letter (e.g. acme-ml-dev)",
        "gcp:region: 'central' is not a region name such as us-central1",
    ]


def test_structural_and_semantic_problems_are_reported_in_one_pass() -> None:
    def mutate(s: dict[str, Any]) -> None:
        s["notebooks"]["bob"].update(idle_minutes="long")
        s["notebooks"]["alice"].update(idle_minutes=500)
        s["budget"].update(thresholds=[0.9, 0.5])

    problems = _problems(mutate)
    assert problems == [
        f"{P}.notebooks.bob.idle_minutes: Input should be a valid integer, unable to parse "
        "string as an integer",
        f"{P}.notebooks.alice.idle_minutes: 500 is above the dev maximum of 120; lower it or "
        "raise limits.max_idle_minutes",
        f"{P}.budget.thresholds: thresholds must be distinct and ascending, e.g. [0.5, 0.9, 1.0]",
    ]


def test_a_set_aside_section_is_not_reported_twice() -> None:
    # An invalid gke section must not also read as "training_pools need a GKE cluster".
    problems = _problems(lambda s: s["gke"].update(release_channel="NIGHTLY"))
    assert len(problems) == 1
    assert problems[0].startswith(f"{P}.gke.release_channel: Input should be")


def test_settings_key_missing_or_not_a_mapping() -> None:
    with pytest.raises(SettingsError) as err:
        settings_from_config({"gcp:project": "acme-ml-dev", "gcp:region": "us-central1"})
    # No file the user may not have (this repository's stacks/): what reads it, and how to start.
    assert err.value.problems == [
        f"{P}: required key is missing: mlgov's platform program (build_platform) reads the "
        "stack's settings from it; `mlgov init --stack NAME` writes a minimal one"
    ]
    with pytest.raises(SettingsError) as err:
        parse_settings(["not", "a", "mapping"])
    assert err.value.problems == [f"{P}: must be a mapping of settings, got list"]


def test_structured_config_may_arrive_as_json_string() -> None:
    import json

    config = _dev()
    config["mlgov:settings"] = json.dumps(config["mlgov:settings"], default=str)
    assert settings_from_config(config).prefix == "acme-dev"
    config["mlgov:settings"] = "{not json"
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    assert len(err.value.problems) == 1
    assert err.value.problems[0].startswith(f"{P}: not valid JSON (Expecting property name")


def test_limits_default_per_environment_and_can_be_overridden() -> None:
    config = _dev()
    config["mlgov:settings"]["limits"] = {"max_idle_minutes": 30}
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    assert err.value.problems[0].startswith(f"{P}.notebooks.alice.idle_minutes: 60 is above")
    config = _dev()
    settings = settings_from_config(config)
    assert settings.limits.max_idle_minutes == 120
    assert "NVIDIA_TESLA_T4" in settings.limits.notebook_gpu_types


def test_settings_are_frozen() -> None:
    settings = settings_from_config(_dev())
    with pytest.raises(ValueError, match="frozen"):
        settings.prefix = "other"  # type: ignore[misc]


def test_policy_config_carries_the_environment_guardrails() -> None:
    settings = settings_from_config(stack_config("prod"))
    config = settings.policy_config()
    assert config["environment"] == "prod"
    assert config["region"] == "europe-west4"
    assert config["max_idle_minutes"] == 240
    assert config["billing_export_dataset"] == "billing_export"
    assert config["required_labels"] == ["team", "env", "cost-center", "workload", "managed-by"]


def test_the_settings_package_exports_every_name_lazily_and_whole():
    # governance/settings/__init__.py loads its names on first use (so one location check does
    # not import pulumi and every model); each exported name must still resolve to its object.
    import importlib
    import subprocess
    import sys

    import governance.settings as package

    assert set(package.__all__) == set(package._WHERE)  # pyright: ignore[reportPrivateUsage]
    for name in package.__all__:
        module = importlib.import_module(package._WHERE[name])  # pyright: ignore[reportPrivateUsage]
        assert getattr(package, name) is getattr(module, name), name
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = package.Nope  # type: ignore[attr-defined]
    fresh = subprocess.run(
        [sys.executable, "-c",
         "import sys, governance.settings.locations; print('pulumi' in sys.modules)"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert fresh.stdout.strip() == "False", "a location check imported pulumi"
