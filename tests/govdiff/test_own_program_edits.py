"""Edits to `mlgov:plan` (a program of the user's own) and to `limits` no policy reads.

`mlgov:plan.environment: prod -> dev` relaxes every limit and the prod rule itself;
`budget_required: true -> false` switches the budget rule off (the comment would otherwise show a
mandatory finding going away, as if fixed); `limits` relaxed, or an allow-list given a new
entry, widens what the program may create (an emptied allow-list allows nothing, to the settings
and the rules alike: a strengthening). Each is a named weakening, and
mandatory on a prod stack. `limits.max_gpu_vm_run_hours` of the platform's stacks is enforced by
the settings alone (no policy reads it): raising it is a weakening too.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from governance.review.comment import StackPlans, build_comment
from governance.review.govdiff import review
from governance.review.govdiff.aspects import ANY_VALUE, ASPECTS, judge
from governance.review.plan import plan_config
from tests.cli.test_own_program import FLEET
from tests.govdiff.stacks import base, edited, settings

BASE: dict[str, Any] = {
    "gcp:project": "shop-ml-dev",
    "gcp:region": "us-central1",
    "mlgov:plan": {"environment": "prod", "budget_required": True, "limits": {}},
}


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shop")
    (root / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    (root / "__main__.py").write_text(FLEET)
    return root


_PLANS: dict[str, str] = {}


def _plan(root: Path, config: dict[str, Any]) -> dict[str, Any]:
    """The program's plan for `config`: planned once per distinct config, a fresh copy each call
    (BASE is the `before` of most tests here; see tests/govdiff/stacks.py)."""
    key = json.dumps([str(root), config], sort_keys=True)
    if key not in _PLANS:
        doc = plan_config(
            copy.deepcopy(config), "shop", root / "__main__.py", root / "Pulumi.shop.yaml"
        )
        _PLANS[key] = json.dumps(doc)
    return json.loads(_PLANS[key])


def _edited(root: Path, **plan: Any) -> dict[str, Any]:
    config = copy.deepcopy(BASE)
    config["mlgov:plan"].update(plan)
    return _plan(root, config)


@pytest.mark.parametrize(
    ("edit", "change_id"),
    [
        ({"environment": "dev"}, "stack.environment"),
        ({"budget_required": False}, "limits.budget_required"),
        ({"limits": {"max_idle_minutes": 1440}}, "limits.max_idle_minutes"),
        (
            {"limits": {"notebook_machine_types": ["a2-ultragpu-8g"]}},
            "limits.notebook_machine_types",
        ),
        ({"limits": {"sql_tiers": ["db-custom-96-638976"]}}, "limits.sql_tiers"),
    ],
    ids=["environment-dev", "budget-not-required", "idle-1440", "new-machine", "new-tier"],
)
def test_each_mlgov_plan_edit_is_a_weakening_that_blocks_prod(
    program: Path, edit: dict[str, Any], change_id: str
) -> None:
    before = _plan(program, BASE)
    after = _edited(program, **edit)
    r = review(before, after)
    assert r.prod
    assert change_id in {c.id for c in r.blocking}, [c.id for c in r.changes]
    comment = build_comment([StackPlans("shop", after, before)])
    assert comment.blocking >= 1
    assert f"`{change_id}`" in comment.text.split("**Governance weakened**", 1)[1]


def test_budget_required_off_is_named_even_though_the_finding_goes_away(program: Path) -> None:
    before = _plan(program, BASE)
    assert "mlgov-budget-required" in {v["policy"] for v in before["violations"]}
    after = _edited(program, budget_required=False)
    assert after["violations"] == []
    [change] = review(before, after).weakened
    assert (change.id, change.before, change.after) == ("limits.budget_required", True, False)


def test_tightening_mlgov_plan_is_not_a_weakening(program: Path) -> None:
    # (dev -> prod is not "tightening" throughout: prod's limits allow larger machines.)
    loose = copy.deepcopy(BASE)
    loose["mlgov:plan"].update(budget_required=False, limits={"max_idle_minutes": 240})
    strict = copy.deepcopy(BASE)
    strict["mlgov:plan"]["limits"] = {"max_idle_minutes": 60}
    r = review(_plan(program, loose), _plan(program, strict))
    assert {c.id for c in r.changes} == {"limits.budget_required", "limits.max_idle_minutes"}
    assert r.weakened == ()


def test_raising_max_gpu_vm_run_hours_weakens_prod() -> None:
    head = edited("prod", lambda c: settings(c).update(limits={"max_gpu_vm_run_hours": 720}))
    assert head["limits"]["max_gpu_vm_run_hours"] == 720
    r = review(base("prod"), head)
    [change] = r.blocking
    assert (change.id, change.before, change.after) == ("limits.max_gpu_vm_run_hours", 72.0, 720.0)


@pytest.mark.parametrize(
    ("before", "after", "weakens"),
    [
        (("a", "b"), ANY_VALUE, True),  # the key dropped: any value passes the rule
        (("a",), ("a", "b"), True),
        ((), ("a",), True),  # from none to one
        (("a", "b"), ("a",), False),
        (("a", "b"), (), False),  # emptied: nothing allowed, to the settings and the rules
        (ANY_VALUE, ("a",), False),  # from any to a list: tighter
        (ANY_VALUE, (), False),
        ((), (), False),
    ],
)
def test_an_allow_list_that_allows_any_only_when_not_configured(
    before: Any, after: Any, weakens: bool
) -> None:
    assert judge(ASPECTS["limits.allowed_or_any"], before, after) is weakens


def test_emptying_the_machine_allow_list_is_a_strengthening(program: Path) -> None:
    before = _plan(program, BASE)
    after = _edited(program, limits={"notebook_machine_types": []})
    [change] = [c for c in review(before, after).changes if c.id.startswith("limits.")]
    assert (change.id, change.after, change.weakens) == ("limits.notebook_machine_types", (), False)
    # ... and the rule now refuses the fleet's notebook, as the settings check would.
    refused = [
        v for v in after["violations"] if v["policy"] == "mlgov-workbench-machine-type-allowed"
    ]
    assert refused, after["violations"]
    assert "none (the allow-list is empty)" in refused[0]["message"]
    assert not [
        v for v in before["violations"] if v["policy"] == "mlgov-workbench-machine-type-allowed"
    ]


def test_a_document_without_the_allow_list_allows_any_and_dropping_it_weakens() -> None:
    head = copy.deepcopy(base("prod"))
    del head["policy_config"]["notebook_machine_types"]
    r = review(base("prod"), head)
    [change] = [c for c in r.blocking if c.id == "limits.notebook_machine_types"]
    assert change.after == ANY_VALUE
