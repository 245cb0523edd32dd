"""Fan-out end to end: a dispatcher publishes one work item per project, Pub/Sub pushes each to
on_work_item, and every project's part is done exactly once, whatever Pub/Sub and the platform
do (duplicates, concurrent duplicates, crashes, missed ack deadlines, dead letters).

Everything runs through functions_framework with the real REST adapters against the fake cloud
(Asset Inventory and Pub/Sub included); governance/fakecloud/pushdelivery.py delivers the published
messages with Pub/Sub's push semantics, on the fake clock.
"""

from __future__ import annotations

import base64
import itertools
import json
import threading
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest

from govern import workitems
from governance.fakecloud.pushdelivery import Faults, PushDelivery, Subscription, app_endpoint
from tests.functions.conftest import (
    BUDGET,
    DEV,
    PROD,
    app_client,
    budget_data,
    budget_dict,
    log_lines,
    post_report,
    pubsub_event,
    send_event,
    set_policy,
)

A = "us-central1-a"
FAR = "asia-east1-b"
FOLDER = "folders/100"
TOPIC = "projects/acme-ops/topics/acme-work"
DEAD = "projects/acme-ops/topics/acme-work-dead"
GOVERNED = {"mlgov-governed": "true"}
SCOPE = {"environment": "prod", "allow_billing_disable": False, "labels": GOVERNED}


def _org(cloud, n: int = 50) -> list[str]:
    """A folder of `n` governed projects, every fifth with accelerators, plus some that are not
    governed: two labelled out and one being deleted. The governed project ids, sorted."""
    cloud.assets.add_folder(FOLDER)
    governed = []
    for i in range(n):
        project = f"ml-{i:03d}"
        cloud.assets.add_project(project, FOLDER, labels=GOVERNED)
        cloud.compute.add(project, FAR, "vm")
        if i % 5 == 0:
            cloud.compute.add(project, FAR, "gpu", gpus=1, labels={"workload": "training"})
            cloud.tpu.add(project, FAR, "tpu")
        governed.append(project)
    for project, state, labels in [
        ("ml-out-1", "ACTIVE", {}),
        ("ml-out-2", "ACTIVE", {"mlgov-governed": "false"}),
        ("ml-going", "DELETE_REQUESTED", GOVERNED),
    ]:
        cloud.assets.add_project(project, FOLDER, labels=labels, state=state)
        cloud.compute.add(project, FAR, "vm")
    cloud.compute.add(DEV, A, "vm-dev")
    cloud.billing.add(DEV)
    return sorted([DEV, *governed])


def _fan_out(cloud, monkeypatch, **extra) -> None:
    cloud.pubsub.add_topic(TOPIC)
    cloud.pubsub.add_topic(DEAD)
    monkeypatch.setenv("MLGOV_WORK_TOPIC", TOPIC)
    extra.setdefault("budgets", {BUDGET: budget_dict(projects=[DEV], scopes=[FOLDER])})
    # One worker process: its share of the organization quotas is the whole half.
    extra.setdefault("fan_out", {"max_delivery_attempts": 5, "worker_instances": 1})
    set_policy(monkeypatch, scopes={FOLDER: SCOPE}, **extra)


def _push(cloud, faults: Faults | None = None, workers: int = 8, **sub) -> PushDelivery:
    push = PushDelivery(cloud.pubsub, cloud.clock, workers=workers, faults=faults or Faults())
    push.subscribe(
        Subscription(
            "projects/acme-ops/subscriptions/acme-work-push",
            TOPIC,
            app_endpoint(_app("on_work_item")),
            dead_letter_topic=DEAD,
            **sub,
        )
    )
    push.subscribe(
        Subscription(
            "projects/acme-ops/subscriptions/acme-work-dead-push",
            DEAD,
            app_endpoint(_app("on_dead_letter")),
        )
    )
    return push


def _app(target: str) -> Any:
    from functions_framework import create_app

    from tests.functions.conftest import MAIN

    app: Any = create_app(target, MAIN, "cloudevent")
    return app


