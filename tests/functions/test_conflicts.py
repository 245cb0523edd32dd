"""Label conflicts at the cap are retried with a fresh read, within the same run.

GKE answers setResourceLabels with a stale labelFingerprint with HTTP 400 FAILED_PRECONDITION
"fingerprint mismatch" (recorded: tests/fakegcp/recorded/gke-cluster-set-label/..._2.json, which
the fake's answer is compared with in tests/fakegcp/test_recorded_shapes.py); 409 is treated the
same. Vertex AI refuses a stale endpoint etag with 409 ABORTED. End to end through
functions_framework against the fake: someone relabels the cluster (or the endpoint) just
before the cap writes its marks.
"""

from __future__ import annotations

from tests.functions.conftest import (
    CLUSTER,
    PROD,
    REGION,
    budget_data,
    log_lines,
    pubsub_event,
    seed_accelerators,
    send_event,
    set_policy,
)

ACCELERATORS = ("nvidia-l4", "nvidia-tesla-t4", "tpu-v5-lite-podslice")
ENDPOINT = f"projects/{PROD}/locations/{REGION}/endpoints/e-opted"


def _line(out: str, target_end: str) -> dict:
    [line] = [x for x in log_lines(out) if x.get("target", "").endswith(target_end)]
    return line


def test_a_stale_fingerprint_is_read_again_and_the_limits_closed_in_the_same_run(cloud, capsys):
    seed_accelerators(cloud)
    gke = cloud.container
    gke.races = 1  # someone relabels the cluster just before the cap's setResourceLabels
    send_event(pubsub_event(budget_data(1.5, 1500)))  # acknowledged: nothing left undone

    assert all(gke.limits(PROD, REGION, CLUSTER)[t] == (0, 0) for t in ACCELERATORS)
    refused = [
        r
        for q, r in cloud.server.exchanges
        if q.path.endswith(":setResourceLabels") and r.status == 400
    ]
    assert [r.body["error"]["status"] for r in refused] == ["FAILED_PRECONDITION"]
    assert "fingerprint mismatch" in refused[0].body["error"]["message"]
    assert cloud.server.calls("GET", f"/clusters/{CLUSTER}")  # the fresh read
    # The other writer's label survives: the marks were merged into the fresh labels.
    labels = gke.labels(PROD, REGION, CLUSTER)
    assert labels["owner"] == "sre" and labels["mlgov-cap-nap-nvidia-l4"] == "0-32"
    line = _line(capsys.readouterr().out, CLUSTER)
    assert line["outcome"] == "done" and "after 1 fresh read(s)" in line["reason"]


def test_a_409_is_treated_like_a_stale_fingerprint(cloud):
    seed_accelerators(cloud)
    cloud.server.inject(r":setResourceLabels$", 409, times=1)
    send_event(pubsub_event(budget_data(1.5, 1500)))
    assert cloud.container.limits(PROD, REGION, CLUSTER)["nvidia-l4"] == (0, 0)


def test_limits_still_open_after_every_fresh_read_fail_the_alert_never_skip_it(cloud, capsys):
    seed_accelerators(cloud)
    cloud.container.races = 100  # the cluster keeps changing
    send_event(pubsub_event(budget_data(1.5, 1500)), status=500)  # raised: redelivered

    assert cloud.container.limits(PROD, REGION, CLUSTER)["nvidia-l4"] == (0, 32)
    out = capsys.readouterr().out
    line = _line(out, CLUSTER)
    assert line["outcome"] == "failed" and "NAP accelerator limits NOT closed" in line["reason"]
    [summary] = [x for x in log_lines(out) if x.get("summary")]
    assert summary["failed"] is True and summary["answer"] == "raised for redelivery"

    cloud.container.races = 0  # the redelivery finds the cluster quiet
    send_event(pubsub_event(budget_data(1.5, 1500)))
    assert cloud.container.limits(PROD, REGION, CLUSTER)["nvidia-l4"] == (0, 0)


def test_a_stale_endpoint_etag_is_read_again_and_the_record_kept(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, undeploy_endpoints=True)
    seed_accelerators(cloud)
    cloud.vertex.races = 1
    send_event(pubsub_event(budget_data(1.5, 1500)))

    assert cloud.vertex.deployed(ENDPOINT) == []
    labels = cloud.vertex.labels(ENDPOINT)
    assert labels["owner"] == "sre"
    assert labels["mlgov-cap-dm-11"] == "70_d1-2_g2-standard-8_nvidia-l4_1"
    assert [r.status for q, r in cloud.server.exchanges if q.method == "PATCH"] == [409, 200]
    assert "kept in labels mlgov-cap-dm-*" in _line(capsys.readouterr().out, "e-opted")["reason"]
