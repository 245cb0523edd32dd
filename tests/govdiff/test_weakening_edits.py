"""The eight one-line edits of issue 20 that switch governance off: each is flagged in the PR
comment under **Governance weakened**, is a mandatory finding on the prod stack (comment exit 1)
unless the stack file acknowledges it, and is not mandatory once acknowledged.

Every plan here is the shipped stack file with one edit, planned in-process exactly as
`mlgov plan` does (program under mocks, policies, costs), so the change ids are the ones a
reviewer sees on a real PR.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from governance.cli.main import main
from governance.review.comment import StackPlans, build_comment
from governance.review.govdiff import MANDATORY_POLICY, review
from governance.settings.limits import ENV_LIMITS
from tests.govdiff.stacks import Edit, base, edited, settings

REASON = "INC-4711: cap misfired during the incident; re-enable by 2026-12-01"


def _automation(**values: Any) -> Edit:
    return lambda c: settings(c)["automation"].update(values)


def _limits(c: dict[str, Any]) -> None:
    prod = ENV_LIMITS["prod"]
    settings(c)["limits"] = {
        "max_idle_minutes": 1440,
        "notebook_machine_types": [*prod["notebook_machine_types"], "a2-ultragpu-8g"],
    }


YEARLY = "0 0 1 1 *"
# (edit, the change ids it must produce, one of them the one the stack acknowledges)
EDITS: dict[str, tuple[Edit, tuple[str, ...]]] = {
    "dry_run": (_automation(dry_run=True), ("policy.dry_run",)),
    "gpu-pool-exempt": (
        lambda c: settings(c)["training_pools"]["l4-spot"].update(exempt=True),
        ("training-l4-spot.labels.mlgov-exempt",),
    ),
    "tpu-vm-exempt": (
        lambda c: settings(c)["tpu_vms"]["research-v5e"].update(exempt=True),
        ("training-research-v5e.labels.mlgov-exempt",),
    ),
    "reapers-yearly": (
        _automation(
            reap_idle_vms_schedule=YEARLY,
            reap_expired_schedule=YEARLY,
            reap_idle_gpus_schedule=YEARLY,
        ),
        (
            "governance-reap-idle-vms-job.schedule",
            "governance-reap-expired-job.schedule",
            "governance-reap-idle-gpus-job.schedule",
        ),
    ),
    "relaxed-limits": (_limits, ("limits.max_idle_minutes", "limits.notebook_machine_types")),
    "project-id": (lambda c: c.update({"gcp:project": "acme-ml-prod-2"}), ("stack.project",)),
    "billing-account": (
        lambda c: settings(c).update(billing_account="01D4EE-079462-DFD6ED"),
        ("budget-budget.billingAccount",),
    ),
    "budget-project-number": (
        lambda c: settings(c).update(project_number="345678901299"),
        ("budget-budget.budgetFilter.projects",),
    ),
}


def _acknowledging(edit: Edit, ids: tuple[str, ...]) -> Edit:
    def both(config: dict[str, Any]) -> None:
        edit(config)
        settings(config)["acknowledge"] = [{"change": i, "reason": REASON} for i in ids]

    return both


@pytest.mark.parametrize("name", EDITS)
def test_each_edit_is_a_named_weakening_and_blocks_prod(name: str) -> None:
    edit, ids = EDITS[name]
    head = edited("prod", edit)
    r = review(base("prod"), head)
    weakened = {c.id for c in r.weakened}
    assert set(ids) <= weakened, (name, weakened)
    assert r.prod
    assert {c.id for c in r.blocking} >= set(ids)

    comment = build_comment([StackPlans("prod", head, base("prod"))])
    assert comment.blocking >= len(ids)
    section = comment.text.split("### ", 1)[1]
    block = section.split("**Governance weakened**", 1)[1].split("**Policy findings**", 1)[0]
    for change_id in ids:
        row = next(line for line in block.splitlines() if f"`{change_id}`" in line)
        assert row.startswith(f"| :x: mandatory (`{MANDATORY_POLICY}`) |"), row
    # the heading comes first in the stack's section, before findings and costs
    assert section.index("**Governance weakened**") < section.index("**Policy findings**")
    assert "cannot merge as is" in comment.text


@pytest.mark.parametrize("name", EDITS)
def test_an_acknowledged_weakening_does_not_block_and_shows_its_reason(name: str) -> None:
    edit, ids = EDITS[name]
    weakened = {c.id for c in review(base("prod"), edited("prod", edit)).weakened}
    # acknowledge every weakening the edit makes (a project move touches many grants too)
    head = edited("prod", _acknowledging(edit, tuple(sorted(weakened))))
    assert head["acknowledgements"][0]["reason"] == REASON  # carried by the plan document
    r = review(base("prod"), head)
    assert {c.id for c in r.weakened} == weakened
    assert r.blocking == ()
    assert r.stale == ()
    comment = build_comment([StackPlans("prod", head, base("prod"))])
    assert comment.blocking == 0
    for change_id in ids:
        row = next(line for line in comment.text.splitlines() if f"| `{change_id}` |" in line)
        assert ":white_check_mark: acknowledged: INC-4711\\: cap misfired" in row, row


def test_the_same_edit_outside_prod_is_shown_but_advisory() -> None:
    edit, ids = EDITS["dry_run"]
    head = edited("staging", edit)
    r = review(base("staging"), head)
    assert not r.prod
    assert [c.id for c in r.weakened] == list(ids)
    assert r.blocking == ()
    text = build_comment([StackPlans("staging", head, base("staging"))]).text
    assert "| :warning: weakens (not prod: advisory) | `policy.dry_run` |" in text


def test_an_acknowledgement_that_names_no_change_is_a_stale_warning() -> None:
    head = edited("prod", _acknowledging(lambda c: None, ("policy.dry_run",)))
    r = review(base("prod"), head)
    assert r.changes == ()
    assert [a.change for a in r.stale] == ["policy.dry_run"]
    comment = build_comment([StackPlans("prod", head, base("prod"))])
    assert comment.blocking == 0
    assert ":warning: acknowledgement `policy.dry_run` names no change in this PR" in comment.text


def test_acknowledging_one_weakening_leaves_the_others_blocking() -> None:
    edit, ids = EDITS["reapers-yearly"]
    head = edited("prod", _acknowledging(edit, ids[:1]))
    r = review(base("prod"), head)
    assert sorted(c.id for c in r.blocking) == sorted(ids[1:])


def test_comment_and_diff_exit_1_on_an_unacknowledged_prod_weakening(tmp_path: Path, capsys):
    edit, _ = EDITS["dry_run"]
    b, h = tmp_path / "base.json", tmp_path / "head.json"
    b.write_text(json.dumps(base("prod")))
    h.write_text(json.dumps(edited("prod", edit)))
    full = tmp_path / "full.md"
    assert main(["comment", "--stack", "prod", str(b), str(h), "--full-report", str(full)]) == 1
    out = capsys.readouterr().out
    assert "`policy.dry_run`" in out
    assert "`policy.dry_run`" in full.read_text()
    assert main(["diff", str(b), str(h)]) == 1
    text = capsys.readouterr().out
    assert "Governance weakened:\n  ! policy.dry_run: false -> true [MANDATORY (prod)]" in text
    assert main(["diff", str(b), str(h), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["governance"]["blocking"] == ["policy.dry_run"]
    # the unchanged stack: nothing blocks, both commands exit 0
    assert main(["diff", str(b), str(b)]) == 0
    assert "no governance change" in capsys.readouterr().out
    assert main(["comment", "--stack", "prod", str(b), str(b)]) == 0
