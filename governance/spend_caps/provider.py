"""`SpendCapBudget`: a Cloud Billing spend-cap budget as a Pulumi dynamic resource.

pulumi-gcp 10.2 (and the Terraform provider, issue #28575) cannot declare `Budget.spendCap`, so
mlgov owns the resource: `SpendCapBudgetProvider` creates, reads, updates and deletes it through
the Budget API v1 (api.py), under the rules changes.py decides. Its inputs are the `Budget` body
plus `parent` (`billingAccounts/<id>`); its id is the budget's name. Outputs add what Google
sets: `name`, `etag`, `outputState`, `reconciling`, `liveInputState`, `currencyCode`.

Pulumi pickles the provider (dill) into the stack's state and runs it in its own process, so the
class keeps no state and imports only what this package imports; it is pickled by reference, so
`governance` must be importable where Pulumi runs (the project's virtualenv has it installed).
Credentials and endpoints are looked up on each call (MLGOV_API_ENDPOINTS as everywhere).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import pulumi
import pulumi.dynamic as dyn

from governance.spend_caps import changes
from governance.spend_caps.api import ApiError, BudgetApi, NoCredentials
from mlgov_policies.compat import spend_caps as facts
from mlgov_policies.compat.sources import short
from mlgov_policies.props import as_list, dig

OUTPUTS: Final = ("name", "etag", "outputState", "reconciling", "liveInputState", "currencyCode")
"""What Google sets, beside the declared body and `parent`."""


class SpendCapError(Exception):
    """The cap could not be created, read, changed or deleted; the message says what to do."""


def _api() -> BudgetApi:
    from governance.endpoints import EndpointError

    try:
        return BudgetApi.connect()
    except (NoCredentials, EndpointError) as err:
        raise SpendCapError(str(err)) from None


def _what(props: Mapping[str, Any], name: str = "") -> str:
    label = props.get("displayName") or "spend cap"
    return f"spend cap {label}" + (f" ({name})" if name else "")


def _same(key: str, declared: Any, live: Any) -> bool:
    """Whether a live field says what the declared one does (Google fills in defaults)."""
    if key == "amount":
        return facts.money_value(dig(declared, "specifiedAmount")) == facts.money_value(
            dig(live, "specifiedAmount")
        )
    if key == "budgetFilter":
        keys = ("projects", "services", "creditTypesTreatment")
        if any(dig(declared, k) != dig(live, k) for k in keys):
            return False
        return (dig(declared, "calendarPeriod") or "MONTH") == (
            dig(live, "calendarPeriod") or "MONTH"
        )
    if key == "thresholdRules":

        def percents(rules: Any) -> list[Any]:
            return sorted(dig(r, "thresholdPercent") for r in as_list(rules))

        return percents(declared) == percents(live)
    if key == "notificationsRule":
        return bool(dig(live, "enableProjectLevelRecipients")) == bool(
            dig(declared, "enableProjectLevelRecipients")
        )
    if key == "ownershipScope":
        default = ("ALL_USERS", "OWNERSHIP_SCOPE_UNSPECIFIED", None)
        return declared == live or (declared in default and live in default)
    if key == "spendCap":
        # Armed or lifted by an operator both honour the declared cap; a lift is never undone.
        return live is not None and changes.input_state({"spendCap": live}) in (
            changes.CONFIGURED,
            changes.LIFTED,
        )
    return declared == live


def outputs(props: Mapping[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """The resource's outputs: the declared body, what Google sets, and any drift.

    A declared field stays as declared where the live budget says the same (Google fills in
    defaults); where it does not, the live value is output, so the next diff shows the drift.
    """
    declared = changes.declared(props)
    outs: dict[str, Any] = {"parent": props.get("parent")}
    for key in changes.BODY_KEYS:
        if key in declared and _same(key, declared[key], live.get(key)):
            outs[key] = declared[key]
        elif live.get(key) is not None:
            outs[key] = live[key]
    outs.update(
        name=live.get("name"),
        etag=live.get("etag"),
        outputState=changes.output_state(live),
        reconciling=bool(dig(live, "spendCap", "reconciling")),
        liveInputState=changes.input_state(live),
        currencyCode=dig(live, "amount", "specifiedAmount", "currencyCode"),
    )
    return outs


def _explain(err: ApiError, what: str, parent: str) -> SpendCapError:
    """A Budget API refusal as what the operator can do about it."""
    if err.status == 403:
        hint = (
            f"needs billing.budgets.* on {parent} (Billing Account Costs Manager), or on a "
            "single-project budget billing.resourcebudgets.* on the project"
        )
    elif err.status in (400, 412) or err.reason in ("INVALID_ARGUMENT", "FAILED_PRECONDITION"):
        hint = (
            "spend caps are Preview and limited to first-party Cloud Billing accounts (reseller "
            "billing accounts are out of scope) and to eligible services; `mlgov plan` checks "
            f"every field rule (source: {short(facts.API_GUIDE)})"
        )
    elif err.transient:
        hint = "Google did not answer; run `pulumi up` again"
    else:
        hint = "see Google's message"
    return SpendCapError(f"{what}: {err} ({hint})")


class SpendCapBudgetProvider(dyn.ResourceProvider):
    """Creates, reads, updates and deletes one spend-cap budget through the Budget API v1."""

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> dyn.CheckResult:
        """Every rule the Budget API fixes for a spend cap (refused before any call)."""
        failures = [
            dyn.CheckFailure(path, message)
            for path, message in facts.problems(changes.declared(news))
        ]
        parent = news.get("parent")
        if not (isinstance(parent, str) and parent.startswith("billingAccounts/")):
            failures.append(dyn.CheckFailure("parent", f"{parent!r} is not billingAccounts/<id>"))
        return dyn.CheckResult(news, failures)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.DiffResult:
        """Changes of the declared body update in place; another billing account replaces."""
        fields = changes.changed(olds, news)
        replaces = ["parent"] if olds.get("parent") != news.get("parent") else []
        return dyn.DiffResult(
            changes=bool(fields or replaces),
            replaces=replaces,
            delete_before_replace=False,
        )

    def create(self, props: dict[str, Any]) -> dyn.CreateResult:
        """Check the billing account may hold a cap, then create it."""
        api, parent, body = _api(), str(props["parent"]), changes.declared(props)
        what = _what(props)
        try:
            account = api.billing_account(parent)
        except ApiError:
            account = None  # cannot be read with these credentials: the Budget API decides
        if account is not None and (problem := changes.eligibility_problem(account, body)):
            raise SpendCapError(f"{what}: {problem}")
        try:
            live = api.create(parent, body)
        except ApiError as err:
            found = self._find(api, parent, body) if err.transient else None
            if found is None:
                raise _explain(err, what, parent) from None
            live = found  # the create went through; only its answer was lost
        return dyn.CreateResult(str(live["name"]), outputs(props, live))

    @staticmethod
    def _find(api: BudgetApi, parent: str, body: Mapping[str, Any]) -> dict[str, Any] | None:
        """The cap a create whose answer was lost made: same name, project, service, a cap."""
        scope = (as_list(dig(body, "budgetFilter", "projects")) or [None])[0]
        try:
            for budget in api.budgets(parent, scope=scope):
                if (
                    budget.get("displayName") == body.get("displayName")
                    and changes.services_of(budget) == changes.services_of(body)
                    and budget.get("spendCap") is not None
                ):
                    return budget
        except ApiError:
            return None
        return None

    def read(self, id_: str, props: dict[str, Any]) -> dyn.ReadResult:
        """The live cap (refresh); gone when Google no longer has it."""
        try:
            live = _api().get(id_)
        except ApiError as err:
            if err.status == 404:
                return dyn.ReadResult(None, {})
            raise _explain(err, _what(props, id_), str(props.get("parent"))) from None
        return dyn.ReadResult(id_, outputs(props, live))

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> dyn.UpdateResult:
        """Patch the changed fields (the mask names them and spendCap.inputState).

        Never while the cap is ENFORCED: only a lift may change an enforced cap.
        """
        api, what = _api(), _what(news, id_)
        parent = str(news.get("parent"))
        try:
            live = api.get(id_)
        except ApiError as err:
            if err.status == 404:
                raise SpendCapError(
                    f"{what}: deleted outside Pulumi; run `pulumi refresh`, then `pulumi up` "
                    "creates it again"
                ) from None
            raise _explain(err, what, parent) from None
        try:
            patch = changes.update(what, live, olds, news)
        except changes.Refused as err:
            raise SpendCapError(str(err)) from None
        if patch is None:
            return dyn.UpdateResult(outputs(news, live))
        try:
            live = api.patch(id_, patch.body, patch.update_mask)
        except ApiError as err:
            if err.status in (409, 412) or err.reason in ("ABORTED", "FAILED_PRECONDITION"):
                raise SpendCapError(
                    f"{what}: changed since it was read, or enforced meanwhile ({err}); run "
                    "`mlgov cap status` and `pulumi up` again"
                ) from None
            raise _explain(err, what, parent) from None
        return dyn.UpdateResult(outputs(news, live))

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        """Delete the cap (the service is no longer capped in that project)."""
        try:
            _api().delete(id_)
        except ApiError as err:
            raise _explain(err, _what(props, id_), str(props.get("parent"))) from None


class SpendCapBudget(dyn.Resource, module="mlgov", name="SpendCapBudget"):
    """One spend-cap budget (type token `pulumi-python:dynamic/mlgov:SpendCapBudget`)."""

    name: pulumi.Output[str]
    """`billingAccounts/<id>/budgets/<budget id>`, set by Google."""
    outputState: pulumi.Output[str]
    """CONFIGURED, ENFORCED or AWAITING_NEXT_PERIOD, as last read."""

    def __init__(
        self,
        resource_name: str,
        *,
        billing_account: str,
        body: Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props: dict[str, Any] = {
            "parent": f"billingAccounts/{billing_account}",
            **body,
            **dict.fromkeys(OUTPUTS),
        }
        super().__init__(SpendCapBudgetProvider(), resource_name, props, opts)
