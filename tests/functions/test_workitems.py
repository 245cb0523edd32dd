"""Work items, their admission by the policy, org-quota pacing, and the fakes' Pub/Sub and Asset
Inventory shapes (pure parts and small REST checks; the end-to-end runs are test_fanout.py's).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from govern import admission, clock, pacing, parse, ports, workitems
from govern.models import ActionPolicy
from govern.parse.workitem import FIELDS
from govern.workitems import BudgetItem, ReaperItem
from governance.fakecloud.clock import FakeClock
from tests.functions.conftest import BUDGET, DEV, PROD, budget_dict, policy_dict
from tests.functions.test_fake_shapes import _check, _methods

NOW = datetime(2026, 11, 21, 5, 0, tzinfo=UTC)
PERIOD = "2026-11-01T07:00:00Z"  # November 2026 began at midnight US/Pacific
FOLDER = "folders/100"


def _policy(**extra) -> ActionPolicy:
    extra.setdefault(
        "scopes",
        {
            FOLDER: {"environment": "prod", "allow_billing_disable": False},
            "folders/200": {"environment": "dev", "allow_billing_disable": True},
        },
    )
    extra.setdefault("budgets", {BUDGET: budget_dict(scopes=[FOLDER, "folders/200"])})
    return ActionPolicy.from_json(json.dumps(policy_dict(**extra)))


def budget_item(project=DEV, ratio=1.0, scope=None, **kw) -> BudgetItem:
    level = 1.2 if ratio >= 1.2 else 1.0
    kw.setdefault(
        "key", workitems.budget_key(BUDGET, kw.get("period_start", PERIOD), level, project)
    )
    return BudgetItem(
        project=project,
        run="run-1",
        scope=scope,
        budget_id=kw.pop("budget_id", BUDGET),
        ratio=ratio,
        period_start=kw.pop("period_start", PERIOD),
        stop=kw.pop("stop", True),
        unlink=kw.pop("unlink", False),
        **kw,
    )


def reaper_item(project=DEV, scope=None, **kw) -> ReaperItem:
    job = kw.pop("job", "reap_expired")
    kw.setdefault("key", workitems.reaper_key(job, "run-1", project))
    return ReaperItem(
        job=job,
        project=project,
        run="run-1",
        scope=scope,
        allowance=kw.pop("allowance", None),
        dry_run=kw.pop("dry_run", False),
        started=kw.pop("started", "2026-11-21T05:00:00Z"),
        **kw,
    )


# -- keys and messages -----------------------------------------------------------------------


def test_keys_are_the_contracts_sha256_prefixes():
    text = f"budget|{BUDGET}|{PERIOD}|1.2|{DEV}"
    assert (
        workitems.budget_key(BUDGET, PERIOD, 1.2, DEV)
        == hashlib.sha256(text.encode()).hexdigest()[:32]
    )
    assert (
        workitems.budget_key(BUDGET, PERIOD, 1.0, DEV)
        == hashlib.sha256(f"budget|{BUDGET}|{PERIOD}|1|{DEV}".encode()).hexdigest()[:32]
    )
    assert (
        workitems.reaper_key("reap_expired", "r", DEV)
        == hashlib.sha256(f"reap_expired|r|{DEV}".encode()).hexdigest()[:32]
    )


@pytest.mark.parametrize("item", [budget_item(), reaper_item(scope=FOLDER, allowance=3)])
def test_a_message_round_trips_through_the_parser(item):
    message = workitems.message(item)
    assert parse.work_item(message.data) == item
    assert message.attributes == {
        "mlgov-key": item.key,
        "mlgov-job": item.job,
        "mlgov-run": "run-1",
    }
    assert tuple(json.loads(message.data)) == FIELDS[item.job]


def test_batches_keep_within_a_thousand_messages_and_ten_megabytes():
    small = [workitems.Message(b"x" * 200, {"k": "v"}) for _ in range(2500)]
    assert [len(b) for b in workitems.batches(small)] == [1000, 1000, 500]
    big = [workitems.Message(b"x" * 1_000_000) for _ in range(25)]
    groups = workitems.batches(big)
    assert sum(len(g) for g in groups) == 25
    for group in groups:  # the base64 body of each request fits in 10 MB
        assert sum(4 * ((len(m.data) + 2) // 3) for m in group) < workitems.MAX_PUBLISH_BYTES
    with pytest.raises(ValueError, match="cannot be published"):
        workitems.batches([workitems.Message(b"x" * 9_000_000)])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"key": "ABC"}, "work item.key: 'ABC' is not 32 hex digits"),
        ({"project": "Bad_Project"}, "work item.project: 'Bad_Project' is not a project id"),
        ({"scope": "projects/x"}, "work item.scope: folders/<n>"),
        ({"ratio": "1.2"}, "work item.ratio: a finite number"),
        ({"stop": 1}, "work item.stop: true or false"),
        ({"run": ""}, "work item.run: a non-empty string"),
    ],
)
def test_malformed_items_are_refused_naming_the_key(change, message):
    fields = {**budget_item().fields(), **change}
    with pytest.raises(parse.ParseError, match=message.replace("(", r"\(")):
        parse.work_item(json.dumps(fields).encode())


def test_a_delivery_reads_the_push_body_and_its_attempt():
    body = {
        "message": {"data": "e30=", "attributes": {"a": "b"}, "messageId": "7"},
        "subscription": "s",
        "deliveryAttempt": 3,
    }
    assert parse.delivery(body) == parse.Delivery("7", {"a": "b"}, b"{}", 3)
    assert parse.delivery(body, 4).delivery_attempt == 4
    with pytest.raises(parse.ParseError, match="not base64"):
        parse.delivery({"message": {"data": "***", "messageId": "1"}})


# -- admission: an item never widens the policy -------------------------------------------------


def test_a_listed_project_is_admitted_under_its_own_policy_only():
    policy = _policy()
    verdict = admission.admit(budget_item(ratio=1.3, unlink=True), policy, NOW)
    assert isinstance(verdict, admission.Admitted)
    assert list(verdict.policy.projects) == [DEV]
    assert verdict.policy.scopes == {}
    assert verdict.policy.budgets[BUDGET].projects == (DEV,)
    assert verdict.scope is not None
    assert (verdict.scope.stop_projects, verdict.scope.billing_projects) == ((DEV,), (DEV,))


def test_a_scope_project_is_governed_in_every_zone_with_its_scopes_settings():
    verdict = admission.admit(budget_item("ml-x", scope=FOLDER), _policy(), NOW)
    assert isinstance(verdict, admission.Admitted)
    governed = verdict.policy.projects["ml-x"]
    assert (governed.zones, governed.environment, governed.scope) == ((), "prod", FOLDER)
    assert governed.vertex_regions == ("us-central1",)


@pytest.mark.parametrize(
    ("item", "policy_changes", "why"),
    [
        (budget_item("ml-x"), {}, "names no scope"),
        (budget_item("ml-x", scope="folders/999"), {}, "'folders/999' is not in"),
        (budget_item(budget_id="other"), {}, "budget 'other' is not in"),
        (
            budget_item("ml-x", scope=FOLDER),
            {"budgets": {BUDGET: budget_dict(scopes=["folders/200"])}},
            "covers neither project 'ml-x' nor its scope",
        ),
        (
            budget_item(period_start="2026-10-01T07:00:00Z"),
            {},
            "is not the budget's current period",
        ),
        (budget_item(ratio=0.5), {}, "ratio 0.5 is below stop_at 1"),
        (budget_item(ratio=1.3, key="0" * 32), {}, "is not the one its fields make"),
        (budget_item(ratio=1.0, unlink=True), {}, "billing may not be unlinked"),  # below 1.2
        (budget_item(PROD, ratio=1.3, unlink=True), {}, "billing may not be unlinked"),  # opt-out
        (
            budget_item("ml-x", ratio=1.3, scope=FOLDER, unlink=True),
            {},
            "billing may not be unlinked",  # folders/100 does not allow it
        ),
        (reaper_item(key="f" * 32), {}, "is not the one its fields make"),
        (reaper_item(started="yesterday"), {}, "started: not an RFC 3339 timestamp"),
        (reaper_item("ml-x"), {}, "names no scope"),
    ],
)
def test_an_item_asking_what_the_policy_does_not_allow_is_refused(item, policy_changes, why):
    verdict = admission.admit(item, _policy(**policy_changes), NOW)
    assert isinstance(verdict, admission.Refused)
    assert why in verdict.reason


def test_a_scope_allowing_unlink_lets_its_project_unlink_at_the_level():
    item = budget_item("ml-y", ratio=1.3, scope="folders/200", unlink=True)
    verdict = admission.admit(item, _policy(), NOW)
    assert isinstance(verdict, admission.Admitted)
    assert verdict.scope is not None and verdict.scope.billing_projects == ("ml-y",)


@pytest.mark.parametrize(
    ("policy_dry", "item_dry", "dry"),
    [(True, False, True), (False, True, True), (False, False, False), (True, True, True)],
)
def test_an_item_can_only_make_a_reaper_more_dry(policy_dry, item_dry, dry):
    verdict = admission.admit(reaper_item(dry_run=item_dry), _policy(dry_run=policy_dry), NOW)
    assert isinstance(verdict, admission.Admitted)
    assert verdict.policy.dry_run is dry


def test_the_item_and_the_policy_decide_the_same_level():
    # What the dispatcher keyed is what the worker recomputes (workitems.budget_key).
    policy = _policy()
    item = budget_item(ratio=1.25)
    assert isinstance(admission.admit(item, policy, NOW), admission.Admitted)
    stale_level = replace(item, key=workitems.budget_key(BUDGET, PERIOD, 1.0, DEV))
    assert isinstance(admission.admit(stale_level, policy, NOW), admission.Refused)


# -- pacing of organization-level quotas ----------------------------------------------------------


def test_each_process_takes_a_whole_share_of_half_the_org_quota():
    # Cloud Billing 975/min over 100 instances: 4 calls a minute each, 400 together (<= 487.5).
    assert pacing.calls_per_window("cloudbilling", 100) == 4
    assert pacing.calls_per_window("cloudasset", 10) == 75
    assert pacing.calls_per_window("recommender-read", 157) == 19
    assert pacing.calls_per_window("recommender-write", 157) == 9
    assert pacing.calls_per_window("compute", 100) is None  # per-project quota: not paced here
    for quota, per_minute in pacing.ORG_QUOTAS_PER_MINUTE.items():
        for instances in (1, 7, 100, 157, 487):
            share = pacing.calls_per_window(quota, instances)
            assert share is not None
            assert instances * share <= per_minute * pacing.SHARE


def _starts(pacer: pacing.Pacer, quota: str, asks: list[float]) -> list[float]:
    """When calls asked for at `asks` (clock readings, in order) start, each on its own clock."""
    started: list[float] = []
    for at in sorted(asks):
        fake = FakeClock(start=at)
        with clock.within(clock.Deadline(fake, at=1e9)):
            pacer.wait_turn(quota)
        started.append(fake.now())
    return started


def _busiest_minute(starts: list[float]) -> int:
    return max(sum(1 for t in starts if s <= t < s + 60.0) for s in starts)


@pytest.mark.parametrize("instances", [100, 157, 300])
def test_no_minute_of_one_process_passes_its_share(instances):
    # Before: a call every 60 / share seconds let a 60 s window hold one call more than the
    # share (100 instances: 5 Cloud Billing calls in [0, 60), 500 a minute together > 487.5).
    share = pacing.calls_per_window("cloudbilling", instances)
    assert share is not None
    asks = [0.0] * 30 + [17.5] * 7 + [61.0, 61.0, 150.0]
    starts = _starts(pacing.Pacer(worker_instances=instances), "cloudbilling", asks)
    assert len(starts) == len(asks)
    assert _busiest_minute(starts) == share
    assert starts[:share] == [0.0] * share  # no wait while the share has room


def test_the_pacer_never_waits_past_the_deadline_and_books_nothing_then():
    fake = FakeClock(start=0.0)
    pacer = pacing.Pacer(worker_instances=100)  # 4 Cloud Billing calls a minute
    with clock.within(clock.Deadline(fake, at=30.0)):
        for _ in range(4):
            pacer.wait_turn("cloudbilling")
        with pytest.raises(clock.OutOfTime, match="organization quota"):
            pacer.wait_turn("cloudbilling")  # its turn (60 s) is past the deadline (30 s)
    assert fake.now() == 0.0
    with clock.within(clock.Deadline(fake, at=1000.0)):
        pacer.wait_turn("cloudbilling")
    assert fake.now() == 60.0  # the refused call booked no turn


def test_a_share_below_one_call_a_minute_is_refused_naming_the_setting():
    pacer = pacing.Pacer(worker_instances=1000)  # 975 x 0.5 / 1000 < 1
    with pytest.raises(ports.PortError, match="worker_instances 1000"):
        pacer.wait_turn("cloudbilling")


def test_every_request_is_paced_retries_and_pages_included(cloud):
    # A 503 answered to the first request and retried is a second request against the quota:
    # before, the pacer was asked once per port call, and the retry went unpaced.
    from govern.gcp import billing

    turns: list[str] = []

    class Counting(pacing.Pacer):
        def wait_turn(self, quota: str) -> None:
            turns.append(quota)
            super().wait_turn(quota)

    cloud.billing.add(DEV)
    cloud.server.inject("billingInfo", 503, times=1)
    adapter = billing.create(cloud.server.url)
    paced = pacing.Paced(adapter, lambda _m: "cloudbilling", Counting(worker_instances=100))
    with clock.within(clock.Deadline(cloud.clock, at=cloud.clock.now() + 300.0)):
        assert paced.billing_enabled(DEV) is True
    assert len(cloud.server.calls(path_contains="billingInfo")) == 2
    assert turns == ["cloudbilling", "cloudbilling"]


def test_recommender_reads_and_writes_are_paced_against_their_own_quotas():
    assert pacing.recommender_quota("list_recommendations") == "recommender-read"
    for mark in ("mark_claimed", "mark_succeeded", "mark_failed"):
        assert pacing.recommender_quota(mark) == "recommender-write"


# -- the fakes speak the documented shapes ---------------------------------------------------


def test_the_fake_pubsub_refuses_what_pubsub_refuses(cloud):
    import requests

    topic = cloud.pubsub.add_topic("projects/p/topics/t")
    url = f"{cloud.server.url}/v1/{topic}:publish"
    one = {"data": "e30="}
    assert requests.post(url, json={"messages": [one] * 1000}, timeout=30).status_code == 200
    too_many = requests.post(url, json={"messages": [one] * 1001}, timeout=30)
    assert too_many.status_code == 400
    assert "You passed 1001 in the request, but the maximum value is 1000" in too_many.text
    huge = {"data": "A" * (11 * 1024 * 1024)}
    too_big = requests.post(url, json={"messages": [huge]}, timeout=30)
    assert too_big.status_code == 400
    assert "Request payload size exceeds the limit: 10485760 bytes" in too_big.text
    assert requests.post(url, json={"messages": [{}]}, timeout=30).status_code == 400
    assert requests.post(url, json={"messages": []}, timeout=30).status_code == 400
    missing = requests.post(
        f"{cloud.server.url}/v1/projects/p/topics/nope:publish",
        json={"messages": [one]},
        timeout=30,
    )
    assert missing.status_code == 404
    assert len(cloud.pubsub.messages[topic]) == 1000


def test_asset_search_and_publish_use_documented_methods_and_fields(cloud, monkeypatch):
    from tests.functions.conftest import budget_data, pubsub_event, send_event, set_policy

    cloud.assets.add_folder(FOLDER)
    cloud.assets.add_folder("folders/101", FOLDER)
    cloud.assets.add_project("ml-a", "folders/101", labels={"team": "x"})
    cloud.pubsub.add_topic("projects/ops/topics/work")
    monkeypatch.setenv("MLGOV_WORK_TOPIC", "projects/ops/topics/work")
    set_policy(
        monkeypatch,
        scopes={FOLDER: {"environment": "prod", "allow_billing_disable": False}},
        budgets={BUDGET: budget_dict(scopes=[FOLDER])},
    )
    send_event(pubsub_event(budget_data(1.0, 1000)))
    apis = {":searchAllResources": "cloudasset", ":publish": "pubsub"}
    seen = set()
    for request, reply in cloud.server.exchanges:
        api = next((a for suffix, a in apis.items() if request.path.endswith(suffix)), None)
        if api is None:
            continue
        [method] = [
            m
            for verb, pattern, m in _methods(api)
            if verb == request.method and pattern.fullmatch(request.path)
        ]
        seen.add(method["id"])
        for name in request.query:
            assert name in method["parameters"], f"{method['id']}: {name} not a parameter"
        if request.body is not None:
            _check(api, request.body, method.get("request", {}), f"{method['id']} request")
        _check(api, reply.body, method.get("response", {}), f"{method['id']} response")
    assert seen == {"cloudasset.searchAllResources", "pubsub.projects.topics.publish"}
    [result] = [r for q, r in cloud.server.exchanges if q.path.endswith(":searchAllResources")]
    found = result.body["results"][0]
    assert found["folders"] == ["folders/101", FOLDER]  # nearest first, the whole chain
    assert found["name"].startswith("//cloudresourcemanager.googleapis.com/projects/")
    assert found["additionalAttributes"] == {"projectId": "ml-a"}
