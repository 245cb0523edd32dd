"""The rule index (registry.py): complete, one entry per rule, metadata, type coverage, purity.

Also the checks that keep adding a rule to three places: the rule in rules/<service>.py, one
line in `registry.RULES`, its cases in test_rules_<service>.py.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from policy_fixtures import RESOURCE_TYPES

from mlgov_policies.config import PolicyConfig
from mlgov_policies.evaluate import evaluate_resources
from mlgov_policies.registry import (
    ALL_RULES,
    RULES,
    UNCHECKED_TYPES,
    covered_types,
    uncovered_types,
)
from mlgov_policies.rule import ResourceRule, StackRule

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

# Every type the program creates (its resource inventory, by type token).
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


# Where rules are defined, and where their failing cases live: cost rules in
# rules/<service>.py (CASES in test_rules_<service>.py), cloud-acceptance rules in
# acceptance/<service>.py (tests/policies/acceptance/), schema rules in schema/rules.py
# (tests/policies/schema/).
RULE_PACKAGES = {
    "mlgov_policies.rules": None,
    "mlgov_policies.acceptance": HERE / "acceptance",
    "mlgov_policies.schema": HERE / "schema",
}


def _defined_rules() -> dict[str, str]:
    """Rule name -> the module that defines it (`mlgov_policies.rules.workbench`)."""
    defined: dict[str, str] = {}
    for package in RULE_PACKAGES:
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
            module = importlib.import_module(f"{package}.{info.name}")
            for value in vars(module).values():
                if isinstance(value, ResourceRule | StackRule):
                    assert value.name not in defined, f"{value.name} defined twice"
                    defined[value.name] = module.__name__
    return defined


def _service_cases() -> dict[str, list]:
    """Service -> the CASES of tests/policies/test_rules_<service>.py."""
    return {
        path.stem.removeprefix("test_rules_"): list(importlib.import_module(path.stem).CASES)
        for path in sorted(Path(__file__).parent.glob("test_rules_*.py"))
    }


def test_index_lists_every_defined_rule_exactly_once() -> None:
    defined = _defined_rules()
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names)), "a rule is listed twice in registry.RULES"
    assert set(names) == set(defined), "registry.RULES and the rule modules disagree"
    for rule in RULES:
        assert rule in vars(importlib.import_module(defined[rule.name])).values()


def test_every_rule_has_failing_cases_in_its_service_test() -> None:
    prefix = "mlgov_policies.rules."
    defined = {
        name: module.removeprefix(prefix)
        for name, module in _defined_rules().items()
        if module.startswith(prefix)
    }
    cases = _service_cases()
    assert set(cases) == set(defined.values()), "one test_rules_<service>.py per rules module"
    failing: set[str] = set()
    for service, service_cases in cases.items():
        ids = [case.id for case in service_cases]
        assert len(ids) == len(set(ids)), service
        for case in service_cases:
            if case.expected is not None:
                assert defined[case.expected] == service, (case.id, service)
                failing.add(case.expected)
    assert failing == set(defined)


def test_acceptance_and_schema_rules_have_tests_that_name_them() -> None:
    for name, module in _defined_rules().items():
        package = module.rsplit(".", 1)[0]
        tests = RULE_PACKAGES[package]
        if tests is None:
            continue  # cost rules: CASES, above
        text = "\n".join(path.read_text() for path in tests.glob("test_*.py"))
        assert f'"{name}"' in text, (name, tests)


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
            "source",
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
