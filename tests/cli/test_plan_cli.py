"""`mlgov plan|check`: the plan document contract, exit codes, warnings, errors without tracebacks.

In-process through `main` (capsys); tests/cli/test_smoke.py runs the real command once per exit
code.
"""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from governance.cli.main import main
from tests.cli.shipped_plans import shipped_plan
from tests.conftest import REPO, STACKS, stack_config


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run_cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., Result]:
    """The CLI in-process, from the repo root, on a 200-column terminal."""
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: str, stdin: str | None = None) -> Result:
        capsys.readouterr()
        if stdin is not None:
            monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code = main(list(args))
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


def plan_json(stack: str) -> dict[str, Any]:
    """`plan_stack(stack)`, planned once per process (a copy per call: tests change documents)."""
    return json.loads(json.dumps(shipped_plan(stack)))


def write_stack(tmp_path: Path, settings_change: Any) -> Path:
    config = copy.deepcopy(stack_config("dev"))
    settings_change(config["mlgov:settings"])
    path = tmp_path / "Pulumi.custom.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    return path


@pytest.mark.parametrize("stack", STACKS)
def test_plan_json_matches_the_contract(stack: str, run_cli: Callable[..., Result]) -> None:
    printed = run_cli("plan", "--stack", stack, "--json")
    assert printed.returncode == 0, printed.stderr
    doc = json.loads(printed.stdout)
    assert doc == plan_json(stack)
    assert doc["stack"] == stack
    assert doc["violations"] == [v for v in doc["violations"] if v["enforcement"] != "mandatory"]
    for v in doc["violations"]:
        assert set(v) >= {"policy", "resource", "type", "enforcement", "message"}
    assert set(doc["cost"]) >= {"monthly_usd", "baseline_monthly_usd"}
    assert 0 < doc["cost"]["monthly_usd"] < doc["cost"]["baseline_monthly_usd"]
    custom = [r for r in doc["resources"] if not r["type"].startswith("mlgov:index:")]
    assert len(custom) >= 30
    for r in custom:
        assert set(r) >= {"type", "name", "inputs", "monthly_usd"}
        assert r["monthly_usd"] >= 0
    nb = next(r for r in custom if r["type"] == "gcp:workbench/instance:Instance")
    assert nb["inputs"]["gceSetup"]["metadata"]["idle-timeout-seconds"].isdigit()
    assert nb["inputs"]["location"].startswith(doc["region"])
    total = sum(r["monthly_usd"] for r in custom)
    assert total == pytest.approx(doc["cost"]["monthly_usd"], abs=0.05 * len(custom))


@pytest.mark.usefixtures("shared_plans")  # what is checked is the printing of the plans
def test_plan_human_and_markdown_output(run_cli: Callable[..., Result]) -> None:
    human = run_cli("plan", "--stack", "dev")
    assert human.returncode == 0, human.stderr
    assert "notebooks-alice" in human.stdout and "idle stop 60 min" in human.stdout
    assert "1x NVIDIA_TESLA_T4" in human.stdout
    assert "OK: no mandatory violations" in human.stdout
    md = run_cli("plan", "--stack", "prod", "--markdown")
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("### :white_check_mark: mlgov plan: `prod`")
    assert "| `training-tpu-v5e` | container/NodePool | europe-west4 |" in md.stdout


