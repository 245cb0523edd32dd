"""Expiry proration: running hours stop at `mlgov-expires-on`; disks keep billing."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest
from cost_plans import AS_OF, notebook, one, price

from governance.costs.bill import Bill
from governance.costs.expiry import expiry_factor


def factor(label: str | None) -> tuple[float, list[str]]:
    lines: list[str] = []
    labels = {} if label is None else {"mlgov-expires-on": label}
    return expiry_factor(Bill("", lines), labels, AS_OF), lines


def test_days_until_expiry_over_the_month():
    value, lines = factor((AS_OF + timedelta(days=9)).isoformat())  # runs 10 days incl. that day
    assert value == pytest.approx(10 / (730 / 24))
    assert lines == [
        "mlgov-expires-on 2026-11-10: runs 10 day(s) of the month from 2026-11-01 -> "
        "running hours x 0.329 (disks still billed)"
    ]


def test_no_label_past_date_later_date_and_bad_date():
    assert factor(None) == (1.0, [])
    assert factor("2026-10-31")[0] == 0.0
    assert factor("2027-06-01") == (
        1.0,
        ["mlgov-expires-on 2027-06-01: after this month, nothing to prorate"],
    )
    assert factor("soon") == (
        1.0,
        ["mlgov-expires-on 'soon' is not YYYY-MM-DD: expiry not credited"],
    )


def test_expired_notebook_pays_only_its_disks():
    nb = notebook()
    expired = copy.deepcopy(nb)
    expired["inputs"]["labels"]["mlgov-expires-on"] = (AS_OF - timedelta(days=1)).isoformat()
    cost = one(expired)
    assert cost.monthly_usd == pytest.approx(250 * price("disk.pd-balanced"))
    assert cost.baseline_monthly_usd == one(nb).baseline_monthly_usd
