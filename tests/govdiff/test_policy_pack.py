"""A policy-pack config is governance: disabling rules or changing their settings is a change.

The preview job gives CrossGuard `policies/config.NAME.json` (`--policy-pack-config`), and the
offline job plans each side of the PR with its own copy (`mlgov plan --policy-config`). A PR that
edits the file to switch rules off (`all: disabled`), lower one to advisory, silence a cost
finding or relax a setting must show each change under **Governance weakened** (and block prod
unless acknowledged), not as a quieter list of findings.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from governance.cli.main import main
from governance.review.comment import StackPlans, build_comment
from governance.review.govdiff import review
from governance.review.policy_config import parse_policy_config
from mlgov_policies.registry import ALL_RULES
from tests.govdiff.stacks import REPO, config_of, plan

SHIPPED = REPO / "policies" / "config.prod.json"


def _shipped() -> dict[str, Any]:
    return json.loads(SHIPPED.read_text(encoding="utf-8"))


def _planned(raw: dict[str, Any] | None) -> dict[str, Any]:
    pack = None if raw is None else parse_policy_config(raw, "policies/config.prod.json")
    return plan("prod", config_of("prod"), pack)


@pytest.fixture
def base() -> dict[str, Any]:
    """The prod stack planned with the shipped policy-pack config, as the workflow does.

    Planned once per process (tests/govdiff/stacks.py); each test gets its own copy.
    """
    return _planned(_shipped())


def test_the_shipped_config_changes_nothing_against_none(base: dict[str, Any]) -> None:
    # The workflow's base without a config (an older base) and a head with the shipped one
    # must not differ: the generated file says what the stack's settings already say.
    assert review(_planned(None), base).changes == ()
    assert base["policy_pack_config"]["source"] == "policies/config.prod.json"


def test_all_disabled_names_every_rule_and_blocks_prod(base: dict[str, Any]) -> None:
    head = _planned({"all": "disabled"})
    r = review(base, head)
    weakened = {c.id: c for c in r.weakened}
    assert {f"rules.{name}" for name in ALL_RULES} <= set(weakened)
    assert "rules.mlgov-cost-budget-exceeded" in weakened  # cost findings take a level too
    change = weakened["rules.mlgov-workbench-idle-shutdown"]
    assert (change.before, change.after, change.kind) == ("mandatory", "disabled", "rule")
    assert {c.id for c in r.blocking} == set(weakened)
    comment = build_comment([StackPlans("prod", head, base)])
    assert comment.blocking >= len(ALL_RULES)
    assert "| `rules.mlgov-workbench-idle-shutdown` | mandatory | disabled |" in comment.text


def test_one_rule_lowered_and_its_setting_relaxed(base: dict[str, Any]) -> None:
    raw = _shipped()
    raw["mlgov-workbench-idle-shutdown"] = {
        "enforcementLevel": "advisory",
        "max_idle_minutes": 1440,
    }
    raw["mlgov-cost-budget-exceeded"] = "disabled"
    r = review(base, _planned(raw))
    assert {c.id for c in r.weakened} == {
        "rules.mlgov-workbench-idle-shutdown",
        "limits.max_idle_minutes",
        "rules.mlgov-cost-budget-exceeded",
    }
    limit = next(c for c in r.weakened if c.id == "limits.max_idle_minutes")
    assert (limit.before, limit.after) == (240.0, 1440.0)


@pytest.mark.parametrize(
    ("setting", "value", "change_id"),
    [
        ("required_labels", ["team"], "limits.required_labels"),
        ("notebook_machine_types", ["a3-megagpu-8g"], "limits.notebook_machine_types"),
        ("region", "us-central1", "limits.region"),
        ("environment", "dev", "stack.environment"),
    ],
)
def test_a_relaxed_setting_in_the_config_weakens(
    base: dict[str, Any], setting: str, value: Any, change_id: str
) -> None:
    raw = _shipped()
    for entry in raw.values():
        if isinstance(entry, dict) and setting in entry:
            entry[setting] = value
    if not any(isinstance(e, dict) and setting in e for e in raw.values()):
        raw["mlgov-vertex-min-replicas"] = {setting: value}
    r = review(base, _planned(raw))
    assert change_id in {c.id for c in r.blocking}, [c.id for c in r.changes]


def test_a_rule_made_mandatory_is_not_a_weakening(base: dict[str, Any]) -> None:
    raw = _shipped()
    raw["mlgov-bigquery-table-expiration-ignored"] = "mandatory"  # advisory by default
    r = review(base, _planned(raw))
    [change] = r.changes
    assert (change.id, change.weakens) == ("rules.mlgov-bigquery-table-expiration-ignored", False)


def test_plan_takes_the_config_and_comment_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    disabled = tmp_path / "config.prod.json"
    disabled.write_text('{"all": "disabled"}')
    b, h = tmp_path / "base.json", tmp_path / "head.json"
    for out, pack in ((b, SHIPPED), (h, disabled)):
        assert main(["plan", "--stack", "prod", "--json", "--policy-config", str(pack)]) == 0
        out.write_text(capsys.readouterr().out)
    assert json.loads(h.read_text())["policy_selection"]["not_run"]
    assert main(["comment", "--stack", "prod", str(b), str(h)]) == 1
    text = capsys.readouterr().out
    assert "**Governance weakened**" in text
    assert "`rules.mlgov-budget-required`" in text
    assert main(["diff", str(b), str(h)]) == 1
    assert "! rules.mlgov-budget-required: mandatory -> disabled [MANDATORY (prod)]" in (
        capsys.readouterr().out
    )
