"""`mlgov cap status|restore` after the real budget function capped the prod stack's project.

The cap runs end to end (functions_framework, real adapters) against the fake cloud
(conftest.py); then the CLI reads every governed project and restores. The round trip must give
back every setting the cap changed, and nothing above what the stack declares.
"""

from __future__ import annotations

import json

import pytest

from tests.cap.conftest import (
    CLUSTER,
    ENDPOINT,
    OTHER,
    PROJECT,
    REGION,
    A,
    B,
    cap_prod,
    mlgov,
)

POOL = f"projects/{PROJECT}/locations/{REGION}/clusters/{CLUSTER}/nodePools"


def _doc(capsys) -> dict:
    return json.loads(capsys.readouterr().out)


def _item(doc: dict, target_end: str) -> dict:
    [item] = [i for i in doc["items"] if i["target"].endswith(target_end)]
    return item


def test_cap_then_restore_gives_back_every_setting_the_cap_changed(prod, capsys):
    before = prod.state()
    cap_prod(capsys)
    capped = prod.state()
    # The cap changed all of it: pools empty (user-made autoscaled ones frozen), NAP closed,
    # the endpoint emptied, the TPU VM stopped.
    assert all(
        capped["pools"][p]["nodes"] == 0
        for p in (f"{CLUSTER}/l4-spot", f"{CLUSTER}/t4-fixed", f"{CLUSTER}/tpu-v5e", f"{OTHER}/gpu")
    )
    assert capped["pools"][f"{CLUSTER}/nap-n1-standard-8-gpu1"]["nodes"] == 0
    assert capped["pools"][f"{CLUSTER}/l4-spot"]["autoscaling"] == {}
    assert capped["clusters"][CLUSTER]["limits"]["nvidia-l4"] == (0, 0)
    assert capped["endpoint"]["deployed"] == {}
    assert prod.tpu.state(PROJECT, B, "research-v5e") == "STOPPED"

    assert mlgov(prod.server, "restore") == 0
    out = capsys.readouterr().out
    assert prod.state() == before
    # Restore starts no VM and resumes no job, and says so.
    assert prod.tpu.state(PROJECT, B, "research-v5e") == "STOPPED"
    assert "TPU VMs the cap stopped stay stopped" in out
    assert "training jobs the cap cancelled are not resumed" in out
    # Every GKE write waited for the one before: GKE never refused one as busy.
    assert all(r.status != 400 for _q, r in prod.server.exchanges)
    # A second restore finds nothing capped and writes nothing.
    writes = prod.writes()
    assert mlgov(prod.server, "restore") == 0
    again = capsys.readouterr().out
    assert "nothing capped" in again
    # Issue 32: restore is explained only when something is capped.
    assert "not undone by restore" not in again
    assert mlgov(prod.server, "status") == 0
    status = capsys.readouterr().out
    assert "  nothing capped\n" in status and "not undone by restore" not in status
    assert prod.writes() == writes


def test_restore_sets_the_size_at_cap_time_and_keeps_the_nap_pool_nap_made(prod, capsys):
    cap_prod(capsys)
    assert mlgov(prod.server, "restore") == 0
    gke = prod.container
    # t4-fixed was created with 2 per zone and resized to 3: it gets 3 back, not 2.
    assert gke.sizes[(PROJECT, REGION, CLUSTER, "t4-fixed")] == 3
    nap = gke.pool(PROJECT, REGION, CLUSTER, "nap-n1-standard-8-gpu1")
    assert nap["autoscaling"] == {
        "enabled": True,
        "maxNodeCount": 1000,
        "locationPolicy": "BALANCED",
        "autoprovisioned": True,
    }
    # Its autoscaling was never changed by the cap, so restore did not write it either.
    assert not prod.server.calls("POST", "nap-n1-standard-8-gpu1:setAutoscaling")


