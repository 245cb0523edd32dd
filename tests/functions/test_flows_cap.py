"""The GKE cap with the real adapter against the fake GKE, on a fake clock (waits are instant).

GKE runs one cluster-level operation at a time, or one operation per node pool; the fake refuses
a write that meets one it may not run beside (400 FAILED_PRECONDITION), as GKE does, and
finishes an operation only after `op_polls` polls.
"""

from __future__ import annotations

from govern import flows, parse
from govern.models import Report
from tests.functions.conftest import (
    CLUSTER,
    PROD,
    REGION,
    adapter_ports,
    budget_data,
    pubsub_event,
    runner,
    seed_accelerators,
)

ACCELERATOR_POOLS = ("l4-spot", "tpu-v5e", "t4-fixed")


def _cap(cloud, **policy) -> Report:
    alert = parse.budget_alert(pubsub_event(budget_data(1.5, 1500)).data)
    report = flows.budget_alert(alert, adapter_ports(cloud), runner(cloud.clock, **policy))
    assert isinstance(report, Report)
    return report


def _size(cloud, name):
    return cloud.container.sizes[(PROD, REGION, CLUSTER, name)]


def test_cluster_writes_wait_for_each_operation_and_never_collide(cloud):
    cloud.container.op_polls = 3
    seed_accelerators(cloud)
    report = _cap(cloud)
    statuses = [r.status for q, r in cloud.server.exchanges if "/clusters/" in q.path]
    assert 400 not in statuses
    assert all(_size(cloud, n) == 0 for n in ACCELERATOR_POOLS)
    writes = [r for r in cloud.mutations() if "/clusters/" in r.path]
    gke_polls = [r for r in cloud.server.calls("GET", "/operations/operation-") if "/v1/" in r.path]
    assert len(gke_polls) == 3 * len(writes)
    # Polls back off on the invocation's clock: first at once, then 1 s, 2 s.
    assert sorted(set(cloud.clock.slept) & {1.0, 2.0}) == [1.0, 2.0]
    assert report.counts()["done"] >= 4


def test_gke_busy_with_its_own_operation_is_waited_for(cloud):
    seed_accelerators(cloud)
    gke = cloud.container
    key = (PROD, REGION, CLUSTER)
    gke._running[key] = "operation-upgrade"  # GKE upgrades the cluster when the cap arrives
    refusals = [0]
    begin = gke._begin

    def upgrade_ends_after_two_refusals(k, op_type, target, pool=None):
        if gke._running.get(k) == "operation-upgrade":
            refusals[0] += 1
            if refusals[0] > 2:
                del gke._running[k]
        return begin(k, op_type, target, pool)

    gke._begin = upgrade_ends_after_two_refusals
    _cap(cloud)
    assert refusals[0] == 3
    assert all(_size(cloud, n) == 0 for n in ACCELERATOR_POOLS)
    assert {2.0, 4.0} <= set(cloud.clock.slept)  # paused between tries, on the fake clock


def test_an_operation_still_running_at_the_deadline_is_left_for_the_next_delivery(cloud):
    cloud.container.op_polls = 10_000  # never finishes within the budget
    seed_accelerators(cloud)
    report = _cap(cloud, time_budget_seconds=30)
    gke = [r for r in report.results if "container.googleapis.com" in r.target]
    assert any(r.outcome == "skipped" and "left for the next run" in r.reason for r in gke)
    assert sum(cloud.clock.slept) <= 30 + 10  # never waited past the budget (one pause cap)


def test_every_pool_of_a_cluster_is_resized_at_once_and_confirmed_later(cloud):
    # GKE runs one operation per node pool, the pools of a cluster in parallel. Before, each
    # pool's chain (label, resize, autoscaling off) waited for the previous pool's drain: the
    # simulation put the last resize of an accelerated project at 598-1,435 s.
    cloud.container.op_polls = 3
    seed_accelerators(cloud)
    report = _cap(cloud)
    calls = [q for q, _ in cloud.server.exchanges if f"/clusters/{CLUSTER}" in q.path]
    pool_writes = [
        (i, q) for i, q in enumerate(calls) if "/nodePools/" in q.path and q.method != "GET"
    ]
    resizes = [i for i, q in pool_writes if q.path.endswith(":setSize")]
    labels = [i for i, q in pool_writes if q.method == "PUT"]
    autoscaling_off = [i for i, q in pool_writes if q.path.endswith(":setAutoscaling")]
    nap_writes = [
        i for i, q in enumerate(calls) if q.method != "GET" and "/nodePools/" not in q.path
    ]
    # The cluster-level steps first (NAP labels, limits), then every pool at once: each pool's
    # resize after its own label (the pools run in parallel, so another pool's label may come
    # later), and every resize requested before any pool is frozen.
    assert len(resizes) == 3
    assert max(nap_writes) < min(labels)
    for pool in ACCELERATOR_POOLS:
        mine = [(i, q) for i, q in pool_writes if f"/nodePools/{pool}" in q.path]
        label = next(i for i, q in mine if q.method == "PUT")
        resize = next(i for i, q in mine if q.path.endswith(":setSize"))
        assert label < resize, pool
    assert max(resizes) < min(autoscaling_off)
    assert all(_size(cloud, n) == 0 for n in ACCELERATOR_POOLS)
    statuses = [r.status for q, r in cloud.server.exchanges if "/clusters/" in q.path]
    assert 400 not in statuses  # nothing collided: one operation per pool
    done = {r.target.rsplit("/", 1)[-1] for r in report.results if r.outcome == "done"}
    assert set(ACCELERATOR_POOLS) <= done
