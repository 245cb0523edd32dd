"""Spend-cap budgets (Cloud Billing, Preview): the eligible services and the Budget API's rules.

A spend-cap budget is a Budget API v1 `Budget` with `spendCap` set: once the gross estimated
spend of one service in one project passes the amount, Google blocks new usage of that service
until the cap is lifted or the month ends. The Budget API's discovery document (billingbudgets
v1, revision 20261011) fixes strict rules for such a budget; `problems(body)` yields one
(field path, message) per rule a body breaks, each message naming the rule and its source. The
acceptance rule (acceptance/spend_caps.py), the dynamic provider's `check`
(governance/spend_caps/provider.py) and the settings all use it, so a body Google would refuse
never plans OK. `SERVICES` lists the eligible services by mlgov's key, each with its Billing
Catalog service id and how that id was confirmed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from mlgov_policies.compat import sources as s
from mlgov_policies.props import as_list, as_mapping, as_number, as_str, dig, is_unknown

READ: Final = "2026-11-25"
"""The day Google's spend-cap pages and the public sources of the service ids were read."""

DISCOVERY: Final = s.cite(
    "Cloud Billing Budget API v1 billingAccounts.budgets (discovery document billingbudgets.v1, "
    "revision 20261011)",
    "https://cloud.google.com/billing/docs/reference/budget/rest/v1/billingAccounts.budgets",
    checked=READ,
)
API_GUIDE: Final = s.cite(
    "Using the Cloud Billing Budget API for spend cap budgets",
    "https://docs.cloud.google.com/billing/docs/how-to/budget-api-spend-cap",
    checked=READ,
    note='"Reseller billing accounts are out of scope"; "NotificationsRule must set '
    "enableProjectLevelRecipients to true. All other NotificationsRule parameters are not "
    'supported."',
)
ELIGIBLE: Final = s.cite(
    "Create, edit, or delete spend cap budgets: Services that are eligible for spend cap budgets",
    "https://docs.cloud.google.com/billing/docs/how-to/budgets-spend-caps#eligible-services",
    checked=READ,
    note="the page's section headings were read here but not the section's full text; the four "
    "services are as Google's Cloud Next '26 announcement is quoted publicly (Google AI Studio "
    "/ Gemini API, Vertex AI, Cloud Run, Cloud Run functions; it also names Maps, which mlgov "
    "does not cover) and as the discovery document's Filter.services links this section",
)

SPEND_CAP_THRESHOLDS: Final = (0.5, 0.8, 1.0)
"""The three CURRENT_SPEND thresholds every spend cap must have (fractions of the amount)."""
DISPLAY_NAME_MAX: Final = 60
"""`Budget.displayName`: "must be less than or equal to 60 characters"."""


@dataclass(frozen=True, kw_only=True)
class EligibleService:
    """One service a spend cap may cover, by mlgov's settings key."""

    key: str
    """The key under `mlgov:settings.spend_caps` (docs/architecture.md#spend-caps)."""
    name: str
    """The service as Google's Billing Catalog and billing export name it."""
    service: str
    """`services/<id>`: what `budgetFilter.services` takes (Billing Catalog service id)."""
    id_source: str
    """Where the id was confirmed, and how sure we are."""


