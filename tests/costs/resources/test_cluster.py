"""Cluster model: the fee and free-tier credit, plus the default pool and inline pools it runs."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, partial, price, usage_lines

E2_MEDIUM = price("gce.type.e2-medium")  # $/hour, GKE's default machine type
BOOT = 100 * price("disk.pd-balanced")  # GKE's default boot disk, per node-month
FEE = 730 * price("gke.cluster", "global")  # $73


PRIVATE = {"enablePrivateNodes": True}  # as mlgov builds clusters: nodes without external IPs


def cluster(name: str, location: str, **inputs: object) -> dict[str, object]:
    inputs.setdefault("privateClusterConfig", PRIVATE)
    return {"type": "gcp:container/cluster:Cluster", "name": name,
            "inputs": {"location": location, **inputs}}  # fmt: skip


def no_default(name: str, location: str, **inputs: object) -> dict[str, object]:
    return cluster(name, location, removeDefaultNodePool=True, initialNodeCount=1, **inputs)


def test_a_cluster_without_its_default_pool_pays_the_fee():
    cost = one(no_default("r", "us-central1"))
    assert cost.monthly_usd == pytest.approx(FEE)
    assert cost.baseline_monthly_usd == cost.monthly_usd
    assert "default node pool removed (removeDefaultNodePool): no nodes of its own" in cost.lines


def test_first_zonal_cluster_gets_the_free_tier_credit():
    report = estimate_resources(
        [
            no_default("r", "us-central1"),
            no_default("z", "us-central1-a"),
            no_default("z2", "us-central1-b"),
        ],
        USAGE,
    )
    credit = price("gke.free_tier_credit", "global")
    assert report.get("z").monthly_usd == max(FEE - credit, 0.0) == 0  # $73 fee, $74.40 credit
    assert report.get("z2").monthly_usd == pytest.approx(FEE)
    assert report.get("r").monthly_usd == pytest.approx(FEE)
    assert any(line.startswith("minus GKE free tier $74.4/month") for line in report.get("z").lines)


def test_node_auto_provisioning_is_named_but_not_priced():
    nap = one(no_default("gke", "us-central1", clusterAutoscaling={"enabled": True}))
    assert nap.monthly_usd == pytest.approx(FEE)
    assert "auto-provisioned node pools are not priced (bounded by resourceLimits)" in nap.lines


def test_a_public_clusters_default_pool_nodes_each_bill_an_external_ip():
    cost = one(cluster("r", "us-central1", privateClusterConfig={}))
    ips = 9 * 730 * price("network.ip.vm")  # 9 nodes, one ephemeral IPv4 each, all month
    assert cost.monthly_usd == pytest.approx(FEE + 9 * (730 * E2_MEDIUM + BOOT) + ips)
    line = next(x for x in cost.cost_lines if x.what == "default pool: external IP")
    assert line.quantity == 9 * 730


def test_regional_default_pool_runs_three_nodes_in_three_zones():
    # 3 zones x 3 nodes (GKE's defaults) x (gce.type.e2-medium x 730 h + 100 GiB pd-balanced)
    cost = one(cluster("r", "us-central1"))
    assert cost.monthly_usd == pytest.approx(FEE + 9 * (730 * E2_MEDIUM + BOOT))
    assert cost.baseline_monthly_usd == pytest.approx(cost.monthly_usd)
    assert (
        "default pool: fixed size: 3 nodes a zone (no node count: GKE's default) x 3 zones "
        "(regional cluster in us-central1 without nodeLocations: GKE spreads each pool over 3 "
        "zones of the region) = 9 nodes" in cost.lines
    )


def test_default_pool_uses_node_locations_and_initial_node_count():
    # 2 nodeLocations x 4 nodes = 8 nodes
    cost = one(cluster("r", "us-central1", initialNodeCount=4,
                       nodeLocations=["us-central1-a", "us-central1-b"]))  # fmt: skip
    assert cost.monthly_usd == pytest.approx(FEE + 8 * (730 * E2_MEDIUM + BOOT))


def test_zonal_default_pool_with_node_config_local_ssd_and_a_retired_gpu():
    # Infracost's with_node_config: n1-standard-16 x 3 nodes, 120 GB pd-ssd, 1 local SSD, 4 K80s.
    # gce.type.n1-standard-16 with N1's sustained-use discount (730 h bills 511 h), 120 GiB
    # disk.pd-ssd and 375 GiB disk.local-ssd per node; the K80s are a named unpriced part.
    inputs = {
        "initialNodeCount": 3,
        "nodeConfig": {
            "machineType": "n1-standard-16", "diskSizeGb": 120, "diskType": "pd-ssd",
            "localSsdCount": 1,
            "guestAccelerators": [{"type": "nvidia-tesla-k80", "count": 4}],
        },
    }  # fmt: skip
    cost, parts = partial(cluster("z", "us-central1-a", **inputs))
    sud_hours = 182.5 * sum(price(f"sud.n1.q{q}", "global") for q in (1, 2, 3, 4))  # 511 h
    node = (
        sud_hours * price("gce.type.n1-standard-16")
        + 120 * price("disk.pd-ssd")
        + 375 * price("disk.local-ssd")
    )
    credit = price("gke.free_tier_credit", "global")  # the plan's first zonal cluster
    assert cost.monthly_usd == pytest.approx(max(FEE - credit, 0) + 3 * node)
    assert list(parts) == ["default pool: GPU 4 x nvidia-tesla-k80"]


def test_inline_pools_replace_the_default_pool_and_run_in_every_zone():
    # Infracost's with_node_pools_regional: 2 and 4 nodes per zone x 3 zones, the second spot
    pools = [
        {"nodeCount": 2, "nodeConfig": {"machineType": "n1-standard-16"}},
        {"name": "spot", "nodeCount": 4,
         "nodeConfig": {"machineType": "n1-standard-16", "preemptible": True}},
    ]  # fmt: skip
    cost = one(cluster("r", "us-central1", nodePools=pools))
    ondemand = price("gce.type.n1-standard-16")
    spot = price("gce.type.n1-standard-16", usage="spot")
    sud = 182.5 * sum(price(f"sud.n1.q{q}", "global") for q in (1, 2, 3, 4)) / 730
    expected = FEE + 6 * (730 * sud * ondemand + BOOT) + 12 * (730 * spot + BOOT)
    assert cost.monthly_usd == pytest.approx(expected)
    assert not any(line.startswith("default pool") for line in cost.lines)
    assert any(line.startswith("node pool spot: machine:") for line in cost.lines)


def test_an_unpriceable_inline_pool_is_named_and_the_rest_priced():
    pools = [
        {"nodeCount": 2, "nodeConfig": {"machineType": "e2-custom"}},
        {"nodeCount": 1, "nodeConfig": {"machineType": "e2-medium"}},
    ]
    cost, parts = partial(cluster("r", "us-central1", nodePools=pools))
    assert cost.monthly_usd == pytest.approx(FEE + 3 * (730 * E2_MEDIUM + BOOT))
    assert "unknown machine type 'e2-custom'" in parts["node pool 0: nodes"]


def test_autopilot_pods_depend_on_declared_requests():
    autopilot = cluster("a", "us-central1", enableAutopilot=True)
    cost = one(autopilot)
    assert cost.monthly_usd == pytest.approx(FEE)
    assert usage_lines(cost) == {
        "pod vCPU": "autopilot_vcpus",
        "pod memory": "autopilot_memory_gib",
        "pod ephemeral storage": "autopilot_ephemeral_storage_gib",
    }
    declared = parse_usage_file({"resource_usage": {"a": {
        "autopilot_vcpus": 10, "autopilot_memory_gib": 50,
        "autopilot_ephemeral_storage_gib": 100}}})  # fmt: skip
    cost = estimate_resources([autopilot], USAGE, usage_file=declared).get("a")
    assert cost.monthly_usd == pytest.approx(
        FEE
        + 730 * (10 * price("gke.autopilot.vcpu") + 50 * price("gke.autopilot.memory")
                 + 100 * price("gke.autopilot.ephemeral_storage"))
    )  # fmt: skip


def test_usage_file_sets_nodes_per_zone_of_the_default_and_inline_pools():
    declared = parse_usage_file({"resource_usage": {
        "r": {"default_pool_nodes_per_zone": 4},
        "p": {"node_pools": {"0": {"nodes_per_zone": 1}}},
    }})  # fmt: skip
    pools = [{"nodeCount": 2, "nodeConfig": {"machineType": "e2-medium"}}]
    report = estimate_resources(
        [cluster("r", "us-central1"), cluster("p", "us-central1", nodePools=pools)],
        USAGE,
        usage_file=declared,
    )
    assert report.get("r").monthly_usd == pytest.approx(FEE + 12 * (730 * E2_MEDIUM + BOOT))
    assert report.get("p").monthly_usd == pytest.approx(FEE + 3 * (730 * E2_MEDIUM + BOOT))