def _items(cloud) -> list[dict]:
    return [json.loads(d) for d in cloud.pubsub.data(TOPIC)]


def _stops(cloud) -> Counter[str]:
    """Stop requests per resource path (Compute and TPU)."""
    return Counter(
        r.path for r in cloud.mutations() if r.path.endswith("/stop") or r.path.endswith(":stop")
    )


def test_a_budget_alert_is_fanned_out_and_every_project_stopped_exactly_once(
    cloud, monkeypatch, capsys
):
    governed = _org(cloud)
    _fan_out(cloud, monkeypatch)
    faults = Faults(
        duplicate_rate=0.3, concurrent_share=0.5, crash_rate=0.05, timeout_rate=0.05, seed=7
    )
    push = _push(cloud, faults)  # the subscription exists before anything is published
    send_event(pubsub_event(budget_data(1.0, 1000)))
    # The dispatcher only judged, resolved and published: nothing was stopped yet.
    assert _stops(cloud) == Counter()
    items = _items(cloud)
    assert sorted(i["project"] for i in items) == governed
    lines = log_lines(capsys.readouterr().out)
    [dispatch] = [x for x in lines if "dispatch" in x]
    assert dispatch["dispatch"]["items"] == len(governed)
    assert sorted(dispatch["dispatch"]["projects"]) == governed
    assert lines[-1]["answer"] == "acknowledged"

    push.run()

    stops = _stops(cloud)
    for project in governed[1:]:  # the folder's projects, every zone
        assert cloud.compute.status(project, FAR, "vm") == "TERMINATED", project
        assert stops[f"/compute/v1/projects/{project}/zones/{FAR}/instances/vm/stop"] == 1
    for i in range(0, 50, 5):
        project = f"ml-{i:03d}"
        assert cloud.tpu.state(project, FAR, "tpu") == "STOPPED"
        assert stops[f"/v2/projects/{project}/locations/{FAR}/nodes/tpu:stop"] == 1
    assert stops[f"/compute/v1/projects/{DEV}/zones/{A}/instances/vm-dev/stop"] == 1
    assert max(stops.values()) == 1  # exactly once, duplicates, crashes and all
    for project in ("ml-out-1", "ml-out-2", "ml-going"):
        assert cloud.compute.status(project, FAR, "vm") == "RUNNING"
    # Pub/Sub's at-least-once delivery really happened, and nothing was lost.
    kinds = Counter(a.kind for a in push.attempts)
    assert kinds["concurrent duplicate"] > 0 and kinds["duplicate"] > 0
    assert kinds["deadline"] > 0 and kinds["redelivery"] > 0
    assert any(a.crashed for a in push.attempts)
    work = "projects/acme-ops/subscriptions/acme-work-push"
    assert {mid for s, mid in push.acked if s == work} == {
        m["messageId"] for m in cloud.pubsub.messages[TOPIC]
    }
    assert push.dead_lettered == []
    outcomes = [x for x in log_lines(capsys.readouterr().out) if "work_item" in x]
    done = {x["work_item"]["project"] for x in outcomes if x["outcome"] == "done"}
    assert done == set(governed)
    assert all(x["outcome"] in ("done", "nothing to do", "duplicate") for x in outcomes)
    # A twin that arrived while its item ran here was answered non-2xx, and came back.
    assert any(x["outcome"] == "duplicate" for x in outcomes)


