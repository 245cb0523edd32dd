"""Provider default labels (pulumi-gcp `defaultLabels`) in other teams' previews and exports.

The files (data/realworld/SOURCES.md) label through their providers: the stack config's
`gcp:defaultLabels` (the hidden default provider of a preview), an explicit `eu` provider, a
`legacy` provider whose defaultLabels carry `mlgov-exempt`, a default provider resource of a
stack export, and a provider whose defaultLabels are a secret.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from governance.inputs import default_labels
from governance.inputs.default_labels import DefaultLabels, label_field, parse
from governance.inputs.values import SECRET, UNKNOWN
from tests.formats.conftest import DATA, Cli, by_name, read, read_doc

REAL = DATA / "realworld"
PREVIEW = REAL / "preview_gcp_provider-default-labels_show-sames.json"
EXPORT = REAL / "stackexport_gcp_provider-default-labels.json"
TEAM = {"team": "vision", "env": "staging", "cost-center": "cc-4521", "managed-by": "pulumi"}
REQUIRED = "mlgov-labels-required:\n  required_labels: [team, env, cost-center, workload]\n"


def _doc() -> Any:
    return json.loads(PREVIEW.read_text())


def _label_findings(doc: Any) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for v in doc["violations"]:
        if v["policy"] == "mlgov-labels-required":
            found.setdefault(v["resource"], []).append(v["message"])
    return found


@pytest.fixture
def required(tmp_path: Path) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(REQUIRED)
    return path


# ------------------------------------------------------------------ merging, as the provider does
def test_stack_config_default_labels_reach_the_default_providers_resources() -> None:
    rows = by_name(read(PREVIEW).plan["resources"])
    assert rows["raw-images"]["inputs"]["labels"] == {**TEAM, "workload": "data"}
    assert rows["raw-images"]["inherited"]["labels"] == (
        "stack config gcp:defaultLabels: cost-center, env, managed-by, team"
    )
    # a topic with no labels of its own carries the provider's, and only those
    assert rows["inference-events"]["inputs"]["labels"] == TEAM


def test_the_resources_own_label_wins_on_the_same_key() -> None:
    scratch = by_name(read(PREVIEW).plan["resources"])["scratch"]
    assert scratch["inputs"]["labels"]["team"] == "vision-research"
    assert scratch["inputs"]["labels"]["env"] == "staging"
    assert "team" not in scratch["inherited"]["labels"]  # only what the provider added is named


def test_an_explicit_providers_labels_reach_its_resources_and_a_clusters_resource_labels() -> None:
    rows = by_name(read(PREVIEW).plan["resources"])
    cluster = rows["serving-eu"]
    # GKE clusters keep GCP labels in resourceLabels (their pulumiLabels merge those)
    assert cluster["inputs"]["resourceLabels"] == {
        **TEAM,
        "region-team": "emea",
        "workload": "serving",
    }
    assert cluster["inherited"]["resourceLabels"].startswith("defaultLabels of provider 'eu': ")
    # the stack config's default labels are the default provider's, not the eu provider's
    assert "labels" not in cluster["inputs"]


def test_nested_label_fields_the_provider_does_not_label_are_left_as_written() -> None:
    rows = by_name(read(PREVIEW).plan["resources"])
    # Cloud SQL settings.userLabels, a node pool's nodeConfig.resourceLabels and a VM's boot disk
    # labels have no pulumiLabels: pulumi-gcp does not put default labels there
    assert rows["features-db"]["inputs"]["settings"]["userLabels"] == {"workload": "features"}
    assert "labels" not in rows["features-db"]["inherited"]
    assert rows["l4-spot"]["inputs"]["nodeConfig"]["resourceLabels"] == {
        **TEAM,
        "workload": "serving",
    }
    assert "labels" not in rows["batch-runner"]["inputs"]["bootDisk"]["initializeParams"]


def test_labels_known_only_after_apply_stay_unknown() -> None:
    rows = by_name(read(PREVIEW).plan["resources"])
    assert rows["eval-results"]["inputs"]["labels"] == UNKNOWN
    assert "labels" not in rows["eval-results"]["inherited"]


@pytest.mark.parametrize(
    ("type_", "field"),
    [
        ("gcp:storage/bucket:Bucket", "labels"),
        ("gcp:compute/instance:Instance", "labels"),
        ("gcp:container/cluster:Cluster", "resourceLabels"),
        ("gcp:container/nodePool:NodePool", None),
        ("gcp:sql/databaseInstance:DatabaseInstance", None),
        # `labels`, but no pulumiLabels: the provider's default labels do not apply
        ("gcp:monitoring/notificationChannel:NotificationChannel", None),
        ("aws:s3/bucket:Bucket", None),
    ],
)
def test_which_field_takes_default_labels_comes_from_the_schemas_pulumi_labels(
    type_: str, field: str | None
) -> None:
    assert label_field(type_) == field


# ------------------------------------------------------------------ what the label rule then finds
def test_only_what_the_provider_really_leaves_unlabelled_is_a_finding(
    cli: Cli, required: Path
) -> None:
    result = cli("check", PREVIEW, "--json", "--policy-config", required)
    found = _label_findings(json.loads(result.out))
    assert found == {
        "batch-runner": [
            "'bootDisk.initializeParams.labels' lacks required labels "
            "['team', 'env', 'cost-center', 'workload']"
        ],
        "features-db": [
            "'settings.userLabels' lacks required labels ['team', 'env', 'cost-center']"
        ],
        "inference-events": ["'labels' lacks required labels ['workload']"],
    }


def test_without_the_provider_labels_the_same_program_fails_the_label_rule(
    cli: Cli, required: Path, tmp_path: Path
) -> None:
    doc = _doc()
    del doc["config"]["gcp:defaultLabels"]
    path = tmp_path / "preview.json"
    path.write_text(json.dumps(doc))
    found = _label_findings(
        json.loads(cli("check", path, "--json", "--policy-config", required).out)
    )
    assert found["raw-images"] == ["'labels' lacks required labels ['team', 'env', 'cost-center']"]
    assert "serving-eu" not in found  # the eu provider still labels its cluster


# ------------------------------------------------------------------ reserved labels
def test_a_provider_wide_mlgov_exempt_is_not_applied_and_fails_the_check(cli: Cli) -> None:
    rows = by_name(read(PREVIEW).plan["resources"])
    runner = rows["batch-runner"]["inputs"]["labels"]
    assert runner == {**TEAM, "workload": "batch"}  # the provider's other labels are applied
    assert not any(key.startswith("mlgov-") for r in rows.values() for key in _labels(r))
    result = cli("check", PREVIEW, "--json")
    assert result.code == 1
    doc = json.loads(result.out)
    found = [v for v in doc["violations"] if v["policy"] == default_labels.RESERVED_POLICY]
    assert len(found) == 1
    assert found[0]["resource"] == "provider 'legacy'"
    assert found[0]["type"] == "pulumi:providers:gcp"
    assert found[0]["enforcement"] == "mandatory"
    assert "mlgov-exempt: 'true'" in found[0]["message"]


def test_a_reserved_label_in_the_stack_configs_default_labels_names_the_config(
    cli: Cli, tmp_path: Path
) -> None:
    doc = _doc()
    doc["config"]["gcp:defaultLabels"] = json.dumps({**TEAM, "mlgov-expires-on": "2026-12-01"})
    path = tmp_path / "preview.json"
    path.write_text(json.dumps(doc))
    result = cli("check", path, "--json")
    out = json.loads(result.out)
    found = {
        v["resource"]: v["message"]
        for v in out["violations"]
        if v["policy"] == default_labels.RESERVED_POLICY
    }
    assert set(found) == {"gcp:defaultLabels", "provider 'legacy'"}
    assert found["gcp:defaultLabels"].startswith("stack config gcp:defaultLabels sets reserved")
    raw = by_name(out["resources"])["raw-images"]["inputs"]["labels"]
    assert "mlgov-expires-on" not in raw


def test_the_finding_is_on_both_sides_of_a_preview_and_in_the_comment(cli: Cli) -> None:
    got = read(PREVIEW)
    assert [f["resource"] for f in got.plan["input_findings"]] == ["provider 'legacy'"]
    # the legacy provider is created by this preview: the state before has no such provider
    assert "input_findings" not in got.before
    comment = cli("comment", "--preview", "staging", PREVIEW)
    assert default_labels.RESERVED_POLICY in comment.out


def test_a_check_of_the_checked_document_keeps_the_finding(cli: Cli, tmp_path: Path) -> None:
    first = cli("check", PREVIEW, "--json")
    path = tmp_path / "checked.json"
    path.write_text(first.out)
    again = json.loads(cli("check", path, "--json").out)
    found = [v for v in again["violations"] if v["policy"] == default_labels.RESERVED_POLICY]
    assert len(found) == 1


# ------------------------------------------------------------------ stack export
def test_a_stack_exports_default_provider_labels_match_the_providers_own_merge() -> None:
    raw = {
        r["urn"].rsplit("::", 1)[1]: r
        for r in json.loads(EXPORT.read_text())["deployment"]["resources"]
    }
    rows = by_name(read(EXPORT).plan["resources"])
    for name in ("api-vm", "model-artifacts"):
        # pulumiLabels: what pulumi-gcp itself applied (labels + default labels)
        assert rows[name]["inputs"]["labels"] == raw[name]["outputs"]["pulumiLabels"]
        assert rows[name]["inherited"]["labels"].startswith(
            "defaultLabels of provider 'default_8_10_0': "
        )


def test_secret_default_labels_make_the_labels_unknown_not_missing(
    cli: Cli, required: Path
) -> None:
    cache = by_name(read(EXPORT).plan["resources"])["apac-cache"]
    assert cache["inputs"]["labels"] == UNKNOWN
    assert cache["inherited"]["labels"].startswith("unknown: defaultLabels of provider 'tokyo'")
    out = json.loads(cli("check", EXPORT, "--json", "--policy-config", required).out)
    assert "apac-cache" not in _label_findings(out)


# ------------------------------------------------------------------ bad values: exit 2
@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("team=vision", "must be a JSON object of labels: not valid JSON"),
        ('["team"]', "must be a JSON object of labels, got list"),
        ('{"team": 7}', "team: label values are strings, got int"),
    ],
)
def test_default_labels_that_are_no_map_of_labels_exit_2_naming_the_key(
    cli: Cli, tmp_path: Path, value: str, why: str
) -> None:
    doc = _doc()
    doc["config"]["gcp:defaultLabels"] = value
    path = tmp_path / "preview.json"
    path.write_text(json.dumps(doc))
    result = cli("check", path)
    assert result.code == 2
    assert f"config.gcp:defaultLabels: {why}" in result.err
    assert "Traceback" not in result.err


def test_an_explicit_providers_bad_default_labels_name_the_provider(
    cli: Cli, tmp_path: Path
) -> None:
    doc = _doc()
    eu = next(s for s in doc["steps"] if s["urn"].endswith("pulumi:providers:gcp::eu"))
    eu["newState"]["inputs"]["defaultLabels"] = "[1, 2]"
    path = tmp_path / "preview.json"
    path.write_text(json.dumps(doc))
    result = cli("check", path)
    assert result.code == 2
    assert "provider urn:pulumi:staging::vision-serving::pulumi:providers:gcp::eu: " in result.err
    assert "inputs.defaultLabels: must be a JSON object of labels, got list" in result.err


def test_a_stack_exports_provider_with_bad_default_labels_exits_2(cli: Cli, tmp_path: Path) -> None:
    doc = json.loads(EXPORT.read_text())
    doc["deployment"]["resources"][1]["inputs"]["defaultLabels"] = "{"
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    result = cli("check", path)
    assert result.code == 2
    assert (
        "pulumi:providers:gcp::default_8_10_0: inputs.defaultLabels: must be a JSON" in result.err
    )


# ------------------------------------------------------------------ parse and merge
def test_parse_reads_json_strings_objects_and_secrets_and_sets_reserved_keys_apart() -> None:
    assert parse('{"team": "a", "mlgov-exempt": "true"}') == DefaultLabels(
        {"team": "a"}, {"mlgov-exempt": "true"}
    )
    assert parse({"team": "a"}) == DefaultLabels({"team": "a"})
    assert parse(None) == parse("") == default_labels.NONE
    assert parse(SECRET) == parse(UNKNOWN) == DefaultLabels(unknown=True)
    ciphertext = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}
    assert parse(ciphertext) == DefaultLabels(unknown=True)


def test_merge_leaves_secret_labels_and_types_without_labels_alone() -> None:
    labels = DefaultLabels({"team": "a"})
    secret: dict[str, Any] = {"labels": SECRET}
    assert default_labels.merge("gcp:storage/bucket:Bucket", secret, labels, "x") is None
    assert secret == {"labels": SECRET}
    pool: dict[str, Any] = {}
    assert default_labels.merge("gcp:container/nodePool:NodePool", pool, labels, "x") is None
    assert pool == {}


def test_a_preview_without_default_labels_reads_as_before() -> None:
    doc = _doc()
    del doc["config"]["gcp:defaultLabels"]
    for step in doc["steps"]:
        for side in ("oldState", "newState"):
            if step.get(side, {}).get("type") == "pulumi:providers:gcp":
                step[side]["inputs"].pop("defaultLabels", None)
    rows = by_name(read_doc(doc).plan["resources"])
    assert rows["raw-images"]["inputs"]["labels"] == {"workload": "data"}
    assert all("labels" not in r.get("inherited", {}) for r in rows.values())
    assert "input_findings" not in read_doc(doc).plan


def _labels(resource: dict[str, Any]) -> dict[str, Any]:
    labels = resource["inputs"].get("labels")
    return labels if isinstance(labels, dict) else {}


def test_default_labels_changed_since_the_last_update_are_not_on_the_resources_yet(
    cli: Cli, tmp_path: Path
) -> None:
    # pulumi-gcp applies a changed defaultLabels to a resource only when it next updates it
    # (pulumi/pulumi-gcp#1275): the state's pulumiLabels say what each resource carries
    doc = json.loads(EXPORT.read_text())
    provider = doc["deployment"]["resources"][1]
    labels = json.loads(provider["inputs"]["defaultLabels"])
    provider["inputs"]["defaultLabels"] = json.dumps({**labels, "owner": "ml-serving"})
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    result = cli("check", path, "--json")
    rows = by_name(json.loads(result.out)["resources"])
    assert "owner" not in rows["api-vm"]["inputs"]["labels"]
    assert rows["api-vm"]["inputs"]["labels"]["team"] == "vision"
    assert rows["api-vm"]["inherited"]["labels"].startswith("pulumiLabels output: as last applied")
    assert "2 resource(s) (api-vm, model-artifacts) carry other labels" in result.err
    assert "carry other labels" not in cli("check", EXPORT).err


def test_what_check_prints_with_input_findings_validates_against_the_schema(cli: Cli) -> None:
    import jsonschema

    from tests.conftest import REPO

    schema = json.loads((REPO / "governance" / "inputs" / "plan.schema.json").read_text())
    doc = json.loads(cli("check", PREVIEW, "--json").out)
    assert doc["input_findings"]
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(doc)) == []
    bad = {**doc, "input_findings": [{"policy": "x"}]}  # the schema can fail on them
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(bad))
