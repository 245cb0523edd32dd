"""The acceptance rules over what the shipped program produces.

`data/shipped_inputs.json` holds the inputs of every covered resource from
`python -m governance plan --stack {dev,staging,prod} --json` as they were when issue 10 was
filed: these five findings are the defects it reports, and the rules must keep catching them.
The stacks are fixed now: their golden plan documents (tests/golden, pinned to what `plan`
prints) have no findings at all, from any rule of the index.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acceptance_support import RULES, SHIPPED

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources

GOLDEN = Path(__file__).resolve().parents[2] / "golden"

EXPECTED = {
    ("staging", "notebooks-pipelines", "mlgov-workbench-gpu-machine-compatible"): (
        "gceSetup.acceleratorConfigs[0].type 'NVIDIA_L4' on gceSetup.machineType 'n1-standard-8': "
        "NVIDIA L4 (nvidia-l4) cannot attach to n1-standard-8: it runs only on g2-standard-4, "
        "g2-standard-8, g2-standard-12, g2-standard-16, g2-standard-24, g2-standard-32, "
        "g2-standard-48, g2-standard-96 (source: GPU machine types "
        "https://cloud.google.com/compute/docs/gpus)",
    ),
    ("staging", "dataset-features-events", "mlgov-bigquery-partition-columns-in-schema"): (
        "timePartitioning.field: the table declares no schema but is partitioned on partition "
        "column 'event_ts': a table with field based partitioning must have a schema (source: "
        "BigQuery: Introduction to partitioned tables "
        "https://cloud.google.com/bigquery/docs/partitioned-tables)",
    ),
    ("prod", "dataset-experiments-runs", "mlgov-bigquery-partition-columns-in-schema"): (
        "timePartitioning.field: the table declares no schema but is partitioned on partition "
        "column 'started_at': a table with field based partitioning must have a schema (source: "
        "BigQuery: Introduction to partitioned tables "
        "https://cloud.google.com/bigquery/docs/partitioned-tables)",
    ),
    ("prod", "dataset-features-events", "mlgov-bigquery-partition-columns-in-schema"): (
        "timePartitioning.field: the table declares no schema but is partitioned on partition "
        "column 'event_ts': a table with field based partitioning must have a schema (source: "
        "BigQuery: Introduction to partitioned tables "
        "https://cloud.google.com/bigquery/docs/partitioned-tables)",
        "clusterings[0]: clustering column 'user_id': the table declares no schema; clustering "
        "columns must be top-level schema columns (source: BigQuery: Introduction to clustered "
        "tables https://cloud.google.com/bigquery/docs/clustered-tables#limitations)",
    ),
}


def findings(resources: list[dict], stack: str) -> dict[tuple[str, str, str], tuple[str, ...]]:
    found: dict[tuple[str, str, str], tuple[str, ...]] = {}
    for resource in resources:
        for rule in RULES:
            if resource["type"] not in rule.types:
                continue
            messages = tuple(rule.check(resource["type"], resource["inputs"], PolicyConfig()))
            if messages:
                found[(stack, resource["name"], rule.name)] = messages
    return found


def test_recorded_shipped_inputs_fail_exactly_as_issue_10_reports() -> None:
    found: dict[tuple[str, str, str], tuple[str, ...]] = {}
    for stack in ("dev", "staging", "prod"):
        found |= findings([r for r in SHIPPED if r["stack"] == stack], stack)
    assert found == EXPECTED


def test_recorded_inputs_cover_every_rule_type_the_program_creates() -> None:
    types = {r["type"] for r in SHIPPED}
    for rule in RULES:
        # Spend caps came after the recording; the golden plans (test below) cover them.
        if rule.name in ("mlgov-gke-tpu-topology-valid", "mlgov-billing-spend-cap-accepted"):
            continue
        assert rule.types & types, rule.name


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_shipped_stacks_have_no_findings(stack: str) -> None:
    document = json.loads((GOLDEN / f"plan.{stack}.json").read_text())
    assert findings(document["resources"], stack) == {}
    config = PolicyConfig.from_mapping(document["policy_config"])
    assert evaluate_resources(document["resources"], config, stack=stack) == []
    assert document["violations"] == []
    assert document["warnings"] == []
