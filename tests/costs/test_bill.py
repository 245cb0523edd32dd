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


def test_a_fallback_price_says_where_it_came_from_and_is_recorded_once():
    q = Quote()
    sql = Price("sql.backup", "us-central1", "ondemand", 0.08, "GiB-month", "u", "d",
                requested="europe-west4")  # fmt: skip
    q.governed.charge("backups", sql, 10, "10 GiB")
    q.baseline.charge("backups", sql, 10, "10 GiB")
    assert q.lines[0] == (
        "backups: sql.backup[us-central1/ondemand, nearest priced location to europe-west4] "
        "$0.08/GiB-month x 10 GiB = $0.80"
    )
    assert [(f.key, f.used, f.requested) for f in q.fallbacks] == [
        ("sql.backup", "us-central1", "europe-west4")
    ]


def test_a_committed_charge_keeps_the_list_price_beside_it():
    q = Quote()
    one_year = Price("gce.type.n1-standard-8", "us-central1", "1y", 0.24, "hour", "u", "d")
    q.governed.charge_committed("machine", one_year, 730, "730 h committed", list_usd=38.0)
    assert (round(q.governed.total, 2), q.governed.list_total) == (175.2, 38.0)
    assert q.lines[0].endswith("= $175.20 (list $38.00)")
