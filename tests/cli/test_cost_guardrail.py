"""The cost guardrail: `limits.max_monthly_increase_usd` / `_percent` (review/guardrail.py).

Settings refuse bad values naming the key (in `mlgov:settings` and `mlgov:plan`); `plan` shows the
limits; `comment` and `diff` report a PR that raises the monthly estimate past either as one
mandatory finding with base, head, increase ($ and %) and the limit, and exit 1. Base and head are
the shipped dev stack's golden plan, re-evaluated by `check`'s own code, with one resource added.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, cast

import pytest

from governance.cli.main import main
from governance.review.comment import StackPlans, build_comment
from governance.review.guardrail import INCREASE_LIMIT
from governance.review.plan import evaluate_document
from governance.review.render import text as plan_text
from governance.settings import SettingsError, settings_from_config
from governance.settings.context import plan_context
from tests.conftest import stack_config

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _evaluate(doc: dict[str, Any]) -> dict[str, Any]:
    return cast(dict[str, Any], evaluate_document(cast(Any, copy.deepcopy(doc))))


def _limited(doc: dict[str, Any], **limits: float | None) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out["limits"] = {**out["limits"], **{f"max_monthly_increase_{k}": v for k, v in limits.items()}}
    return out


@pytest.fixture(scope="module")
def base() -> dict[str, Any]:
    return _evaluate(json.loads((GOLDEN / "plan.dev.json").read_text()))


@pytest.fixture(scope="module")
def head(base: dict[str, Any]) -> dict[str, Any]:
    """The dev stack plus a second T4 training pool: about +$70.68 a month (+15.8%)."""
    doc = copy.deepcopy(base)
    pool = copy.deepcopy(next(r for r in doc["resources"] if r["name"] == "training-t4-spot"))
    pool["name"] = "training-t4-spot-2"
    doc["resources"].append(pool)
    return _evaluate(doc)


def _rise(base: dict[str, Any], head: dict[str, Any]) -> tuple[float, float, float]:
    old, new = base["cost"]["monthly_usd"], head["cost"]["monthly_usd"]
    return old, new, round(new - old, 2)


def _found(text: str) -> list[str]:
    return [line for line in text.splitlines() if f"`{INCREASE_LIMIT}`" in line]


# ------------------------------------------------------------------------------------ settings
@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (-1, "Input should be greater than or equal to 0"),
        (float("nan"), "must be a finite number (or null: no limit)"),
        (float("inf"), "must be a finite number (or null: no limit)"),
        ("200", "must be a number (or null: no limit)"),
        (True, "must be a number (or null: no limit)"),
    ],
)
@pytest.mark.parametrize("key", ["max_monthly_increase_usd", "max_monthly_increase_percent"])
def test_bad_limits_are_refused_naming_the_key(key: str, value: Any, problem: str) -> None:
    config = copy.deepcopy(stack_config("dev"))
    config["mlgov:settings"]["limits"] = {key: value}
    with pytest.raises(SettingsError) as err:
        settings_from_config(config)
    assert err.value.problems == [f"mlgov:settings.limits.{key}: {problem}"]
    own = {"gcp:project": "shop-ml-dev", "mlgov:plan": {"limits": {key: value}}}
    with pytest.raises(SettingsError) as err:
        plan_context(own)
    assert err.value.problems == [f"mlgov:plan.limits.{key}: {problem}"]


def test_the_limits_reach_the_plan_document_only_when_set() -> None:
    own = {"gcp:project": "shop-ml-dev", "mlgov:plan": {"limits": {}}}
    assert "max_monthly_increase_usd" not in plan_context(own).limits
    own["mlgov:plan"]["limits"] = {
        "max_monthly_increase_usd": 250,
        "max_monthly_increase_percent": 10,
    }
    limits = plan_context(own).limits
    assert (limits["max_monthly_increase_usd"], limits["max_monthly_increase_percent"]) == (250, 10)


def test_plan_shows_the_guardrail(base: dict[str, Any]) -> None:
    assert "cost guardrail" not in plan_text(base)
    shown = plan_text(_limited(base, usd=250, percent=12.5))
    assert (
        "cost guardrail: a pull request may raise this estimate by at most $250.00 or 12.5% a "
        "month (limits.max_monthly_increase_usd, limits.max_monthly_increase_percent)"
    ) in shown


# ------------------------------------------------------------------------------------ comment
def test_a_rise_past_the_dollar_limit_is_a_mandatory_finding_with_the_numbers(base, head) -> None:
    old, new, rise = _rise(base, head)
    assert 50 < rise < 100
    comment = build_comment([StackPlans("dev", _limited(head, usd=50), _limited(base, usd=50))])
    assert comment.blocking == 1
    [row] = _found(comment.text)
    pct = rise / old * 100
    assert row.startswith(f"| :x: mandatory | `{INCREASE_LIMIT}` | `stack` |")
    # escaped for Markdown: `\$`, `\(`
    assert (
        f"rises from \\${old:,.2f} \\(base\\) to \\${new:,.2f} \\(head\\), +\\${rise:,.2f} "
        f"\\(+{pct:.1f}%\\)\\: more than limits.max\\_monthly\\_increase\\_usd \\$50.00 |"
    ) in row
    assert "1 mandatory, 0 advisory finding(s)" in comment.text


def test_a_rise_within_both_limits_is_no_finding(base, head) -> None:
    _, _, rise = _rise(base, head)
    comment = build_comment(
        [StackPlans("dev", _limited(head, usd=rise + 1, percent=50), _limited(base, usd=1000))]
    )
    assert (comment.blocking, _found(comment.text)) == (0, [])


def test_the_percent_limit_alone_blocks(base, head) -> None:
    comment = build_comment([StackPlans("dev", _limited(head, percent=10), base)])
    [row] = _found(comment.text)
    assert "more than limits.max\\_monthly\\_increase\\_percent 10% |" in row
    assert comment.blocking == 1


def test_a_pr_cannot_raise_its_own_limit_past_the_rise(base, head) -> None:
    # The base's (stricter) limit judges; the raise itself is a governance weakening.
    comment = build_comment([StackPlans("dev", _limited(head, usd=100000), _limited(base, usd=50))])
    assert len(_found(comment.text)) == 1
    assert "limits.max_monthly_increase_usd" in comment.text.split("**Policy findings**")[0]


def test_a_new_stack_is_held_to_the_dollar_limit_only(head) -> None:
    blocked = build_comment([StackPlans("dev", _limited(head, usd=100))])
    assert len(_found(blocked.text)) == 1
    assert "from \\$0\\: no percentage" in _found(blocked.text)[0]
    assert _found(build_comment([StackPlans("dev", _limited(head, percent=1))]).text) == []


# ------------------------------------------------------------------------------------ diff
def test_diff_exits_1_with_the_finding(base, head, tmp_path: Path, capsys) -> None:
    (tmp_path / "base.json").write_text(json.dumps(_limited(base, percent=5)))
    (tmp_path / "head.json").write_text(json.dumps(_limited(head, percent=5)))
    files = [str(tmp_path / "base.json"), str(tmp_path / "head.json")]
    assert main(["diff", *files]) == 1
    out = capsys.readouterr().out
    assert f"[MANDATORY] {INCREASE_LIMIT} on the stack" in out
    assert "more than limits.max_monthly_increase_percent 5%" in out
    assert main(["diff", *files, "--json"]) == 1
    [found] = json.loads(capsys.readouterr().out)["guardrail"]
    old, new, rise = _rise(base, head)
    assert (found["base_monthly_usd"], found["head_monthly_usd"], found["increase_usd"]) == (
        old,
        new,
        rise,
    )
    assert found["limits"] == {"max_monthly_increase_usd": None, "max_monthly_increase_percent": 5}
    # the same plans without a guardrail: exit 0
    (tmp_path / "head.json").write_text(json.dumps(head))
    (tmp_path / "base.json").write_text(json.dumps(base))
    assert main(["diff", *files]) == 0
