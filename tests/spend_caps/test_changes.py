"""The pure decisions: what an update of a spend cap sends, lifting, and account eligibility."""

from __future__ import annotations

import pytest

from governance.spend_caps import changes
from governance.spend_caps.api import ApiError, BudgetApi, Endpoints
from governance.spend_caps.body import cap_body, money

BODY = cap_body(
    display_name="acme-cap", project_number="1", service="services/C7E2-9256-1C43", amount=100
)


def live(output: str = "CONFIGURED", input_: str = "CONFIGURED", **extra) -> dict:
    return {**BODY, "name": "billingAccounts/A/budgets/1", "etag": "e1",
            "spendCap": {"inputState": input_, "outputState": output}, **extra}  # fmt: skip


def with_amount(units: str) -> dict:
    return {**BODY, "amount": {"specifiedAmount": {"units": units}}}


@pytest.mark.parametrize(
    ("state", "input_", "expected_mask"),
    [
        ("CONFIGURED", "CONFIGURED", ("amount", "spendCap.inputState")),
        ("AWAITING_NEXT_PERIOD", "AWAITING_NEXT_PERIOD", ("amount", "spendCap.inputState")),
    ],
)
def test_a_changed_amount_is_patched_with_the_input_state_in_the_mask(state, input_, expected_mask):
    patch = changes.update("cap", live(state, input_), BODY, with_amount("250"))
    assert patch is not None
    assert patch.mask == expected_mask and patch.update_mask == "amount,spendCap.inputState"
    assert patch.body == {
        "amount": {"specifiedAmount": {"units": "250"}},
        "spendCap": {"inputState": "CONFIGURED"},  # a lifted cap takes only CONFIGURED: re-armed
        "etag": "e1",
    }


def test_while_enforced_only_a_lift_may_change_it():
    with pytest.raises(changes.Refused, match=r"ENFORCED .* amount changed"):
        changes.update("cap", live("ENFORCED"), BODY, with_amount("250"))


def test_nothing_changed_means_no_call_even_when_enforced():
    assert changes.update("cap", live("ENFORCED"), BODY, dict(BODY)) is None
    # Outputs and the pickled provider in the props are not declared fields.
    assert changes.update("cap", live(), {**BODY, "etag": "x", "__provider": "a"}, BODY) is None


def test_a_cap_turned_into_a_plain_budget_gets_its_spend_cap_back():
    plain = live()
    del plain["spendCap"]
    patch = changes.update("cap", plain, {k: v for k, v in BODY.items() if k != "spendCap"}, BODY)
    assert patch is not None and patch.mask == ("spendCap",)
    assert patch.body["spendCap"] == {"inputState": "CONFIGURED"}


@pytest.mark.parametrize(
    ("output", "input_", "lifts"),
    [("ENFORCED", "CONFIGURED", True), ("CONFIGURED", "CONFIGURED", False),
     ("AWAITING_NEXT_PERIOD", "AWAITING_NEXT_PERIOD", False), ("ENFORCED", "AWAITING_NEXT_PERIOD", False)],
)  # fmt: skip
def test_only_an_enforced_cap_not_already_lifted_is_lifted(output, input_, lifts):
    patch = changes.lift(live(output, input_))
    assert (patch is not None) is lifts
    if patch is not None:
        assert patch.body == {"spendCap": {"inputState": "AWAITING_NEXT_PERIOD"}, "etag": "e1"}
        assert patch.update_mask == "spendCap.inputState"


@pytest.mark.parametrize(
    ("account", "body", "says"),
    [
        ({"masterBillingAccount": "billingAccounts/R"}, BODY, "resold through billingAccounts/R"),
        ({"open": False}, BODY, "is closed"),
        ({"currencyCode": "EUR"}, {"amount": {"specifiedAmount": {"currencyCode": "USD"}}}, "currency USD is not"),
        ({"currencyCode": "USD", "open": True, "masterBillingAccount": ""}, BODY, None),
        ({"currencyCode": "EUR"}, BODY, None),  # no currency on the cap: Google uses the account's
    ],
)  # fmt: skip
def test_eligibility(account, body, says):
    problem = changes.eligibility_problem({"name": "billingAccounts/A", **account}, body)
    if says is None:
        assert problem is None
    else:
        assert problem is not None and says in problem


def test_money_is_exact():
    assert money(0.1) == {"units": "0", "nanos": 100_000_000}
    assert money(1999.99) == {"units": "1999", "nanos": 990_000_000}
    assert money(5000) == {"units": "5000"}


# -- the REST adapter's retries ------------------------------------------------------------------
class _Response:
    def __init__(self, status: int, body: dict) -> None:
        self.status_code, self._body = status, body
        self.content = b"x"
        self.text = str(body)

    def json(self) -> dict:
        return self._body


class _Session:
    def __init__(self, *answers: _Response) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, str]] = []

    def request(self, method, url, **kwargs):
        self.calls.append((method, url))
        return self.answers.pop(0)


UNAVAILABLE = _Response(503, {"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}})


def test_reads_are_retried_on_transient_answers_and_creates_are_not():
    pauses: list[float] = []
    session = _Session(UNAVAILABLE, UNAVAILABLE, _Response(200, {"name": "n"}))
    api = BudgetApi(session, Endpoints("http://x", "http://y", anonymous=True), sleep=pauses.append)
    assert api.get("billingAccounts/A/budgets/1") == {"name": "n"}
    assert len(session.calls) == 3 and pauses == [0.5, 1.0]
    session = _Session(UNAVAILABLE, _Response(200, {"name": "n"}))
    api = BudgetApi(session, Endpoints("http://x", "http://y", anonymous=True), sleep=pauses.append)
    with pytest.raises(ApiError, match="HTTP 503 UNAVAILABLE: busy") as err:
        api.create("billingAccounts/A", BODY)
    assert err.value.transient and len(session.calls) == 1


def test_a_patch_without_an_etag_is_not_retried():
    session = _Session(UNAVAILABLE, _Response(200, {}))
    api = BudgetApi(
        session, Endpoints("http://x", "http://y", anonymous=True), sleep=lambda s: None
    )
    with pytest.raises(ApiError):
        api.patch(
            "billingAccounts/A/budgets/1",
            {"spendCap": {"inputState": "CONFIGURED"}},
            "spendCap.inputState",
        )
    assert len(session.calls) == 1


def test_a_refusal_is_not_retried_and_names_the_call():
    refused = _Response(
        400, {"error": {"code": 400, "message": "bad", "status": "FAILED_PRECONDITION"}}
    )
    session = _Session(refused)
    api = BudgetApi(
        session, Endpoints("http://x", "http://y", anonymous=True), sleep=lambda s: None
    )
    with pytest.raises(ApiError) as err:
        api.get("billingAccounts/A/budgets/1")
    assert str(err.value) == "GET v1/billingAccounts/A/budgets/1: HTTP 400 FAILED_PRECONDITION: bad"
    assert not err.value.transient
