"""Edits that reach a governed value indirectly, as a PR can make them to a stack file's text.

YAML anchors and merge keys (one edit, several values), a key removed so a default applies, a
stack that stops using `mlgov:settings`, a value moved to `mlgov:plan`, and case or whitespace
changes Google would read differently. Each either shows as a weakening on the PR or is refused
with exit 2 naming the key: never a silent change. The stack files are read as `mlgov plan` reads
them (governance/inputs/project.py, YAML as Pulumi reads it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from governance.errors import Exit
from governance.inputs.project import read_stack_config
from governance.review.govdiff import review
from tests.cli.test_exit_codes import PROD, Run, one_refusal, run, stack_file
from tests.govdiff.stacks import AS_OF, base, plan

__all__ = ["run"]

TPU = """    tpu_vms:
      research-v5e: {accelerator_type: v5litepod-8, runtime_version: v2-alpha-tpuv5-lite,
                     zone: europe-west4-b}
"""
# Two TPU VMs sharing one definition through an anchor and a merge key.
TPU_ANCHORED = """    tpu_vms:
      research-v5e: &tpu {accelerator_type: v5litepod-8, runtime_version: v2-alpha-tpuv5-lite,
                          zone: europe-west4-b, exempt: false}
      research-v5e-2: {<<: *tpu, runtime_version: v2-alpha-tpuv5-lite}
"""
SCHEDULES = """    automation:
      dry_run: false
      allow_billing_disable: false
"""
SCHEDULES_ANCHORED = """    automation:
      dry_run: false
      allow_billing_disable: false
      reap_idle_vms_schedule: &often "0 * * * *"
      reap_idle_gpus_schedule: *often
"""


def _plan_text(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    path = tmp_path / f"Pulumi.{name}.yaml"
    path.write_text(text)
    config = read_stack_config(path)
    config["mlgov:settings"].setdefault("usage", {})["as_of"] = AS_OF
    return plan("prod", config)


def test_an_anchor_edited_once_weakens_every_value_that_uses_it(tmp_path: Path) -> None:
    before_text = PROD.replace(TPU, TPU_ANCHORED)
    assert before_text != PROD
    after_text = before_text.replace(
        "zone: europe-west4-b, exempt: false}", "zone: europe-west4-b, exempt: true}"
    )
    before = _plan_text(tmp_path, "base", before_text)
    after = _plan_text(tmp_path, "head", after_text)
    weakened = {c.id for c in review(before, after).weakened}
    assert {
        "training-research-v5e.labels.mlgov-exempt",
        "training-research-v5e-2.labels.mlgov-exempt",
    } <= weakened, weakened


def test_an_aliased_schedule_made_rarer_weakens_both_jobs(tmp_path: Path) -> None:
    before_text = PROD.replace(SCHEDULES, SCHEDULES_ANCHORED)
    after_text = before_text.replace('&often "0 * * * *"', '&often "0 0 1 1 *"')
    before = _plan_text(tmp_path, "base", before_text)
    after = _plan_text(tmp_path, "head", after_text)
    weakened = {c.id for c in review(before, after).weakened}
    assert {
        "governance-reap-idle-vms-job.schedule",
        "governance-reap-idle-gpus-job.schedule",
    } <= weakened, weakened


def test_a_removed_key_whose_default_is_weaker_is_a_weakening() -> None:
    # prod sets dry_run: false; without the key the default (true: simulate only) applies.
    config = json.loads(json.dumps(base_config()))
    del config["mlgov:settings"]["automation"]["dry_run"]
    r = review(base("prod"), plan("prod", config))
    assert "policy.dry_run" in {c.id for c in r.blocking}, [c.id for c in r.changes]


def test_a_removed_key_whose_default_is_stronger_is_shown_not_weakening() -> None:
    # prod stops at 1.1; the default stops at 1.0: earlier, so stronger.
    config = json.loads(json.dumps(base_config()))
    del config["mlgov:settings"]["budget"]["stop_at"]
    r = review(base("prod"), plan("prod", config))
    [change] = [c for c in r.changes if c.id.endswith(".stop_at")]
    assert (change.before, change.after, change.weakens) == (1.1, 1.0, False)


def base_config() -> dict[str, Any]:
    from tests.govdiff.stacks import config_of

    return config_of("prod")


def test_a_stack_that_stops_using_mlgov_settings_cannot_plan_the_platform(
    run: Run, tmp_path: Path
) -> None:
    # Without `mlgov:settings` the platform program has nothing to build from: exit 2, not an
    # empty plan whose comment would read as "everything removed" or, worse, "unchanged".
    text = PROD.split("  mlgov:settings:", 1)[0] + "  mlgov:plan: {environment: dev}\n"
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(text)
    code, out, err = run("plan", "--config", str(path), "--json")
    assert code == Exit.INVALID, (code, out[:200])
    assert "mlgov:settings" in err and "Traceback" not in err


def test_a_value_moved_to_mlgov_plan_beside_the_settings_is_refused(
    run: Run, tmp_path: Path
) -> None:
    path = stack_file(
        tmp_path,
        PROD,
        "  mlgov:settings:\n",
        "  mlgov:plan: {budget_required: false}\n  mlgov:settings:\n",
    )
    line = one_refusal(run("plan", "--config", str(path)), "mlgov:plan")
    assert "not used beside mlgov:settings" in line


CASE_AND_SPACE = [
    (
        "billing_account: 01D4EE-079462-DFD6EC",
        "billing_account: 01d4ee-079462-dfd6ec",
        "mlgov:settings.billing_account",
    ),
    ("gcp:project: acme-ml-prod", 'gcp:project: "acme-ml-prod "', "gcp:project"),
    ("gcp:region: europe-west4", "gcp:region: Europe-West4", "gcp:region"),
    (
        "timezone: Europe/Amsterdam",
        "timezone: europe/amsterdam",
        "mlgov:settings.notebooks.oncall.office_hours.timezone",
    ),
    (
        "machine_type: n2-standard-8",
        "machine_type: N2-Standard-8",
        "mlgov:settings.notebooks.oncall.machine_type",
    ),
    (
        "nvidia-l4: 32}",
        "NVIDIA-L4: 32}",
        "mlgov:settings.gke.autoprovisioning.accelerators.NVIDIA-L4",
    ),
    (
        "cost-center: cc-9000}",
        "cost-center: cc-9000, Mlgov-Exempt: 'true'}",
        "mlgov:settings.labels.Mlgov-Exempt",
    ),
    ("dry_run: false", "dry_run: 'False '", "mlgov:settings.automation.dry_run"),
]


@pytest.mark.parametrize(("old", "new", "key"), CASE_AND_SPACE, ids=[c[2] for c in CASE_AND_SPACE])
def test_case_and_whitespace_google_reads_differently_are_refused(
    run: Run, tmp_path: Path, old: str, new: str, key: str
) -> None:
    path = stack_file(tmp_path, PROD, old, new)
    one_refusal(run("plan", "--config", str(path)), key)
