"""The marks the budget cap writes (functions/) are the ones `mlgov cap restore` reads (governance/).

governance never imports functions/, so governance/cap/marks.py decodes the values on its
own; this pins the two: whatever the functions record, restore turns back into the same
settings, every value fits GCP's label rules (lowercase letters, digits, `-`, `_`; at most 63
characters), and the marks of earlier versions still read.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from govern.gcp.container import _autoscaling_json  # pyright: ignore[reportPrivateUsage]
from govern.gke import CAP_LABEL, NAP_LABEL_PREFIX, Autoscaling, Cluster, NodePool, ResourceLimit
from govern.vertex import DEPLOYMENT_PREFIX, MODEL_SUFFIX, DeployedModel, Endpoint
from governance.cap import marks
from tests.policies.compat.discovery_documents import properties

LABEL = re.compile(r"[a-z0-9_-]{0,63}")
KEY = re.compile(r"[a-z][a-z0-9_-]{0,62}")
INT32 = 2**31 - 1
policies = st.sampled_from(["", "ANY", "BALANCED"])
ACCELERATORS = sorted(
    properties("aiplatform.v1", "GoogleCloudAiplatformV1MachineSpec")["acceleratorType"]["enum"]
)


def test_the_label_keys_are_the_same():
    assert (marks.POOL_LABEL, marks.NAP_PREFIX) == (CAP_LABEL, NAP_LABEL_PREFIX)
    assert (marks.DEPLOYMENT_PREFIX, marks.MODEL_SUFFIX) == (DEPLOYMENT_PREFIX, MODEL_SUFFIX)


@given(
    low=st.integers(0, INT32),
    high=st.integers(0, INT32),
    total=st.booleans(),
    policy=policies,
    nodes=st.none() | st.integers(0, INT32),
    nap=st.booleans(),
)
def test_an_autoscaled_pool_round_trips(low, high, total, policy, nodes, nap):
    low, high = min(low, high), max(low, high)
    before = Autoscaling(True, low, high, total=total, location_policy=policy)
    value = NodePool("p", "r", "c", "n", autoscaling=before, autoprovisioned=nap).previous(nodes)
    assert LABEL.fullmatch(value), value
    mark = marks.decode_pool(value)
    assert mark.autoscaling == _autoscaling_json(before)
    assert (mark.nodes, mark.autoprovisioned, mark.per_zone) == (nodes, nap, None)


@given(nodes=st.integers(0, INT32))
def test_a_fixed_pool_round_trips_with_its_size(nodes):
    value = NodePool("p", "r", "c", "n", initial_node_count=2).previous(nodes)
    assert LABEL.fullmatch(value)
    assert marks.decode_pool(value) == marks.PoolMark(None, nodes=nodes)


@pytest.mark.parametrize(
    ("value", "mark"),
    [
        # Written by versions before the size was recorded: initialNodeCount per zone, or no size.
        ("fixed-3", marks.PoolMark(None, per_zone=3)),
        (
            "autoscale-total-0-16-any",
            marks.PoolMark(
                {
                    "enabled": True,
                    "totalMinNodeCount": 0,
                    "totalMaxNodeCount": 16,
                    "locationPolicy": "ANY",
                }
            ),
        ),
        (
            "autoscale-zone-1-4",
            marks.PoolMark({"enabled": True, "minNodeCount": 1, "maxNodeCount": 4}),
        ),
    ],
)
def test_marks_of_earlier_versions_still_read(value, mark):
    assert marks.decode_pool(value) == mark


@pytest.mark.parametrize(
    "bad",
    [
        "autoscale-0-16",
        "fixed",
        "Fixed-2",
        "autoscale-total-0-16-all",
        "autoscale-total-9-3",  # minimum above maximum
        "fixed-n99999999999",  # beyond int32
        "autoscale-total-0-16-any-nap-n3",
    ],
)
def test_values_restore_cannot_read_are_unreadable(bad):
    with pytest.raises(marks.Unreadable, match="mlgov-cap-prev"):
        marks.decode_pool(bad)


def test_nap_limits_round_trip_and_one_bad_value_spoils_only_itself():
    c = Cluster(
        "p",
        "r",
        "c",
        node_autoprovisioning=True,
        limits=(
            ResourceLimit("cpu", 0, 64),
            ResourceLimit("nvidia-h100-mega-80gb", 0, 16),
            ResourceLimit("tpu-v5-lite-podslice", 4, 64),
        ),
    )
    labels = c.nap_labels()
    assert all(KEY.fullmatch(k) and LABEL.fullmatch(v) for k, v in labels.items())
    found, bad = marks.decode_nap({**labels, "team": "x", "mlgov-cap-nap-nvidia-l4": "lots"})
    assert found == {"nvidia-h100-mega-80gb": (0, 16), "tpu-v5-lite-podslice": (4, 64)}
    assert list(bad) == ["mlgov-cap-nap-nvidia-l4"]


deployments = st.builds(
    DeployedModel,
    id=st.from_regex(r"[1-9][0-9]{0,9}", fullmatch=True),
    model=st.from_regex(r"[a-z][a-z0-9_-]{0,30}|[1-9][0-9]{18}", fullmatch=True).map(
        lambda m: f"projects/acme-ml-prod/locations/europe-west4/models/{m}"
    ),
    version=st.from_regex(r"[1-9][0-9]{0,3}", fullmatch=True) | st.just(""),
    resources=st.sampled_from(["dedicated", "automatic"]),
    machine_type=st.sampled_from(
        ["g2-standard-8", "a3-megagpu-8g", "ct5lp-hightpu-4t", "n1-standard-4", "a2-ultragpu-8g"]
    ),
    accelerator_type=st.sampled_from(["", *ACCELERATORS]),
    accelerator_count=st.integers(0, 16),
    min_replicas=st.integers(0, 100),
    max_replicas=st.integers(0, 1000),
)


@given(model=deployments, traffic=st.integers(0, 100))
def test_a_deployment_round_trips_or_is_refused_whole(model, traffic):
    # The API's own rule: maxReplicaCount is 0 (then: the minimum) or at least minReplicaCount.
    assume(model.max_replicas == 0 or model.max_replicas >= model.min_replicas)
    endpoint = Endpoint(
        "acme-ml-prod",
        "europe-west4",
        "e1",
        deployed=(model.id,),
        traffic={model.id: traffic},
        models=(model,),
        name_project="345678901234",
    )
    labels, problems = endpoint.deployment_marks()
    if problems:  # too long for a label: refused, never cut short
        assert labels == {} and "cannot be a label value" in problems[model.id]
        return
    assert all(KEY.fullmatch(k) and LABEL.fullmatch(v) for k, v in labels.items()), labels
    [mark], bad = marks.decode_deployments(labels)
    assert bad == {}
    assert mark.traffic == traffic
    body = mark.deployed_model("acme-ml-prod", "europe-west4")
    resources = body.get("dedicatedResources") or body["automaticResources"]
    assert body["id"] == model.id
    assert body["model"] == model.model + (f"@{model.version}" if model.version else "")
    assert (resources["minReplicaCount"], resources["maxReplicaCount"]) == (
        model.min_replicas,
        model.max_replicas,
    )
    if model.resources == "dedicated":
        spec = resources["machineSpec"]
        assert spec["machineType"] == model.machine_type
        assert spec.get("acceleratorType", "") == model.accelerator_type
        if model.accelerator_type:
            assert spec["acceleratorCount"] == model.accelerator_count


def test_every_accelerator_the_api_names_survives_the_label_encoding():
    for accelerator in ACCELERATORS:
        encoded = accelerator.lower().replace("_", "-")
        assert LABEL.fullmatch(encoded)
        assert encoded.upper().replace("-", "_") == accelerator


def test_a_model_in_another_location_keeps_its_location():
    model = DeployedModel(
        "7", "projects/p/locations/us-central1/models/m1", "2", "dedicated", "n1-standard-4"
    )
    endpoint = Endpoint("p", "europe-west4", "e", deployed=("7",), models=(model,))
    labels, _ = endpoint.deployment_marks()
    assert labels["mlgov-cap-dm-7-m"] == "2_us-central1_m1"
    [mark], _ = marks.decode_deployments(labels)
    assert mark.model("p", "europe-west4") == "projects/p/locations/us-central1/models/m1@2"


@pytest.mark.parametrize(
    ("labels", "why"),
    [
        ({"mlgov-cap-dm-7": "70_d1-2_n1-standard-4__0"}, "one of its two labels"),
        (
            {"mlgov-cap-dm-7": "170_d1-2_n1-standard-4__0", "mlgov-cap-dm-7-m": "_ _m"},
            "not <version>",
        ),
        ({"mlgov-cap-dm-7": "170_d1-2_n1-standard-4__0", "mlgov-cap-dm-7-m": "__m"}, "above 100%"),
        ({"mlgov-cap-dm-7": "70_d1-2___0", "mlgov-cap-dm-7-m": "__m"}, "without a machine type"),
        ({"mlgov-cap-dm-x": "70_d1-2_n1__0", "mlgov-cap-dm-x-m": "__m"}, "not a deployed model id"),
    ],
)
def test_deployment_marks_restore_cannot_read_are_unreadable(labels, why):
    found, bad = marks.decode_deployments(labels)
    assert found == [] and why in str(next(iter(bad.values())))
