"""The budget cap's reach end to end (functions_framework, real adapters, fake GKE and Vertex AI).

A prod-like project (conftest.seed_accelerators): GPU and TPU pools with NAP, a fixed GPU pool,
an exempt pool, a system pool, a TPU VM, running/queued/exempt/finished Vertex jobs, an opted-in
and a serving endpoint. Each test asserts the fake's final state and the writes it saw.
"""

from __future__ import annotations

import re
import time

import pytest

from governance.fakecloud.server import Reply, Request
from tests.functions.conftest import (
    CLUSTER,
    DEV,
    PROD,
    REGION,
    app_client,
    budget_data,
    log_lines,
    pubsub_event,
    seed_accelerators,
    send_event,
    set_policy,
)

ACCELERATOR_POOLS = ("l4-spot", "tpu-v5e", "t4-fixed")
JOBS = f"projects/{PROD}/locations/{REGION}"


def _pool(cloud, name):
    return cloud.container.pool(PROD, REGION, CLUSTER, name)


def _size(cloud, name):
    return cloud.container.sizes[(PROD, REGION, CLUSTER, name)]


def _writes(cloud):
    return [(r.method, r.path) for r in cloud.mutations()]


def test_below_stop_at_touches_nothing(cloud):
    seed_accelerators(cloud)
    send_event(pubsub_event(budget_data(0.5, 500)))
    assert cloud.server.calls() == []


@pytest.mark.parametrize("fraction", [1.0, 1.5])
def test_at_the_cap_every_governed_accelerator_stops_billing(cloud, monkeypatch, capsys, fraction):
    set_policy(monkeypatch, undeploy_endpoints=True)
    seed_accelerators(cloud)
    send_event(pubsub_event(budget_data(fraction, fraction * 1000)))

    # GKE accelerator pools: 0 nodes, autoscaling off, previous settings in the label.
    for name in ACCELERATOR_POOLS:
        assert _size(cloud, name) == 0, name
    # Autoscaling off: GKE answers the message with every field at its default, `{}`.
    assert _pool(cloud, "l4-spot")["autoscaling"] == {}
    assert _pool(cloud, "tpu-v5e")["autoscaling"] == {}
    labels = {n: _pool(cloud, n)["config"]["resourceLabels"] for n in ACCELERATOR_POOLS}
    # The size at cap time is the pool's instance groups' targetSize summed over its zones.
    assert labels["l4-spot"] == {
        "team": "ml-platform",
        "workload": "training",
        "mlgov-cap-prev": "autoscale-total-0-16-any-n6-z3_3",
    }
    assert labels["tpu-v5e"] == {"mlgov-cap-prev": "autoscale-total-0-8-any-n4"}
    assert labels["t4-fixed"] == {"mlgov-cap-prev": "fixed-n4-z2_2"}
    # Exempt and system pools: untouched.
    assert _size(cloud, "a100-exempt") == 2
    assert _pool(cloud, "a100-exempt")["autoscaling"]["enabled"] is True
    assert _size(cloud, "system") == 2
    assert "resourceLabels" not in _pool(cloud, "system")["config"]
    # NAP: accelerator limits 0, cpu/memory kept, previous limits in cluster labels.
    limits = cloud.container.limits(PROD, REGION, CLUSTER)
    assert limits == {
        "cpu": (0, 512),
        "memory": (0, 2048),
        "nvidia-l4": (0, 0),
        "nvidia-tesla-t4": (0, 0),
        "tpu-v5-lite-podslice": (0, 0),
    }
    cluster = cloud.container.clusters[(PROD, REGION, CLUSTER)]
    assert cluster["resourceLabels"] == {
        "team": "ml-platform",
        "mlgov-cap-nap-nvidia-l4": "0-32",
        "mlgov-cap-nap-nvidia-tesla-t4": "0-16",
        "mlgov-cap-nap-tpu-v5-lite-podslice": "0-64",
    }
    # GKE leaves zero minimums out of its answers (recorded: gke-cluster-set-label/).
    assert {"resourceType": "nvidia-l4"} in cluster["autoscaling"]["resourceLimits"]
    # The rest of the cluster's autoscaling was sent back as read.
    assert cluster["autoscaling"]["autoprovisioningNodePoolDefaults"]["serviceAccount"]
    assert cluster["autoscaling"]["autoscalingProfile"] == "OPTIMIZE_UTILIZATION"
    # TPU VM stopped; Vertex AI: active jobs cancelled, exempt and finished ones left alone.
    assert cloud.tpu.state(PROD, "us-central1-a", "research-v5e") == "STOPPED"
    vertex = cloud.vertex
    assert vertex.state(f"{JOBS}/customJobs/train-1") == "JOB_STATE_CANCELLING"
    assert vertex.state(f"{JOBS}/customJobs/train-queued") == "JOB_STATE_CANCELLING"
    assert vertex.state(f"{JOBS}/hyperparameterTuningJobs/hpt-1") == "JOB_STATE_CANCELLING"
    assert vertex.state(f"{JOBS}/customJobs/train-exempt") == "JOB_STATE_RUNNING"
    assert vertex.state(f"{JOBS}/customJobs/train-done") == "JOB_STATE_SUCCEEDED"
    # Endpoints: the opted-in one emptied (each deployment kept in its labels first), the
    # serving one untouched.
    assert vertex.deployed(f"{JOBS}/endpoints/e-opted") == []
    assert vertex.labels(f"{JOBS}/endpoints/e-opted") == {
        "mlgov-undeploy-at-cap": "true",
        "mlgov-cap-dm-11": "70_d1-2_g2-standard-8_nvidia-l4_1",
        "mlgov-cap-dm-11-m": "1__m11",
        "mlgov-cap-dm-12": "30_d1-2_g2-standard-8_nvidia-l4_1",
        "mlgov-cap-dm-12-m": "1__m12",
    }
    assert vertex.deployed(f"{JOBS}/endpoints/e-serving") == ["21"]
    # Prod never unlinks billing (allow_billing_disable: false).
    assert not cloud.server.calls("PUT", f"/v1/projects/{PROD}/billingInfo")

    lines = log_lines(capsys.readouterr().out)
    outcome = {x["target"].rsplit("/", 1)[-1]: x["outcome"] for x in lines if "target" in x}
    assert outcome["a100-exempt"] == "skipped"
    assert outcome["system"] == "skipped"
    assert outcome["train-exempt"] == "skipped"
    assert outcome["e-serving"] == "skipped"
    assert {outcome[n] for n in (*ACCELERATOR_POOLS, CLUSTER, "hpt-1", "e-opted")} == {"done"}


