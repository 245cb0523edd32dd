"""`spend_caps`: eligible service keys only (refused with the list and its source), sane amounts."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from governance.cli.main import main
from governance.settings import SettingsError, settings_from_config
from tests.conftest import REPO, stack_config

P = "mlgov:settings.spend_caps"


def config(caps: Any) -> dict[str, Any]:
    c = copy.deepcopy(stack_config("dev"))
    c["mlgov:settings"]["spend_caps"] = caps
    return c


def problems(caps: Any) -> list[str]:
    with pytest.raises(SettingsError) as err:
        settings_from_config(config(caps))
    return err.value.problems


def test_absent_means_no_caps_and_the_four_keys_are_accepted() -> None:
    assert settings_from_config(stack_config("dev")).spend_caps == {}
    caps = {"vertex_ai": 2000, "gemini_api": 300.5, "cloud_run": 0, "cloud_run_functions": 10}
    assert settings_from_config(config(caps)).spend_caps == caps


def test_another_service_is_refused_naming_it_with_the_eligible_list_and_source() -> None:
    [line] = problems({"vertex_ai": 100, "bigquery": 50})
    # pydantic marks a bad dict key with a trailing `[key]`; the key path starts the line.
    assert line.startswith(f"{P}.bigquery")
    assert line.endswith(
        ": 'bigquery' is not a service spend caps can cover; eligible: vertex_ai (Vertex AI), "
        "gemini_api (Gemini API), cloud_run (Cloud Run), cloud_run_functions (Cloud Run "
        "functions) (source: Create, edit, or delete spend cap budgets: Services that are "
        "eligible for spend cap budgets "
        "https://docs.cloud.google.com/billing/docs/how-to/budgets-spend-caps#eligible-services)"
    )


@pytest.mark.parametrize(
    ("caps", "expected"),
    [
        ({"vertex_ai": -1}, f"{P}.vertex_ai: Input should be greater than or equal to 0"),
        ({"vertex_ai": True}, f"{P}.vertex_ai: must be a number (a monthly amount in the billing account's currency)"),
        ({"vertex_ai": "2000"}, f"{P}.vertex_ai: must be a number (a monthly amount in the billing account's currency)"),
        ({"vertex_ai": float("inf")}, f"{P}.vertex_ai: must be a finite number"),
        ({"vertex_ai": 1e13}, f"{P}.vertex_ai: Input should be less than or equal to 1000000000000"),
        (["vertex_ai"], f"{P}: Input should be a valid dictionary"),
    ],
)  # fmt: skip
def test_amounts_are_finite_non_negative_numbers(caps: Any, expected: str) -> None:
    assert problems(caps) == [expected]


def test_the_cli_exits_2_naming_the_key_and_no_traceback(
    tmp_path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    data = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())
    data["config"]["mlgov:settings"]["spend_caps"] = {"vertex_ai": 10, "vertexai": 10}
    path = tmp_path / "Pulumi.capped.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["plan", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"Pulumi.capped.yaml: {P}.vertexai" in err
    assert "eligible: vertex_ai (Vertex AI)" in err
    assert "Traceback" not in err
