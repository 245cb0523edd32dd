"""mlgov-iam-*: no public members and no primitive roles, on every kind of grant.

Cases for mlgov_policies/rules/iam.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, check_case, d, s

CASES: tuple[Case, ...] = (
    Case(
        "function-public", "mlgov-iam-no-public-members", (s("reap-invoker", "member", "allUsers"),)
    ),
    Case(
        "run-public", "mlgov-iam-no-public-members", (s("reap-run-invoker", "member", "allUsers"),)
    ),
    Case(
        "bucket-public",
        "mlgov-iam-no-public-members",
        (s("source-reader", "member", "allAuthenticatedUsers"),),
    ),
    Case(
        "bucket-binding-public",
        "mlgov-iam-no-public-members",
        (s("source-binding", "members", ["allUsers"]),),
    ),
    Case(
        "dataset-member-public",
        "mlgov-iam-no-public-members",
        (s("features-reader", "member", "allUsers"),),
    ),
    Case(
        "dataset-access-public",
        "mlgov-iam-no-public-members",
        (s("features-owners", "specialGroup", "allAuthenticatedUsers"),),
    ),
    Case(
        "dataset-inline-public",
        "mlgov-iam-no-public-members",
        (s("features", "accesses", [{"role": "READER", "specialGroup": "allAuthenticatedUsers"}]),),
    ),
    Case(
        "topic-public",
        "mlgov-iam-no-public-members",
        (s("budget-publisher", "member", "allUsers"),),
    ),
    Case(
        "sa-editor",
        "mlgov-iam-no-primitive-roles",
        (s("gov-role-binding", "role", "roles/editor"),),
    ),
    Case(
        "sa-owner-binding",
        "mlgov-iam-no-primitive-roles",
        (s("log-writers", "role", "roles/owner"),),
    ),
    Case(
        "group-viewer",
        None,
        (
            s("gov-role-binding", "role", "roles/viewer"),
            s("gov-role-binding", "member", "group:ml@acme.example"),
        ),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)


DEFAULT_SA = "123456789012-compute@developer.gserviceaccount.com"
DEDICATED = "mlgov-iam-dedicated-service-account"
SA_CASES: tuple[Case, ...] = (
    Case("tpu-vm-no-account", DEDICATED, (d("tpu", "serviceAccount"),)),
    Case("tpu-vm-default-account", DEDICATED, (s("tpu", "serviceAccount.email", DEFAULT_SA),)),
    Case("pool-no-account", DEDICATED, (d("gpu-pool", "nodeConfig.serviceAccount"),)),
    Case(
        "pool-default-alias", DEDICATED, (s("system-pool", "nodeConfig.serviceAccount", "default"),)
    ),
    Case(
        "nap-default-account",
        DEDICATED,
        (s("gke", "clusterAutoscaling.autoProvisioningDefaults.serviceAccount", DEFAULT_SA),),
    ),
    Case("nap-no-account", DEDICATED, (d("gke", "clusterAutoscaling.autoProvisioningDefaults"),)),
    Case(
        "autopilot-no-account",
        DEDICATED,
        (
            d("gke", "clusterAutoscaling"),
            s("gke", "enableAutopilot", True),
            s("gke", "resourceLabels.mlgov-exempt", "true"),  # not mlgov-gke-autopilot-not-capped
        ),
    ),
    Case("vm-default-account", DEDICATED, (s("gpu-vm", "serviceAccount.email", DEFAULT_SA),)),
    # compute.v1: an instance without serviceAccounts runs with no identity at all
    Case("vm-no-account", None, (d("gpu-vm", "serviceAccount"),)),
    Case("notebook-no-account", DEDICATED, (d("nb-alice", "gceSetup.serviceAccounts"),)),
    Case(
        "notebook-default-account",
        DEDICATED,
        (s("nb-alice", "gceSetup.serviceAccounts", [{"email": DEFAULT_SA}]),),
    ),
    Case(
        "lookalike-is-not-default",
        None,
        (s("tpu", "serviceAccount.email", "compute@acme-ml-prod.iam.gserviceaccount.com"),),
    ),
)


CASES = (*CASES, *SA_CASES)  # what test_policy_registry counts per rules module


@pytest.mark.parametrize("case", SA_CASES, ids=case_id)
def test_dedicated_service_account(case: Case) -> None:
    check_case(case)