def test_redelivery_five_times_makes_no_extra_writes(cloud, monkeypatch):
    set_policy(monkeypatch, undeploy_endpoints=True)
    seed_accelerators(cloud)
    client = app_client("on_budget_alert", "cloudevent")
    event = pubsub_event(budget_data(1.5, 1500), message_id="same-id")
    send_event(event, client)
    first = _writes(cloud)
    # 3 pools x (label + size + autoscaling?) + NAP (labels + limits) + TPU VM + 3 cancels +
    # endpoint record + 2 undeploys + dev's billing unlinked (150% >= its disable_billing_at)
    assert len(first) == (3 + 3 + 2) + 2 + 1 + 3 + (1 + 2) + 1
    assert ("PUT", f"/v1/projects/{DEV}/billingInfo") in first
    for _ in range(4):
        send_event(event, client)
    assert _writes(cloud) == first


def test_an_interrupted_cap_is_finished_on_redelivery(cloud):
    seed_accelerators(cloud)
    # The first delivery dies after the l4 pool's label (its setSize keeps failing).
    cloud.server.inject(r"/nodePools/l4-spot:setSize$", 403, times=1000)
    # The failed stop fails the alert (500): Pub/Sub redelivers it.
    send_event(pubsub_event(budget_data(1.5, 1500), message_id="m1"), status=500)
    assert _pool(cloud, "l4-spot")["config"]["resourceLabels"]["mlgov-cap-prev"] == (
        "autoscale-total-0-16-any-n6-z3_3"
    )
    assert _size(cloud, "l4-spot") == 3
    cloud.server.faults.clear()
    send_event(pubsub_event(budget_data(1.5, 1500), message_id="m1"))
    assert _size(cloud, "l4-spot") == 0
    assert _pool(cloud, "l4-spot")["autoscaling"] == {}
    # The label written first still holds the original settings.
    assert _pool(cloud, "l4-spot")["config"]["resourceLabels"]["mlgov-cap-prev"] == (
        "autoscale-total-0-16-any-n6-z3_3"
    )


def test_dry_run_simulates_every_new_action_with_zero_writes(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, dry_run=True, undeploy_endpoints=True)
    seed_accelerators(cloud)
    send_event(pubsub_event(budget_data(1.5, 1500)))
    assert cloud.mutations() == []
    simulated = {
        x["action"] for x in log_lines(capsys.readouterr().out) if x.get("outcome") == "simulated"
    }
    assert simulated == {
        "stop",
        "scale_to_zero",
        "cap_autoprovisioning",
        "cancel",
        "undeploy",
        "disable_billing",
    }


def test_endpoints_are_never_read_without_the_opt_in(cloud):
    seed_accelerators(cloud)
    send_event(pubsub_event(budget_data(1.5, 1500)))
    assert cloud.server.calls(path_contains="/endpoints") == []
    assert cloud.vertex.deployed(f"{JOBS}/endpoints/e-opted") == ["11", "12"]


