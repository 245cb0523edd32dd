"""Each zone's node count at cap time, as the budget function writes it and restore reads it.

`-n<total>-z<a>_<b>...` (zones in name order) on a pool in several zones, when the label still
fits 63 characters; otherwise the total alone. The counts must add up to the total, or the mark
is unreadable (a hand edit), never half believed.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from govern.gke import Autoscaling, NodePool
from governance.cap import marks

LABEL = re.compile(r"[a-z0-9_-]{0,63}")
INT32 = 2**31 - 1
zone_counts = st.lists(st.integers(0, INT32 // 4), min_size=1, max_size=4)


@given(
    zones=zone_counts,
    low=st.integers(0, 64),
    high=st.integers(64, INT32),
    total=st.booleans(),
    nap=st.booleans(),
    fixed=st.booleans(),
)
def test_each_zones_count_round_trips_or_the_total_alone(zones, low, high, total, nap, fixed):
    autoscaling = None if fixed else Autoscaling(True, low, high, total=total)
    pool = NodePool("p", "r", "c", "n", autoscaling=autoscaling, autoprovisioned=nap)
    value = pool.previous(sum(zones), zones)
    assert LABEL.fullmatch(value), value
    mark = marks.decode_pool(value)
    assert mark.nodes == sum(zones)
    if len(zones) == 1:
        assert mark.zone_nodes is None  # one zone: the total says it all
    elif re.search(r"-n[0-9]+-z", value):
        assert mark.zone_nodes == tuple(zones)
    else:
        assert mark.zone_nodes is None and len(pool.previous(sum(zones), ())) <= 63


def test_a_long_mark_keeps_the_total_and_drops_the_zones():
    pool = NodePool(
        "p",
        "r",
        "c",
        "n",
        autoscaling=Autoscaling(True, 1000, 2000000000, True, "BALANCED"),
        autoprovisioned=True,
    )
    value = pool.previous(1500000000, (500000000, 500000000, 500000000))
    assert value == "autoscale-total-1000-2000000000-balanced-n1500000000-nap"
    assert marks.decode_pool(value).zone_nodes is None


@pytest.mark.parametrize(
    ("value", "zones"),
    [
        ("fixed-n5-z3_2", (3, 2)),
        ("autoscale-zone-0-4-n5-z4_1", (4, 1)),
        ("autoscale-total-0-16-any-n6-z3_3-nap", (3, 3)),
        ("fixed-n5", None),  # earlier versions: the total only
    ],
)
def test_zone_counts_read(value, zones):
    assert marks.decode_pool(value).zone_nodes == zones


@pytest.mark.parametrize(
    "bad",
    [
        "fixed-n5-z3_3",  # the zones add up to 6, not 5
        "fixed-n5-z5",  # one zone is written as the total alone
        "fixed-z3_2",  # zones without the total
        "autoscale-total-0-16-any-n6-nap-z3_3",  # out of order
    ],
)
def test_zone_counts_that_do_not_add_up_are_unreadable(bad):
    with pytest.raises(marks.Unreadable, match="mlgov-cap-prev"):
        marks.decode_pool(bad)
