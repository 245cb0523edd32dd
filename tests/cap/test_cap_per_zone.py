"""Restore never sets a node pool above its size at cap time, in any zone (issue 29, item 6).

A pool's size lives in its instance groups, one per zone, and they need not match: a pool of 3
nodes in one zone and 2 in the other has 5. GKE's setSize sets one count for every zone, and
restore used to set the total over the zones rounded up: 3 per zone, 6 nodes where there were
5. The cap now records each zone's count (`-z3_2`), and restore sets the smallest (no zone above
its size then); a mark written before, with the total only, is shared out rounding down.
End to end: the real budget function caps the prod stack's project, `mlgov cap` restores.
"""

from __future__ import annotations

import json

from tests.cap.conftest import CLUSTER, PROJECT, REGION, A, B, cap_prod, mlgov


def _zone_sizes(prod, pool: str) -> dict[str, int]:
    key = (PROJECT, REGION, CLUSTER, pool)
    return {z: prod.container._target_size(key, z) for z in (A, B)}


def _restore_json(prod, capsys) -> dict:
    assert mlgov(prod.server, "restore", "--json") == 0
    return json.loads(capsys.readouterr().out)


def _item(doc: dict, pool: str) -> dict:
    [item] = [i for i in doc["items"] if i["target"].endswith(f"/nodePools/{pool}")]
    return item


def test_an_uneven_fixed_pool_gets_no_zone_above_its_size_at_cap_time(prod, capsys):
    prod.container.zone_sizes[(PROJECT, REGION, CLUSTER, "t4-fixed", B)] = 2  # 3 + 2 = 5
    before = _zone_sizes(prod, "t4-fixed")
    cap_prod(capsys)
    label = prod.container.pool_labels(PROJECT, REGION, CLUSTER, "t4-fixed")["mlgov-cap-prev"]
    assert label == "fixed-n5-z3_2"  # each zone's count, zones by name

    doc = _restore_json(prod, capsys)

    after = _zone_sizes(prod, "t4-fixed")
    assert all(after[z] <= before[z] for z in (A, B)), (before, after)  # was 3 and 3: 6 > 5
    assert after == {A: 2, B: 2}
    notes = " ".join(_item(doc, "t4-fixed")["notes"])
    assert "its zones had 3/2 node(s) at cap time" in notes
    assert "resize the larger zones by hand" in notes


def test_an_uneven_autoscaled_pool_leaves_the_rest_to_the_autoscaler(prod, capsys):
    prod.container.zone_sizes[(PROJECT, REGION, CLUSTER, "l4-spot", A)] = 4
    prod.container.zone_sizes[(PROJECT, REGION, CLUSTER, "l4-spot", B)] = 1
    cap_prod(capsys)

    doc = _restore_json(prod, capsys)

    assert _zone_sizes(prod, "l4-spot") == {A: 1, B: 1}
    item = _item(doc, "l4-spot")
    assert "5 node(s) at cap time (4/1 by zone)" in item["before"]
    assert "the autoscaler adds the rest as pods need them" in " ".join(item["notes"])
    pool = prod.container.pool(PROJECT, REGION, CLUSTER, "l4-spot")
    assert pool["autoscaling"]["totalMaxNodeCount"] == 16


def test_a_mark_with_the_total_only_is_shared_out_rounding_down(prod, capsys):
    cap_prod(capsys)
    pool = prod.container.pool(PROJECT, REGION, CLUSTER, "t4-fixed")
    pool["config"]["resourceLabels"]["mlgov-cap-prev"] = "fixed-n5"  # an earlier version's

    doc = _restore_json(prod, capsys)

    assert sum(_zone_sizes(prod, "t4-fixed").values()) == 4  # 2 per zone, not 3
    assert "never above the total then" in " ".join(_item(doc, "t4-fixed")["notes"])


def test_an_even_pool_comes_back_whole(prod, capsys):
    cap_prod(capsys)
    label = prod.container.pool_labels(PROJECT, REGION, CLUSTER, "t4-fixed")["mlgov-cap-prev"]
    assert label == "fixed-n6-z3_3"

    doc = _restore_json(prod, capsys)

    assert _zone_sizes(prod, "t4-fixed") == {A: 3, B: 3}
    assert not [n for n in _item(doc, "t4-fixed")["notes"] if "zone" in n]
