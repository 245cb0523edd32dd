"""mlgov-scheduler-oidc: OIDC for functions and Cloud Run, OAuth left alone for Google APIs.

Cases for mlgov_policies/rules/scheduler.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, check_case, d, s

CASES: tuple[Case, ...] = (
    Case("scheduler-no-oidc", "mlgov-scheduler-oidc", (d("reap-idle", "httpTarget.oidcToken"),)),
    Case(
        "scheduler-oauth-to-function",
        "mlgov-scheduler-oidc",
        (
            s("reap-idle", "httpTarget.oidcToken", None),
            s(
                "reap-idle",
                "httpTarget.oauthToken",
                {"serviceAccountEmail": "sched@acme.iam.gserviceaccount.com"},
            ),
        ),
    ),
    Case(
        "scheduler-oidc-to-google-api",
        None,
        (
            d("nb-alice-stop", "httpTarget.oauthToken"),
            s(
                "nb-alice-stop",
                "httpTarget.oidcToken",
                {"serviceAccountEmail": "a@b.iam.gserviceaccount.com"},
            ),
        ),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
