"""Node pool model: average running nodes (scale from 0), spot prices, SUD, disks per node."""

from __future__ import annotations

from typing import Any

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, node_pool, one, price

SUD = [price(f"sud.n1.q{q}", "global") for q in (1, 2, 3, 4)]


def n1_8_t4(usage: str) -> float:
    """n1-standard-8 (8 vCPU, 30 GiB) + 1 T4, per hour."""
    return (
        8 * price("gce.n1.vcpu", usage=usage)
        + 30 * price("gce.n1.ram", usage=usage)
        + price("gpu.nvidia-tesla-t4", usage=usage)
    )


def test_spot_pool_scaling_from_zero_runs_the_assumed_average():
    cost = one(node_pool())  # 0..4 nodes, spot; training_pool_average_nodes 0.5
    disk = 0.5 * 100 * price("disk.pd-balanced")  # disks exist while nodes do
    assert cost.monthly_usd == pytest.approx(0.5 * 730 * n1_8_t4("spot") + disk)
    # baseline: 1 node on-demand all month, with N1's sustained-use discount
    assert cost.baseline_monthly_usd == pytest.approx(
        182.5 * sum(SUD) * n1_8_t4("ondemand") + 100 * price("disk.pd-balanced")
    )
    assert (
        "autoscaling 0..4 nodes (total): average 0.5 nodes running (training_pool_average_nodes)"
        in cost.lines
    )


def test_on_demand_pool_pays_on_demand_prices_less_sud():
    cost = one(node_pool(spot=False))
    effective = 182.5 * SUD[0] + 182.5 * SUD[1]  # 365 node-hours on one node
    disk = 0.5 * 100 * price("disk.pd-balanced")
    assert cost.monthly_usd == pytest.approx(effective * n1_8_t4("ondemand") + disk)


def test_pool_with_a_minimum_runs_it():
    cost = one(node_pool("system", spot=False, low=1, high=3, machineType="e2-standard-4",
                         guestAccelerators=[]))  # fmt: skip
    hourly = 4 * price("gce.e2.vcpu") + 16 * price("gce.e2.ram")  # no SUD on E2
    assert cost.monthly_usd == pytest.approx(730 * hourly + 100 * price("disk.pd-balanced"))
    assert cost.baseline_monthly_usd == pytest.approx(cost.monthly_usd)


def test_assumed_nodes_are_clamped_to_the_pool_range():
    busy = UsageAssumptions(as_of=AS_OF, training_pool_nodes={"t4-spot": 9})
    at_max = UsageAssumptions(as_of=AS_OF, training_pool_nodes={"t4-spot": 4})
    assert one(node_pool(), busy).monthly_usd == pytest.approx(one(node_pool(), at_max).monthly_usd)
    idle = one(node_pool(), UsageAssumptions(as_of=AS_OF, training_pool_nodes={"t4-spot": 0}))
    assert idle.monthly_usd == 0
    assert "no nodes running: $0" in idle.lines


def test_fixed_size_pool_runs_its_nodes_in_every_zone():
    pool = node_pool(guestAccelerators=[])
    del pool["inputs"]["autoscaling"]
    pool["inputs"]["nodeCount"] = 1  # x 2 nodeLocations = 2 nodes
    cost = one(pool)
    hourly = 8 * price("gce.n1.vcpu", usage="spot") + 30 * price("gce.n1.ram", usage="spot")
    assert cost.monthly_usd == pytest.approx(2 * 730 * hourly + 2 * 100 * price("disk.pd-balanced"))
    assert (
        "fixed size: 1 node a zone (nodeCount) x 2 zones "
        "(pool nodeLocations us-central1-a, us-central1-b) = 2 nodes" in cost.lines
    )


def test_tpu_pool_is_priced_per_chip_and_its_nodes_boot_disks():
    # issue 31: a TPU node boots from a disk too (here 100 GB pd-balanced, $10 a node-month)
    cost = one(node_pool("tpu", machineType="ct5lp-hightpu-4t", guestAccelerators=[]))
    disk = 100 * price("disk.pd-balanced")
    assert cost.monthly_usd == pytest.approx(
        0.5 * 730 * 4 * price("tpu.v5litepod.chip", usage="spot") + 0.5 * disk
    )
    assert cost.baseline_monthly_usd == pytest.approx(730 * 4 * price("tpu.v5litepod.chip") + disk)
    line = next(x for x in cost.cost_lines if x.bill == "governed" and x.what == "disk")
    assert (line.key, line.quantity) == ("disk.pd-balanced", 50)


def test_a_boot_disk_without_a_catalog_price_is_a_named_part_of_a_priced_pool():
    cost = one(node_pool(guestAccelerators=[], diskType="hyperdisk-balanced"))
    assert cost.priced and cost.monthly_usd > 0
    assert [p for p, _ in cost.unpriced_parts] == ["boot disk (hyperdisk-balanced)"]
    assert "disk.hyperdisk-balanced" in dict(cost.unpriced_parts)["boot disk (hyperdisk-balanced)"]


def pool_in(location: str, **inputs: object) -> dict[str, Any]:
    """An e2-medium pool with no nodeLocations of its own."""
    return {
        "type": "gcp:container/nodePool:NodePool",
        "name": "p",
        "inputs": {"cluster": "acme-gke", "location": location,
                   "nodeConfig": {"machineType": "e2-medium"}, **inputs},
    }  # fmt: skip


E2_NODE = 730 * price("gce.type.e2-medium") + 100 * price("disk.pd-balanced")


