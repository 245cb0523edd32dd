"""`diff` and `comment` show the same figures (one rounding rule) and show replacements.

The preview in tests/formats/data replaces a Cloud SQL instance whose exact monthly costs are
100.3244... and 198.9466...: subtracting before rounding gave +$98.62 in `diff` and rounding
before subtracting +$98.63 in `comment`. The rule now (diff.py): round each amount to the cent
once, subtract rounded amounts.
"""

from __future__ import annotations

import json
import re
from typing import Any

from governance.review.diff import cents, diff_plans
from tests.formats.conftest import GCP_PREVIEW, REPLACEMENT_STEPS, Cli

_ROW = re.compile(
    r"^\| (added|removed|changed|replaced) \| `([^`]+)` \| [^|]+ \| (\S+) \| (\S+) \| (\S+) \|$"
)


def _money(value: float) -> str:
    return f"${value:,.2f}"


def _signed(value: float) -> str:
    return f"+${value:,.2f}" if value >= 0 else f"-${-value:,.2f}"


def comment_rows(body: str) -> dict[str, tuple[str, str, str, str]]:
    rows: dict[str, tuple[str, str, str, str]] = {}
    for line in body.splitlines():
        if m := _ROW.match(line):
            rows[m.group(2)] = (m.group(1), m.group(3), m.group(4), m.group(5))
    return rows


def test_diff_and_comment_show_the_same_figures_for_every_change(cli: Cli) -> None:
    diff = json.loads(cli("diff", GCP_PREVIEW, "--json").out)
    body = cli("comment", "--preview", "dev", GCP_PREVIEW).out
    rows = comment_rows(body)
    assert set(rows) == {c["name"] for c in diff["changes"]} and rows
    for c in diff["changes"]:
        assert rows[c["name"]] == (
            c["status"],
            _money(c["before_usd"]),
            _money(c["after_usd"]),
            _signed(c["delta_usd"]),
        ), c["name"]
        # a row's change is its rounded after minus its rounded before
        assert c["delta_usd"] == cents(c["after_usd"] - c["before_usd"])
    assert rows["metadata"] == ("replaced", "$100.32", "$198.95", "+$98.63")
    text = cli("diff", GCP_PREVIEW).out
    assert "metadata: $100.32 -> $198.95 (+$98.63)" in text


def test_the_totals_are_what_check_prints(cli: Cli) -> None:
    diff = json.loads(cli("diff", GCP_PREVIEW, "--json").out)
    check = json.loads(cli("check", GCP_PREVIEW, "--json").out)
    assert diff["after"]["monthly_usd"] == check["cost"]["monthly_usd"]
    assert diff["delta_usd"] == cents(diff["after"]["monthly_usd"] - diff["before"]["monthly_usd"])
    body = cli("comment", "--preview", "dev", GCP_PREVIEW).out
    total = (
        f"| | **total** | | **{_money(diff['before']['monthly_usd'])}** | "
        f"**{_money(diff['after']['monthly_usd'])}** | **{_signed(diff['delta_usd'])}** |"
    )
    assert total in body


def _doc(cost: float, **extra: Any) -> dict[str, Any]:
    row = {"type": "gcp:compute/disk:Disk", "name": "d", "inputs": {}, "monthly_usd": cost, **extra}
    return {
        "stack": "s",
        "resources": [row],
        "cost": {"monthly_usd": cost, "baseline_monthly_usd": cost},
    }


def test_carried_amounts_are_rounded_before_they_are_subtracted() -> None:
    # A document from another tool may carry unrounded numbers: 198.9466 - 100.3244 = 98.6222.
    result = diff_plans(_doc(100.3244), _doc(198.9466))
    (change,) = result.changes
    assert (change.before, change.after, change.delta) == (100.32, 198.95, 98.63)
    assert result.delta == 98.63
    assert result.as_dict()["changes"][0]["delta_usd"] == 98.63


def test_a_replacement_is_shown_even_at_the_same_cost() -> None:
    result = diff_plans(_doc(10.0), _doc(10.0, op="replace"))
    (change,) = result.changes
    assert change.status == "replaced" and change.delta == 0
    assert (
        "| replaced | `d` | compute/Disk | $10.00 | $10.00 | +$0.00 |" in result.render_markdown()
    )
    assert " +- replaced compute/Disk d: $10.00 -> $10.00 (+$0.00)" in result.render_text()
    assert diff_plans(_doc(10.0), _doc(10.0, op="update")).changes == []  # an update is not
    # A free resource replaced is no cost change.
    assert diff_plans(_doc(0.0), _doc(0.0, op="replace")).changes == []


def test_replacement_steps_alone_count_as_a_replacement(cli: Cli) -> None:
    # `--show-replacement-steps` without the logical step: create-replacement is the new side.
    result = diff_plans(_doc(5.0), _doc(7.5, op="create-replacement"))
    assert [c.status for c in result.changes] == ["replaced"]
    diff = json.loads(cli("diff", REPLACEMENT_STEPS, "--json").out)
    assert [(c["name"], c["status"]) for c in diff["changes"]] == [("batch", "replaced")]
    body = cli("comment", "--preview", "prod", REPLACEMENT_STEPS).out
    assert "| replaced | `batch` | compute/Instance |" in body
    assert "replaced: the old resource is deleted and a new one created" in body