def test_an_old_endpoint_map_without_the_new_keys_still_loads(cloud, monkeypatch):
    import json

    old = json.dumps({s: cloud.server.url for s in ("compute", "notebooks", "tpu")})
    monkeypatch.setenv("MLGOV_API_ENDPOINTS", old)
    import main

    main._endpoints.cache_clear()
    assert main._endpoints() == json.loads(old)


def test_503_on_the_cluster_list_fails_the_alert_then_redelivery_caps(cloud, monkeypatch):
    set_policy(monkeypatch, time_budget_seconds=2)  # retries give up within 2 s (real clock)
    seed_accelerators(cloud)
    cloud.server.inject(r"/locations/-/clusters$", 503, times=1000)
    client = app_client("on_budget_alert", "cloudevent")
    from cloudevents.conversion import to_structured

    headers, body = to_structured(pubsub_event(budget_data(1.5, 1500), message_id="m"))
    first = client.post("/", headers=headers, data=body)
    assert first.status_code >= 500  # not acknowledged: Pub/Sub redelivers
    assert _size(cloud, "l4-spot") == 3
    cloud.server.faults.clear()
    assert client.post("/", headers=headers, data=body).status_code == 200
    assert all(_size(cloud, n) == 0 for n in ACCELERATOR_POOLS)


def test_a_capped_pool_resized_by_hand_is_scaled_to_zero_again(cloud):
    # After the cap, someone resizes the capped pool by hand (`gcloud container clusters resize`):
    # its label and autoscaling off remain, so its JSON still looks capped; only its instance
    # groups tell it holds nodes again. The next alert over the cap must empty it again.
    seed_accelerators(cloud)
    client = app_client("on_budget_alert", "cloudevent")
    send_event(pubsub_event(budget_data(1.5, 1500), message_id="m1"), client)
    assert _size(cloud, "l4-spot") == 0
    label = _pool(cloud, "l4-spot")["config"]["resourceLabels"]["mlgov-cap-prev"]
    cloud.container.sizes[(PROD, REGION, CLUSTER, "l4-spot")] = 3  # the hand resize
    before = len(_writes(cloud))

    send_event(pubsub_event(budget_data(1.6, 1600), message_id="m2"), client)

    assert _size(cloud, "l4-spot") == 0
    new = _writes(cloud)[before:]
    # One setSize on that pool, nothing else: its record of the settings before the cap stays.
    assert [w for w in new if "/nodePools/" in w[1]] == [
        (
            "POST",
            f"/v1/projects/{PROD}/locations/{REGION}/clusters/{CLUSTER}/nodePools/l4-spot:setSize",
        )
    ]
    assert _pool(cloud, "l4-spot")["config"]["resourceLabels"]["mlgov-cap-prev"] == label
    assert _pool(cloud, "l4-spot")["autoscaling"] == {}


def test_a_stop_still_running_does_not_hold_back_the_pools(cloud, capsys):
    # A VM whose stop never finishes within the invocation: its wait takes the budget and grace.
    # The GPU pools are scaled to zero while it is being confirmed; they used to wait for every
    # stop's confirmation first, then start past the budget (left for a redelivery).
    seed_accelerators(cloud)
    cloud.compute.add(PROD, "us-central1-a", "slow")
    cloud.compute.slow_stops[(PROD, "us-central1-a", "slow")] = 10_000

    # Each read of the stop's operation answers only once every accelerator pool is at zero
    # (or after 2 s of real time): the fake clock jumps at each sleep, so without this the wait
    # could run out its budget before the pools' phase ever started, whatever the code did.
    def pools_first(request: Request, m: re.Match[str]) -> Reply:
        give_up = time.monotonic() + 2.0
        while time.monotonic() < give_up and any(_size(cloud, n) for n in ACCELERATOR_POOLS):
            time.sleep(0.01)
        return cloud.compute._operation(request, m)

    cloud.server.route(
        "GET", r"/compute/v1/projects/([^/]+)/zones/([^/]+)/operations/([^/]+)", pools_first,
        first=True,
    )  # fmt: skip

    send_event(pubsub_event(budget_data(1.0, 1000)), status=500)  # the stop is unconfirmed

    for name in ACCELERATOR_POOLS:
        assert _size(cloud, name) == 0, name
    lines = log_lines(capsys.readouterr().out)
    outcome = {x["target"].rsplit("/", 1)[-1]: x for x in lines if "target" in x}
    assert outcome["slow"]["outcome"] == "failed"
    assert "not confirmed" in outcome["slow"]["reason"]
    assert {outcome[n]["outcome"] for n in ACCELERATOR_POOLS} == {"done"}
    # Log lines keep the actions' order: the stop's line comes before the pools' lines.
    order = [x["target"].rsplit("/", 1)[-1] for x in lines if "outcome" in x]
    assert order.index("slow") < min(order.index(n) for n in ACCELERATOR_POOLS)