SERVICES: Final[Mapping[str, EligibleService]] = {
    e.key: e
    for e in (
        EligibleService(
            key="vertex_ai",
            name="Vertex AI",
            service="services/C7E2-9256-1C43",
            id_source="high confidence: the id many independent public repositories query the "
            "Billing Catalog with for Vertex AI and Gemini-on-Vertex SKUs "
            "(cloudbilling.googleapis.com/v1/services/C7E2-9256-1C43/skus) and read from billing "
            "export rows, read " + READ,
        ),
        EligibleService(
            key="gemini_api",
            name="Gemini API",
            service="services/AEFD-7695-64FA",
            id_source="medium-high confidence: public repositories quote Gemini API SKUs as "
            "services/AEFD-7695-64FA/skus/... ('Generate content output token count gemini 2.5 "
            "flash') and Google's credit-eligibility SKU groups naming 'Gemini API "
            "(AEFD-7695-64FA)' beside 'Vertex AI (C7E2-9256-1C43)'; no Google page read here "
            "states it, read " + READ,
        ),
        EligibleService(
            key="cloud_run",
            name="Cloud Run",
            service="services/152E-C115-5142",
            id_source="high confidence: public Billing Catalog snapshots list Cloud Run's SKUs "
            "('Jobs CPU in <region>') under serviceId 152E-C115-5142, many repositories use it, "
            "and a public operator script creates a spend cap on it, read " + READ,
        ),
        EligibleService(
            key="cloud_run_functions",
            name="Cloud Run functions",
            service="services/29E7-DA93-CA13",
            id_source="high confidence: public Billing Catalog snapshots list 'Cloud Run "
            "functions (1st Gen) CPU' SKUs under serviceId 29E7-DA93-CA13 (display name 'Cloud "
            "Run Functions', formerly Cloud Functions), read " + READ,
        ),
    )
}
"""The eligible services (source: ELIGIBLE), in the order settings errors list them."""

BY_SERVICE: Final[Mapping[str, EligibleService]] = {e.service: e for e in SERVICES.values()}

Problem = tuple[str, str]


def eligible_list() -> str:
    """`vertex_ai (Vertex AI), gemini_api (Gemini API), ...`: the list errors show."""
    return ", ".join(f"{e.key} ({e.name})" for e in SERVICES.values())


def money_value(money: object) -> float | None:
    """A `google.type.Money` map as a number (`units` is an int64 string), None if unreadable."""
    if not _is_map(money):
        return None
    units = as_number(dig(money, "units")) if dig(money, "units") is not None else 0.0
    nanos = as_number(dig(money, "nanos")) if dig(money, "nanos") is not None else 0.0
    if units is None or nanos is None or not math.isfinite(units) or not math.isfinite(nanos):
        return None
    return units + nanos / 1e9


def _rule(message: str, schema_field: str, source: str = DISCOVERY) -> str:
    return f"{message} (rule: {schema_field}; source: {s.short(source)})"


def _is_map(value: object) -> bool:
    # A plain bool, so the value keeps its declared type (no Mapping[Unknown, Unknown]).
    return isinstance(value, Mapping)


def _empty(value: object) -> bool:
    return value is None or value == [] or value == {} or value == ""


def _filter_problems(bf: Mapping[str, Any]) -> Iterator[Problem]:
    f = "GoogleCloudBillingBudgetsV1Filter"
    projects = dig(bf, "projects")
    if not is_unknown(projects) and len(as_list(projects)) != 1:
        yield (
            "budgetFilter.projects",
            _rule(
                f"a spend cap must name exactly one project, got {len(as_list(projects))}",
                f"{f}.projects",
            ),
        )
    services = dig(bf, "services")
    listed = as_list(services)
    if not is_unknown(services) and len(listed) != 1:
        yield (
            "budgetFilter.services",
            _rule(
                f"a spend cap must name exactly one eligible service, got {len(listed)}",
                f"{f}.services",
            ),
        )
    elif len(listed) == 1 and isinstance(listed[0], str) and listed[0] not in BY_SERVICE:
        eligible = ", ".join(f"{e.service} ({e.name})" for e in SERVICES.values())
        yield (
            "budgetFilter.services",
            f"{listed[0]!r} is not a service spend caps can cover; eligible: {eligible} "
            f"(rule: {f}.services; source: {s.short(ELIGIBLE)})",
        )
    period = dig(bf, "calendarPeriod")
    if not is_unknown(period) and period not in (None, "MONTH", "CALENDAR_PERIOD_UNSPECIFIED"):
        yield (
            "budgetFilter.calendarPeriod",
            _rule(
                f"a spend cap's period must be MONTH (or unset), got {period!r}",
                f"{f}.calendarPeriod",
            ),
        )
    if not _empty(dig(bf, "customPeriod")):
        yield (
            "budgetFilter.customPeriod",
            _rule("a spend cap cannot have a custom period", f"{f}.customPeriod"),
        )
    treatment = dig(bf, "creditTypesTreatment")
    if not is_unknown(treatment) and treatment != "EXCLUDE_ALL_CREDITS":
        yield (
            "budgetFilter.creditTypesTreatment",
            _rule(
                "a spend cap counts gross cost: creditTypesTreatment must be EXCLUDE_ALL_CREDITS, "
                f"got {'not set' if treatment is None else repr(treatment)}",
                f"{f}.creditTypesTreatment",
            ),
        )
    for key in ("creditTypes", "labels", "resourceAncestors", "subaccounts"):
        value = dig(bf, key)
        if not is_unknown(value) and not _empty(value):
            yield (
                f"budgetFilter.{key}",
                _rule(f"a spend cap takes no {key} filter; it must be empty", f"{f}.{key}"),
            )