def test_a_duplicate_arriving_while_its_twin_runs_is_not_acknowledged(cloud, monkeypatch, capsys):
    _org(cloud, n=1)
    _fan_out(cloud, monkeypatch, budgets={BUDGET: budget_dict(projects=[], scopes=[FOLDER])})
    send_event(pubsub_event(budget_data(1.0, 1000)))
    [message] = cloud.pubsub.messages[TOPIC]
    body = {"message": message, "subscription": "projects/acme-ops/subscriptions/s"}
    app = _app("on_work_item")
    # Hold the first delivery inside its stop call until the twin has been answered.
    entered, release = threading.Event(), threading.Event()

    def held(request, match):
        entered.set()
        release.wait(10)
        return stop_route(request, match)

    [(pattern, stop_route)] = [
        (p.pattern, h)
        for m, p, h in cloud.server._routes
        if m == "POST" and p.pattern.endswith("/stop")
    ]
    cloud.server.route("POST", pattern, held, first=True)
    first: list[int] = []
    from govern import clock

    with clock.using(cloud.clock):
        ctx = __import__("contextvars").copy_context()
    runner = threading.Thread(
        target=ctx.run,
        args=(lambda: first.append(app.test_client().post("/", json=body).status_code),),
    )
    runner.start()
    assert entered.wait(10)
    twin = app.test_client().post("/", json=body)
    release.set()
    runner.join(10)
    assert twin.status_code == 429  # not acknowledged: Pub/Sub brings it back later
    assert first == [200]
    assert _stops(cloud)[f"/compute/v1/projects/ml-000/zones/{FAR}/instances/vm/stop"] == 1
    outcomes = [x["outcome"] for x in log_lines(capsys.readouterr().out) if "work_item" in x]
    assert sorted(outcomes) == ["done", "duplicate"]
    # Delivered again later, it finds the VM stopped: acknowledged, nothing written.
    again = app.test_client().post("/", json=body)
    assert again.status_code == 200
    assert _stops(cloud)[f"/compute/v1/projects/ml-000/zones/{FAR}/instances/vm/stop"] == 1
    [line] = [x for x in log_lines(capsys.readouterr().out) if "work_item" in x]
    assert line["outcome"] == "nothing to do"


def test_a_failing_scope_is_redelivered_and_never_acts_on_everything(cloud, monkeypatch, capsys):
    _org(cloud, n=5)
    cloud.assets.failing[FOLDER] = 403
    _fan_out(cloud, monkeypatch)
    push = _push(cloud)
    event = pubsub_event(budget_data(1.0, 1000), message_id="alert-1")
    send_event(event, status=500)  # raised: the alert is redelivered
    # Only the listed project was published; the scope's projects were not assumed.
    assert [i["project"] for i in _items(cloud)] == [DEV]
    lines = log_lines(capsys.readouterr().out)
    assert any(x.get("scope") == FOLDER and "acts on nothing" in x["message"] for x in lines)
    # The scope heals; the redelivery publishes everything, the listed project with its same key.
    del cloud.assets.failing[FOLDER]
    send_event(event)
    items = _items(cloud)
    keys = Counter(i["key"] for i in items if i["project"] == DEV)
    assert len(items) == 1 + 6 and list(keys.values()) == [2]
    push.run()
    assert cloud.compute.status("ml-004", FAR, "vm") == "TERMINATED"
    assert max(_stops(cloud).values()) == 1


def test_an_empty_scope_publishes_nothing_for_it_and_fails_the_run(cloud, monkeypatch):
    _org(cloud, n=0)
    _fan_out(cloud, monkeypatch, budgets={BUDGET: budget_dict(projects=[], scopes=[FOLDER])})
    send_event(pubsub_event(budget_data(1.0, 1000)), status=500)
    assert _items(cloud) == []
    assert cloud.mutations() == []


