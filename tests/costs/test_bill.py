"""Bills and quotes: one line per charge naming the catalog key, governed and baseline together."""

from __future__ import annotations

from governance.costs.bill import Quote
from governance.costs.catalog import Price


def test_charges_notes_and_adjustments_share_one_explanation():
    q = Quote()
    fee = Price("gke.cluster", "global", "ondemand", 0.1, "hour", "https://cloud.google.com/", "d")
    q.governed.charge("cluster management", fee, 730, "730 h")
    q.baseline.note("always on")
    q.governed.adjust(-5.0, "minus a credit")
    assert q.governed.total == 73.0 - 5.0
    assert q.baseline.total == 0.0
    assert q.lines == [
        "cluster management: gke.cluster[global/ondemand] $0.1/hour x 730 h = $73.00",
        "baseline always on",
        "minus a credit",
    ]


def test_free_quote_states_its_reason():
    q = Quote.free("budgets have no charge")
    assert (q.governed.total, q.baseline.total, q.lines) == (
        0.0,
        0.0,
        ["$0.00: budgets have no charge"],
    )