def test_status_lists_every_capped_resource_of_the_governed_projects_and_writes_nothing(
    prod, capsys
):
    cap_prod(capsys)
    writes = prod.writes()
    assert mlgov(prod.server, "status", "--json") == 0
    doc = _doc(capsys)
    assert prod.writes() == writes
    assert doc["projects"] == {PROJECT: [A, B]}
    kinds = sorted((i["kind"], i["target"].split("/", 3)[-1]) for i in doc["items"])
    assert kinds == [
        ("NAP limits", f"{REGION}/clusters/{CLUSTER}"),
        ("endpoint", f"{REGION}/endpoints/e-opted"),
        ("node pool", f"{A}/clusters/{OTHER}/nodePools/gpu"),
        ("node pool", f"{REGION}/clusters/{CLUSTER}/nodePools/l4-spot"),
        ("node pool", f"{REGION}/clusters/{CLUSTER}/nodePools/nap-n1-standard-8-gpu1"),
        ("node pool", f"{REGION}/clusters/{CLUSTER}/nodePools/t4-fixed"),
        ("node pool", f"{REGION}/clusters/{CLUSTER}/nodePools/tpu-v5e"),
    ]
    l4 = _item(doc, "/l4-spot")
    assert l4["now"] == "autoscaling off"
    assert l4["before"] == (
        "autoscaling 0-16 nodes in total, location policy ANY, 6 node(s) at cap time (3/3 by zone)"
    )
    assert l4["outcome"] == "capped"
    assert _item(doc, "/t4-fixed")["before"] == "fixed size, 6 node(s) (3/3 by zone)"
    assert _item(doc, CLUSTER)["before"] == "nvidia-l4 0-32, nvidia-tesla-t4 0-16"
    endpoint = _item(doc, "e-opted")
    assert endpoint["now"] == "no model deployed"
    assert endpoint["before"] == (
        "11: model m11@1 on g2-standard-8 + 1 NVIDIA_L4, 1-2 replicas, 70% of traffic; "
        "12: model reranker@3 on n1-standard-4, 2-4 replicas, 30% of traffic"
    )
    assert any("cancelled are not resumed" in line for line in doc["not_undone"])


def test_status_text_says_what_was_there_and_what_is_not_undone(prod, capsys):
    cap_prod(capsys)
    assert mlgov(prod.server, "status") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"stack prod: governed {PROJECT} ({A}, {B})"
    assert f"node pool {POOL}/t4-fixed" in out
    assert "  before the cap: fixed size, 6 node(s) (3/3 by zone)" in out
    assert "  restore sets: setSize 3 node(s) per zone x 2 zone(s)" not in out
    assert "  restore sets: 3 node(s) per zone x 2 zone(s)" in out
    assert "not undone by restore:" in out


def test_restore_dry_run_changes_nothing_and_lists_each_write(prod, capsys):
    cap_prod(capsys)
    writes = prod.writes()
    assert mlgov(prod.server, "restore", "--dry-run", "--json") == 0
    doc = _doc(capsys)
    assert doc["dry_run"] is True
    assert prod.writes() == writes
    l4 = _item(doc, "/l4-spot")
    assert l4["outcome"] == "would restore"
    assert l4["writes"] == ["setAutoscaling", "setSize 3", "remove mlgov-cap-prev"]
    assert _item(doc, "e-opted")["writes"] == [
        "deployModel 11",
        "deployModel 12",
        "endpoints.patch (labels, traffic split)",
    ]


def test_tampered_marks_cannot_raise_anything_above_the_stack(prod, capsys):
    cap_prod(capsys)
    gke = prod.container
    # Someone edits the marks: 5000 nodes for l4-spot (the stack says 16), NAP l4 0-5000
    # (the stack says 32), and a NAP limit for an accelerator the stack declares none of.
    l4 = gke.pool(PROJECT, REGION, CLUSTER, "l4-spot")
    l4["config"]["resourceLabels"]["mlgov-cap-prev"] = "autoscale-total-0-5000-any-n4000"
    gke.relabel(
        PROJECT,
        REGION,
        CLUSTER,
        **{"mlgov-cap-nap-nvidia-l4": "0-5000", "mlgov-cap-nap-nvidia-h100-80gb": "0-64"},
    )
    assert mlgov(prod.server, "restore", "--json") == 0
    doc = _doc(capsys)
    assert l4["autoscaling"]["totalMaxNodeCount"] == 16
    assert gke.sizes[(PROJECT, REGION, CLUSTER, "l4-spot")] == 8  # 16 over 2 zones at most
    limits = gke.limits(PROJECT, REGION, CLUSTER)
    assert limits["nvidia-l4"] == (0, 32)
    assert "nvidia-h100-80gb" not in limits  # the stack declares no limit for it: none set
    notes = " ".join(_item(doc, "/l4-spot")["notes"] + _item(doc, CLUSTER)["notes"])
    assert "clamped: the mark asks a maximum of 5000 nodes in total; the stack allows 16" in notes
    assert "training_pools.l4-spot.max_nodes = 16" in notes
    assert "nvidia-l4: clamped, the mark asks a maximum of 5000" in notes
    assert "nvidia-h100-80gb: left at 0, its mark kept" in notes
    assert gke.labels(PROJECT, REGION, CLUSTER)["mlgov-cap-nap-nvidia-h100-80gb"] == "0-64"


