"""A Pulumi program of the user's own, building one mlgov component, plans without mlgov:settings.

The program below builds a NotebookFleet alone (docs/guides/components.md's example). Its stack file
holds Pulumi's `gcp:project` (and optionally `gcp:region` and `mlgov:plan`), nothing of mlgov's
platform: `mlgov plan` runs it under mocks, checks it and prices it. Errors name the user's
stack file, never this repository's stacks/.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from governance.cli.main import main
from governance.settings.context import from_config, plan_context
from governance.settings.errors import SettingsError
from mlgov_policies.config import PolicyConfig, PolicyConfigError
from tests.conftest import PROGRAM, stack_config

FLEET = """\
import pulumi

from governance.components import Notebook, NotebookFleet, NotebookFleetArgs, base_labels

fleet = NotebookFleet(
    "notebooks",
    NotebookFleetArgs(
        prefix="shop-dev",
        project="shop-ml-dev",
        region="us-central1",
        labels=base_labels("dev", {"team": "vision", "cost-center": "cc-42"}),
        notebooks={"ana": Notebook(zone="us-central1-a", machine_type="e2-standard-4")},
        network_id="projects/shop-ml-dev/global/networks/default",
        subnet_id="projects/shop-ml-dev/regions/us-central1/subnetworks/default",
    ),
)
pulumi.export("notebooks", fleet.instance_names)
"""


def _project(root: Path, program: str, stack: str) -> Path:
    (root / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    (root / "__main__.py").write_text(program)
    (root / "Pulumi.dev.yaml").write_text(stack)
    return root


def _plan(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.chdir(root)
    code = main(["plan", "--stack", "dev", "--json"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_notebook_fleet_alone_plans_with_no_budget_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, FLEET, "config:\n  gcp:project: shop-ml-dev\n  gcp:region: us-central1\n")
    code, out, err = _plan(tmp_path, monkeypatch, capsys)
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert (doc["project"], doc["region"]) == ("shop-ml-dev", "us-central1")
    assert {(r["type"], r["name"]) for r in doc["resources"]} >= {
        ("gcp:workbench/instance:Instance", "notebooks-ana")
    }
    assert doc["violations"] == []
    assert doc["policy_config"]["budget_required"] is False
    assert doc["policy_config"]["environment"] == "dev"
    assert doc["cost"]["monthly_usd"] > 0


def test_the_budget_rule_comes_back_when_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = "config:\n  gcp:project: shop-ml-dev\n  mlgov:plan: {budget_required: true}\n"
    _project(tmp_path, FLEET, stack)
    code, out, _ = _plan(tmp_path, monkeypatch, capsys)
    assert code == 1
    doc = json.loads(out)
    assert [v["policy"] for v in doc["violations"]] == ["mlgov-budget-required"]
    assert "region" not in doc  # no gcp:region: the region rule derives it from the resources


def test_mlgov_plan_sets_the_environment_and_its_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # e2-standard-4 is allowed in dev; a limit override that leaves it out refuses it.
    stack = (
        "config:\n  gcp:project: shop-ml-dev\n  gcp:region: us-central1\n"
        "  mlgov:plan:\n    environment: prod\n"
        "    limits: {notebook_machine_types: [n2-standard-8]}\n"
        "    usage: {notebook_active_hours_per_month: 100}\n"
    )
    _project(tmp_path, FLEET, stack)
    code, out, _ = _plan(tmp_path, monkeypatch, capsys)
    doc = json.loads(out)
    assert code == 1
    assert doc["policy_config"]["environment"] == "prod"
    assert doc["policy_config"]["max_idle_minutes"] == 240  # prod's, from the environment
    assert doc["assumptions"]["notebook_active_hours_per_month"] == 100
    assert "mlgov-workbench-machine-type-allowed" in {v["policy"] for v in doc["violations"]}


def test_errors_name_the_users_stack_file_and_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = "config:\n  gcp:region: us-central1\n  mlgov:plan: {environment: qa, limts: {}}\n"
    _project(tmp_path, FLEET, stack)
    code, out, err = _plan(tmp_path, monkeypatch, capsys)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "mlgov: error: Pulumi.dev.yaml: gcp:project: required key is missing: the project your "
        "program deploys into (pulumi config set gcp:project ID)",
        "mlgov: error: Pulumi.dev.yaml: mlgov:plan.environment: Input should be 'dev', "
        "'staging' or 'prod'",
        "mlgov: error: Pulumi.dev.yaml: mlgov:plan.limts: unknown key; did you mean 'limits'?",
    ]
    assert "stacks/" not in err


def test_the_platform_program_without_its_settings_names_the_users_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # mlgov's own program in the user's project, with a stack file that lacks mlgov:settings:
    # the program's read_settings() fails, and the error names the user's file.
    _project(tmp_path, PROGRAM.read_text(), "config:\n  gcp:project: shop-ml-dev\n")
    code, _, err = _plan(tmp_path, monkeypatch, capsys)
    assert code == 2
    assert err.startswith(
        "mlgov: error: Pulumi.dev.yaml: mlgov:settings: required key is missing: "
    )
    assert "stacks/Pulumi.dev.yaml" not in err and "Traceback" not in err


def test_policy_config_of_a_program_of_ones_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, FLEET, "config:\n  gcp:project: shop-ml-dev\n")
    monkeypatch.chdir(tmp_path)
    assert main(["policy-config", "--stack", "dev"]) == 0
    config = json.loads(capsys.readouterr().out)
    assert config["mlgov-budget-required"] == {"budget_required": False}


def test_mlgov_plan_beside_mlgov_settings_is_refused() -> None:
    config = {**stack_config("dev"), "mlgov:plan": {"environment": "dev"}}
    with pytest.raises(SettingsError) as err:
        plan_context(config)
    assert err.value.problems[0].startswith("mlgov:plan: not used beside mlgov:settings")


def test_a_platform_stack_keeps_its_policy_config() -> None:
    # The shipped stacks' policy config is what Settings.policy_config says (no budget key:
    # the rule's default, required).
    context = plan_context(stack_config("prod"))
    assert context.settings is not None
    assert context.policy_config == context.settings.policy_config()
    assert "budget_required" not in context.policy_config
    assert PolicyConfig.from_mapping(context.policy_config).budget_required is True


def test_mlgov_plan_may_arrive_as_a_json_string() -> None:
    context = from_config(
        {"gcp:project": "shop-ml-dev", "mlgov:plan": json.dumps({"environment": "staging"})}
    )
    assert context.policy_config["environment"] == "staging"
    with pytest.raises(SettingsError, match=r"mlgov:plan: must be a mapping, got list"):
        from_config({"gcp:project": "shop-ml-dev", "mlgov:plan": [1]})


def test_budget_required_is_a_boolean() -> None:
    assert PolicyConfig.from_mapping({"budget_required": False}).budget_required is False
    with pytest.raises(PolicyConfigError, match="budget_required"):
        PolicyConfig.from_mapping({"budget_required": "no"})


def test_provider_keys_are_held_to_the_platforms_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Whole values (a project id with a path after it is none) and a region Google offers, as
    # for mlgov:settings stacks: both reported at once, exit 2, each naming its key.
    stack = 'config:\n  gcp:project: "Other-Project/locations/x#y"\n  gcp:region: mars-central1\n'
    _project(tmp_path, FLEET, stack)
    code, out, err = _plan(tmp_path, monkeypatch, capsys)
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0] == (
        "mlgov: error: Pulumi.dev.yaml: gcp:project: 'Other-Project/locations/x#y' is not a "
        "project id: 6-30 lowercase letters, digits or hyphens, starting with a letter "
        "(e.g. acme-ml-dev)"
    )
    assert lines[1].startswith(
        "mlgov: error: Pulumi.dev.yaml: gcp:region: 'mars-central1' is not a region Google offers"
    )
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("gcp:project", "x/shop-ml-dev"),
        ("gcp:project", "shop-ml-dev\n"),
        ("gcp:region", "us-central1/zones/x"),
        ("gcp:region", "us-central1 "),
    ],
)
def test_provider_values_must_match_whole(key: str, value: str) -> None:
    config = {"gcp:project": "shop-ml-dev", "gcp:region": "us-central1", key: value}
    with pytest.raises(SettingsError) as err:
        from_config(config)
    assert len(err.value.problems) == 1, err.value.problems
    assert err.value.problems[0].startswith(f"{key}: ") and " is not " in err.value.problems[0]


def test_mlgov_plan_regions_and_locations_are_ones_google_offers() -> None:
    plan = {
        "usage": {"default_region": "eu-west9"},
        "limits": {"allowed_bigquery_locations": ["EU", "Mars"]},
    }
    with pytest.raises(SettingsError) as err:
        from_config({"gcp:project": "shop-ml-dev", "mlgov:plan": plan})
    problems = err.value.problems
    assert [p.split(": ", 1)[0] for p in problems] == [
        "mlgov:plan.usage.default_region",
        "mlgov:plan.limits.allowed_bigquery_locations.1",
    ]
    assert "did you mean europe-west9" in problems[0]


def test_mlgov_plan_as_a_json_string_is_read_with_bounds() -> None:
    nested = "[" * 200 + "]" * 200
    with pytest.raises(SettingsError) as err:
        from_config({"gcp:project": "shop-ml-dev", "mlgov:plan": nested})
    assert len(err.value.problems) == 1
    assert err.value.problems[0].startswith("mlgov:plan: ")
    assert "nest" in err.value.problems[0]


def test_no_plan_field_relies_on_pydantic_pattern() -> None:
    # pydantic's `pattern` matches anywhere in the value (tests/config/test_settings_values.py).
    from governance.settings.context import PlanSettings, _Provider  # pyright: ignore[reportPrivateUsage]

    for model in (PlanSettings, _Provider):
        assert '"pattern"' not in json.dumps(model.model_json_schema()), model.__name__