def test_plan_by_config_path_and_the_same_document(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text((REPO / "stacks" / "Pulumi.dev.yaml").read_text())
    result = run_cli("plan", "--config", str(path), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["resources"] == plan_json("dev")["resources"]


def test_invalid_config_exits_2_naming_the_key(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    path = write_stack(tmp_path, lambda s: s["notebooks"]["alice"].update(idle_minutes=600))
    result = run_cli("plan", "--config", str(path))
    assert result.returncode == 2
    assert (
        "mlgov:settings.notebooks.alice.idle_minutes: 600 is above the dev maximum" in result.stderr
    )
    assert "Traceback" not in result.stderr + result.stdout


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("config: [1, 2", "not valid YAML (line 1): did not find expected ',' or ']'"),
        ("just: text", "a Pulumi stack file needs a top-level `config:` mapping"),
        ("config:\n  gcp:project: acme-ml-dev\n", "mlgov:settings: required key is missing"),
    ],
)
def test_unreadable_stack_files_exit_2(
    tmp_path: Path, content: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "Pulumi.x.yaml"
    path.write_text(content)
    assert main(["plan", "--config", str(path)]) == 2
    assert expected in capsys.readouterr().err


def test_unknown_stack_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--stack", "qa"]) == 2
    err = capsys.readouterr().err
    assert "no stack file stacks/Pulumi.qa.yaml; known stacks: dev, staging, prod" in err
    with pytest.raises(SystemExit) as exit_:
        main(["plan"])
    assert exit_.value.code == 2
    with pytest.raises(SystemExit) as exit_:
        main(["plan", "--stack", "dev", "--json", "--markdown"])
    assert exit_.value.code == 2


def test_check_round_trips_a_plan_document(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan_json("dev")))
    result = run_cli("check", str(path), "--json")
    assert result.returncode == 0, result.stderr
    checked = json.loads(result.stdout)
    assert checked["cost"] == plan_json("dev")["cost"]
    assert checked["violations"] == plan_json("dev")["violations"]


def test_check_reads_stdin_and_fails_on_a_mandatory_violation(
    run_cli: Callable[..., Result],
) -> None:
    doc = copy.deepcopy(plan_json("dev"))
    nb = next(r for r in doc["resources"] if r["type"] == "gcp:workbench/instance:Instance")
    del nb["inputs"]["gceSetup"]["metadata"]["idle-timeout-seconds"]
    nb["inputs"]["gceSetup"]["disablePublicIp"] = False
    result = run_cli("check", "-", stdin=json.dumps(doc))
    assert result.returncode == 1, result.stderr
    assert "[MANDATORY] mlgov-workbench-idle-shutdown" in result.stdout
    assert "FAIL:" in result.stdout and nb["name"] in result.stdout


def test_check_accepts_a_document_with_only_custom_resources(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = {
        "stack": "dev",
        "resources": [
            {
                "type": "gcp:workbench/instance:Instance",
                "name": "nb-alice",
                "inputs": {
                    "location": "us-central1-a",
                    "gceSetup": {"metadata": {"idle-timeout-seconds": "3600"}},
                },
                "monthly_usd": 41.2,
            }
        ],
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    code = main(["check", str(path), "--json"])
    out = json.loads(capsys.readouterr().out)
    # The minimal document lacks labels and a budget: mandatory findings, not a crash.
    assert code == 1
    assert {v["policy"] for v in out["violations"]} >= {"mlgov-labels-required"}
    assert out["resources"][0]["monthly_usd"] >= 0


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "document: must be a JSON object with `stack` and `resources`"),
        ('{"stack": "dev"}', "resources: required, must be a list of resources"),
        (
            '{"resources": [{"name": "x"}]}',
            "resources[0].type: required, must be a non-empty string",
        ),
        (
            '{"resources": [{"type": "gcp:bigquery/dataset:Dataset", "name": "x", "inputs": []}]}',
            "resources[0].inputs: must be an object",
        ),
        (
            '{"resources": [{"type": "t:t/t:T", "name": "x", "monthly_usd": "12"}]}',
            "resources[0].monthly_usd: must be a number",
        ),
        (
            '{"resources": [{"type": "gcp:pubsub/topic:Topic", "name": "t"}],'
            ' "policy_config": {"environment": "qa"}}',
            "policy_config:",
        ),
        ('{"resources": []}', "no Google Cloud resource to judge (no resource)"),
        (
            '{"resources": [{"type": "aws:s3/bucket:Bucket", "name": "b"}]}',
            "no Google Cloud resource to judge (1 resource(s), none of Google Cloud "
            "(aws:s3/bucket:Bucket))",
        ),
        (
            '{"resources": [{"type": "gcp:compute/disk:Disk", "name": "d", "inputs": {"size": -5}}]}',
            "resources[0] (d).inputs.size: -5 is negative: a size or count cannot be",
        ),
        (
            '{"resources": [{"type": "gcp:compute/disk:Disk", "name": "d", "inputs": {"size": '
            + "1"
            + "0" * 400
            + "}}]}",
            "resources[0] (d).inputs.size: 100000000000...(401 digits) is larger than any "
            "Google Cloud API field holds",
        ),
        (
            '{"resources": [{"type": "gcp:container/nodePool:NodePool", "name": "p",'
            ' "inputs": {"nodeCount": 2.5}}]}',
            "resources[0] (p).inputs.nodeCount: 2.5 is not a whole number",
        ),
        (
            '{"resources": [{"type": "gcp:billing/budget:Budget", "name": "b",'
            ' "inputs": {"amount": {"specifiedAmount": {"units": "lots"}}}}]}',
            "cost: budget 'b': amount.specifiedAmount.units is not a number",
        ),
    ],
)
def test_bad_plan_documents_exit_2(
    doc: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "plan.json"
    path.write_text(doc)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


def _check(doc: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    code = main(["check", str(path), "--json"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


LABELS = {"team": "t", "cost-center": "c", "env": "dev", "workload": "w", "managed-by": "mlgov"}


def test_unknown_type_is_unpriced_with_an_advisory_finding_and_policies_still_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = {"resources": [{"type": "gcp:made/up:Thing", "name": "x", "inputs": {}}]}
    code, out, err = _check(doc, tmp_path, capsys)
    # not exit 2: the policies ran and decide the exit code (no budget: mandatory -> 1)
    assert (code, err) == (1, "")
    mandatory = [v["policy"] for v in out["violations"] if v["enforcement"] == "mandatory"]
    assert mandatory == ["mlgov-budget-required"]
    row = out["resources"][0]
    assert row["monthly_usd"] is None
    assert "no cost estimator for resource type 'gcp:made/up:Thing'" in row["unpriced"]
    finding = next(v for v in out["violations"] if v["policy"] == "mlgov-cost-unpriced")
    assert (finding["resource"], finding["enforcement"]) == ("x", "advisory")
    assert out["cost"]["unpriced"] == ["x"]
    assert out["cost"]["notes"][-1].endswith("could not be priced: x")


def test_a_dataset_in_a_region_without_a_price_falls_back_and_check_still_judges_policies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 11: a BigQuery dataset in asia-east1 made `check` fail before any policy ran
    doc = {"resources": [{"type": "gcp:bigquery/dataset:Dataset", "name": "ds", "inputs": {
        "datasetId": "ds", "location": "asia-east1", "labels": LABELS}}]}  # fmt: skip
    code, out, err = _check(doc, tmp_path, capsys)
    assert err == ""
    row = out["resources"][0]
    assert row["monthly_usd"] > 0
    assert row["price_fallbacks"] == [{
        "from": "us-central1", "to": "asia-east1",
        "keys": ["bigquery.storage.active", "bigquery.storage.longterm"],
    }]  # fmt: skip
    assert "ds: no price in asia-east1 for bigquery.storage.active" in out["cost"]["notes"][0]
    assert any(v["resource"] == "ds" for v in out["violations"])  # the policies did run
    assert code == (1 if any(v["enforcement"] == "mandatory" for v in out["violations"]) else 0)
    assert out["price_catalog"]["date"] == "2026-07-30"


def test_a_machine_not_offered_in_its_region_is_a_mandatory_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # G2 is not sold in europe-north2 (the Billing Catalog prices it nowhere there).
    doc = {"resources": [{"type": "gcp:compute/instance:Instance", "name": "vm", "inputs": {
        "zone": "europe-north2-a", "machineType": "g2-standard-8", "labels": LABELS,
        "bootDisk": {"initializeParams": {"size": 0}}}}]}  # fmt: skip
    code, out, _ = _check(doc, tmp_path, capsys)
    assert code == 1
    finding = next(v for v in out["violations"] if v["policy"] == "mlgov-cost-region-not-offered")
    assert finding["enforcement"] == "mandatory"
    assert finding["resource"] == "vm" and finding["type"] == "gcp:compute/instance:Instance"
    assert "is not offered in region 'europe-north2'" in finding["message"]
    assert out["resources"][0]["monthly_usd"] is None


def test_a_disk_value_compute_engine_refuses_is_a_mandatory_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # pd-extreme takes 2,500 to 120,000 provisioned IOPS: `pulumi up` would fail on 1e9 (a
    # number the API's int64 holds; 1e308, which none holds, is refused before pricing)
    doc = {"resources": [
        {"type": "gcp:compute/disk:Disk", "name": "db", "inputs": {
            "zone": "us-central1-a", "type": "pd-extreme", "size": 500, "labels": LABELS,
            "provisionedIops": 1e9}},
        {"type": "gcp:compute/disk:Disk", "name": "ok", "inputs": {
            "zone": "us-central1-a", "type": "pd-extreme", "size": 500, "labels": LABELS}},
    ]}  # fmt: skip
    code, out, _ = _check(doc, tmp_path, capsys)
    assert code == 1
    (finding,) = [v for v in out["violations"] if v["policy"] == "mlgov-cost-input-refused"]
    assert (finding["resource"], finding["enforcement"]) == ("db", "mandatory")
    assert finding["message"] == (
        "db (gcp:compute/disk:Disk): provisionedIops is 1,000,000,000: Compute Engine accepts 2,500 to "
        "120,000 IOPS for pd-extreme "
        "(https://cloud.google.com/compute/docs/disks/extreme-persistent-disk)"
    )
    rows = {r["name"]: r for r in out["resources"]}
    assert rows["db"]["monthly_usd"] is None
    assert rows["ok"]["monthly_usd"] == pytest.approx(500 * 0.125 + 100_000 * 0.065)


def test_a_commitment_assumption_shows_committed_and_list_prices_side_by_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vm = {"type": "gcp:compute/instance:Instance", "name": "vm", "inputs": {
        "zone": "us-central1-a", "machineType": "n1-standard-8", "labels": LABELS,
        "bootDisk": {"initializeParams": {"size": 0}}}}  # fmt: skip
    _, out, _ = _check({"resources": [vm], "assumptions": {"commitment": "1y"}}, tmp_path, capsys)
    row = out["resources"][0]
    # always on: 1y committed $0.23939/h x 730 h against list $0.379998/h x 511 SUD hours
    assert (row["monthly_usd"], row["list_monthly_usd"]) == (174.75, 194.18)
    assert out["cost"]["commitment"] == "1y"
    assert out["cost"]["list_monthly_usd"] == 194.18
    assert out["cost"]["baseline_monthly_usd"] == 194.18  # the baseline never commits


def test_check_missing_file_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "/nonexistent/plan.json"]) == 2
    assert (
        "/nonexistent/plan.json: cannot read: No such file or directory" in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"{\x80}", "not UTF-8 text (invalid byte at offset 1); save it as UTF-8"),
        (
            "{}".encode("utf-16"),
            "UTF-16 text (its byte-order mark says so), not UTF-8: save it "
            "as UTF-8 (Windows PowerShell's `>` writes UTF-16; use `| Out-File -Encoding utf8 "
            "FILE` instead)",
        ),
        (b"", "is empty"),
        (b"  \n", "is empty"),
        (None, "cannot read: Is a directory"),
    ],
)
def test_unreadable_inputs_exit_2_naming_the_file(
    content: bytes | None, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "input"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    for argv in (["check", str(path)], ["plan", "--config", str(path)], ["diff", str(path), "-"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err == f"mlgov: error: {path}: {expected}\n", argv


# --- settings warnings: on stderr, in the plan document, in markdown; never the exit code ---
WARN_KEY_PREFIX = "mlgov:settings"
KEY = f"{WARN_KEY_PREFIX}.notebooks.bob.expires_on"
MESSAGE = (
    "nothing stops it on that date: exempt: true tells the automation never to touch it "
    "(mlgov-exempt wins over mlgov-expires-on); remove one of the two"
)


def exempt_bob(settings: dict[str, Any]) -> None:
    settings["notebooks"]["bob"]["exempt"] = True


def test_plan_prints_warnings_on_stderr_and_records_them(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    path = write_stack(tmp_path, exempt_bob)
    printed = run_cli("plan", "--config", str(path), "--json")
    assert printed.returncode == 0
    assert printed.stderr.splitlines() == [f"mlgov: warning: {KEY}: {MESSAGE}"]
    doc = json.loads(printed.stdout)
    assert doc["warnings"] == [{"key": KEY, "message": MESSAGE}]
    markdown = run_cli("plan", "--config", str(path), "--markdown")
    assert markdown.returncode == 0
    assert f"- `{KEY}`: {MESSAGE}" in markdown.stdout.splitlines()


def test_a_plan_without_warnings_prints_none(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    printed = run_cli("plan", "--config", str(write_stack(tmp_path, lambda s: None)), "--json")
    assert printed.returncode == 0
    assert "warning" not in printed.stderr
    assert json.loads(printed.stdout)["warnings"] == []


def test_check_keeps_the_warnings_of_a_document(run_cli: Callable[..., Result]) -> None:
    doc = {
        "stack": "x",
        "resources": [{"type": "gcp:pubsub/topic:Topic", "name": "t", "inputs": {}}],
        "warnings": [{"key": KEY, "message": MESSAGE}],
    }
    printed = run_cli("check", "-", "--json", stdin=json.dumps(doc))
    assert printed.stderr.splitlines() == [f"mlgov: warning: {KEY}: {MESSAGE}"]
    assert json.loads(printed.stdout)["warnings"] == doc["warnings"]


@pytest.mark.parametrize(
    ("warnings", "problem"),
    [
        ("oops", "warnings: must be a list of {key, message} objects"),
        ([{"key": KEY}], "warnings[0]: must be an object with string key and message"),
        (["text"], "warnings[0]: must be an object with string key and message"),
    ],
)
def test_check_refuses_malformed_warnings(
    warnings: object, problem: str, run_cli: Callable[..., Result]
) -> None:
    doc = {"stack": "x", "resources": [], "warnings": warnings}
    printed = run_cli("check", "-", stdin=json.dumps(doc))
    assert printed.returncode == 2
    assert printed.stderr.splitlines() == [f"mlgov: error: <stdin>: {problem}"]


def test_a_tpu_in_a_zone_without_its_generation_is_one_finding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # TPU v4 exists only in us-central2-b: the zone rule (Google's zone list) says so, and the
    # estimate's region-level "not offered" does not repeat it.
    tpu = {
        "type": "gcp:tpu/v2Vm:V2Vm",
        "name": "tpu-old",
        "inputs": {
            "name": "old",
            "zone": "us-central1-a",
            "acceleratorType": "v4-8",
            "runtimeVersion": "tpu-vm-v4-base",
        },
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"stack": "dev", "resources": [tpu]}))
    assert main(["check", str(path), "--json"]) == 1
    found = {v["policy"] for v in json.loads(capsys.readouterr().out)["violations"]}
    assert "mlgov-tpu-zone-offered" in found
    assert "mlgov-cost-region-not-offered" not in found


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_committed_policy_pack_configs_are_what_the_stacks_generate(
    stack: str, run_cli: Callable[..., Result]
) -> None:
    # The real `pulumi preview --policy-pack-config` and the PR check read these files; a hand
    # edit (a rule disabled, a limit raised) must come from the stack file, where the
    # governance diff shows it, so `make policy-configs` is the only way to change them.
    result = run_cli("policy-config", "--stack", stack)
    assert result.returncode == 0, result.stderr
    committed = (REPO / "policies" / f"config.{stack}.json").read_text()
    assert json.loads(committed) == json.loads(result.stdout), (
        f"policies/config.{stack}.json differs from `mlgov policy-config --stack {stack}`: "
        "run `make policy-configs`"
    )