def test_one_unreadable_mark_is_reported_and_the_rest_restored(prod, capsys):
    cap_prod(capsys)
    gke = prod.container
    t4 = gke.pool(PROJECT, REGION, CLUSTER, "t4-fixed")
    t4["config"]["resourceLabels"]["mlgov-cap-prev"] = "fixed-lots"
    assert mlgov(prod.server, "restore") == 4  # Exit.CLOUD: something was left
    captured = capsys.readouterr()
    assert (
        f"mlgov: error: {POOL}/t4-fixed: mlgov-cap-prev='fixed-lots': not a value the budget "
        "cap writes; the pool is left as it is"
    ) in captured.err.splitlines()
    assert gke.sizes[(PROJECT, REGION, CLUSTER, "t4-fixed")] == 0
    assert t4["config"]["resourceLabels"]["mlgov-cap-prev"] == "fixed-lots"
    # Everything else came back.
    assert gke.sizes[(PROJECT, REGION, CLUSTER, "l4-spot")] == 3
    assert gke.limits(PROJECT, REGION, CLUSTER)["nvidia-l4"] == (0, 32)
    assert prod.vertex.split(ENDPOINT) == {"11": 70, "12": 30}


def test_an_unreadable_deployment_mark_leaves_that_model_and_the_split_alone(prod, capsys):
    cap_prod(capsys)
    endpoint = prod.vertex.endpoints[ENDPOINT]
    endpoint["labels"]["mlgov-cap-dm-12"] = "thirty-percent"
    assert mlgov(prod.server, "restore", "--json") == 4
    doc = _doc(capsys)
    assert prod.vertex.deployed(ENDPOINT) == ["11"]
    assert prod.vertex.split(ENDPOINT) == {}  # not set: the split is known only in part
    item = _item(doc, "e-opted")
    assert item["problems"] == [
        "mlgov-cap-dm-12='thirty-percent': not a deployment the budget cap writes; that "
        "deployment is left as it is"
    ]
    assert "traffic split left as it is: a deployment's mark is unreadable" in item["notes"]
    assert "mlgov-cap-dm-12" in prod.vertex.labels(ENDPOINT)
    assert "mlgov-cap-dm-11" not in prod.vertex.labels(ENDPOINT)


def test_a_stale_fingerprint_while_removing_the_marks_is_read_again(prod, capsys):
    cap_prod(capsys)
    prod.container.races = 1
    assert mlgov(prod.server, "restore") == 0
    labels = prod.container.labels(PROJECT, REGION, CLUSTER)
    assert labels == {"team": "ml-platform", "owner": "sre"}


def test_a_failed_write_fails_that_item_only(prod, capsys):
    cap_prod(capsys)
    prod.server.inject(r"/nodePools/l4-spot:setSize$", 403, times=1)
    assert mlgov(prod.server, "restore") == 4
    err = capsys.readouterr().err
    assert f"{POOL}/l4-spot: failed: setSize 3: POST" in err
    assert "(after: setAutoscaling)" in err
    assert prod.container.sizes[(PROJECT, REGION, CLUSTER, "t4-fixed")] == 3
    # The label stays, so the next restore finishes it.
    assert "mlgov-cap-prev" in prod.container.pool_labels(PROJECT, REGION, CLUSTER, "l4-spot")
    assert mlgov(prod.server, "restore") == 0
    assert prod.container.sizes[(PROJECT, REGION, CLUSTER, "l4-spot")] == 3


def test_a_governed_zone_gke_could_not_read_fails_status(prod, capsys):
    cap_prod(capsys)
    prod.container.missing_zones.add((PROJECT, A))
    assert mlgov(prod.server, "status") == 4
    assert f"gke clusters.list {PROJECT}: {A} unreachable" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["status", "--stack", "prod", "--dry-run"], "--dry-run: only with `restore`"),
        (["status", "--stack", "nosuch"], "--stack: no stack file"),
        (["status", "--stack", "prod", "--endpoint", "ftp://x"], "--endpoint: 'ftp://x'"),
    ],
)
def test_bad_input_exits_2_naming_the_problem(prod, capsys, argv, message):
    from governance.cli.main import main

    assert main(["cap", *argv]) == 2
    assert message in capsys.readouterr().err


