"""validate_inputs / check / check_known_type over real plan inputs, one change per case.

The compliant inputs are the shipped stacks' own resources (tests/golden/plan.*.json, the
program's plan documents); every failing case changes one property of one of them.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pulumi_policy.proxy import (
    UNKNOWN_ARRAY_VALUE,
    UNKNOWN_OBJECT_VALUE,
    UNKNOWN_STRING_VALUE,
    unknown_checking_proxy,
)

from mlgov_policies.config import PolicyConfig
from mlgov_policies.pack import plain
from mlgov_policies.rule import StackResource
from mlgov_policies.schema import catalog
from mlgov_policies.schema.validate import (
    check,
    check_known_type,
    check_types_known,
    validate_inputs,
)

ROOT = Path(__file__).resolve().parents[3]
STACKS = ("dev", "staging", "prod")
WORKBENCH = "gcp:workbench/instance:Instance"
JOB = "gcp:cloudscheduler/job:Job"
NODE_POOL = "gcp:container/nodePool:NodePool"
DATASET = "gcp:bigquery/dataset:Dataset"
BUCKET_OBJECT = "gcp:storage/bucketObject:BucketObject"
SQL_USER = "gcp:sql/user:User"


def plan(stack: str) -> list[dict[str, Any]]:
    return json.loads((ROOT / "tests" / "golden" / f"plan.{stack}.json").read_text())["resources"]


def inputs_of(type_: str, stack: str = "staging") -> dict[str, Any]:
    """A deep copy of the first `type_` resource's inputs in the stack's plan."""
    for resource in plan(stack):
        if resource["type"] == type_:
            return copy.deepcopy(resource["inputs"])
    raise AssertionError(f"no {type_} in the {stack} plan")


def findings(type_: str, inputs: object) -> list[tuple[str, str]]:
    return list(validate_inputs(type_, inputs))


@pytest.mark.parametrize("stack", STACKS)
def test_shipped_stacks_have_no_schema_findings(stack: str) -> None:
    resources = plan(stack)
    assert sum(1 for r in resources if r["type"] in catalog.known_types()) > 50
    found = [(r["name"], f) for r in resources for f in validate_inputs(r["type"], r["inputs"])]
    assert found == []
    unknown = [
        m for r in resources for m in check_known_type(r["type"], r["inputs"], PolicyConfig())
    ]
    assert unknown == []


def _set(path: list[str | int], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(inputs: dict[str, Any]) -> None:
        target: Any = inputs
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return change


def _delete(path: list[str | int]) -> Callable[[dict[str, Any]], None]:
    def change(inputs: dict[str, Any]) -> None:
        target: Any = inputs
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]

    return change


ACCELERATOR: list[str | int] = ["gceSetup", "acceleratorConfigs", 0]

# (type, change, expected (path, message)) — each change makes exactly one finding.
FAILING = [
    pytest.param(
        WORKBENCH,
        _set([*ACCELERATOR, "coreCountt"], "1"),
        (
            "gceSetup.acceleratorConfigs[0].coreCountt",
            "unknown property; did you mean 'coreCount'?",
        ),
        id="unknown-nested-property-with-suggestion",
    ),
    pytest.param(
        WORKBENCH,
        _set(["gceSetup", "zzz"], True),
        (
            "gceSetup.zzz",
            "unknown property; InstanceGceSetup has acceleratorConfigs, bootDisk, "
            "computeInstanceId, confidentialInstanceConfig, containerImage, dataDisks, "
            "disablePublicIp, enableIpForwarding, machineType, metadata, minCpuPlatform, "
            "networkInterfaces (and 5 more)",
        ),
        id="unknown-nested-property-listing",
    ),
    pytest.param(
        WORKBENCH,
        _set(["acceleratorConfigs"], [{"type": "NVIDIA_L4"}]),
        (
            "acceleratorConfigs",
            "unknown property here; acceleratorConfigs belongs under 'gceSetup.acceleratorConfigs'",
        ),
        id="top-level-property-that-belongs-deeper",
    ),
    pytest.param(
        WORKBENCH,
        _delete(["location"]),
        ("location", "required property is missing"),
        id="missing-required",
    ),
    pytest.param(
        WORKBENCH,
        _set(["location"], None),
        ("location", "required property is missing"),
        id="null-required",
    ),
    pytest.param(
        JOB,
        _delete(["httpTarget", "uri"]),
        ("httpTarget.uri", "required property is missing"),
        id="missing-nested-required",
    ),
    pytest.param(
        WORKBENCH,
        _set(["gceSetup", "bootDisk"], [{"diskSizeGb": "150"}]),
        ("gceSetup.bootDisk", "expected an object, got a list"),
        id="list-for-object",
    ),
    pytest.param(
        WORKBENCH,
        _set(["gceSetup", "acceleratorConfigs"], {"type": "NVIDIA_L4", "coreCount": "1"}),
        ("gceSetup.acceleratorConfigs", "expected a list, got an object"),
        id="object-for-list",
    ),
    pytest.param(
        WORKBENCH,
        _set(["instanceOwners"], "mlops@acme.example"),
        ("instanceOwners", "expected a list, got the string 'mlops@acme.example'"),
        id="scalar-for-list",
    ),
    pytest.param(
        WORKBENCH,
        _set(["gceSetup", "metadata", "idle-timeout-seconds"], {"seconds": 3600}),
        ('gceSetup.metadata["idle-timeout-seconds"]', "expected a string, got an object"),
        id="object-for-string-in-map",
    ),
    pytest.param(
        WORKBENCH,
        _set(["gceSetup", "metadata", "enable-guest-attributes"], True),
        ('gceSetup.metadata["enable-guest-attributes"]', "expected a string, got a boolean"),
        id="boolean-for-string-in-map",
    ),
    pytest.param(
        WORKBENCH,
        _set(["labels"], ["team"]),
        ("labels", "expected a map, got a list"),
        id="list-for-map",
    ),
    pytest.param(
        WORKBENCH,
        _set(["gceSetup", "disablePublicIp"], "yes"),
        ("gceSetup.disablePublicIp", "expected a boolean, got the string 'yes'"),
        id="string-for-boolean",
    ),
    pytest.param(
        WORKBENCH,
        _set(["gceSetup", "disablePublicIp"], 1.0),
        ("gceSetup.disablePublicIp", "expected a boolean, got the number 1.0"),
        id="number-for-boolean",
    ),
    pytest.param(
        NODE_POOL,
        _set(["autoscaling", "totalMaxNodeCount"], 2.5),
        (
            "autoscaling.totalMaxNodeCount",
            "expected an integer, got 2.5 (the provider truncates it)",
        ),
        id="fraction-for-integer",
    ),
    pytest.param(
        NODE_POOL,
        _set(["autoscaling", "totalMaxNodeCount"], "four"),
        ("autoscaling.totalMaxNodeCount", "expected an integer, got the string 'four'"),
        id="word-for-integer",
    ),
    pytest.param(
        NODE_POOL,
        _set(["autoscaling", "totalMaxNodeCount"], True),
        ("autoscaling.totalMaxNodeCount", "expected an integer, got a boolean"),
        id="boolean-for-integer",
    ),
    pytest.param(
        DATASET,
        _set(["defaultTableExpirationMs"], "NaN"),
        ("defaultTableExpirationMs", "expected an integer, got 'NaN'"),
        id="nan-for-integer",
    ),
    pytest.param(
        WORKBENCH,
        _set([*ACCELERATOR, "type"], "NVIDIA_TESLA_K80"),
        (
            "gceSetup.acceleratorConfigs[0].type",
            "'NVIDIA_TESLA_K80' is not one of NVIDIA_TESLA_P100, NVIDIA_TESLA_V100, "
            "NVIDIA_TESLA_P4, NVIDIA_TESLA_T4, NVIDIA_TESLA_A100, NVIDIA_A100_80GB, NVIDIA_L4, "
            "NVIDIA_H100_80GB, NVIDIA_H100_MEGA_80GB, NVIDIA_H200_141GB, NVIDIA_B200, "
            "NVIDIA_RTX6000, NVIDIA_TESLA_T4_VWS, NVIDIA_TESLA_P100_VWS, NVIDIA_TESLA_P4_VWS",
        ),
        id="enum-outside-documented-values",
    ),
    pytest.param(
        WORKBENCH,
        _set([*ACCELERATOR, "type"], "nvidia_l4"),
        ("gceSetup.acceleratorConfigs[0].type", "'nvidia_l4' is not one of"),
        id="enum-is-case-sensitive",
    ),
    pytest.param(
        WORKBENCH,
        _set(["gceSetup", "bootDisk", "diskType"], 3),
        ("gceSetup.bootDisk.diskType", "expected one of PD_STANDARD"),
        id="number-for-enum",
    ),
]


@pytest.mark.parametrize(("type_", "change", "expected"), FAILING)
def test_one_property_off_is_one_finding(
    type_: str, change: Callable[[dict[str, Any]], None], expected: tuple[str, str]
) -> None:
    inputs = inputs_of(type_)
    assert findings(type_, inputs) == []
    change(inputs)
    [(path, message)] = findings(type_, inputs)
    assert path == expected[0]
    assert message.startswith(expected[1])


# Values the engine accepts (or that cannot be judged offline): never findings.
PASSING = [
    pytest.param(NODE_POOL, _set(["autoscaling", "totalMaxNodeCount"], 4), id="int-for-integer"),
    pytest.param(NODE_POOL, _set(["autoscaling", "totalMaxNodeCount"], 4.0), id="mock-float"),
    pytest.param(NODE_POOL, _set(["autoscaling", "totalMaxNodeCount"], "4"), id="numeric-string"),
    pytest.param(DATASET, _set(["defaultTableExpirationMs"], "86400000"), id="int64-as-string"),
    pytest.param(DATASET, _set(["defaultTableExpirationMs"], 8.64e7), id="int64-as-float"),
    pytest.param(WORKBENCH, _set([*ACCELERATOR, "coreCount"], 1), id="number-for-string"),
    pytest.param(WORKBENCH, _set(["gceSetup", "disablePublicIp"], "true"), id="bool-as-string"),
    pytest.param(WORKBENCH, _set(["gceSetup", "disablePublicIp"], "False"), id="bool-as-Title"),
    pytest.param(WORKBENCH, _set(["gceSetup", "bootDisk", "diskType"], ""), id="empty-enum"),
    pytest.param(WORKBENCH, _set(["gceSetup", "machineType"], None), id="null-optional"),
    pytest.param(WORKBENCH, _set(["gceSetup", "tags"], [None, "a"]), id="null-list-item"),
    pytest.param(WORKBENCH, _set(["__defaults"], []), id="engine-defaults-key"),
    pytest.param(WORKBENCH, _set(["gceSetup", "__defaults"], ["x"]), id="nested-defaults-key"),
    pytest.param(WORKBENCH, _set(["effectiveLabels"], {"a": "b"}), id="output-only-top-level"),
    pytest.param(WORKBENCH, _set(["pulumiLabels"], {"a": "b"}), id="output-only-pulumi-labels"),
    pytest.param(WORKBENCH, _set(["gceSetup"], UNKNOWN_OBJECT_VALUE), id="unknown-object"),
    pytest.param(WORKBENCH, _set(["instanceOwners"], UNKNOWN_ARRAY_VALUE), id="unknown-list"),
    pytest.param(WORKBENCH, _set(["location"], UNKNOWN_STRING_VALUE), id="unknown-required"),
    pytest.param(WORKBENCH, _set([*ACCELERATOR, "type"], UNKNOWN_STRING_VALUE), id="unknown-enum"),
    pytest.param(
        WORKBENCH,
        _set(["gceSetup", "acceleratorConfigs", 0], UNKNOWN_OBJECT_VALUE),
        id="unknown-item",
    ),
    pytest.param(SQL_USER, _set(["password"], "[secret]"), id="redacted-secret"),
    pytest.param(
        WORKBENCH, _set(["gceSetup", "shieldedInstanceConfig"], "[secret]"), id="redacted-object"
    ),
    pytest.param(
        BUCKET_OBJECT,
        _set(["source"], {"kind": "AssetArchive", "assets": ["main.py"]}),
        id="asset-description",
    ),
]


@pytest.mark.parametrize(("type_", "change"), PASSING)
def test_lenient_where_the_engine_is(type_: str, change: Callable[[dict[str, Any]], None]) -> None:
    inputs = inputs_of(type_)
    change(inputs)
    assert findings(type_, inputs) == []


def test_every_finding_is_reported_not_just_the_first() -> None:
    inputs = inputs_of(WORKBENCH)
    inputs["gceSetup"]["bootDisk"]["diskType"] = "PD_FAST"
    inputs["gceSetup"]["acceleratorConfigs"].append({"type": "NVIDIA_L4", "count": 1})
    del inputs["location"]
    assert [path for path, _ in findings(WORKBENCH, inputs)] == [
        "gceSetup.acceleratorConfigs[1].count",
        "gceSetup.bootDisk.diskType",
        "location",
    ]


@pytest.mark.parametrize(
    "type_",
    [
        "mlgov:index:NotebookFleet",
        "pulumi:pulumi:Stack",
        "pulumi:providers:gcp",
        "gcp:notebooks/instance:Instance",
        "aws:s3/bucket:Bucket",
        "",
    ],
)
def test_types_the_archive_does_not_describe_get_no_schema_findings(type_: str) -> None:
    assert findings(type_, {"anything": {"at": ["all"]}}) == []
    assert list(check(type_, {"anything": 1}, PolicyConfig())) == []


def test_inputs_that_are_not_an_object() -> None:
    assert findings(WORKBENCH, ["location"]) == [("", "inputs must be an object, got a list")]
    assert findings(WORKBENCH, UNKNOWN_OBJECT_VALUE) == []


def test_check_names_path_and_schema_source() -> None:
    inputs = inputs_of(WORKBENCH)
    inputs["gceSetup"]["bootDisk"]["diskType"] = "PD_FAST"
    [message] = check(WORKBENCH, inputs, PolicyConfig())
    version = catalog.package_versions()["pulumi-gcp"]
    assert message.startswith("'gceSetup.bootDisk.diskType': 'PD_FAST' is not one of PD_STANDARD")
    assert message.endswith(f"(pulumi-gcp {version} input types)")


def test_check_covers_pulumi_random() -> None:
    token = "random:index/randomPassword:RandomPassword"
    inputs = inputs_of(token)
    assert list(check(token, inputs, PolicyConfig())) == []
    inputs["length"] = "long"
    [message] = check(token, inputs, PolicyConfig())
    version = catalog.package_versions()["pulumi-random"]
    assert message == (
        f"'length': expected an integer, got the string 'long' (pulumi-random {version} input types)"
    )


def test_check_known_type_flags_gcp_tokens_the_sdk_does_not_have() -> None:
    config = PolicyConfig()
    gcp = catalog.package_versions()["pulumi-gcp"]
    random = catalog.package_versions()["pulumi-random"]
    # pulumi-gcp 10 has no TPU Node and no legacy notebooks module (the installed SDK's modules).
    assert list(check_known_type("gcp:tpu/node:Node", {}, config)) == [
        f"type 'gcp:tpu/node:Node' is not in pulumi-gcp {gcp}; gcp:tpu has V2QueuedResource, V2Vm"
    ]
    assert list(check_known_type("gcp:notebooks/instance:Instance", {}, config)) == [
        f"type 'gcp:notebooks/instance:Instance' is not in pulumi-gcp {gcp} "
        "(it has no module 'gcp:notebooks')"
    ]
    assert list(check_known_type("gcp:workbench/instanse:Instance", {}, config)) == [
        f"type 'gcp:workbench/instanse:Instance' is not in pulumi-gcp {gcp}; "
        "did you mean 'gcp:workbench/instance:Instance'?"
    ]
    assert list(check_known_type("random:index/randomPasword:RandomPasword", {}, config)) == [
        f"type 'random:index/randomPasword:RandomPasword' is not in pulumi-random {random}; "
        "did you mean 'random:index/randomPassword:RandomPassword'?"
    ]
    for token in (WORKBENCH, "mlgov:index:NotebookFleet", "pulumi:providers:gcp", "aws:x:Y"):
        assert list(check_known_type(token, {}, config)) == []


def test_check_types_known_points_at_each_unknown_resource() -> None:
    resources = [
        StackResource(type=WORKBENCH, name="nb", props={}),
        StackResource(type="gcp:tpu/node:Node", name="tpu", props={}),
        StackResource(type="mlgov:index:MlCluster", name="c", props={}),
        StackResource(type="gcp:notebooks/instance:Instance", name="old", props={}),
    ]
    found = list(check_types_known(resources, PolicyConfig()))
    assert [index for index, _ in found] == [1, 3]
    assert found[0][1].startswith("type 'gcp:tpu/node:Node' is not in pulumi-gcp")
    for stack in STACKS:
        shipped = [StackResource(r["type"], r["name"], r["inputs"]) for r in plan(stack)]
        assert list(check_types_known(shipped, PolicyConfig())) == []


def test_crossguard_props_with_unknowns_pass_through_pack_plain() -> None:
    """What CrossGuard hands a policy during preview: proxied props with unknown sentinels."""
    inputs = inputs_of(WORKBENCH)
    inputs["gceSetup"]["serviceAccounts"][0]["email"] = UNKNOWN_STRING_VALUE
    inputs["gceSetup"]["networkInterfaces"] = UNKNOWN_ARRAY_VALUE
    props = plain(unknown_checking_proxy(inputs))
    assert list(check(WORKBENCH, props, PolicyConfig())) == []
    props["gceSetup"]["bootDisk"]["diskType"] = "PD_FAST"
    assert [m.split(":")[0] for m in check(WORKBENCH, props, PolicyConfig())] == [
        "'gceSetup.bootDisk.diskType'"
    ]


def test_validator_modules_do_not_import_pulumi() -> None:
    code = (
        "import sys, json; from mlgov_policies.schema.validate import validate_inputs;"
        "plan = json.load(open(sys.argv[1]));"
        "n = sum(1 for r in plan['resources'] for _ in validate_inputs(r['type'], r['inputs']));"
        "roots = ('pulumi', 'pulumi_policy', 'pulumi_gcp', 'pulumi_random');"
        "bad = [m for m in sys.modules if m.split('.')[0] in roots];"
        "print(n, bad); sys.exit(1 if bad or n else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "tests" / "golden" / "plan.prod.json")],
        cwd=ROOT / "policies",
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
