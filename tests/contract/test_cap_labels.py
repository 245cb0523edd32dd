"""The labels the budget cap writes (functions/govern/gke.py) are the ones `mlgov cap` reads.

governance never imports functions/, so governance/tools/cap.py decodes the values on its own;
this pins the two: whatever the functions record, restore turns back into the same settings.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from govern.gcp.container import _autoscaling_json  # pyright: ignore[reportPrivateUsage]
from govern.gke import CAP_LABEL, NAP_LABEL_PREFIX, Autoscaling, Cluster, NodePool, ResourceLimit
from governance.tools import cap

policies = st.sampled_from(["", "ANY", "BALANCED"])


@given(
    low=st.integers(0, 1000),
    span=st.integers(0, 1000),
    total=st.booleans(),
    policy=policies,
)
def test_autoscaling_round_trips(low, span, total, policy):
    before = Autoscaling(True, low, low + span, total=total, location_policy=policy)
    value = NodePool("p", "r", "c", "n", autoscaling=before).previous()
    assert len(value) <= 63
    assert cap.decode_pool(value, zones=1).autoscaling == _autoscaling_json(before)


@given(nodes=st.integers(0, 1000))
def test_fixed_size_round_trips(nodes):
    value = NodePool("p", "r", "c", "n", initial_node_count=nodes).previous()
    assert cap.decode_pool(value, zones=3) == cap.PoolBefore(None, nodes)


def test_the_label_keys_are_the_same():
    assert (cap.POOL_LABEL, cap.NAP_PREFIX) == (CAP_LABEL, NAP_LABEL_PREFIX)


def test_nap_limits_round_trip():
    c = Cluster(
        "p",
        "r",
        "c",
        node_autoprovisioning=True,
        limits=(
            ResourceLimit("cpu", 0, 64),
            ResourceLimit("nvidia-h100-mega-80gb", 0, 16),
            ResourceLimit("tpu-v5-lite-podslice", 4, 64),
        ),
    )
    labels = c.nap_labels()
    assert all(len(k) <= 63 and len(v) <= 63 for k, v in labels.items())
    assert cap.decode_nap({**labels, "team": "x"}) == {
        "nvidia-h100-mega-80gb": (0, 16),
        "tpu-v5-lite-podslice": (4, 64),
    }


@pytest.mark.parametrize("bad", ["autoscale-0-16", "fixed", "Fixed-2", "autoscale-total-0-16-all"])
def test_values_restore_cannot_read_are_errors(bad):
    with pytest.raises(ValueError, match="unreadable"):
        cap.decode_pool(bad, zones=1)
