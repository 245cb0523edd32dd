"""mlgov-labels-*: required cost-attribution labels and GCP label syntax, per labelable type.

Cases for mlgov_policies/rules/labels.py: one change to the known-good stack each, checked offline
and through the CrossGuard policy objects (policy_cases.check_case).
"""

from __future__ import annotations

import pytest
from policy_cases import Case, case_id, cfg, check_case, d, s

CASES: tuple[Case, ...] = (
    Case("labels-missing-team", "mlgov-labels-required", (d("nb-alice", "labels.team"),)),
    Case("labels-missing-all", "mlgov-labels-required", (d("metadata-db", "settings.userLabels"),)),
    Case("labels-empty-value", "mlgov-labels-required", (s("features", "labels.team", ""),)),
    Case(
        "labels-boot-disk",
        "mlgov-labels-required",
        (d("gpu-vm", "bootDisk.initializeParams.labels"),),
    ),
    Case(
        "labels-boot-disk-from-source",
        None,
        (s("gpu-vm", "bootDisk", {"source": "projects/p/zones/z/disks/d"}),),
    ),
    Case(
        "labels-node-pool", "mlgov-labels-required", (d("gpu-pool", "nodeConfig.resourceLabels"),)
    ),
    Case("labels-cluster", "mlgov-labels-required", (d("gke", "resourceLabels"),)),
    Case(
        "labels-custom-required",
        "mlgov-labels-required",
        (),
        cfg(required_labels=["team", "owner"]),
        resource="peering-range",
    ),
    Case(
        "labels-uppercase-value", "mlgov-labels-valid", (s("nb-alice", "labels.team", "Research"),)
    ),
    Case("labels-bad-key", "mlgov-labels-valid", (s("budget-topic", "labels.9lives", "x"),)),
    Case("labels-long-value", "mlgov-labels-valid", (s("source", "labels.extra", "x" * 64),)),
    Case("labels-63-char-value", None, (s("source", "labels.extra", "x" * 63),)),
    Case("labels-expires-on", None, (s("tpu", "labels.mlgov-expires-on", "2026-12-31"),)),
    Case("vertex-endpoint-unlabelled", "mlgov-labels-required", (d("endpoint", "labels"),)),
    Case("repository-unlabelled", "mlgov-labels-required", (d("images", "labels"),)),
    Case("labels-exempt", None, (s("tpu", "labels.mlgov-exempt", "true"),)),
    Case(
        "labels-expiry-exempt",
        "mlgov-labels-expiry-not-exempt",
        (
            s("tpu", "labels.mlgov-expires-on", "2026-12-31"),
            s("tpu", "labels.mlgov-exempt", "true"),
        ),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: Case) -> None:
    check_case(case)