def _amount_problems(amount: object) -> Iterator[Problem]:
    a = "GoogleCloudBillingBudgetsV1BudgetAmount"
    if is_unknown(amount):
        return
    if not _is_map(amount):
        yield "amount", _rule("a spend cap needs amount.specifiedAmount", f"{a}.specifiedAmount")
        return
    if dig(amount, "lastPeriodAmount") is not None:
        yield (
            "amount.lastPeriodAmount",
            _rule("a spend cap cannot use last period's amount", f"{a}.lastPeriodAmount"),
        )
    specified = dig(amount, "specifiedAmount")
    if is_unknown(specified):
        return
    value = money_value(specified)
    if specified is None or value is None:
        yield (
            "amount.specifiedAmount",
            _rule("a spend cap needs a specified amount (units, nanos)", f"{a}.specifiedAmount"),
        )
    elif value < 0:
        yield (
            "amount.specifiedAmount",
            _rule(f"a spend cap's amount must be >= 0, got {value:g}", f"{a}.specifiedAmount"),
        )
    currency = dig(specified, "currencyCode")
    if currency is not None and not is_unknown(currency):
        text = as_str(currency) or ""
        if not re.fullmatch(r"[A-Z]{3}", text):
            yield (
                "amount.specifiedAmount.currencyCode",
                _rule(f"{currency!r} is not an ISO 4217 code", "GoogleTypeMoney.currencyCode"),
            )


def _threshold_problems(rules: object) -> Iterator[Problem]:
    t = "GoogleCloudBillingBudgetsV1Budget.thresholdRules"
    if is_unknown(rules):
        return
    listed = as_list(rules)
    percents = [as_number(dig(r, "thresholdPercent")) for r in listed]
    if any(is_unknown(dig(r, "thresholdPercent")) for r in listed):
        return
    if len(listed) != 3 or sorted(p for p in percents if p is not None) != list(
        SPEND_CAP_THRESHOLDS
    ):
        shown = ", ".join("?" if p is None else f"{p:g}" for p in percents) or "none"
        yield (
            "thresholdRules",
            _rule(
                "a spend cap needs exactly three thresholdRules at 0.5, 0.8 and 1.0, got "
                f"[{shown}]",
                t,
            ),
        )
    for i, rule in enumerate(listed):
        basis = dig(rule, "spendBasis")
        if not is_unknown(basis) and basis not in (None, "CURRENT_SPEND", "BASIS_UNSPECIFIED"):
            yield (
                f"thresholdRules[{i}].spendBasis",
                _rule(
                    f"a spend cap's thresholds are on current spend, got {basis!r}",
                    "GoogleCloudBillingBudgetsV1ThresholdRule.spendBasis",
                ),
            )


