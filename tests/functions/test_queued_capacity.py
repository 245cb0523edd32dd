"""The budget cap caps capacity that bills the moment it arrives (issue 29, item 4).

End to end (functions_framework, the real compute_v1 and tpu_v2 clients, the fake cloud): a
Compute VM PENDING on a flex-start request is stopped with the running VMs (it used to be
skipped as "not running"), and a TPU queued resource still waiting for capacity is withdrawn
(queuedResources.delete, never with `force`); one already provisioning is named in the report's
`not_capped`. Shapes: compute v1 Instance (status PENDING, scheduling.provisioningModel
FLEX_START) and tpu v2 QueuedResource / ListQueuedResourcesResponse / Operation, checked here
against the discovery documents.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.functions.conftest import (
    BUDGET,
    DEV,
    PROD,
    ZONES,
    budget_data,
    budget_dict,
    log_lines,
    post_report,
    pubsub_event,
    send_event,
    set_policy,
)
from tests.functions.test_fake_shapes import _check, _methods

A, B = ZONES


def _flex_start_vm(cloud, project: str, zone: str, name: str, **kw: Any) -> dict[str, Any]:
    vm = cloud.compute.add(project, zone, name, status="PENDING", gpus=8, **kw)
    vm["scheduling"] = {**vm.get("scheduling", {}), "provisioningModel": "FLEX_START"}
    return vm


def _actions(out: str) -> dict[str, dict[str, Any]]:
    return {
        x["target"].rsplit("/", 1)[-1]: x
        for x in log_lines(out)
        if "outcome" in x and "target" in x
    }


def _cap(cloud, status: int = 200) -> None:
    cloud.billing.add(DEV)
    cloud.billing.add(PROD)
    send_event(pubsub_event(budget_data(1.0, 1000)), status=status)


def test_a_vm_pending_on_a_flex_start_request_is_stopped_by_the_cap(cloud, capsys):
    _flex_start_vm(cloud, DEV, A, "a3-waiting")
    cloud.compute.add(DEV, A, "vm-run")

    _cap(cloud)

    assert cloud.compute.status(DEV, A, "a3-waiting") == "TERMINATED"  # was left PENDING
    line = _actions(capsys.readouterr().out)["a3-waiting"]
    assert line["outcome"] == "done"
    assert "queued for capacity (PENDING, flex-start)" in line["reason"]
    assert "stopped (operation" in line["reason"]


def test_the_idle_gpu_reaper_leaves_a_pending_vm_alone(cloud):
    _flex_start_vm(cloud, DEV, A, "a3-waiting", labels={"workload": "training"})

    report = post_report("reap_idle_gpus")

    assert report["actions"][0]["outcome"] == "skipped"
    assert cloud.compute.status(DEV, A, "a3-waiting") == "PENDING"


def test_waiting_tpu_requests_are_withdrawn_and_provisioning_ones_named(cloud, capsys):
    tpu = cloud.tpu
    tpu.add_queued(DEV, A, "qr-waiting")  # WAITING_FOR_RESOURCES
    tpu.add_queued(DEV, B, "qr-accepted", state="ACCEPTED")
    tpu.add_queued(DEV, A, "qr-provisioning", state="PROVISIONING")
    tpu.add_queued(DEV, A, "qr-active", state="ACTIVE")  # its TPU VMs run: nodes.list has them
    tpu.add_queued(DEV, A, "qr-exempt", labels={"mlgov-exempt": "true"})
    tpu.add_queued(DEV, "europe-west4-a", "qr-elsewhere")  # not a governed zone
    tpu.add_queued(PROD, A, "qr-prod", state="CREATING")

    _cap(cloud)

    assert set(tpu.queued) == {
        (DEV, A, "qr-provisioning"),
        (DEV, A, "qr-active"),
        (DEV, A, "qr-exempt"),
        (DEV, "europe-west4-a", "qr-elsewhere"),
    }
    deletes = cloud.server.calls("DELETE", "/queuedResources/")
    assert len(deletes) == 3 and all(r.query.get("force") != ["true"] for r in deletes)
    out = capsys.readouterr().out
    lines = _actions(out)
    assert lines["qr-waiting"]["action"] == "withdraw"
    assert lines["qr-waiting"]["outcome"] == "done"
    assert "queued for capacity (WAITING_FOR_RESOURCES)" in lines["qr-waiting"]["reason"]
    assert lines["qr-exempt"]["outcome"] == "skipped"
    [summary] = [x for x in log_lines(out) if x.get("summary")]
    [named] = summary["not_capped"]
    assert named.startswith("//tpu.googleapis.com/projects/acme-ml-dev/locations/us-central1-a/")
    assert "qr-provisioning: TPU queued resource PROVISIONING" in named
    assert [x for x in log_lines(out) if x["severity"] == "WARNING" and "queued" in x["message"]]


def test_a_dry_run_withdraws_nothing(cloud, monkeypatch, capsys):
    set_policy(monkeypatch, dry_run=True)
    cloud.tpu.add_queued(DEV, A, "qr-waiting")

    _cap(cloud)

    assert (DEV, A, "qr-waiting") in cloud.tpu.queued
    assert not cloud.server.calls("DELETE")
    assert _actions(capsys.readouterr().out)["qr-waiting"]["outcome"] == "simulated"


def test_a_refused_withdrawal_is_a_failure_and_the_alert_comes_back(cloud, capsys):
    cloud.tpu.add_queued(DEV, A, "qr-waiting")
    cloud.server.inject(r"/queuedResources/qr-waiting$", 403, method="DELETE")

    _cap(cloud, status=500)

    assert (DEV, A, "qr-waiting") in cloud.tpu.queued
    assert _actions(capsys.readouterr().out)["qr-waiting"]["outcome"] == "failed"
    _cap(cloud)  # the redelivery withdraws it
    assert (DEV, A, "qr-waiting") not in cloud.tpu.queued


def test_an_unreachable_zone_of_the_queue_is_a_failed_scope(cloud):
    cloud.tpu.unreachable.add((DEV, B))
    _cap(cloud, status=500)


@pytest.mark.parametrize("path_part", ["/queuedResources", "/operations/operation-tpu-"])
def test_the_queued_resource_answers_are_the_discovery_documents(cloud, path_part):
    cloud.tpu.add_queued(DEV, A, "qr-waiting", labels={"team": "research"})
    cloud.tpu.add_queued(DEV, B, "qr-provisioning", state="PROVISIONING")
    _cap(cloud)
    checked = 0
    for request, reply in cloud.server.exchanges:
        if path_part not in request.path or reply.status >= 400:
            continue
        [method] = [
            m
            for verb, pattern, m in _methods("tpu")
            if verb == request.method and pattern.fullmatch(request.path)
        ]
        assert method["id"].startswith("tpu.projects.locations.")
        _check("tpu", reply.body, method["response"], f"{method['id']} response")
        checked += 1
    assert checked


def test_a_project_found_through_a_scope_has_its_queued_resources_withdrawn_in_every_zone(
    cloud, monkeypatch
):
    # Governed in every zone (no zones of its own): its queued resources are listed with
    # `locations/-` (the list read each governed zone, and such a project has none).
    folder, far = "folders/100", "asia-east1-b"
    cloud.assets.add_folder(folder)
    cloud.assets.add_project("ml-scoped", folder)
    cloud.tpu.add_queued("ml-scoped", far, "tpu-waiting")
    set_policy(
        monkeypatch,
        scopes={folder: {"environment": "prod", "allow_billing_disable": False}},
        budgets={BUDGET: budget_dict(projects=[DEV], scopes=[folder], disable_billing_at=None)},
    )

    send_event(pubsub_event(budget_data(1.0, 1000)))

    assert cloud.server.calls("GET", "/v2/projects/ml-scoped/locations/-/queuedResources")
    assert ("ml-scoped", far, "tpu-waiting") not in cloud.tpu.queued
