"""`pulumi stack export` (FORMAT §2): real GCP exports (v3), a hand-written v4, the DIY checkpoint."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from governance.errors import CliError
from governance.inputs.values import SECRET
from tests.formats.conftest import DATA, V4_EXPORT, Cli, by_name, evaluate, load, read, read_doc

EXPORTS = [
    # file, resources read, skipped, stack region, stack project
    (
        "stackexport_gcp_cloudsql_cli3.91.1.json",
        ["instance", "tested-resource"], {"provider": 1, "stack": 1}, None, None,
    ),
    (
        "stackexport_gcp_gke-cluster-nodepool_cli3.102.0.json",
        ["primary", "primarypreemptiblenodes", "serviceAccount"],
        {"provider": 1, "stack": 1}, None, "pulumi-development",
    ),
    (
        "stackexport_gcp_instance-dns-2providers_cli3.91.1.json",
        ["ins", "prod", "tested-resource"],
        {"provider": 2, "stack": 1}, "us-central1", "pulumi-ci-gcp-provider",
    ),
    (
        "stackexport_gcp_network-router-nat_cli3.163.0.json",
        ["iac-nat", "iac-nat-ext-ip-1", "iac-router", "iac-vpc", "subnet"],
        {"provider": 1, "stack": 1}, "us-west1", "pulumi-development",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("name", "names", "skipped", "region", "project"), EXPORTS)
def test_real_gcp_exports_are_read(
    name: str, names: list[str], skipped: dict[str, int], region: str | None, project: str | None
) -> None:
    got = read(name)
    plan = got.plan
    assert got.format == "pulumi stack export v3" and got.before is None
    assert [r["name"] for r in plan["resources"]] == names
    assert plan["source"]["skipped"] == skipped
    assert plan["stack"] == "test"
    assert plan.get("region") == region
    assert plan.get("project") == project
    assert all(r["type"].startswith("gcp:") for r in plan["resources"])


@pytest.mark.parametrize("name", [e[0] for e in EXPORTS])
def test_no_secret_or_output_of_a_real_export_reaches_the_plan(name: str) -> None:
    raw = (DATA / name).read_text()
    text = json.dumps(read(name).plan)
    ciphertexts = re.findall(r'"ciphertext": "([^"]+)"', raw)
    assert all(c not in text for c in ciphertexts)
    assert "__defaults" not in text and "__meta" not in text and "selfLink" not in text


def test_ciphertext_secrets_in_the_real_exports_are_outputs_only() -> None:
    # The real exports carry their secrets in outputs (not read); an input one is blinded.
    doc = load("stackexport_gcp_cloudsql_cli3.91.1.json")
    user = next(r for r in doc["deployment"]["resources"] if r["type"] == "gcp:sql/user:User")
    user["inputs"]["password"] = user["outputs"]["password"]
    got = read_doc(doc).plan
    assert by_name(got["resources"])["tested-resource"]["inputs"]["password"] == SECRET
    assert got["source"]["secrets"] == 1


def test_project_comes_through_the_resources_own_provider() -> None:
    rows = by_name(read("stackexport_gcp_instance-dns-2providers_cli3.91.1.json").plan["resources"])
    assert rows["ins"]["inherited"] == {"project": "project of provider 'default'"}
    assert rows["tested-resource"]["inherited"] == {"project": "project of provider 'provider'"}
    assert rows["ins"]["inputs"]["zone"] == "us-central1-b"  # its own zone, not the provider's


def test_resources_placed_outside_their_providers_region_are_shown_not_blocked() -> None:
    # Issue 32: default provider in us-west1, every regional resource deliberately in
    # us-central1: 4 mandatory findings, and a summary line that read as if nothing blocked.
    plan = evaluate(read("stackexport_gcp_network-router-nat_cli3.163.0.json").plan)
    found = [v for v in plan["violations"] if v["policy"] == "mlgov-location-in-region"]
    assert {v["resource"] for v in found} == {"iac-nat", "iac-nat-ext-ip-1", "iac-router", "subnet"}
    assert {v["enforcement"] for v in found} == {"advisory"}
    # each says which region it was judged against, and where that region comes from
    assert {v["message"] for v in found} == {
        "region 'us-central1' is outside 'us-west1', the region its own provider gives it "
        "(region of provider 'default')"
    }
    assert not [v for v in plan["violations"] if v["enforcement"] == "mandatory"]


def test_a_configured_region_holds_another_programs_resources_to_it(cli: Cli, tmp_path) -> None:
    nat = DATA / "stackexport_gcp_network-router-nat_cli3.163.0.json"
    plain = cli("check", nat)
    assert plain.code == 0, plain.err
    assert "; no mandatory finding" in " ".join(plain.out.split())
    config = tmp_path / "c.yaml"
    config.write_text("mlgov-location-in-region:\n  region: us-west1\n")
    held = cli("check", nat, "--policy-config", config)
    assert held.code == 1
    flat = " ".join(held.out.split())
    # the summary line of the rules run never reads as if nothing blocks
    assert "; 4 mandatory finding(s) block it" in flat
    assert "region 'us-central1' is outside the stack region 'us-west1'" in flat


def test_a_real_export_is_priced() -> None:
    plan = evaluate(read("stackexport_gcp_gke-cluster-nodepool_cli3.102.0.json").plan)
    rows = by_name(plan["resources"])
    assert rows["primarypreemptiblenodes"]["monthly_usd"] > 0
    assert rows["primary"]["monthly_usd"] > 0
    assert plan["cost"]["monthly_usd"] > 0


# ---------------------------------------------------------------- v4, views, plaintext secrets


def test_v4_export_reads_skips_views_and_pending_deletes_and_blinds_plaintext() -> None:
    got = read(V4_EXPORT)
    plan = got.plan
    assert got.format == "pulumi stack export v4"
    assert [r["name"] for r in plan["resources"]] == ["model-store", "server"]
    assert plan["source"]["skipped"] == {
        "pending delete": 1, "provider": 1, "stack": 1, "view": 1,
    }  # fmt: skip
    assert plan["source"]["secrets"] == 2 and plan["source"]["cli"] == "v3.205.0"
    text = json.dumps(plan)
    for plaintext in ("tok-3f8a9d", "raw-key-material", "c2VjcmV0LWtleS1ieXRlcw=="):
        assert plaintext not in text
    rows = by_name(plan["resources"])
    assert rows["server"]["inputs"]["metadata"] == {"startup-token": SECRET}
    assert rows["model-store"]["inputs"]["diskEncryptionKey"] == {"rawKey": SECRET}
    assert rows["server"]["inputs"]["zone"] == "europe-west4-b"
    assert rows["server"]["inherited"]["zone"] == "zone of provider 'default_8_10_0'"
    assert (plan["region"], plan["project"]) == ("europe-west4", "acme-vision-prod")
    assert any("pending_operations: 1 operation(s)" in w["message"] for w in plan["warnings"])


def test_outputs_are_the_last_resort_for_a_location() -> None:
    doc = load(V4_EXPORT)
    provider = doc["deployment"]["resources"][1]
    del provider["inputs"]["zone"], provider["inputs"]["region"]
    rows = by_name(read_doc(doc).plan["resources"])
    assert rows["server"]["inputs"]["zone"] == "europe-west4-b"  # outputs.zone
    assert rows["server"]["inherited"]["zone"] == "the resource's outputs"


def test_unknown_features_are_warned_about() -> None:
    doc = load(V4_EXPORT)
    doc["features"] = ["views", "quantum"]
    plan = read_doc(doc, "s.json").plan
    assert any(
        w["message"] == "features: quantum not known to mlgov: ignored" for w in plan["warnings"]
    )


def test_the_diy_checkpoint_file_is_read_like_an_export() -> None:
    export = load("stackexport_gcp_instance-dns-2providers_cli3.91.1.json")
    checkpoint = {
        "version": 3,
        "checkpoint": {
            "stack": "organization/test/test",
            "config": {},
            "latest": export["deployment"],
        },
    }
    got = read_doc(checkpoint).plan
    assert (
        got["resources"]
        == read("stackexport_gcp_instance-dns-2providers_cli3.91.1.json").plan["resources"]
    )


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        ({"version": 2, "deployment": {}}, "s.json: version: 2 is not a deployment version"),
        ({"version": "3", "deployment": {}}, "s.json: version: '3' is not a deployment version"),
        ({"version": 3, "deployment": []}, "s.json: deployment: required, must be"),
        ({"version": 3, "checkpoint": {"latest": None}}, "s.json: checkpoint.latest: empty"),
        ({"version": 3, "deployment": {"resources": {}}}, "s.json: deployment.resources: must"),
        (
            {"version": 3, "deployment": {"resources": [{"urn": "x", "type": "t"}]}},
            "s.json: deployment.resources[0].urn: must be a Pulumi URN",
        ),
    ],
)
def test_bad_exports_name_the_key(doc: Any, problem: str) -> None:
    with pytest.raises(CliError) as err:
        read_doc(copy.deepcopy(doc), "s.json")
    assert err.value.problems[0].startswith(problem)


def test_an_empty_stack_is_read_with_a_warning() -> None:
    plan = read_doc({"version": 3, "deployment": {"manifest": {}}}, "s.json").plan
    assert plan["resources"] == []
    assert plan["warnings"][0]["message"] == "deployment.resources: the stack holds no resources"