def _forged(**fields) -> dict:
    item = {
        "job": "reap_expired",
        "project": "victim-project",
        "run": "r1",
        "scope": None,
        "allowance": None,
        "dry_run": False,
        "started": "2026-11-21T05:00:00Z",
        **fields,
    }
    item.setdefault("key", workitems.reaper_key(item["job"], item["run"], item["project"]))
    data = json.dumps(item).encode()
    return {
        "message": {
            "data": base64.b64encode(data).decode(),
            "attributes": {"mlgov-key": item["key"]},
            "messageId": "99",
            "publishTime": "2026-11-21T05:00:00Z",
        },
        "subscription": "projects/acme-ops/subscriptions/acme-work-push",
    }


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({}, "is not in MLGOV_POLICY.projects and it names no scope"),
        ({"scope": "folders/999"}, "its scope 'folders/999' is not in MLGOV_POLICY.scopes"),
        ({"project": DEV, "key": "0" * 32}, "is not the one its fields make"),
        ({"job": "reap_everything"}, "unknown job"),
        ({"extra": 1}, "unknown key(s) extra"),
    ],
)
def test_a_forged_item_is_refused_acknowledged_and_acts_on_nothing(
    cloud, monkeypatch, capsys, fields, why
):
    _org(cloud, n=1)
    past = str(cloud.clock.wall().date() - timedelta(days=1))
    cloud.compute.add("victim-project", A, "vm", labels={"mlgov-expires-on": past})
    cloud.compute.add(DEV, A, "old", labels={"mlgov-expires-on": past})
    _fan_out(cloud, monkeypatch)
    response = app_client("on_work_item", "cloudevent").post("/", json=_forged(**fields))
    assert response.status_code == 200  # acknowledged: it must not loop to the dead letters
    assert cloud.server.calls() == []
    [line] = [x for x in log_lines(capsys.readouterr().out) if x.get("outcome")]
    assert (line["severity"], line["outcome"]) == ("ERROR", "refused")
    assert why in line["message"]


def test_an_item_that_keeps_failing_is_dead_lettered_after_max_attempts(cloud, monkeypatch, capsys):
    _org(cloud, n=2)
    # ml-001's stop is refused every time (a 403 the operation reports), so its item fails.
    cloud.compute.failing_stops[("ml-001", FAR, "vm")] = (
        "PERMISSION_DENIED",
        "Required 'compute.instances.stop' permission",
        403,
        True,
    )
    _fan_out(cloud, monkeypatch, fan_out={"max_delivery_attempts": 5, "worker_instances": 1})
    push = _push(cloud, min_backoff=10, max_backoff=600)
    send_event(pubsub_event(budget_data(1.0, 1000)))
    push.run()
    [dead] = push.dead_lettered
    item = json.loads(base64.b64decode(dead["data"]))
    assert item["project"] == "ml-001"
    attempts = [a for a in push.attempts if a.message_id == dead["messageId"]]
    assert [a.attempt for a in attempts] == [1, 2, 3, 4, 5]
    assert all(a.status == 500 for a in attempts)
    # Pub/Sub's backoff between the attempts: 10, 20, 40, 80 s (retryPolicy 10 s..600 s).
    gaps = [b.started - a.started for a, b in itertools.pairwise(attempts)]
    assert all(g >= want for g, want in zip(gaps, [10, 20, 40, 80], strict=True))
    assert cloud.compute.status("ml-000", FAR, "vm") == "TERMINATED"
    lines = log_lines(capsys.readouterr().out)
    [page] = [x for x in lines if x.get("outcome") == "dead-lettered"]
    assert (page["severity"], page["page"]) == ("CRITICAL", True)
    assert page["work_item"]["project"] == "ml-001"
    assert page["work_item"]["key"] == item["key"]
    assert page["CloudPubSubDeadLetterSourceDeliveryCount"] == 5
    last = [
        x
        for x in lines
        if x.get("outcome") == "failed" and (x.get("work_item") or {}).get("project") == "ml-001"
    ]
    assert [x["delivery_attempt"] for x in last] == [1, 2, 3, 4, 5]
    assert last[-1]["last_attempt"] is True and "dead-letter topic" in last[-1]["message"]


