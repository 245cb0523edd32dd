"""nearest.py: the documented, deterministic order a location without a price falls back in."""

from __future__ import annotations

import pytest

from governance.costs.nearest import ANCHORS, continent, fallback_order

PRICED = ["us-central1", "europe-west4", "us", "eu", "asia-east1", "asia-northeast1",
          "europe-west1", "me-central1", "southamerica-east1", "us-east1", "global"]  # fmt: skip


@pytest.mark.parametrize(
    ("location", "expected"),
    [("europe-west4", "europe"), ("eu", "europe"), ("eur4", "europe"), ("us", "us"),
     ("nam4", "us"), ("US-CENTRAL1", "us"), ("asia1", "asia"), ("me-central2", "me")],
)  # fmt: skip
def test_continent_of_regions_multi_and_dual_regions(location, expected):
    assert continent(location) == expected


def test_same_continent_first_longest_shared_prefix_first():
    order = fallback_order("asia-east2", PRICED)
    assert order[:2] == ["asia-east1", "asia-northeast1"]
    assert fallback_order("europe-west9", PRICED)[:3] == ["europe-west1", "europe-west4", "eu"]


def test_then_the_anchor_regions_in_order_then_alphabetical():
    order = fallback_order("africa-south1", PRICED)
    assert order[: len(ANCHORS)] == list(ANCHORS)
    assert order[len(ANCHORS):] == sorted(order[len(ANCHORS):])  # fmt: skip
    # the Middle East has its own continent prefix: me-central1 before the anchors
    assert fallback_order("me-central2", PRICED)[0] == "me-central1"


def test_the_location_itself_and_global_are_never_candidates_and_order_is_stable():
    order = fallback_order("us-central1", PRICED)
    assert "us-central1" not in order and "global" not in order
    assert order == fallback_order("us-central1", list(reversed(PRICED)))