def _notification_problems(rule: object) -> Iterator[Problem]:
    n = "GoogleCloudBillingBudgetsV1NotificationsRule"
    if is_unknown(rule):
        return
    if not _is_map(rule):
        yield (
            "notificationsRule",
            _rule(
                "a spend cap needs notificationsRule.enableProjectLevelRecipients: true",
                f"{n}.enableProjectLevelRecipients",
            ),
        )
        return
    recipients = dig(rule, "enableProjectLevelRecipients")
    if not is_unknown(recipients) and recipients is not True:
        yield (
            "notificationsRule.enableProjectLevelRecipients",
            _rule("must be true for a spend cap", f"{n}.enableProjectLevelRecipients"),
        )
    if dig(rule, "disableDefaultIamRecipients") is True:
        yield (
            "notificationsRule.disableDefaultIamRecipients",
            _rule(
                "a spend cap's default alert emails cannot be turned off",
                f"{n}.disableDefaultIamRecipients",
            ),
        )
    for key, what in (
        ("pubsubTopic", "cannot publish to Pub/Sub (mlgov pairs it with an alerts-only budget)"),
        ("monitoringNotificationChannels", "takes no monitoring notification channels"),
    ):
        value = dig(rule, key)
        if not is_unknown(value) and not _empty(value):
            yield f"notificationsRule.{key}", _rule(f"a spend cap {what}", f"{n}.{key}")
    if not _empty(dig(rule, "schemaVersion")):
        yield (
            "notificationsRule.schemaVersion",
            _rule(
                "a spend cap takes no other notificationsRule parameter",
                f"{n}.schemaVersion",
                API_GUIDE,
            ),
        )


def _spend_cap_problems(cap: object) -> Iterator[Problem]:
    c = "GoogleCloudBillingBudgetsV1SpendCap"
    if is_unknown(cap):
        return
    if not _is_map(cap):
        yield (
            "spendCap",
            _rule(
                "spendCap must be set (inputState CONFIGURED)",
                "GoogleCloudBillingBudgetsV1Budget.spendCap",
            ),
        )
        return
    state = dig(cap, "inputState")
    if not is_unknown(state) and state != "CONFIGURED":
        yield (
            "spendCap.inputState",
            _rule(
                f"a declared cap is CONFIGURED, got {'not set' if state is None else repr(state)} "
                "(AWAITING_NEXT_PERIOD only lifts an enforced cap: `mlgov cap lift`)",
                f"{c}.inputState",
            ),
        )
    for key in ("outputState", "reconciling"):
        if as_mapping(cap).get(key) is not None:
            yield f"spendCap.{key}", _rule("output only: Google sets it", f"{c}.{key}")


def problems(body: Mapping[str, Any]) -> Iterator[Problem]:
    """(field path, message) for every rule a spend-cap `Budget` body breaks (unknowns skipped)."""
    b = "GoogleCloudBillingBudgetsV1Budget"
    bf = dig(body, "budgetFilter")
    if not is_unknown(bf):
        if not _is_map(bf):
            yield (
                "budgetFilter",
                _rule(
                    "a spend cap needs a budgetFilter (one project, one service)",
                    f"{b}.budgetFilter",
                ),
            )
        else:
            yield from _filter_problems(as_mapping(bf))
    yield from _amount_problems(dig(body, "amount"))
    yield from _threshold_problems(dig(body, "thresholdRules"))
    yield from _notification_problems(dig(body, "notificationsRule"))
    scope = dig(body, "ownershipScope")
    if not is_unknown(scope) and scope not in (None, "OWNERSHIP_SCOPE_UNSPECIFIED", "ALL_USERS"):
        yield (
            "ownershipScope",
            _rule(
                f"a spend cap's ownershipScope must be ALL_USERS (or unset), got {scope!r}",
                f"{b}.ownershipScope",
            ),
        )
    yield from _spend_cap_problems(dig(body, "spendCap"))
    name = as_str(dig(body, "displayName"))
    if name is not None and len(name) > DISPLAY_NAME_MAX:
        yield (
            "displayName",
            _rule(
                f"{len(name)} characters; a budget's displayName is at most {DISPLAY_NAME_MAX}",
                f"{b}.displayName",
            ),
        )
