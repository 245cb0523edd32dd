"""Cloud Functions rules: a dedicated service account; retries and internal ingress on events.

Covers `gcp:cloudfunctionsv2/function:Function`. Who may invoke a function is iam.py's concern;
what its `MLGOV_POLICY` allows is billing.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import dig, is_unknown
from mlgov_policies.rule import ResourceRule, shown

_FUNCTION = frozenset({v.FUNCTION_V2})
# The Compute Engine and App Engine default service accounts, which get Editor on the project:
# https://cloud.google.com/iam/docs/service-account-types#default
_DEFAULT_SA = re.compile(
    r".*(-compute@developer\.gserviceaccount\.com|@appspot\.gserviceaccount\.com)"
)


def service_account(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Functions run as a dedicated service account, never the default compute one."""
    del type_, config
    for path in (("serviceConfig", "serviceAccountEmail"), ("eventTrigger", "serviceAccountEmail")):
        email = dig(props, *path)
        where = ".".join(path)
        if is_unknown(email):
            continue
        if email is None:
            if path[0] == "serviceConfig":
                yield f"{where} is not set: the function runs as the default compute account"
            continue
        if not isinstance(email, str) or _DEFAULT_SA.fullmatch(email):
            yield f"{where} {email!r} is a default service account (Editor on the project)"


SERVICE_ACCOUNT = ResourceRule(
    name="mlgov-functions-service-account",
    check=service_account,
    types=_FUNCTION,
    enforcement="mandatory",
    why="The default compute service account is Editor on the project; a function that can "
    "stop VMs must not also be able to change everything else.",
    remediation="Set serviceConfig.serviceAccountEmail (and eventTrigger.serviceAccountEmail) "
    "to a dedicated account with a custom role.",
)


def event_retry(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Event-triggered functions retry failed deliveries (v2 API default is no retry)."""
    del type_, config
    trigger = dig(props, "eventTrigger")
    if trigger is None or is_unknown(trigger):
        return
    policy = dig(trigger, "retryPolicy")
    if not is_unknown(policy) and policy != "RETRY_POLICY_RETRY":
        yield f"eventTrigger.retryPolicy is {shown(policy)}: a failed event is dropped"


EVENT_RETRY = ResourceRule(
    name="mlgov-functions-event-retry",
    check=event_retry,
    types=_FUNCTION,
    enforcement="advisory",
    why="Functions created with the v2 API do not retry events; one transient error drops a "
    "budget alert.",
    remediation="Set eventTrigger.retryPolicy = 'RETRY_POLICY_RETRY' (handlers are idempotent).",
)


# Eventarc's Pub/Sub push to a service in the same project is internal traffic ("Internal ...
# Allows requests from ... Eventarc, Pub/Sub", https://cloud.google.com/run/docs/securing/ingress).
INTERNAL_ONLY = "ALLOW_INTERNAL_ONLY"


def event_ingress(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Event-triggered functions accept internal traffic only (Eventarc delivers internally)."""
    del type_, config
    trigger = dig(props, "eventTrigger")
    if trigger is None or is_unknown(trigger):
        return
    ingress = dig(props, "serviceConfig", "ingressSettings")
    if is_unknown(ingress) or ingress == INTERNAL_ONLY:
        return
    shown_ingress = "not set (the API then uses 'ALLOW_ALL')" if ingress is None else repr(ingress)
    yield (
        f"serviceConfig.ingressSettings is {shown_ingress} on an event-triggered function: "
        "anyone on the internet can send it requests, though only Eventarc needs to"
    )


EVENT_INGRESS = ResourceRule(
    name="mlgov-functions-event-ingress-internal",
    check=event_ingress,
    types=_FUNCTION,
    enforcement="mandatory",
    why="An event function is only ever called by Eventarc, which counts as internal traffic; "
    "wider ingress leaves its URL open to the internet for no caller that needs it.",
    remediation=f"Set serviceConfig.ingressSettings = '{INTERNAL_ONLY}' on functions with an "
    "eventTrigger.",
)