def test_an_unreachable_api_exits_4(capsys, monkeypatch):
    from governance.cli.main import main
    from tests.short_deadlines import use_short_budget

    use_short_budget(monkeypatch)  # refused connections are retried: briefly, not for seconds
    monkeypatch.chdir(__import__("tests.cap.conftest", fromlist=["REPO"]).REPO)
    assert main(["cap", "status", "--stack", "prod", "--endpoint", "http://127.0.0.1:9"]) == 4
    assert "gke clusters.list acme-ml-prod: GET projects/acme-ml-prod" in capsys.readouterr().err


def test_a_stack_without_gke_restores_nothing_above_zero(prod, capsys, tmp_path):
    import yaml

    from tests.cap.conftest import REPO

    cap_prod(capsys)
    config = yaml.safe_load((REPO / "stacks" / "Pulumi.prod.yaml").read_text())
    for key in ("gke", "training_pools"):
        config["config"]["mlgov:settings"].pop(key)
    stack = tmp_path / "Pulumi.nogke.yaml"
    stack.write_text(yaml.safe_dump(config))
    from governance.cli.main import main

    code = main(["cap", "restore", "--config", str(stack), "--endpoint", prod.server.url, "--json"])
    doc = _doc(capsys)
    assert code == 0
    l4 = _item(doc, "/l4-spot")
    assert l4["outcome"] == "left capped"
    assert l4["notes"] == [
        "left capped: the stack declares no training pools, so restore raises it to nothing"
    ]
    assert prod.container.sizes[(PROJECT, REGION, CLUSTER, "l4-spot")] == 0
    assert prod.vertex.split(ENDPOINT) == {"11": 70, "12": 30}  # endpoints are not bounded


def test_marks_written_before_sizes_were_recorded_still_restore(prod, capsys):
    cap_prod(capsys)
    gke = prod.container
    # What the previous version wrote: no size; a fixed pool's initialNodeCount per zone.
    gke.pool(PROJECT, REGION, CLUSTER, "l4-spot")["config"]["resourceLabels"]["mlgov-cap-prev"] = (
        "autoscale-total-2-16-any"
    )
    gke.pool(PROJECT, REGION, CLUSTER, "t4-fixed")["config"]["resourceLabels"]["mlgov-cap-prev"] = (
        "fixed-2"
    )
    assert mlgov(prod.server, "restore", "--json") == 0
    doc = _doc(capsys)
    assert gke.sizes[(PROJECT, REGION, CLUSTER, "l4-spot")] == 1  # its minimum, 2 over 2 zones
    assert gke.sizes[(PROJECT, REGION, CLUSTER, "t4-fixed")] == 2
    assert _item(doc, "/l4-spot")["notes"] == [
        "its size at cap time was not recorded: back to its autoscaling minimum"
    ]
    assert _item(doc, "/t4-fixed")["before"] == "fixed size, 2 per zone"


@pytest.mark.parametrize("legacy", [False, True], ids=["error", "statusMessage-only"])
def test_a_resize_whose_operation_fails_fails_that_item_only(prod, capsys, legacy):
    # GKE answers setSize with a RUNNING operation that can end DONE with an error, or with
    # only the deprecated statusMessage: the pool keeps 0 nodes, so it is not restored.
    cap_prod(capsys)
    prod.container.failing_sizes["l4-spot"] = "Insufficient quota to satisfy the request"
    prod.container.legacy_error = legacy
    assert mlgov(prod.server, "restore") == 4
    err = capsys.readouterr().err
    assert f"{POOL}/l4-spot: failed" in err
    assert "Insufficient quota to satisfy the request" in err
    assert prod.container.sizes[(PROJECT, REGION, CLUSTER, "l4-spot")] == 0
    assert "mlgov-cap-prev" in prod.container.pool_labels(PROJECT, REGION, CLUSTER, "l4-spot")
    prod.container.failing_sizes.clear()
    assert mlgov(prod.server, "restore") == 0
    assert prod.container.sizes[(PROJECT, REGION, CLUSTER, "l4-spot")] == 3
