"""A plan document's top-level `region` is the stack's region for the location rule.

Before: a document without `policy_config` (a saved plan, a Pulumi preview) had a region only
when every resource agreed on one, so one notebook in another region passed `check`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from governance.cli.main import main
from governance.review.plan import evaluate_document
from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources

LABELS = {"team": "t", "env": "dev", "cost-center": "c", "workload": "w", "managed-by": "m"}


def notebook(name: str, zone: str) -> dict[str, Any]:
    return {
        "type": "gcp:workbench/instance:Instance",
        "name": name,
        "inputs": {
            "location": zone,
            "labels": LABELS,
            "gceSetup": {
                "machineType": "n1-standard-4",
                "metadata": {"idle-timeout-seconds": "3600"},
            },
        },
    }


def doc(**extra: Any) -> dict[str, Any]:
    return {
        "stack": "dev",
        "resources": [
            notebook("nb-a", "us-central1-a"),
            notebook("nb-b", "us-central1-b"),
            notebook("nb-eu", "europe-west4-a"),
        ],
        **extra,
    }


def located(document: dict[str, Any]) -> list[tuple[str, str]]:
    found = cast(Any, evaluate_document(cast(Any, document)))["violations"]
    return [
        (v["resource"], v["message"]) for v in found if v["policy"] == "mlgov-location-in-region"
    ]


def test_the_rule_alone_has_no_region_when_resources_disagree() -> None:
    # What made the gap: with no configured region, disagreeing resources mean "no region".
    found = evaluate_resources(doc()["resources"], PolicyConfig(), stack="dev")
    assert not [v for v in found if v.policy == "mlgov-location-in-region"]


def test_top_level_region_is_the_stack_region_without_policy_config() -> None:
    assert located(doc(region="us-central1")) == [
        ("nb-eu", "location 'europe-west4-a' is outside the stack region 'us-central1'")
    ]


def test_top_level_region_is_used_when_policy_config_names_none() -> None:
    assert [
        r for r, _ in located(doc(region="us-central1", policy_config={"environment": "dev"}))
    ] == ["nb-eu"]


def test_policy_config_region_wins_over_the_top_level_one() -> None:
    names = [
        r for r, _ in located(doc(region="us-central1", policy_config={"region": "europe-west4"}))
    ]
    assert names == ["nb-a", "nb-b"]


def test_without_any_region_the_old_agreement_rule_still_applies() -> None:
    assert located(doc()) == []
    agreeing = {
        "stack": "dev",
        "resources": [notebook("a", "us-east1-b"), notebook("b", "us-east1-c")],
    }
    assert located(agreeing) == []


def test_check_fails_the_document_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc(region="us-central1")))
    assert main(["check", str(path), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert "mlgov-location-in-region" in {v["policy"] for v in out["violations"]}
