"""`mlgov check|diff|comment` on Pulumi's own formats, end to end through the CLI's `main`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from governance.review.comment import MARKER
from tests.formats.conftest import DATA, GCP_PREVIEW, NO_SAMES, V4_EXPORT, Cli


def test_check_a_gcp_preview(cli: Cli) -> None:
    result = cli("check", GCP_PREVIEW, "--json")
    assert result.code == 1  # mandatory findings
    assert result.err == ""
    doc = json.loads(result.out)
    rows = {r["name"]: r for r in doc["resources"]}
    assert "gpu-pool" not in rows  # deleted by this preview
    assert rows["trainer"]["monthly_usd"] > 0 and rows["nb-alice"]["monthly_usd"] > 0
    assert rows["scratch"]["monthly_usd"] > 0
    assert doc["cost"]["monthly_usd"] == pytest.approx(
        sum(r["monthly_usd"] or 0 for r in doc["resources"]), abs=0.05
    )
    location = [v for v in doc["violations"] if v["policy"] == "mlgov-location-in-region"]
    # Issue 32: the instance through the explicit europe provider is in its own provider's
    # region, which it is judged against (not the stack's gcp:region, its default provider's).
    assert rows["trainer"]["provider_region"] == {
        "region": "europe-west4",
        "from": "region of provider 'europe'",
    }
    assert rows["nb-alice"]["provider_region"] == {
        "region": "us-central1",
        "from": "stack config gcp:region",
    }
    assert location == []
    assert doc["source"]["format"] == "pulumi preview --json"


def test_a_partial_preview_is_refused_unless_asked_for(cli: Cli) -> None:
    # Issue 30, N2: priced as it was, a mandatory finding on an unchanged bucket disappeared.
    refused = cli("check", NO_SAMES)
    assert (refused.code, refused.out) == (2, "")
    assert refused.err == (
        f"mlgov: error: {NO_SAMES}: a preview without its unchanged resources (5 `same` step(s) "
        "counted in changeSummary but not listed): its totals, budgets and stack-wide rules would "
        "judge a fragment; run `pulumi preview --json --show-sames`, or pass --partial to judge "
        "only what changes\n"
    )


def test_check_text_output_and_warnings_of_a_partial_preview(cli: Cli) -> None:
    result = cli("check", NO_SAMES, "--partial")
    assert result.code == 1
    assert result.out.splitlines()[0] == (
        "PARTIAL (--partial): this preview lists only what changes; 5 unchanged resource(s) are "
        "not in its totals, budgets or stack-wide rules"
    )
    assert f"mlgov: warning: {NO_SAMES}: 5 unchanged resource(s) are counted" in result.err
    assert "features-cache" in result.out and "unknown" in result.out
    assert "04da6b54" not in result.out  # the sentinel is shown as "unknown"


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.json")))
def test_check_every_sample_and_fixture(cli: Cli, name: str) -> None:
    if "_aws_" in name:  # no Google Cloud resource: refused, nothing priced (issue 30, N1)
        result = cli("check", DATA / name, "--json")
        assert (result.code, result.out) == (2, "")
        assert "no Google Cloud resource to judge" in result.err
        return
    partial = ["--partial"] if "no-sames" in name else []
    result = cli("check", DATA / name, "--json", *partial)
    assert result.code in (0, 1), result.err
    doc = json.loads(result.out)
    assert doc["resources"] and doc["source"]["file"] == str(DATA / name)
    assert "Traceback" not in result.err


def test_diff_of_one_preview_is_its_own_change(cli: Cli) -> None:
    result = cli("diff", GCP_PREVIEW, "--json")
    assert result.code == 0, result.err
    diff = json.loads(result.out)
    changes = {c["name"]: c for c in diff["changes"]}
    pool = changes["gpu-pool"]
    assert pool["status"] == "removed" and pool["before_usd"] > 0 and pool["after_usd"] == 0
    sql = changes["metadata"]  # replaced: priced on both sides
    assert sql["status"] == "replaced" and 0 < sql["before_usd"] < sql["after_usd"]
    disk = changes["scratch"]  # 100 -> 500 GB
    assert disk["after_usd"] == pytest.approx(5 * disk["before_usd"], rel=0.01)
    assert changes["nb-alice"]["status"] == changes["trainer"]["status"] == "added"
    assert "datasets" not in changes and "dev-budget" not in changes  # same: no change
    assert diff["delta_usd"] < 0  # the deleted GPU pool costs more than what is added
    assert diff["delta_usd"] == pytest.approx(
        diff["after"]["monthly_usd"] - diff["before"]["monthly_usd"], abs=0.01
    )


def test_diff_of_one_preview_as_markdown(cli: Cli) -> None:
    result = cli("diff", GCP_PREVIEW, "--markdown")
    assert result.code == 0
    assert "| removed | `gpu-pool` | container/NodePool |" in result.out
    assert "| replaced | `metadata` | sql/DatabaseInstance | $100.32 | $198.95 | +$98.63 |" in (
        result.out
    )
    assert "replaced: the old resource is deleted and a new one created" in result.out


def test_diff_of_two_inputs_in_any_formats(cli: Cli) -> None:
    result = cli("diff", DATA / "preview_gcp_replacement-steps_read.json", GCP_PREVIEW, "--json")
    # Two unrelated programs: the prod one's project becomes the dev one's, which the governance
    # review counts as a prod weakening nobody acknowledged (exit 1); the cost diff is complete.
    assert result.code == 1, result.err
    assert json.loads(result.out)["governance"]["blocking"] == ["stack.project"]
    names = {c["name"]: c["status"] for c in json.loads(result.out)["changes"]}
    assert names["batch"] == "removed" and names["trainer"] == "added"


def test_diff_of_a_stack_export_and_a_preview(cli: Cli) -> None:
    result = cli(
        "diff", DATA / "stackexport_gcp_instance-dns-2providers_cli3.91.1.json", GCP_PREVIEW
    )
    assert result.code == 0, result.err
    assert "- removed  compute/Instance ins:" in result.out
    assert "+ added    compute/Instance trainer:" in result.out


def test_what_check_prints_can_be_checked_again(cli: Cli, tmp_path: Path) -> None:
    first = cli("check", GCP_PREVIEW, "--json")
    saved = tmp_path / "plan.json"
    saved.write_text(first.out)
    second = cli("check", saved, "--json")
    assert second.code == first.code == 1
    again, before = json.loads(second.out), json.loads(first.out)
    assert again["violations"] == before["violations"]
    assert again["cost"] == before["cost"]
    assert again["source"]["format"] == "pulumi preview --json"  # still says where it came from


def test_diff_of_one_file_that_is_not_a_preview(cli: Cli) -> None:
    result = cli("diff", V4_EXPORT)
    assert result.code == 2
    assert result.err.startswith(f"mlgov: error: {V4_EXPORT}: diff of one file needs a")
    assert "`mlgov diff BASE HEAD`" in result.err


def test_comment_on_a_preview(cli: Cli) -> None:
    result = cli("comment", "--preview", "dev", GCP_PREVIEW)
    assert result.code == 1, result.err  # the comment is whole, and its mandatory finding blocks
    body = result.out
    assert body.startswith(MARKER)
    assert ":x: `dev`" in body and "this PR cannot merge as is" in body
    assert "| removed | `gpu-pool` |" in body
    assert "| :x: mandatory | `mlgov-storage-no-public-access` | `datasets` |" in body


def test_comment_stack_triple_evaluates_pulumi_files(cli: Cli) -> None:
    result = cli("comment", "--stack", "dev", "none", GCP_PREVIEW)
    assert result.code == 1, result.err  # a mandatory finding blocks the PR
    assert "`mlgov-storage-no-public-access`" in result.out  # findings came from evaluating it


def test_comment_warns_about_a_partial_preview(cli: Cli) -> None:
    refused = cli("comment", "--preview", "staging", NO_SAMES)
    assert refused.code == 2 and "the plan cannot be judged" in refused.out
    result = cli("comment", "--preview", "staging", NO_SAMES, "--partial")
    assert result.code == 1  # blocked by its mandatory findings; the warning is still printed
    assert "--show-sames" in result.err
    assert result.out.splitlines()[0] == (
        ":warning: PARTIAL (--partial): this preview lists only what changes; 5 unchanged "
        "resource(s) are not in its totals, budgets or stack-wide rules (`staging`)."
    )


@pytest.mark.parametrize("path", [GCP_PREVIEW, NO_SAMES, V4_EXPORT])
def test_what_check_prints_for_a_pulumi_file_validates_against_the_schema(
    cli: Cli, path: Path
) -> None:
    import jsonschema

    from tests.conftest import REPO

    schema = json.loads((REPO / "governance" / "inputs" / "plan.schema.json").read_text())
    result = cli("check", path, "--json", *(["--partial"] if path == NO_SAMES else []))
    doc = json.loads(result.out)
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(doc)) == []
    # The keys the readers add are described (not only allowed as extras).
    described = schema["properties"]["resources"]["items"]["properties"]
    assert {"urn", "inherited"} <= described.keys() and "source" in schema["properties"]


def test_check_reads_a_preview_from_stdin(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(GCP_PREVIEW.read_text()))
    result = cli("check", "-", "--json")
    assert result.code == 1, result.err
    doc = json.loads(result.out)
    assert doc["source"]["file"] == "<stdin>" and len(doc["resources"]) == 8


def test_the_comment_shows_no_disk_size_a_database_does_not_set(cli: Cli) -> None:
    # The preview's replaced Cloud SQL instance leaves settings.diskSize to Google's default.
    body = cli("comment", "--preview", "dev", GCP_PREVIEW).out
    assert "| `metadata` | sql/DatabaseInstance | us-central1 | db-custom-4-15360, ZONAL |" in body
    assert "None GB" not in body
