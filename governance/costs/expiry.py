"""Expiry proration: the share of the month a workload runs before `mlgov-expires-on` stops it.

The `reap_expired` function stops a labelled workload after its date (docs/architecture.md#labels),
so running hours are prorated from the estimate's `as_of` date; disks are not (a stopped VM still
pays for them). The label key comes from mlgov_policies.vocabulary.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from governance.costs.bill import Bill
from governance.costs.month import DAYS_PER_MONTH
from mlgov_policies.vocabulary import EXPIRES_LABEL


def expiry_factor(bill: Bill, labels: Mapping[str, Any], as_of: date) -> float:
    """Share of the month (0..1) the workload runs; notes the arithmetic on `bill`."""
    raw = labels.get(EXPIRES_LABEL)
    if not raw:
        return 1.0
    try:
        expires = date.fromisoformat(str(raw))
    except ValueError:
        bill.note(f"{EXPIRES_LABEL} {raw!r} is not YYYY-MM-DD: expiry not credited")
        return 1.0
    days = (expires - as_of).days + 1  # it runs through the expiry day
    factor = min(max(days, 0) / DAYS_PER_MONTH, 1.0)
    if factor == 1.0:
        bill.note(f"{EXPIRES_LABEL} {expires}: after this month, nothing to prorate")
        return factor
    bill.note(
        f"{EXPIRES_LABEL} {expires}: runs {max(days, 0)} day(s) of the month from "
        f"{as_of} -> running hours x {factor:.3f} (disks still billed)"
    )
    return factor
