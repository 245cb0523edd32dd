"""Vertex tracking models: TensorBoard and ML Metadata storage at $10 per GiB-month."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from tests.costs.cost_plans import AS_OF, one

BOARD = {"type": "gcp:vertex/aiTensorboard:AiTensorboard", "name": "vertex-tensorboard",
         "inputs": {"region": "us-central1", "displayName": "tb"}}  # fmt: skip
STORE = {"type": "gcp:vertex/aiMetadataStore:AiMetadataStore", "name": "vertex-metadata",
         "inputs": {"region": "us-central1", "name": "md"}}  # fmt: skip


def test_tensorboard_default_five_gib():
    assert one(BOARD).monthly_usd == pytest.approx(50.0)


def test_metadata_store_by_assumption():
    usage = UsageAssumptions(as_of=AS_OF, vertex_metadata_gb=3)
    cost = one(STORE, usage)
    assert cost.monthly_usd == pytest.approx(30.0)
    assert cost.baseline_monthly_usd == cost.monthly_usd
