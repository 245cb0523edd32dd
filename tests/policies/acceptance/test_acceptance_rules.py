"""The acceptance rule list: metadata complete, names unique, every rule failing and passing."""

from __future__ import annotations

import re
from pathlib import Path

from acceptance_support import RULES

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig

HERE = Path(__file__).resolve().parent


def test_the_index_lists_all_eleven_acceptance_rules() -> None:
    assert [rule.name for rule in RULES] == [
        "mlgov-workbench-gpu-machine-compatible",
        "mlgov-compute-gpu-machine-compatible",
        "mlgov-gke-gpu-machine-compatible",
        "mlgov-tpu-runtime-version-compatible",
        "mlgov-tpu-zone-offered",
        "mlgov-gke-tpu-topology-valid",
        "mlgov-bigquery-partition-columns-in-schema",
        "mlgov-compute-scheduling-valid",
        "mlgov-functions-timeout-within-limit",
        "mlgov-scheduler-attempt-deadline-within-limit",
        "mlgov-billing-spend-cap-accepted",
    ]


def test_names_are_unique_and_follow_the_convention() -> None:
    names = [rule.name for rule in RULES]
    assert len(set(names)) == len(names)
    for name in names:
        assert re.fullmatch(r"mlgov-[a-z0-9]+(-[a-z0-9]+)+", name), name


def test_metadata_is_complete() -> None:
    for rule in RULES:
        assert rule.enforcement == "mandatory"
        assert rule.description and rule.description != rule.name, rule.name
        assert rule.why.endswith(".") and rule.remediation.endswith("."), rule.name
        assert "https://cloud.google.com/" in rule.source, rule.name
        assert rule.types, rule.name


def test_as_dict_has_the_registry_keys_and_the_source() -> None:
    for rule in RULES:
        entry = rule.as_dict()
        assert set(entry) == {"name", "kind", "description", "why", "remediation",
                              "enforcement", "types", "config_keys", "source"}  # fmt: skip
        assert entry["kind"] == "resource" and entry["config_keys"] == []


def test_types_are_known_tokens() -> None:
    known = {value for key, value in vars(v).items() if key.isupper() and isinstance(value, str)}
    for rule in RULES:
        assert rule.types <= known, rule.name


def test_every_rule_has_a_test_that_asserts_its_messages() -> None:
    # Each rule name appears in a test module next to an exact expected message.
    text = "\n".join(path.read_text() for path in HERE.glob("test_acceptance_*.py"))
    for rule in RULES:
        assert f'"{rule.name}"' in text, rule.name


def test_rules_never_raise_on_odd_inputs() -> None:
    odd: list[object] = [{}, {"gceSetup": "x"}, {"guestAccelerators": "x", "machineType": 3},
                         {"nodeConfig": {"guestAccelerators": [None, 3, {"type": 4}]}},
                         {"scheduling": [1]}, {"schema": 7, "clusterings": "a"},
                         {"serviceConfig": {"timeoutSeconds": "x"}}, {"attemptDeadline": 5,
                         "httpTarget": {}}, {"acceleratorType": 8, "runtimeVersion": None}]  # fmt: skip
    for rule in RULES:
        for type_ in rule.types:
            for props in odd:
                list(rule.check(type_, props, PolicyConfig()))  # type: ignore[arg-type]
