# pyright: basic
"""Fake Budget API v1 (billingAccounts.budgets) and Cloud Billing v1 billingAccounts.get.

The rules it applies are the discovery document's, written out here on their own (not imported
from mlgov, so the fake cannot agree with mlgov by construction): a spend cap needs one project,
one service, EXCLUDE_ALL_CREDITS, MONTH or no period, a specified amount, thresholds 0.5/0.8/1.0
and project-level recipients, and `spendCap.inputState` CONFIGURED at create; while
`outputState` is ENFORCED a patch may only change `spendCap.inputState` (else 400
FAILED_PRECONDITION); a patch of a spend cap with an update mask must name `spendCap` or
`spendCap.inputState`; AWAITING_NEXT_PERIOD only lifts an ENFORCED cap; a lifted cap only
takes CONFIGURED. Reseller subaccounts (`masterBillingAccount` set) are refused. Errors are
Google's JSON envelope; FAILED_PRECONDITION answers HTTP 400 as Google maps it. What tests do to
a cap from outside (the month's spend passing it) is `spend(name, amount)`.
"""

from __future__ import annotations

import copy
import itertools
import re
import threading
from typing import Any

from governance.fakecloud.server import FakeGcp, Reply, Request

ACCOUNT = "01D4EE-079462-DFD6EC"


def _error(status: int, reason: str, message: str) -> Reply:
    return Reply(status, {"error": {"code": status, "message": message, "status": reason}})


def _invalid(message: str) -> Reply:
    return _error(400, "INVALID_ARGUMENT", message)


def _value(money: dict[str, Any]) -> float:
    return float(money.get("units") or 0) + int(money.get("nanos") or 0) / 1e9


