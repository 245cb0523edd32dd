"""The fake cloud answers from copies of recorded answers: each copy must equal its original.

governance/fakecloud/recorded/ ships the few recordings the fake is built from (a wheel holds no
tests/); the originals, with their sources, stay in tests/. A copy that drifts from its original
would let the fake answer in a shape nobody recorded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
COPIES = REPO / "governance" / "fakecloud" / "recorded"
ORIGINALS = {
    "get-compute-v1-projects-cloud-custodian-aggregated-instances_1.json": "tests/functions/data",
    "post-compute-v1-projects-cloud-custodian-zones-us-central1-c-instances-instance-1-stop_1.json": (
        "tests/functions/data"
    ),
    "get-notebooks.googleapis.com-v2-projects-cloud-custodian-locations---instances_1.json": (
        "tests/functions/data"
    ),
    "get-v1-projects-cloud-custodian-locations---clusters_1.json": "tests/functions/data",
    "budget-notification-format-example.json": "tests/functions/data",
    "test_instance_group_manager_query/"
    "get-compute-v1-projects-cloud-custodian-zones-us-central1-a-instanceGroupManagers_1.json": (
        "tests/fakegcp/recorded"
    ),
    "cloudbilling-catalog.json": "tests/costs/data",
    "gcp_billing_export_v1.schema.json": "tests/spend/data",
    "gcp_billing_export_resource_v1.schema.json": "tests/spend/data",
}


@pytest.mark.parametrize("name", sorted(ORIGINALS))
def test_each_copy_equals_its_original(name: str) -> None:
    copy = (COPIES / name).read_bytes()
    assert copy == (REPO / ORIGINALS[name] / name).read_bytes()


def test_every_copy_has_an_original() -> None:
    shipped = {p.relative_to(COPIES).as_posix() for p in COPIES.rglob("*.json")}
    assert shipped == set(ORIGINALS)