def test_pool_without_node_count_runs_three_nodes_in_each_of_a_regions_three_zones():
    # GKE's defaults: 3 nodes per zone, 3 zones for a regional pool: 9 x (e2-medium + 100 GiB)
    cost = one(pool_in("us-central1"))
    assert cost.monthly_usd == pytest.approx(9 * E2_NODE)


def test_regional_pool_node_count_is_per_zone():
    # Infracost's issue: nodeCount 2 in a regional pool is 6 nodes, not 2
    assert one(pool_in("us-central1", nodeCount=2)).monthly_usd == pytest.approx(6 * E2_NODE)


def test_zonal_pool_runs_in_its_one_zone():
    assert one(pool_in("us-central1-a", nodeCount=2)).monthly_usd == pytest.approx(2 * E2_NODE)


def test_pool_takes_its_clusters_zones_from_the_plan():
    cluster = {
        "type": "gcp:container/cluster:Cluster",
        "name": "gke",
        "inputs": {"name": "acme-gke", "location": "us-central1",
                   "nodeLocations": ["us-central1-a", "us-central1-f"],
                   "privateClusterConfig": {"enablePrivateNodes": True}},
    }  # fmt: skip
    pool = pool_in("us-central1", nodeCount=1)
    pool["inputs"]["cluster"] = "projects/p/locations/us-central1/clusters/acme-gke"
    cost = one(pool, others=[cluster])
    assert cost.monthly_usd == pytest.approx(2 * E2_NODE)
    assert "cluster nodeLocations us-central1-a, us-central1-f" in cost.lines[0]


def test_zonal_clusters_extra_node_locations_add_to_its_own_zone():
    cluster = {
        "type": "gcp:container/cluster:Cluster",
        "name": "acme-gke",
        "inputs": {
            "location": "us-central1-a",
            "nodeLocations": ["us-central1-b"],
            "privateClusterConfig": {"enablePrivateNodes": True},
        },
    }
    cost = one(pool_in("us-central1-a", nodeCount=1), others=[cluster])
    assert cost.monthly_usd == pytest.approx(2 * E2_NODE)  # us-central1-a and -b


def test_local_ssd_count_adds_375_gib_per_node_at_the_spot_price_on_spot_nodes():
    # 2 nodes x 2 local SSDs x 375 GiB x disk.local-ssd (spot)
    pool = pool_in("us-central1-a", nodeCount=2)
    pool["inputs"]["nodeConfig"] = {"machineType": "e2-medium", "spot": True,
                                    "ephemeralStorageLocalSsdConfig": {"localSsdCount": 2}}  # fmt: skip
    cost = one(pool)
    machine = 2 * 730 * price("gce.type.e2-medium", usage="spot")
    ssd = 2 * 2 * 375 * price("disk.local-ssd", usage="spot")
    assert cost.monthly_usd == pytest.approx(machine + 2 * 100 * price("disk.pd-balanced") + ssd)


def test_usage_file_nodes_per_zone_wins_over_the_assumed_average():
    from governance.costs.estimate import estimate_resources
    from governance.costs.usage_file import parse_usage_file

    declared = parse_usage_file({"resource_usage": {"t4-spot": {"nodes_per_zone": 1}}})
    report = estimate_resources([node_pool()], usage_file=declared)  # 2 zones: 2 nodes (max 4)
    disk = 2 * 100 * price("disk.pd-balanced")
    assert report.get("t4-spot").monthly_usd == pytest.approx(2 * 730 * n1_8_t4("spot") + disk)
    assert report.get("t4-spot").declared == {"nodes_per_zone": 1.0}


def cluster(name: str = "acme-gke", **inputs: object) -> dict[str, Any]:
    return {"type": "gcp:container/cluster:Cluster", "name": name,
            "inputs": {"name": name, "location": "us-central1", "removeDefaultNodePool": True,
                       **inputs}}  # fmt: skip


@pytest.mark.parametrize("spot", [False, True])
def test_nodes_of_a_public_cluster_each_bill_an_external_ip(spot):
    from governance.costs.estimate import estimate_resources

    pool = pool_in("us-central1", nodeCount=1)  # 3 zones x 1 node
    pool["inputs"]["nodeConfig"]["spot"] = spot
    cost = estimate_resources([cluster(), pool]).get("p")
    key = "network.ip.spot_vm" if spot else "network.ip.vm"
    ips = next(x for x in cost.cost_lines if x.bill == "governed" and x.what == "external IP")
    assert (ips.key, ips.quantity) == (key, 3 * 730)
    assert ips.usd == pytest.approx(3 * 730 * price(key))
    assert "the cluster has no private nodes" in ips.text
    # the baseline runs the same nodes on-demand, with their IPs at the standard rate
    base = next(x for x in cost.cost_lines if x.bill == "baseline" and x.what == "external IP")
    assert base.key == "network.ip.vm"


def test_private_nodes_have_no_external_ips_and_an_unknown_cluster_says_so():
    from governance.costs.estimate import estimate_resources

    private = cluster(privateClusterConfig={"enablePrivateNodes": True})
    pool = pool_in("us-central1", nodeCount=1)
    for plan in ([private, pool], [cluster(), {**pool, "inputs": {
            **pool["inputs"], "networkConfig": {"enablePrivateNodes": True}}}]):  # fmt: skip
        cost = estimate_resources(plan).get("p")
        assert "external IP" not in {x.what for x in cost.cost_lines}
        assert cost.monthly_usd == pytest.approx(3 * E2_NODE)
    alone = one(pool_in("us-central1", nodeCount=1))  # its cluster is not in the plan
    assert "external IP" not in {x.what for x in alone.cost_lines}
    assert any("external IPs of the nodes not estimated: its cluster is not in the plan" in line
               for line in alone.lines)  # fmt: skip