class FakeBudgets:
    """Budgets per billing account, and the billing accounts themselves."""

    def __init__(self) -> None:
        self.budgets: dict[str, dict[str, Any]] = {}
        self.accounts: dict[str, dict[str, Any]] = {}
        self.spent: dict[str, float] = {}  # gross spend this month, per budget name
        self.projects: dict[str, str] = {}  # project id -> number, for list's scope
        self.page_size = 100
        self.lose_next_create_answer = False
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    # -- set-up --------------------------------------------------------------------------------
    def add_account(
        self,
        account: str = ACCOUNT,
        *,
        currency: str = "USD",
        master: str | None = None,
        open_: bool = True,
    ) -> None:
        body: dict[str, Any] = {
            "name": f"billingAccounts/{account}",
            "displayName": "Acme billing",
            "open": open_,
            "currencyCode": currency,
            "masterBillingAccount": f"billingAccounts/{master}" if master else "",
        }
        self.accounts[account] = body

    def add_project(self, project: str, number: str) -> None:
        self.projects[project] = number

    def spend(self, name: str, amount: float) -> None:
        """The month's gross spend reaches `amount`: an armed cap at or past it is ENFORCED."""
        with self._lock:
            self.spent[name] = amount
            budget = self.budgets[name]
            cap = budget.get("spendCap")
            if (
                cap
                and cap["inputState"] == "CONFIGURED"
                and amount >= _value(budget["amount"]["specifiedAmount"])
            ):
                cap["outputState"] = "ENFORCED"
                budget["etag"] = self._etag()

    def install(self, fake: FakeGcp) -> FakeBudgets:
        base = r"/v1/billingAccounts/([^/]+)"
        fake.route("POST", rf"{base}/budgets", self._create)
        fake.route("GET", rf"{base}/budgets", self._list)
        fake.route("GET", rf"{base}/budgets/([^/]+)", self._get)
        fake.route("PATCH", rf"{base}/budgets/([^/]+)", self._patch)
        fake.route("DELETE", rf"{base}/budgets/([^/]+)", self._delete)
        fake.route("GET", base, self._account)
        return self

    # -- helpers -------------------------------------------------------------------------------
    def _etag(self) -> str:
        return f"etag-{next(self._ids)}"

    @staticmethod
    def _spend_cap_problem(budget: dict[str, Any]) -> str | None:
        bf = budget.get("budgetFilter") or {}
        if len(bf.get("projects") or []) != 1:
            return "Spend cap budgets must be scoped to exactly one project."
        if len(bf.get("services") or []) != 1:
            return "Spend cap budgets must be scoped to exactly one eligible service."
        if bf.get("creditTypesTreatment") != "EXCLUDE_ALL_CREDITS":
            return "Spend cap budgets must set creditTypesTreatment to EXCLUDE_ALL_CREDITS."
        if bf.get("calendarPeriod") not in (None, "MONTH") or bf.get("customPeriod"):
            return "Spend cap budgets support only the MONTH calendar period."
        amount = budget.get("amount") or {}
        if "specifiedAmount" not in amount or "lastPeriodAmount" in amount:
            return "Spend cap budgets need a specified amount."
        rules = budget.get("thresholdRules") or []
        if sorted(r.get("thresholdPercent") for r in rules) != [0.5, 0.8, 1.0]:
            return "Spend cap budgets need threshold rules at 0.5, 0.8 and 1.0."
        notifications = budget.get("notificationsRule") or {}
        if notifications.get("enableProjectLevelRecipients") is not True:
            return "Spend cap budgets must enable project level recipients."
        if notifications.get("pubsubTopic"):
            return "Spend cap budgets cannot publish to Pub/Sub."
        return None

    def _account_problem(self, account: str) -> Reply | None:
        found = self.accounts.get(account)
        if found is None:
            return _error(404, "NOT_FOUND", f"billing account {account} not found")
        if found["masterBillingAccount"]:
            return _error(
                400, "FAILED_PRECONDITION", "Spend caps are not available for reseller accounts."
            )
        return None

    # -- billingbudgets v1 ---------------------------------------------------------------------
    def _create(self, request: Request, m: re.Match[str]) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if "spendCap" in body:
            if (problem := self._account_problem(m[1])) is not None:
                return problem
            if (body.get("spendCap") or {}).get("inputState") != "CONFIGURED":
                return _invalid("spend_cap.input_state must be CONFIGURED when creating.")
            if message := self._spend_cap_problem(body):
                return _invalid(message)
        with self._lock:
            name = f"billingAccounts/{m[1]}/budgets/{next(self._ids):08d}-fake"
            budget = copy.deepcopy(body)
            budget["name"] = name
            budget["etag"] = self._etag()
            currency = self.accounts.get(m[1], {}).get("currencyCode", "USD")
            budget["amount"]["specifiedAmount"].setdefault("currencyCode", currency)
            if "spendCap" in budget:
                budget["spendCap"] = {
                    "inputState": "CONFIGURED",
                    "outputState": "CONFIGURED",
                    "reconciling": False,
                }
            self.budgets[name] = budget
            answer = copy.deepcopy(budget)
            if self.lose_next_create_answer:
                self.lose_next_create_answer = False
                return _error(503, "UNAVAILABLE", "The service is currently unavailable.")
        return Reply(200, answer)

    def _get(self, request: Request, m: re.Match[str]) -> Reply:
        name = f"billingAccounts/{m[1]}/budgets/{m[2]}"
        if name not in self.budgets:
            return _error(404, "NOT_FOUND", f"Budget {name} not found.")
        return Reply(200, copy.deepcopy(self.budgets[name]))

    def _list(self, request: Request, m: re.Match[str]) -> Reply:
        scope = (request.query.get("scope") or [""])[0]
        project = scope.removeprefix("projects/")
        wanted = {f"projects/{project}", f"projects/{self.projects.get(project, project)}"}
        found = [
            b
            for n, b in sorted(self.budgets.items())
            if n.startswith(f"billingAccounts/{m[1]}/")
            and (not scope or wanted & set((b.get("budgetFilter") or {}).get("projects") or []))
        ]
        start = int((request.query.get("pageToken") or ["0"])[0])
        page = found[start : start + self.page_size]
        answer: dict[str, Any] = {"budgets": copy.deepcopy(page)}
        if start + self.page_size < len(found):
            answer["nextPageToken"] = str(start + self.page_size)
        return Reply(200, answer)

    def _patch(self, request: Request, m: re.Match[str]) -> Reply:
        name = f"billingAccounts/{m[1]}/budgets/{m[2]}"
        body = request.body if isinstance(request.body, dict) else {}
        mask = [p for p in (request.query.get("updateMask") or [""])[0].split(",") if p]
        with self._lock:
            if name not in self.budgets:
                return _error(404, "NOT_FOUND", f"Budget {name} not found.")
            budget = self.budgets[name]
            if body.get("etag") and body["etag"] != budget["etag"]:
                return _error(409, "ABORTED", "The budget was modified since it was read.")
            cap = budget.get("spendCap")
            if cap is not None:
                if mask and not {"spendCap", "spendCap.inputState"} & set(mask):
                    return _invalid("update_mask must include spend_cap.input_state.")
                others = [p for p in mask if p not in ("spendCap", "spendCap.inputState")]
                if cap["outputState"] == "ENFORCED" and others:
                    return _error(
                        400,
                        "FAILED_PRECONDITION",
                        "Only spend_cap.input_state can be modified while the spend cap is "
                        "enforced.",
                    )
            wanted = (body.get("spendCap") or {}).get("inputState")
            if cap is not None and wanted:
                if wanted == "AWAITING_NEXT_PERIOD":
                    if cap["outputState"] == "AWAITING_NEXT_PERIOD":
                        return _invalid("The spend cap is already awaiting the next period.")
                    if cap["outputState"] != "ENFORCED":
                        return _invalid("Only an enforced spend cap can be lifted.")
                elif wanted != "CONFIGURED":
                    return _invalid(f"spend_cap.input_state {wanted} is not allowed.")
            updated = copy.deepcopy(budget)
            for path in mask or [k for k in body if k != "etag"]:
                top = path.split(".", 1)[0]
                if top == "spendCap":
                    continue
                if top in body:
                    updated[top] = copy.deepcopy(body[top])
                else:
                    updated.pop(top, None)
            if cap is not None and wanted:
                new_cap = dict(cap, inputState=wanted)
                if wanted == "AWAITING_NEXT_PERIOD":
                    new_cap["outputState"] = "AWAITING_NEXT_PERIOD"
                else:
                    over = self.spent.get(name, 0.0) >= _value(updated["amount"]["specifiedAmount"])
                    new_cap["outputState"] = "ENFORCED" if over else "CONFIGURED"
                updated["spendCap"] = new_cap
            elif cap is None and "spendCap" in mask and body.get("spendCap"):
                updated["spendCap"] = {
                    "inputState": "CONFIGURED",
                    "outputState": "CONFIGURED",
                    "reconciling": False,
                }
            if (problem := self._spend_cap_problem(updated)) and "spendCap" in updated:
                return _invalid(problem)
            updated["etag"] = self._etag()
            self.budgets[name] = updated
            return Reply(200, copy.deepcopy(updated))

    def _delete(self, request: Request, m: re.Match[str]) -> Reply:
        # "Returns successfully if already deleted."
        with self._lock:
            self.budgets.pop(f"billingAccounts/{m[1]}/budgets/{m[2]}", None)
        return Reply(200, {})

    # -- cloudbilling v1 -----------------------------------------------------------------------
    def _account(self, request: Request, m: re.Match[str]) -> Reply:
        if m[1] not in self.accounts:
            return _error(404, "NOT_FOUND", f"billing account {m[1]} not found")
        return Reply(200, copy.deepcopy(self.accounts[m[1]]))
