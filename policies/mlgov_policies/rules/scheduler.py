"""Cloud Scheduler rule: jobs that call functions or Cloud Run authenticate with OIDC.

Covers `gcp:cloudscheduler/job:Job`. Jobs calling Google APIs directly (Workbench start/stop
schedules) use OAuth access tokens, which is correct and left alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule


def oidc(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Scheduler jobs calling functions or Cloud Run authenticate with an OIDC token."""
    del type_, config
    target = dig(props, "httpTarget")
    if target is None or is_unknown(target):
        return
    uri = dig(target, "uri")
    if not isinstance(uri, str) or is_unknown(uri):
        return
    host = (urlsplit(uri).hostname or "").lower()
    if host.endswith(".googleapis.com"):
        return  # Google APIs take OAuth access tokens (oauthToken) and that is correct
    token = dig(target, "oidcToken")
    if is_unknown(token):
        return
    email = dig(token, "serviceAccountEmail")
    if not as_str(email) and not is_unknown(email):
        yield (
            f"httpTarget for '{host}' has no oidcToken.serviceAccountEmail: the endpoint would "
            "have to allow unauthenticated calls"
        )


OIDC = ResourceRule(
    name="mlgov-scheduler-oidc",
    check=oidc,
    types=frozenset({v.SCHEDULER_JOB}),
    enforcement="mandatory",
    why="Without an OIDC token the function or Cloud Run endpoint must accept anonymous "
    "calls, and anyone can trigger the cleanup.",
    remediation="Set httpTarget.oidcToken {serviceAccountEmail, audience}; keep oauthToken "
    "only for *.googleapis.com URIs.",
)
