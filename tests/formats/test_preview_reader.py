"""`pulumi preview --json` (FORMAT §1): real AWS previews and hand-written GCP ones (SOURCES.md)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from governance.errors import CliError
from governance.inputs.values import SECRET, UNKNOWN
from tests.formats.conftest import (
    GCP_PREVIEW,
    NO_SAMES,
    REPLACEMENT_STEPS,
    by_name,
    evaluate,
    load,
    read,
    read_doc,
)

AWS_SAMPLES = [
    # file, resources read, skipped, secrets blinded, unknowns kept. The counts were taken
    # independently of the reader: custom, non-provider newStates, and unknown sentinels in
    # their inputs outside `__` keys.
    ("preview_aws_components-60-creates_cli3.3x.json", 49, {"component": 10, "stack": 1}, 2, 62),
    ("preview_aws_unknowns-deps_cli3.3x.json", 3, {"stack": 1}, 0, 2),
    ("preview_aws_same-and-create_cli3.3x.json", 2, {"stack": 1}, 0, 0),
]


@pytest.mark.parametrize(("name", "count", "skipped", "secrets", "unknowns"), AWS_SAMPLES)
def test_real_aws_previews_are_read(
    name: str, count: int, skipped: dict[str, int], secrets: int, unknowns: int
) -> None:
    got = read(name)
    plan = got.plan
    assert got.format == "pulumi preview --json"
    assert len(plan["resources"]) == count
    assert plan["source"]["skipped"] == skipped
    assert plan["source"]["secrets"] == secrets
    assert plan["source"]["unknowns"] == unknowns
    assert plan["stack"] == "dev"
    assert all(r["type"].startswith("aws:") for r in plan["resources"])
    assert "__defaults" not in json.dumps(plan)
    # AWS config is not GCP's: no stack region or project is made up from `aws:region`.
    assert "region" not in plan and "project" not in plan


def test_aws_resources_are_reported_not_priced_by_mlgov() -> None:
    plan = evaluate(read("preview_aws_components-60-creates_cli3.3x.json").plan)
    assert plan["cost"]["monthly_usd"] == 0
    rows = plan["resources"]
    assert rows and all(r.get("monthly_usd") is None for r in rows)
    assert all(
        "mlgov prices Google Cloud resources of pulumi-gcp (gcp:) only" in r["unpriced"]
        for r in rows
    )
    unpriced = [v for v in plan["violations"] if v["policy"] == "mlgov-cost-unpriced"]
    assert len(unpriced) == 49 and {v["enforcement"] for v in unpriced} == {"advisory"}


def test_plain_text_passwords_in_a_preview_are_blinded() -> None:
    plan = read("preview_aws_components-60-creates_cli3.3x.json").plan
    rows = {r["type"]: r["inputs"] for r in plan["resources"]}
    assert rows["aws:rds/instance:Instance"]["password"] == SECRET
    assert rows["aws:rds/cluster:Cluster"]["masterPassword"] == SECRET
    assert "example1234!" not in json.dumps(plan)


def test_nested_unknowns_stay_unknown() -> None:
    plan = read("preview_aws_unknowns-deps_cli3.3x.json").plan
    instance = by_name(plan["resources"])["example-ec2-instance"]
    volume_ids = [d["volumeId"] for d in instance["inputs"]["ebsBlockDevices"]]
    assert volume_ids == [UNKNOWN, UNKNOWN]


def test_a_same_step_is_on_both_sides_and_a_create_only_after() -> None:
    got = read("preview_aws_same-and-create_cli3.3x.json")
    assert got.before is not None
    assert sorted(r["name"] for r in got.plan["resources"]) == ["example", "example-1"]
    assert [r["name"] for r in got.before["resources"]] == ["example"]
    assert (
        got.before["resources"][0]["inputs"] == by_name(got.plan["resources"])["example"]["inputs"]
    )


# ---------------------------------------------------------------- GCP, every step kind


@pytest.fixture(scope="module")
def gcp() -> Any:
    return read(GCP_PREVIEW)


def test_gcp_preview_reads_the_custom_resources_and_skips_the_rest(gcp: Any) -> None:
    plan = gcp.plan
    assert plan["stack"] == "dev"
    assert sorted(r["name"] for r in plan["resources"]) == [
        "datasets", "dev-budget", "metadata", "metadata-user", "nb-alice", "scratch",
        "trainer", "trainer-sa",
    ]  # fmt: skip
    assert plan["source"]["skipped"] == {"component": 1, "provider": 1, "stack": 1}
    assert plan["source"]["ops"] == {"create": 6, "delete": 1, "replace": 1, "same": 3, "update": 1}
    assert "warnings" not in plan  # --show-sames: the whole stack is listed
    assert "__defaults" not in json.dumps(plan) and "__meta" not in json.dumps(gcp.before)


def test_create_takes_new_state_and_has_no_before(gcp: Any) -> None:
    after, before = by_name(gcp.plan["resources"]), by_name(gcp.before["resources"])
    assert after["nb-alice"]["op"] == "create"
    assert after["nb-alice"]["inputs"]["gceSetup"]["machineType"] == "n1-standard-4"
    assert "nb-alice" not in before


def test_update_has_old_inputs_before_and_new_after(gcp: Any) -> None:
    after, before = by_name(gcp.plan["resources"]), by_name(gcp.before["resources"])
    assert before["scratch"]["inputs"]["size"] == 100
    assert after["scratch"]["inputs"]["size"] == 500
    assert after["scratch"]["op"] == before["scratch"]["op"] == "update"


def test_replace_shows_both_sides(gcp: Any) -> None:
    after, before = by_name(gcp.plan["resources"]), by_name(gcp.before["resources"])
    assert before["metadata"]["inputs"]["databaseVersion"] == "MYSQL_8_0"
    assert before["metadata"]["inputs"]["settings"]["tier"] == "db-custom-2-7680"
    assert after["metadata"]["inputs"]["databaseVersion"] == "POSTGRES_15"
    assert after["metadata"]["inputs"]["settings"]["tier"] == "db-custom-4-15360"


def test_delete_has_no_new_state_and_is_only_before(gcp: Any) -> None:
    after, before = by_name(gcp.plan["resources"]), by_name(gcp.before["resources"])
    assert "gpu-pool" not in after
    assert before["gpu-pool"]["inputs"]["nodeConfig"]["machineType"] == "g2-standard-8"
    assert before["gpu-pool"]["op"] == "delete"


def test_same_is_identical_on_both_sides(gcp: Any) -> None:
    after, before = by_name(gcp.plan["resources"]), by_name(gcp.before["resources"])
    assert after["datasets"]["inputs"] == before["datasets"]["inputs"]
    assert sorted(before) == ["datasets", "dev-budget", "gpu-pool", "metadata", "scratch"]


def test_secrets_and_unknowns_in_a_gcp_preview(gcp: Any) -> None:
    after = by_name(gcp.plan["resources"])
    assert after["metadata-user"]["inputs"]["password"] == SECRET
    assert after["metadata-user"]["inputs"]["instance"] == UNKNOWN
    assert after["trainer"]["inputs"]["serviceAccount"]["email"] == UNKNOWN
    assert gcp.plan["source"]["secrets"] == 1
    assert gcp.plan["source"]["unknowns"] == 2


def test_project_and_zone_come_through_the_explicit_provider(gcp: Any) -> None:
    trainer = by_name(gcp.plan["resources"])["trainer"]
    assert trainer["inputs"]["zone"] == "europe-west4-a"
    assert trainer["inputs"]["project"] == "acme-ml-eu"
    assert "region" not in trainer["inputs"]  # compute instances have no region input
    assert trainer["inherited"] == {
        "project": "project of provider 'europe'",
        "zone": "zone of provider 'europe'",
    }


def test_default_provider_resources_take_the_stack_config(gcp: Any) -> None:
    after = by_name(gcp.plan["resources"])
    assert after["trainer-sa"]["inputs"]["project"] == "acme-ml-dev"
    assert after["trainer-sa"]["inherited"] == {"project": "stack config gcp:project"}
    # A resource that names its own location inherits none (only the project).
    assert after["scratch"]["inputs"]["zone"] == "us-central1-a"
    assert after["scratch"]["inherited"] == {"project": "stack config gcp:project"}
    assert after["nb-alice"]["inputs"]["location"] == "us-central1-a"
    assert "zone" not in after["nb-alice"]["inputs"]
    assert gcp.plan["region"] == "us-central1"
    assert gcp.plan["project"] == "acme-ml-dev"
    assert gcp.plan["assumptions"] == {"default_region": "us-central1"}


def test_before_side_resolves_through_the_old_providers(gcp: Any) -> None:
    before = by_name(gcp.before["resources"])
    assert before["gpu-pool"]["inputs"]["project"] == "acme-ml-dev"


def test_step_order_does_not_matter() -> None:
    doc = load(GCP_PREVIEW)
    shuffled = copy.deepcopy(doc)
    shuffled["steps"] = shuffled["steps"][5:] + shuffled["steps"][:5][::-1]
    assert read_doc(shuffled).plan == read_doc(doc).plan
    assert read_doc(shuffled).before == read_doc(doc).before


def test_unlisted_sames_are_warned_about() -> None:
    plan = read(NO_SAMES).plan
    messages = [w["message"] for w in plan["warnings"]]
    assert any(
        m.startswith("5 unchanged resource(s) are counted") and "--show-sames" in m
        for m in messages
    )
    assert all(w["key"] == NO_SAMES.name for w in plan["warnings"])


def test_locations_nobody_knows_stay_unknown_not_guessed() -> None:
    plan = read(NO_SAMES).plan
    rows = by_name(plan["resources"])
    # No gcp:zone in the config (the default provider may read GOOGLE_ZONE; the file can't say).
    assert rows["features-cache"]["inputs"]["zone"] == UNKNOWN
    assert rows["features-cache"]["inherited"]["zone"].startswith("unknown: gcp:zone is not")
    # Through an explicit provider the preview does not list (unchanged, no --show-sames).
    assert rows["eu-archive"]["inputs"]["zone"] == UNKNOWN
    assert "provider 'europe' is not in the preview" in rows["eu-archive"]["inherited"]["zone"]
    assert "project" not in rows["eu-archive"]["inputs"]  # an unknown project is left out
    assert "region" not in plan and "assumptions" not in plan
    evaluated = by_name(evaluate(plan)["resources"])
    assert evaluated["features-cache"]["monthly_usd"] is None
    assert evaluated["eu-archive"]["monthly_usd"] is None
    messages = " ".join(w["message"] for w in plan["warnings"])
    assert "(eu-archive) have no known zone" in messages
    assert "(features-cache) have no known zone" in messages


def test_replacement_steps_count_once_and_reads_are_not_priced() -> None:
    got = read(REPLACEMENT_STEPS)
    assert got.plan["source"]["ops"] == {
        "create-replacement": 1, "delete-replaced": 1, "read": 1, "replace": 1, "same": 1,
    }  # fmt: skip
    assert [(r["name"], r["op"]) for r in got.plan["resources"]] == [("batch", "replace")]
    assert got.before is not None
    assert [(r["name"], r["op"]) for r in got.before["resources"]] == [("batch", "replace")]
    assert got.plan["resources"][0]["inputs"]["zone"] == "us-central1-b"
    assert got.before["resources"][0]["inputs"]["zone"] == "us-central1-a"


def test_physical_replacement_steps_alone_give_both_sides() -> None:
    doc = load(REPLACEMENT_STEPS)
    doc["steps"] = [s for s in doc["steps"] if s["op"] != "replace"]
    got = read_doc(doc)
    assert [r["op"] for r in got.plan["resources"]] == ["create-replacement"]
    assert got.before is not None
    assert [r["op"] for r in got.before["resources"]] == ["delete-replaced"]


def test_a_refreshed_resource_is_counted_once_with_the_programs_step() -> None:
    # `pulumi preview --refresh --json`: a drifted resource's refresh step is shown as an update
    # (FORMAT §1.4) before the program's own step for the same URN.
    doc = load(GCP_PREVIEW)
    disk = next(s for s in doc["steps"] if s["urn"].endswith("::scratch"))
    drifted = copy.deepcopy(disk)
    drifted["newState"]["inputs"]["size"] = 250  # what the cloud has now
    doc["steps"].insert(0, drifted)
    got = read_doc(doc)
    scratch = [r for r in got.plan["resources"] if r["name"].startswith("scratch")]
    assert [r["inputs"]["size"] for r in scratch] == [500]
    assert [r["name"] for r in got.before["resources"]].count("scratch") == 1


def test_an_op_mlgov_does_not_know_is_skipped_with_a_warning() -> None:
    doc = load(REPLACEMENT_STEPS)
    doc["steps"][2]["op"] = "teleport"
    plan = read_doc(doc, "p.json").plan
    assert any("op 'teleport' is not one mlgov knows" in w["message"] for w in plan["warnings"])


def test_names_that_repeat_under_different_parents_are_made_unique() -> None:
    doc = load(GCP_PREVIEW)
    twin = copy.deepcopy(next(s for s in doc["steps"] if s["urn"].endswith("::trainer-sa")))
    twin["urn"] = twin["newState"]["urn"] = twin["urn"].replace(
        "acme:ml:TrainingEnv$", "acme:ml:ServingEnv$"
    )
    doc["steps"].append(twin)
    names = sorted(r["name"] for r in read_doc(doc).plan["resources"] if "trainer-sa" in r["name"])
    assert names == ["trainer-sa (acme:ml:ServingEnv)", "trainer-sa (acme:ml:TrainingEnv)"]


def test_a_secret_or_unknown_provider_region_is_not_used() -> None:
    doc = load(GCP_PREVIEW)
    provider = next(s for s in doc["steps"] if s["urn"].endswith("::europe"))
    provider["newState"]["inputs"]["zone"] = "[secret]"
    trainer = by_name(read_doc(doc).plan["resources"])["trainer"]
    assert trainer["inputs"]["zone"] == UNKNOWN
    assert (
        trainer["inherited"]["zone"]
        == "unknown: provider 'europe' sets no zone (it may come from the environment, which the file does not show)"
    )


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda d: d["steps"].__setitem__(1, "create"), "p.json: steps[1]: must be a preview step"),
        (lambda d: d["steps"][1].pop("op"), "p.json: steps[1].op: required"),
        (
            lambda d: d["steps"][1]["newState"].__setitem__("urn", "nope"),
            "p.json: steps[1].newState.urn: must be a Pulumi URN",
        ),
        (lambda d: d.__setitem__("steps", {"a": 1}), "p.json: steps: must be a list"),
    ],
)
def test_malformed_steps_name_the_key(change: Any, problem: str) -> None:
    doc = load(GCP_PREVIEW)
    change(doc)
    with pytest.raises(CliError) as err:
        read_doc(doc, "p.json")
    assert err.value.problems[0].startswith(problem)


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        # The stack region the location rule holds every resource to: a newline in it split the
        # finding's `what:` line in two; a number was ignored without a word.
        ("gcp:region", "us-central1\nX", "'us-central1\\nX' is not a region name such as us-central1"),
        ("gcp:region", 5, "must be a string, got 5"),
        ("gcp:region", "mars-central1", "'mars-central1' is not a region Google offers"),
        ("gcp:zone", "nowhere", "'nowhere' is not a zone name such as us-central1-a"),
        ("gcp:project", ["acme"], "must be a string, got ['acme']"),
        ("gcp:project", "acme\nml", "'acme\\nml' is not a project id (no spaces or line breaks)"),
    ],
)  # fmt: skip
def test_a_config_location_google_would_refuse_names_the_key(
    key: str, value: Any, problem: str
) -> None:
    # Held to the values a stack file is held to (`gcp:region: mars-central1` is exit 2 there).
    doc = load(GCP_PREVIEW)
    doc["config"][key] = value
    with pytest.raises(CliError) as err:
        read_doc(doc, "p.json")
    assert err.value.problems == [f"p.json: config.{key}: {problem}"] or err.value.problems[
        0
    ].startswith(f"p.json: config.{key}: {problem}"), err.value.problems
    assert err.value.code == 2


def test_unknown_secret_and_domain_scoped_config_values_are_read_as_before() -> None:
    doc = load(GCP_PREVIEW)
    doc["config"]["gcp:zone"] = "[secret]"
    doc["config"]["gcp:region"] = UNKNOWN
    assert "region" not in read_doc(doc, "p.json").plan  # unknown: never guessed
    doc["config"]["gcp:region"] = "us-central1"
    doc["config"]["gcp:project"] = "example.com:acme-ml"  # a legacy domain-scoped project
    plan = read_doc(doc, "p.json").plan
    assert (plan["region"], plan["project"]) == ("us-central1", "example.com:acme-ml")


INSTANCE_EXPORT = "stackexport_gcp_instance-dns-2providers_cli3.91.1.json"


def _gcp_provider(states: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(s for s in states if s["urn"].endswith(f"pulumi:providers:gcp::{name}"))


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("region", "mars-central1", "'mars-central1' is not a region"),
        ("region", "us-central1\nOK: no mandatory violations", "is not a region name"),
        ("zone", "us-central1-z", "'us-central1-z'"),
    ],
)
def test_an_explicit_gcp_providers_location_is_held_to_what_google_offers(
    key: str, value: str, problem: str
) -> None:
    # A provider's inputs set the region of every resource under it, as the stack config does
    # for the default provider: the same values are refused (in a preview and a stack export).
    doc = load(GCP_PREVIEW)
    step = next(s for s in doc["steps"] if s["urn"].endswith("pulumi:providers:gcp::europe"))
    step["newState"]["inputs"][key] = value
    with pytest.raises(CliError) as err:
        read_doc(doc, "p.json")
    line = err.value.problems[0]
    assert line.startswith("p.json: provider urn:pulumi:dev::ml-platform::pulumi:providers:gcp::")
    assert f"inputs.{key}: " in line and problem in line, line
    assert err.value.code == 2

    export = load(INSTANCE_EXPORT)
    _gcp_provider(export["deployment"]["resources"], "provider")["inputs"][key] = value
    with pytest.raises(CliError) as err:
        read_doc(export, "s.json")
    assert f"inputs.{key}: " in err.value.problems[0] and problem in err.value.problems[0]
    assert err.value.code == 2


def test_a_stack_exports_config_location_is_held_like_a_previews() -> None:
    export = load(INSTANCE_EXPORT)
    export["deployment"].setdefault("config", {})
    # Stack exports carry no config of their own; a DIY checkpoint does (`checkpoint.config`).
    checkpoint = {
        "version": 3,
        "checkpoint": {
            "stack": "test",
            "config": {"gcp:region": "mars-central1"},
            "latest": export["deployment"],
        },
    }
    with pytest.raises(CliError) as err:
        read_doc(checkpoint, "c.json")
    assert err.value.problems[0].startswith("c.json: config.gcp:region: 'mars-central1'")


def test_an_aws_providers_region_is_not_judged_as_a_google_region() -> None:
    # An aws provider's `region: us-east-1` is a real AWS region; only gcp providers are held
    # to Google's locations, so such a preview is read whole, as before.
    doc = load(AWS_SAMPLES[0][0])
    urn = "urn:pulumi:dev::aws-ts-ebs::pulumi:providers:aws::east"
    state = {"urn": urn, "custom": True, "type": "pulumi:providers:aws"}
    doc["steps"].insert(
        0, {"op": "create", "urn": urn, "newState": {**state, "inputs": {"region": "us-east-1"}}}
    )
    assert len(read_doc(doc, "aws.json").plan["resources"]) == AWS_SAMPLES[0][1]
    state["type"] = "pulumi:providers:gcp"  # the same region on a gcp provider is refused
    doc["steps"][0] = {
        "op": "create",
        "urn": urn,
        "newState": {**state, "inputs": {"region": "us-east-1"}},
    }
    with pytest.raises(CliError):
        read_doc(doc, "aws.json")
