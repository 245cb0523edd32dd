"""Registry completeness: names, metadata, type coverage, purity and pinned pack requirements."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from policy_fixtures import RESOURCE_TYPES, good_stack

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources
from mlgov_policies.registry import (
    ALL_RULES,
    RESOURCE_RULES,
    UNCHECKED_TYPES,
    covered_types,
    uncovered_types,
)

ROOT = Path(__file__).resolve().parents[2]

# Every type listed in the program's resource inventory (RESOURCES brief, "type token" column).
PROGRAM_TYPES = {
    "gcp:compute/network:Network",
    "gcp:compute/subnetwork:Subnetwork",
    "gcp:compute/router:Router",
    "gcp:compute/routerNat:RouterNat",
    "gcp:compute/globalAddress:GlobalAddress",
    "gcp:servicenetworking/connection:Connection",
    "gcp:workbench/instance:Instance",
    "gcp:cloudscheduler/job:Job",
    "gcp:serviceaccount/account:Account",
    "gcp:projects/iAMCustomRole:IAMCustomRole",
    "gcp:projects/iAMMember:IAMMember",
    "gcp:container/cluster:Cluster",
    "gcp:container/nodePool:NodePool",
    "gcp:tpu/v2Vm:V2Vm",
    "gcp:compute/instance:Instance",
    "gcp:sql/databaseInstance:DatabaseInstance",
    "gcp:sql/database:Database",
    "gcp:sql/user:User",
    "random:index/randomPassword:RandomPassword",
    "gcp:bigquery/dataset:Dataset",
    "gcp:bigquery/table:Table",
    "gcp:pubsub/topic:Topic",
    "gcp:billing/budget:Budget",
    "gcp:storage/bucket:Bucket",
    "gcp:storage/bucketObject:BucketObject",
    "gcp:cloudfunctionsv2/function:Function",
    "gcp:cloudfunctionsv2/functionIamMember:FunctionIamMember",
    "gcp:cloudrunv2/serviceIamMember:ServiceIamMember",
    "gcp:pubsub/topicIAMMember:TopicIAMMember",
    "gcp:compute/resourcePolicy:ResourcePolicy",
}


def test_every_program_type_is_covered_or_explained() -> None:
    assert uncovered_types(PROGRAM_TYPES) == set()
    assert uncovered_types(RESOURCE_TYPES) == set()


def test_uncovered_types_reports_new_types_but_not_components() -> None:
    found = uncovered_types(
        {
            "gcp:compute/disk:Disk",
            "gcp:redis/instance:Instance",
            "mlgov:index:MlCluster",
            "pulumi:providers:gcp",
        }
    )
    assert found == {"gcp:redis/instance:Instance"}


def test_unchecked_types_are_really_unchecked() -> None:
    assert not set(UNCHECKED_TYPES) & covered_types()
    assert all(reason.strip() for reason in UNCHECKED_TYPES.values())


def test_rule_metadata() -> None:
    for name, rule in ALL_RULES.items():
        assert re.fullmatch(r"mlgov-[a-z]+(-[a-z0-9]+)+", name), name
        assert rule.name == name
        assert rule.description
        assert "\n" not in rule.description
        assert rule.why.strip()
        assert rule.remediation.strip()
        assert rule.enforcement in ("mandatory", "advisory")
        assert rule.types
        assert set(rule.as_dict()) == {
            "name",
            "kind",
            "description",
            "why",
            "remediation",
            "enforcement",
            "types",
            "config_keys",
        }
        for key in rule.config_keys:
            assert key in PolicyConfig().as_dict()


def test_pure_modules_do_not_import_pulumi() -> None:
    code = (
        "import sys; import mlgov_policies.evaluate, mlgov_policies.registry;"
        "roots = ('pulumi', 'pulumi_policy', 'pulumi_gcp');"
        "bad = [m for m in sys.modules if m.split('.')[0] in roots];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT / "policies",
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_pack_requirements_match_uv_lock() -> None:
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    locked = {p["name"]: p["version"] for p in lock["package"]}
    pins = {}
    for line in (ROOT / "policies" / "requirements.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.strip()] = version.strip()
    assert set(pins) == {"pulumi-policy", "pulumi"}
    for name, version in pins.items():
        assert locked[name] == version, name


def test_pulumi_policy_yaml() -> None:
    text = (ROOT / "policies" / "PulumiPolicy.yaml").read_text()
    assert re.search(r"^runtime:\s*python\s*$", text, re.M)


def test_main_only_builds_the_pack() -> None:
    text = (ROOT / "policies" / "__main__.py").read_text()
    assert "PolicyPack(" in text
    assert "policies=POLICIES" in text


def test_odd_inputs_never_raise() -> None:
    weird = [
        {},
        {"type": 3, "inputs": []},
        {
            "type": "gcp:workbench/instance:Instance",
            "name": "x",
            "inputs": {"gceSetup": "oops", "labels": ["a"]},
        },
        {
            "type": "gcp:sql/databaseInstance:DatabaseInstance",
            "inputs": {"settings": {"ipConfiguration": {"authorizedNetworks": "0.0.0.0/0"}}},
        },
        {"type": "gcp:cloudscheduler/job:Job", "inputs": {"httpTarget": {"uri": 5}}},
        {"type": "gcp:projects/iAMPolicy:IAMPolicy", "inputs": {"policyData": "{not json"}},
        {"type": "gcp:billing/budget:Budget", "inputs": {"thresholdRules": "x"}},
        {"type": "gcp:redis/instance:Instance", "name": "r", "inputs": {"region": "mars-north9"}},
    ]
    evaluate_resources(weird, PolicyConfig())  # type: ignore[arg-type]


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(["0.0.0.0/0", "allUsers", "SPOT", "TRUE", "us-central1-a"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.text(max_size=12)
            | st.sampled_from(
                [
                    "labels",
                    "member",
                    "gceSetup",
                    "metadata",
                    "scheduling",
                    "nodeConfig",
                    "settings",
                    "autoscaling",
                ]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(sorted(covered_types())),
    st.dictionaries(
        st.sampled_from(
            [
                "labels",
                "gceSetup",
                "settings",
                "nodeConfig",
                "scheduling",
                "httpTarget",
                "member",
                "members",
                "accesses",
                "location",
                "zone",
                "region",
                "autoscaling",
                "clusterAutoscaling",
                "serviceConfig",
                "eventTrigger",
            ]
        ),
        _json,
        max_size=5,
    ),
)
def test_random_inputs_never_raise(type_: str, inputs: dict) -> None:
    violations = evaluate_resources(
        [{"type": type_, "name": "r", "inputs": inputs}], PolicyConfig()
    )
    assert all(v.policy in ALL_RULES for v in violations)


def test_order_is_deterministic() -> None:
    stack = good_stack()
    for resource in stack:
        resource["inputs"].pop("labels", None)
    first = evaluate_resources(stack, PolicyConfig())
    assert first == evaluate_resources(stack, PolicyConfig())
    positions = [next(i for i, r in enumerate(stack) if r["name"] == v.resource) for v in first]
    assert positions == sorted(positions)
    assert len(RESOURCE_RULES) >= 25
