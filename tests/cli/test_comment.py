"""The pull-request comment (`render_comment`, `mlgov comment`): rendered in-process from real plans.

Base and head are the shipped stacks' plan documents (tests/golden) re-evaluated by `check`'s
own code (evaluate_document), so costs, findings, fallbacks and the catalog date are what the PR
job would show; heads change one thing each.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, cast

import pytest

from governance.cli.main import main
from governance.review.comment import MARKER, StackPlans, render_comment
from governance.review.plan import evaluate_document

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def golden(stack: str) -> dict[str, Any]:
    return json.loads((GOLDEN / f"plan.{stack}.json").read_text())


def evaluate(doc: dict[str, Any]) -> dict[str, Any]:
    return cast(dict[str, Any], evaluate_document(cast(Any, copy.deepcopy(doc))))


def resource(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in doc["resources"] if r["name"] == name)


@pytest.fixture(scope="module")
def base() -> dict[str, Any]:
    return evaluate(golden("dev"))


def with_a100_pool(doc: dict[str, Any]) -> dict[str, Any]:
    head = copy.deepcopy(doc)
    pool = copy.deepcopy(resource(head, "training-t4-spot"))
    pool["name"] = "training-a100-spot"
    pool["inputs"]["nodeConfig"]["machineType"] = "a2-highgpu-1g"
    pool["inputs"]["nodeConfig"]["guestAccelerators"] = []
    head["resources"].append(pool)
    return evaluate(head)


def test_a_changed_stack_shows_findings_cost_changes_and_folds_free_resources(base):
    assert not base["violations"]  # the shipped dev stack is clean
    head = with_a100_pool(base)
    text = render_comment([StackPlans("dev", head, base)])
    assert text.startswith(MARKER + "\n## mlgov plan: governance, cost and policy check\n")
    assert "Stacks with changes: `dev`." in text
    added = next(c for c in text.splitlines() if "`training-a100-spot`" in c and "| added |" in c)
    # the row's delta is the new resource's own cost (the stack totals' difference can round a
    # cent apart once other resources carry sub-cent amounts)
    delta = resource(head, "training-a100-spot")["monthly_usd"]
    assert added.endswith(f"| +${delta:,.2f} |")
    assert "**Policy findings**\n\nNo policy findings." in text
    # every $0 resource is folded into one line; none is listed on its own
    rows = [r for r in head["resources"] if not r["type"].startswith("mlgov:")]
    free = [r for r in rows if r.get("monthly_usd") == 0]
    assert len(free) >= 10
    assert f"| {len(free)} free resources | " in text
    assert "projects/IAMMember x" in text
    assert not any(line.endswith("| $0.00 |") and "free resources" not in line
                   for line in text.splitlines())  # fmt: skip
    assert f"Resources: {len(rows) - len(free)} with a cost, {len(free)} free" in text
    dates = head["price_catalog"]["price_dates"]
    assert (
        f"prices: catalog of 2026-07-30; the prices used are dated {dates['first']} to "
        f"{dates['last']} (each cost line shows its date; `mlgov prices refresh` updates them)"
    ) in text


def test_unchanged_stacks_are_named_not_shown(base):
    text = render_comment([StackPlans("dev", base, base), StackPlans("staging", base, base)])
    assert "Unchanged (same governance, cost and findings): `dev`, `staging`." in text
    assert "### " not in text
    assert ":white_check_mark: no mandatory findings." in text


def test_mandatory_findings_and_fallback_prices_are_named_in_the_comment():
    prod = evaluate(golden("prod"))
    changed = copy.deepcopy(prod)
    nb = resource(changed, "notebooks-oncall")
    del nb["inputs"]["gceSetup"]["metadata"]["idle-timeout-seconds"]  # a mandatory policy
    head = evaluate(changed)
    text = render_comment([StackPlans("prod", head, prod)])
    assert ":x: " in text.splitlines()[3]  # the verdict line
    assert "cannot merge as is" in text
    line = next(v for v in text.splitlines() if "mlgov-workbench-idle-shutdown" in v)
    assert line.startswith("| :x: mandatory | ")
    # prod's Cloud SQL backups in europe-west4 have no catalog price: the nearest location's,
    # named (its vCPU and RAM have europe-west4 prices)
    assert "for sql.enterprise.vcpu" not in text
    assert (
        "\\* metadata-instance\\: no price in europe-west4 for sql.backup; "
        "priced from us-central1, the nearest location with one"
    ) in text
    sql_row = next(v for v in text.splitlines() if "| `metadata-instance` |" in v)
    assert sql_row.endswith("* |")  # the amount is marked as a fallback
    assert "| changed | `notebooks-oncall` |" in text


def test_a_stack_that_cannot_be_planned_blocks_and_shows_its_error(base):
    text = render_comment([
        StackPlans("dev", base, base),
        StackPlans("qa", {"stack": "qa", "resources": []},
                   error="mlgov: error: mlgov:settings.zones: required key is missing\n"),
    ])  # fmt: skip
    assert "### :x: `qa`: the stack could not be planned" in text
    assert "```\nmlgov: error: mlgov:settings.zones: required key is missing\n```" in text
    assert (
        "1 mandatory finding(s), unacknowledged prod weakening(s), unapproved governance code or "
        "failed plan(s)"
    ) in text


def test_a_base_that_cannot_be_planned_blocks_and_is_named(base):
    # Never "no base": a base that does not plan would compare a weakened head with nothing.
    text = render_comment([
        StackPlans("prod", {"stack": "prod", "resources": []},
                   error="mlgov: error: policies: cannot import name 'helper'\n", failed="base"),
    ])  # fmt: skip
    assert "### :x: `prod`: the PR base could not be planned" in text
    assert "```\nmlgov: error: policies: cannot import name 'helper'\n```" in text
    assert "a base that does not plan is never read as no base" in text
    assert ":x: 1 mandatory finding(s)" in text
    assert "No base plan" not in text and "every resource is new" not in text


def test_a_new_stack_shows_every_resource_as_new_and_is_judged_on_its_own(base):
    text = render_comment([StackPlans("dev", base, None)])
    assert "A new stack (the PR base has no stack file for it): every resource is new." in text
    assert "judged on its own" in text
    assert "### " in text


def test_mlgov_comment_command_in_process(base, tmp_path: Path, capsys):
    b, h = tmp_path / "base.json", tmp_path / "head.json"
    b.write_text(json.dumps(base))
    h.write_text(json.dumps(with_a100_pool(base)))
    err_file = tmp_path / "qa.err"
    err_file.write_text("mlgov: error: bad\n")
    code = main(["comment", "--stack", "dev", str(b), str(h), "--stack", "prod", "none", str(h),
                 "--failed", "qa", str(err_file)])  # fmt: skip
    out, err = capsys.readouterr()
    assert (code, err) == (1, "")  # the failed plan blocks the PR: exit 1, as for a finding
    assert out.startswith(MARKER)
    assert "| added | `training-a100-spot` |" in out
    assert "`prod`" in out and "A new stack (the PR base has no stack file for it)" in out
    assert "`qa`: the stack could not be planned" in out
    assert main(["comment"]) == 2
    assert "comment needs at least one --stack" in capsys.readouterr().err
    assert main(["comment", "--stack", "dev", str(tmp_path / "nope.json"), str(h)]) == 2
    assert "nope.json: cannot read" in capsys.readouterr().err
