"""Vertex AI: tracking storage at $10 per GiB-month; serving and training nodes at Vertex rates."""

from __future__ import annotations

import pytest

from governance.costs.assumptions import UsageAssumptions
from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import AS_OF, one, price, unpriced, usage_lines

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


# --- serving and training -------------------------------------------------------------------

MARKUP = price("vertex.machine_markup", "global")
N1_4 = price("gce.type.n1-standard-4")
T4 = price("gpu.nvidia-tesla-t4")


def test_the_markup_reproduces_googles_vertex_price_for_n1_standard_4():
    # Google: custom training n1-standard-4 $0.21849885 an hour in us-central1
    assert pytest.approx(0.21849885, rel=1e-6) == MARKUP * N1_4


def pool(**resources: object) -> dict[str, object]:
    dedicated = {"machineSpec": {"machineType": "n1-standard-4", "acceleratorType":
                 "NVIDIA_TESLA_T4", "acceleratorCount": 1}, "minReplicaCount": 2, **resources}  # fmt: skip
    return {"type": "gcp:vertex/aiDeploymentResourcePool:AiDeploymentResourcePool",
            "name": "serving", "inputs": {"region": "us-central1",
                                          "dedicatedResources": dedicated}}  # fmt: skip


def test_a_deployment_pool_bills_its_minimum_nodes_at_vertex_rates():
    cost = one(pool())
    assert cost.monthly_usd == pytest.approx(2 * 730 * MARKUP * (N1_4 + T4))
    assert cost.baseline_monthly_usd == cost.monthly_usd
    assert "vertex:gce.type.n1-standard-4[us-central1/ondemand]" in cost.lines[0]
    declared = parse_usage_file({"resource_usage": {"serving": {"average_nodes": 3.5}}})
    busy = estimate_resources([pool(maxReplicaCount=8)], usage_file=declared).get("serving")
    assert busy.monthly_usd == pytest.approx(3.5 * 730 * MARKUP * (N1_4 + T4))


def test_autoscaling_above_the_minimum_says_it_is_usage():
    cost = one(pool(maxReplicaCount=8))
    assert any("declare `average_nodes`" in line for line in cost.lines)


def test_an_endpoint_depends_on_the_models_deployed_to_it():
    endpoint = {"type": "gcp:vertex/aiEndpoint:AiEndpoint", "name": "ep",
                "inputs": {"location": "us-central1", "displayName": "ep"}}  # fmt: skip
    cost = one(endpoint)
    assert cost.monthly_usd == 0
    assert usage_lines(cost) == {"deployed models": "deployed_nodes"}
    declared = parse_usage_file({"resource_usage": {"ep": {
        "deployed_machine_type": "e2-standard-4", "deployed_nodes": 1}}})  # fmt: skip
    cost = estimate_resources([endpoint], usage_file=declared).get("ep")
    assert cost.monthly_usd == pytest.approx(730 * MARKUP * price("gce.type.e2-standard-4"))


def test_model_garden_deployment_bills_its_dedicated_nodes():
    garden = {"type": "gcp:vertex/aiEndpointWithModelGardenDeployment:"
              "AiEndpointWithModelGardenDeployment", "name": "gemma",
              "inputs": {"location": "us-central1", "publisherModelName": "publishers/google/models/gemma3",
                         "deployConfig": {"dedicatedResources": {"machineSpec": {
                             "machineType": "g2-standard-12", "acceleratorType": "NVIDIA_L4",
                             "acceleratorCount": 1}, "minReplicaCount": 1}}}}  # fmt: skip
    cost = one(garden)
    # g2's price includes its L4: the accelerator is not added again
    assert cost.monthly_usd == pytest.approx(730 * MARKUP * price("gce.type.g2-standard-12"))
    spot = {**garden, "inputs": {**garden["inputs"], "deployConfig": {"dedicatedResources": {
        "machineSpec": {"machineType": "g2-standard-12"}, "spot": True}}}}  # fmt: skip
    assert "Spot serving nodes have no price" in unpriced(spot)


def test_persistent_resource_bills_every_pool_and_boot_disk_while_it_exists():
    persistent = {"type": "gcp:vertex/aiPersistentResource:AiPersistentResource", "name": "pr",
                  "inputs": {"location": "us-central1", "resourcePools": [
                      {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 2},
                      {"machineSpec": {"machineType": "n1-standard-8", "acceleratorType":
                       "NVIDIA_TESLA_T4", "acceleratorCount": 2}, "replicaCount": 4,
                       "autoscalingSpec": {"minReplicaCount": 1, "maxReplicaCount": 4},
                       "diskSpec": {"bootDiskType": "pd-standard", "bootDiskSizeGb": 200}}]}}  # fmt: skip
    cost = one(persistent)
    expected = (
        2 * 730 * MARKUP * N1_4 + 2 * 100 * price("disk.pd-ssd")
        + 1 * 730 * MARKUP * (price("gce.type.n1-standard-8") + 2 * T4)
        + 200 * price("disk.pd-standard")
    )  # fmt: skip
    assert cost.monthly_usd == pytest.approx(expected)
    assert any(line.startswith("pool 1: GPU:") for line in cost.lines)


@pytest.mark.parametrize(
    ("machine", "accelerator", "why"),
    [("n1-standard-8", "NVIDIA_TESLA_A100", "no standalone price"),
     ("ct5lp-hightpu-4t", "", "TPU nodes have no catalog price"),
     ("zz-standard-4", "", "unknown machine type")],
)  # fmt: skip
def test_unpriceable_nodes_are_unpriced_naming_the_part(machine: str, accelerator: str, why: str):
    spec = {"machineSpec": {"machineType": machine, "acceleratorType": accelerator,
                            "acceleratorCount": 1 if accelerator else 0}, "minReplicaCount": 1}  # fmt: skip
    res = pool(**spec)
    assert why in unpriced(res)
