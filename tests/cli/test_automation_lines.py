"""`mlgov plan` shows what the functions may act on: projects, scopes, fan-out, blast radius."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from governance.review.automation_lines import TITLE, automation_lines
from governance.review.render import markdown, text

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def golden(stack: str) -> dict[str, Any]:
    return json.loads((GOLDEN / f"plan.{stack}.json").read_text())


def test_the_prod_plan_shows_its_folder_scope_fan_out_and_limits():
    assert automation_lines(golden("prod")) == [
        "project acme-ml-prod: zones europe-west4-a, europe-west4-b, environment prod, billing "
        "unlink never",
        "scope folders/112233445566: projects labelled mlgov-governed=true (found at run time), "
        "every zone, environment prod, billing unlink never",
        "fan-out: one work item per project on projects/acme-ml-prod/topics/acme-prod-work; "
        "on_work_item up to 157 instances x 80 items; 20 delivery attempts, then "
        "projects/acme-ml-prod/topics/acme-prod-work-dead (pages)",
        "blast radius (reapers): at most 200 stops a run; stop acting past 5% failed calls; "
        "canary projects/acme-ml-prod first; acting: reap_idle_vms, reap_expired, "
        "reap_idle_gpus (any other simulates)",
    ]


def test_a_stack_without_scopes_shows_its_project_and_the_default_limits():
    assert automation_lines(golden("dev")) == [
        "project acme-ml-dev: zones us-central1-a, us-central1-b, environment dev, billing "
        "unlink allowed",
        "blast radius (reapers): at most 100 stops a run; stop acting past 5% failed calls; no "
        "canary; acting: reap_idle_vms, reap_expired, reap_idle_gpus (any other simulates)",
    ]


def _edit_policy(doc: dict[str, Any], change: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    for r in doc["resources"]:
        env = r["inputs"].get("serviceConfig", {}).get("environmentVariables", {})
        if "MLGOV_POLICY" in env:
            policy = json.loads(env["MLGOV_POLICY"])
            change(policy)
            env["MLGOV_POLICY"] = json.dumps(policy)
    return doc


def test_a_whole_organization_with_unlink_and_no_selector_says_so():
    def change(policy: dict[str, Any]) -> None:
        policy["scopes"] = {
            "organizations/9": {
                "environment": "dev",
                "allow_billing_disable": True,
                "vertex_regions": ["us-east1"],
            }
        }
        policy["blast_radius"].update(max_stop_percent=10, acting_reapers=[])

    lines = automation_lines(_edit_policy(golden("prod"), change))
    assert lines[1] == (
        "scope organizations/9: every project (found at run time), every zone, Vertex AI in "
        "us-east1, environment dev, billing unlink allowed"
    )
    assert lines[-1].startswith(
        "blast radius (reapers): at most 200 stops a run and 10% of the running estate;"
    )
    assert lines[-1].endswith("acting: none (any other simulates)")


def test_a_policy_from_before_blast_radius_shows_the_functions_defaults():
    lines = automation_lines(_edit_policy(golden("dev"), lambda p: p.pop("blast_radius")))
    assert lines[-1] == (
        "blast radius (reapers): the functions' defaults (100 stops a run, 5% failed calls)"
    )


def test_no_governance_functions_no_lines():
    doc = golden("dev")
    doc["resources"] = [
        r for r in doc["resources"] if r["type"] != "gcp:cloudfunctionsv2/function:Function"
    ]
    assert automation_lines(doc) == []
    assert TITLE not in text(doc)


def test_the_text_and_markdown_views_carry_the_section():
    doc = golden("prod")
    assert f"{TITLE}:" in text(doc)
    assert "  scope folders/112233445566: projects labelled" in text(doc)
    md = markdown(doc)
    assert "**Automation (what the governance functions may act on)**" in md
    assert "- fan-out: one work item per project" in md