def test_the_reapers_are_fanned_out(cloud, monkeypatch, capsys):
    _org(cloud, n=4)
    past = str(cloud.clock.wall().date() - timedelta(days=1))
    for project in ("ml-001", "ml-003", DEV):
        cloud.compute.add(
            project, FAR if project != DEV else A, "old", labels={"mlgov-expires-on": past}
        )
    _fan_out(cloud, monkeypatch)
    push = _push(cloud, Faults(duplicate_rate=0.5, crash_rate=0.2, seed=3))
    report = post_report("reap_expired")
    assert report["dispatch"]["items"] == 6  # the folder's 4, and the two listed projects
    assert report["actions"] == [] and cloud.mutations() != []  # only the publish
    assert {r.path for r in cloud.mutations()} == {f"/v1/{TOPIC}:publish"}
    items = _items(cloud)
    assert {i["job"] for i in items} == {"reap_expired"}
    assert {i["run"] for i in items} == {report["run_id"]}
    # The run's ceiling (100) split: the index counted the folder's expired VMs (ml-001 and
    # ml-003: 1 each); the 98 stops left are shared evenly over all six projects (16 each,
    # the 2 left over to the first two by id); the listed projects were not counted.
    allowances = {i["project"]: i["allowance"] for i in items}
    assert allowances == {
        DEV: 17,
        PROD: 17,
        "ml-000": 16,
        "ml-001": 17,
        "ml-002": 16,
        "ml-003": 17,
    }
    assert sum(allowances.values()) == 100 == report["dispatch"]["blast_radius"]["bound"]
    assert report["dispatch"]["blast_radius"]["counted_candidates"] == 2
    assert all(i["dry_run"] is False for i in items)
    push.run()
    assert cloud.compute.status("ml-001", FAR, "old") == "TERMINATED"
    assert cloud.compute.status("ml-003", FAR, "old") == "TERMINATED"
    assert cloud.compute.status(DEV, A, "old") == "TERMINATED"
    assert cloud.compute.status("ml-002", FAR, "vm") == "RUNNING"
    assert max(_stops(cloud).values()) == 1


@pytest.mark.parametrize("job", ["reap_idle_vms", "reap_idle_gpus"])
def test_the_other_reapers_dispatch_one_item_per_project(cloud, monkeypatch, job):
    governed = _org(cloud, n=3)
    _fan_out(cloud, monkeypatch)
    push = _push(cloud)
    report = post_report(job)
    governed = sorted([*governed, PROD])  # a reaper covers every listed project
    assert sorted(i["project"] for i in _items(cloud)) == governed
    assert report["dispatch"]["job"] == job
    push.run()
    # Every item done or had nothing to do: each acknowledged at its first delivery.
    assert push.dead_lettered == []
    assert [a.status for a in push.attempts] == [200] * len(governed)


def test_a_dry_run_item_cannot_undo_a_dry_policy(cloud, monkeypatch, capsys):
    _org(cloud, n=1)
    past = str(cloud.clock.wall().date() - timedelta(days=1))
    cloud.compute.add(DEV, A, "old", labels={"mlgov-expires-on": past})
    _fan_out(cloud, monkeypatch, dry_run=True)
    body = _forged(project=DEV, dry_run=False)
    assert app_client("on_work_item", "cloudevent").post("/", json=body).status_code == 200
    assert cloud.mutations() == []
    [line] = [x for x in log_lines(capsys.readouterr().out) if "work_item" in x]
    assert line["counts"] == {"simulated": 1} and line["dry_run"] is True


def test_a_publish_that_fails_fails_the_dispatch(cloud, monkeypatch, capsys):
    _org(cloud, n=3)
    _fan_out(cloud, monkeypatch)
    cloud.server.inject(r":publish$", 403, times=1)
    send_event(pubsub_event(budget_data(1.0, 1000)), status=500)
    lines = log_lines(capsys.readouterr().out)
    [dispatch] = [x for x in lines if "dispatch" in x]
    assert (dispatch["severity"], dispatch["unpublished"]) == ("ERROR", 4)


def test_more_than_a_thousand_projects_go_out_in_requests_of_at_most_a_thousand(cloud, monkeypatch):
    cloud.assets.add_folder(FOLDER)
    for i in range(2101):
        cloud.assets.add_project(f"p-{i:05d}", FOLDER, labels=GOVERNED)
    _fan_out(cloud, monkeypatch, budgets={BUDGET: budget_dict(projects=[], scopes=[FOLDER])})
    send_event(pubsub_event(budget_data(1.0, 1000)))
    sizes = sorted(len(r.body["messages"]) for r in cloud.server.calls("POST", ":publish"))
    assert sizes == [101, 1000, 1000]
    assert len(cloud.pubsub.messages[TOPIC]) == 2101
    assert len({i["key"] for i in _items(cloud)}) == 2101


