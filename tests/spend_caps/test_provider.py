"""The SpendCapBudget dynamic provider's methods against the fake Budget API.

Every request and answer is checked against the discovery documents (conftest). The provider is
called exactly as Pulumi's dynamic provider host calls it (props include `__provider`).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import textwrap

import pytest
from pulumi.dynamic.dynamic import serialize_provider

from governance.fakecloud.billingbudgets import ACCOUNT
from governance.spend_caps.body import cap_body
from governance.spend_caps.provider import SpendCapBudgetProvider, SpendCapError
from tests.spend_caps.conftest import NUMBER, VERTEX

PARENT = f"billingAccounts/{ACCOUNT}"


def props(amount: float = 2000, **overrides) -> dict:
    body = cap_body(
        display_name="acme-prod-cap-vertex-ai", project_number=NUMBER, service=VERTEX, amount=amount
    )
    return {"parent": PARENT, **body, "__provider": "<pickled provider>", **overrides}


@pytest.fixture
def provider() -> SpendCapBudgetProvider:
    return SpendCapBudgetProvider()


def created(provider, budgets, amount: float = 2000):
    result = provider.create(props(amount))
    return result.id, result.outs


def test_create_posts_the_body_and_outputs_what_google_set(provider, budgets):
    name, outs = created(provider, budgets)
    assert budgets.methods() == [
        "cloudbilling.billingAccounts.get",
        "billingbudgets.billingAccounts.budgets.create",
    ]
    post = budgets.server.calls("POST")[0]
    assert post.path == f"/v1/{PARENT}/budgets"
    assert post.body == {k: v for k, v in props().items() if k not in ("parent", "__provider")}
    assert name == outs["name"] and name.startswith(f"{PARENT}/budgets/")
    assert outs["outputState"] == "CONFIGURED" and outs["reconciling"] is False
    assert outs["currencyCode"] == "USD"
    # The declared body is output as declared (Google's filled-in currency is not a drift).
    assert outs["amount"] == {"specifiedAmount": {"units": "2000"}}
    assert outs["parent"] == PARENT


@pytest.mark.parametrize(
    ("account", "message"),
    [
        ({"master": "0AAAAA-BBBBBB-CCCCCC"}, "reseller billing accounts are out of scope"),
        ({"open_": False}, "is closed"),
    ],
)
def test_create_refuses_an_account_that_cannot_hold_a_cap_before_creating(
    provider, budgets, account, message
):
    budgets.api.add_account(ACCOUNT, **account)
    with pytest.raises(SpendCapError, match=message):
        provider.create(props())
    assert budgets.server.calls("POST") == []
    assert budgets.api.budgets == {}


def test_a_currency_other_than_the_accounts_is_refused_before_creating(provider, budgets):
    budgets.api.add_account(ACCOUNT, currency="EUR")
    body = props()
    body["amount"] = {"specifiedAmount": {"units": "2000", "currencyCode": "USD"}}
    with pytest.raises(SpendCapError, match=r"currency USD is not billingAccounts/.*'s EUR"):
        provider.create(body)
    assert budgets.server.calls("POST") == []


def test_when_the_account_cannot_be_read_the_budget_api_decides_and_its_refusal_is_explained(
    provider, budgets
):
    # A reseller account whose details our credentials cannot read: Google's answer is shown.
    budgets.api.accounts[ACCOUNT]["masterBillingAccount"] = "billingAccounts/0AAAAA-BBBBBB-CCCCCC"
    budgets.server.inject(r"/v1/billingAccounts/[^/]+$", 403, method="GET")
    with pytest.raises(SpendCapError) as err:
        provider.create(props())
    text = str(err.value)
    assert "HTTP 400 FAILED_PRECONDITION" in text and "reseller" in text
    assert "first-party Cloud Billing accounts" in text  # mlgov's hint beside Google's message


def test_a_create_whose_answer_was_lost_adopts_the_budget_it_made(provider, budgets):
    budgets.api.lose_next_create_answer = True
    name, outs = created(provider, budgets)
    assert list(budgets.api.budgets) == [name]  # one cap, not two
    assert budgets.methods()[-1] == "billingbudgets.billingAccounts.budgets.list"
    list_call = budgets.server.calls("GET", "/budgets")[-1]
    assert list_call.query["scope"] == [f"projects/{NUMBER}"]
    assert outs["outputState"] == "CONFIGURED"


def test_check_refuses_what_the_api_would_with_the_rule_named(provider):
    bad = props()
    bad["thresholdRules"] = [{"thresholdPercent": 0.9}]
    bad["notificationsRule"] = {
        "enableProjectLevelRecipients": True,
        "pubsubTopic": "projects/p/topics/t",
    }
    result = provider.check({}, bad)
    failures = {f.property: f.reason for f in result.failures}
    assert set(failures) == {"thresholdRules", "notificationsRule.pubsubTopic"}
    assert "GoogleCloudBillingBudgetsV1Budget.thresholdRules" in failures["thresholdRules"]
    assert provider.check({}, props()).failures == []


def test_diff_updates_in_place_and_replaces_only_for_another_billing_account(provider):
    old = props()
    assert provider.diff("n", old, props()).changes is False
    raised = provider.diff("n", old, props(amount=2500))
    assert raised.changes is True and raised.replaces == []
    moved = provider.diff("n", old, props(parent="billingAccounts/0AAAAA-BBBBBB-CCCCCC"))
    assert moved.changes is True and moved.replaces == ["parent"]
    # Outputs Google sets, and the pickled provider, are not changes.
    assert (
        provider.diff("n", {**old, "etag": "x", "outputState": "ENFORCED"}, props()).changes
        is False
    )


def test_read_returns_the_live_state_and_gone_when_deleted(provider, budgets):
    name, _ = created(provider, budgets)
    budgets.api.spend(name, 2100)
    read = provider.read(name, props())
    assert read.id == name
    assert read.outs["outputState"] == "ENFORCED"
    assert read.outs["amount"] == props()["amount"]
    budgets.api.budgets.clear()
    gone = provider.read(name, props())
    assert gone.id is None


def test_read_shows_a_drift_so_the_next_diff_updates_it(provider, budgets):
    name, _ = created(provider, budgets)
    budgets.api.budgets[name]["amount"] = {
        "specifiedAmount": {"units": "9000", "currencyCode": "USD"}
    }
    read = provider.read(name, props())
    assert read.outs["amount"]["specifiedAmount"]["units"] == "9000"
    assert provider.diff(name, read.outs, props()).changes is True


def test_a_lifted_cap_reads_as_declared_so_no_refresh_or_up_re_arms_it(provider, budgets):
    name, _ = created(provider, budgets)
    budgets.api.spend(name, 2100)
    budget = budgets.api.budgets[name]
    budget["spendCap"].update(inputState="AWAITING_NEXT_PERIOD", outputState="AWAITING_NEXT_PERIOD")
    read = provider.read(name, props())
    assert read.outs["liveInputState"] == "AWAITING_NEXT_PERIOD"
    assert provider.diff(name, read.outs, props()).changes is False


def test_update_while_configured_patches_the_changed_fields_with_the_input_state_in_the_mask(
    provider, budgets
):
    name, outs = created(provider, budgets)
    result = provider.update(name, outs, props(amount=2500))
    patch = budgets.server.calls("PATCH")[0]
    assert patch.query["updateMask"] == ["amount,spendCap.inputState"]
    assert patch.body["amount"] == {"specifiedAmount": {"units": "2500"}}
    assert patch.body["spendCap"] == {"inputState": "CONFIGURED"}
    assert patch.body["etag"] == outs["etag"]
    assert result.outs["outputState"] == "CONFIGURED"
    assert budgets.api.budgets[name]["amount"]["specifiedAmount"]["units"] == "2500"


def test_update_while_enforced_is_refused_without_a_call_and_says_how_to_lift(provider, budgets):
    name, outs = created(provider, budgets)
    budgets.api.spend(name, 2000)
    with pytest.raises(SpendCapError, match=r"ENFORCED.*amount changed.*mlgov cap lift"):
        provider.update(name, outs, props(amount=5000))
    assert budgets.server.calls("PATCH") == []
    assert budgets.api.budgets[name]["amount"]["specifiedAmount"]["units"] == "2000"


def test_the_api_itself_refuses_a_non_lift_change_of_an_enforced_cap(budgets):
    # What mlgov's refusal stands for: the Budget API's own answer (the fake keeps the rule).
    from governance.spend_caps.api import ApiError, BudgetApi

    api = BudgetApi.connect()
    live = api.create(
        PARENT, {k: v for k, v in props().items() if k not in ("parent", "__provider")}
    )
    budgets.api.spend(live["name"], 2000)
    with pytest.raises(ApiError, match="HTTP 400 FAILED_PRECONDITION"):
        api.patch(
            live["name"],
            {
                "amount": {"specifiedAmount": {"units": "1"}},
                "spendCap": {"inputState": "CONFIGURED"},
            },
            "amount,spendCap.inputState",
        )


def test_updating_a_lifted_cap_re_arms_it_at_the_new_amount(provider, budgets):
    name, outs = created(provider, budgets)
    budgets.api.spend(name, 2100)
    budget = budgets.api.budgets[name]
    budget["spendCap"].update(inputState="AWAITING_NEXT_PERIOD", outputState="AWAITING_NEXT_PERIOD")
    result = provider.update(name, outs, props(amount=3000))
    assert budgets.server.calls("PATCH")[0].body["spendCap"] == {"inputState": "CONFIGURED"}
    assert result.outs["outputState"] == "CONFIGURED"  # 2100 spent < 3000: armed, not enforced
    assert result.outs["liveInputState"] == "CONFIGURED"


def test_an_update_with_nothing_declared_changed_sends_nothing(provider, budgets):
    name, outs = created(provider, budgets)
    provider.update(name, outs, props())
    assert budgets.server.calls("PATCH") == []


def test_a_concurrent_change_is_reported_not_overwritten(provider, budgets):
    name, outs = created(provider, budgets)
    budgets.server.inject(
        "/budgets/",
        409,
        method="PATCH",
        body={"error": {"code": 409, "message": "modified", "status": "ABORTED"}},
    )
    with pytest.raises(SpendCapError, match="changed since it was read"):
        provider.update(name, outs, props(amount=2500))


def test_update_of_a_deleted_cap_says_to_refresh(provider, budgets):
    name, outs = created(provider, budgets)
    budgets.api.budgets.clear()
    with pytest.raises(SpendCapError, match="pulumi refresh"):
        provider.update(name, outs, props(amount=2500))


def test_delete_removes_it_and_a_second_delete_is_fine(provider, budgets):
    name, _ = created(provider, budgets)
    provider.delete(name, props())
    assert budgets.api.budgets == {}
    provider.delete(name, props())  # "Returns successfully if already deleted"
    assert [q.method for q in budgets.server.calls("DELETE")] == ["DELETE", "DELETE"]


def test_no_credentials_is_a_clear_error(provider, monkeypatch, tmp_path):
    monkeypatch.delenv("MLGOV_API_ENDPOINTS", raising=False)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "none.json"))
    with pytest.raises(SpendCapError, match=r"credentials|File"):
        provider.read("billingAccounts/X/budgets/1", props())


def test_the_pickled_provider_loads_and_works_in_a_fresh_process(provider, budgets, tmp_path):
    # Pulumi stores the provider with dill and runs it in its own process (pulumi.dynamic).
    name, _ = created(provider, budgets)
    blob = serialize_provider(provider)
    script = textwrap.dedent(
        f"""
        import base64, json, sys, dill
        p = dill.loads(base64.b64decode({blob!r}))
        out = p.read({name!r}, {{"parent": {PARENT!r}, "displayName": "x"}})
        print(json.dumps({{"module": type(p).__module__, "state": out.outs["outputState"]}}))
        """
    )
    env = {**os.environ, "MLGOV_API_ENDPOINTS": os.environ["MLGOV_API_ENDPOINTS"]}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == {
        "module": "governance.spend_caps.provider",
        "state": "CONFIGURED",
    }
    assert len(base64.b64decode(blob)) < 4096  # by reference: the class, not its code


def test_the_engines_float_nanos_are_sent_as_int32(provider, budgets):
    # The Pulumi engine hands numbers over as floats; nanos is an int32 on the wire.
    body = props(300.5)
    body["amount"] = {"specifiedAmount": {"units": "300", "nanos": 500000000.0}}
    provider.create(body)
    sent = budgets.server.calls("POST")[0].body["amount"]["specifiedAmount"]
    assert sent == {"units": "300", "nanos": 500000000}
    assert isinstance(sent["nanos"], int)