def test_a_budget_item_carries_the_contract_fields_and_key(cloud, monkeypatch):
    _org(cloud, n=1)
    _fan_out(cloud, monkeypatch)
    send_event(pubsub_event(budget_data(1.3, 1300)))
    messages = {
        json.loads(base64.b64decode(m["data"]))["project"]: m for m in cloud.pubsub.messages[TOPIC]
    }
    dev = json.loads(base64.b64decode(messages[DEV]["data"]))
    scoped = json.loads(base64.b64decode(messages["ml-000"]["data"]))
    assert list(dev) == [
        "job",
        "project",
        "run",
        "key",
        "scope",
        "budget_id",
        "ratio",
        "period_start",
        "stop",
        "unlink",
    ]
    assert dev["period_start"] == "2026-11-01T07:00:00Z"
    assert (dev["scope"], dev["unlink"], scoped["scope"], scoped["unlink"]) == (
        None,
        True,
        FOLDER,
        False,  # DEV allows unlinking; the folder's scope does not
    )
    assert dev["key"] == workitems.budget_key(BUDGET, "2026-11-01T07:00:00Z", 1.2, DEV)
    assert messages[DEV]["attributes"] == {
        "mlgov-key": dev["key"],
        "mlgov-job": "budget",
        "mlgov-run": dev["run"],
    }


def test_without_the_work_topic_nothing_is_published(cloud, monkeypatch):
    _org(cloud, n=2)
    set_policy(
        monkeypatch,
        scopes={FOLDER: SCOPE},
        budgets={BUDGET: budget_dict(projects=[DEV], scopes=[FOLDER])},
    )
    send_event(pubsub_event(budget_data(1.0, 1000)))
    assert cloud.server.calls("POST", ":publish") == []
    assert cloud.compute.status("ml-001", FAR, "vm") == "TERMINATED"


def test_a_bad_work_topic_is_a_configuration_error(cloud, monkeypatch):
    _org(cloud, n=1)
    _fan_out(cloud, monkeypatch)
    monkeypatch.setenv("MLGOV_WORK_TOPIC", "acme-work")
    send_event(pubsub_event(budget_data(1.0, 1000)), status=500)
    assert cloud.server.calls() == []


def test_an_unreadable_dead_letter_still_pages_and_is_acknowledged(cloud, capsys):
    body = {
        "message": {
            "data": base64.b64encode(b"not json").decode(),
            "attributes": {"mlgov-key": "k", "CloudPubSubDeadLetterSourceDeliveryCount": "7"},
            "messageId": "5",
        },
        "subscription": "projects/acme-ops/subscriptions/acme-work-dead-push",
    }
    assert app_client("on_dead_letter", "cloudevent").post("/", json=body).status_code == 200
    [line] = log_lines(capsys.readouterr().out)
    assert (line["severity"], line["page"], line["outcome"]) == ("CRITICAL", True, "dead-lettered")
    assert line["CloudPubSubDeadLetterSourceDeliveryCount"] == 7
    assert line["work_item"]["key"] == "k"


def test_a_listed_project_a_budget_covers_only_through_its_scope_is_worked(cloud, monkeypatch):
    # DEV is listed (its zones govern it) and lies under the folder; the budget names only the
    # folder. Its item carries the folder, so the worker sees the budget covers it.
    _org(cloud, n=1)
    cloud.assets.add_project(DEV, FOLDER, labels=GOVERNED)
    _fan_out(cloud, monkeypatch, budgets={BUDGET: budget_dict(projects=[], scopes=[FOLDER])})
    push = _push(cloud)
    send_event(pubsub_event(budget_data(1.0, 1000)))
    dev = next(i for i in _items(cloud) if i["project"] == DEV)
    assert dev["scope"] == FOLDER
    push.run()
    assert cloud.compute.status(DEV, A, "vm-dev") == "TERMINATED"
    assert [a.status for a in push.attempts] == [200, 200]
