"""`--usage-file` with `check`, `diff` and `comment` on Pulumi's formats, end to end through
`governance.cli.main.main` (the usage file itself: tests/costs/test_usage_file.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.formats.conftest import DATA, GCP_PREVIEW, Cli

INSTANCE = DATA / "stackexport_gcp_instance-dns-2providers_cli3.91.1.json"
USAGE = """\
version: 1
resource_usage:
  trainer:                  # created by the preview
    monthly_egress_gb: 2000
  gpu-pool:                 # deleted by the preview: its before side
    nodes_per_zone: 3
  datasets:                 # unchanged by the preview
    storage_gb: 10000
"""


@pytest.fixture
def usage(tmp_path: Path) -> Path:
    path = tmp_path / "usage.yml"
    path.write_text(USAGE)
    return path


def rows(out: str) -> dict[str, Any]:
    return {r["name"]: r for r in json.loads(out)["resources"]}


def test_check_prices_a_preview_with_the_usage_file(cli: Cli, usage: Path) -> None:
    plain = cli("check", GCP_PREVIEW, "--json")
    used = cli("check", GCP_PREVIEW, "--json", "--usage-file", usage)
    assert used.err == ""
    before, after = rows(plain.out), rows(used.out)
    assert "gpu-pool" not in after  # deleted: only the diff's before side has it
    for name in ("trainer", "datasets"):
        assert after[name]["monthly_usd"] > before[name]["monthly_usd"], name
        assert after[name]["declared_usage"], name
    doc = json.loads(used.out)
    assert doc["usage_file"]["source"] == str(usage)
    assert doc["cost"]["monthly_usd"] > json.loads(plain.out)["cost"]["monthly_usd"]
    # and `check` of what it printed prices it the same way, from the usage file it carries
    saved = usage.parent / "checked.json"
    saved.write_text(used.out)
    again = cli("check", saved, "--json")
    assert json.loads(again.out)["cost"] == doc["cost"]


def test_check_prices_a_stack_export_with_the_usage_file(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "u.yml"
    path.write_text(
        "resource_type_default_usage:\n  gcp:compute/instance:Instance:\n    monthly_hours: 100\n"
    )
    plain = rows(cli("check", INSTANCE, "--json").out)["ins"]["monthly_usd"]
    used = rows(cli("check", INSTANCE, "--json", "--usage-file", path).out)["ins"]
    assert 0 < used["monthly_usd"] < plain  # 100 hours a month instead of always on
    assert used["declared_usage"] == {"monthly_hours": 100}


def test_diff_prices_both_sides_with_the_usage_file(cli: Cli, usage: Path) -> None:
    plain = json.loads(cli("diff", GCP_PREVIEW, "--json").out)
    result = cli("diff", GCP_PREVIEW, "--json", "--usage-file", usage)
    assert result.code == 0, result.err
    used = json.loads(result.out)
    old = {c["name"]: c for c in plain["changes"]}
    new = {c["name"]: c for c in used["changes"]}
    check = rows(cli("check", GCP_PREVIEW, "--json", "--usage-file", usage).out)
    # The created VM's egress is in its after side, at the figure `check` prints.
    assert new["trainer"]["after_usd"] == check["trainer"]["monthly_usd"]
    assert new["trainer"]["after_usd"] > old["trainer"]["after_usd"]
    # The deleted pool is priced with its declared nodes on its before side.
    assert new["gpu-pool"]["before_usd"] > old["gpu-pool"]["before_usd"]
    assert new["gpu-pool"]["status"] == "removed" and new["gpu-pool"]["after_usd"] == 0
    # The unchanged bucket costs more on both sides, so it is still no change...
    assert "datasets" not in new
    # ...but both totals carry it.
    assert used["before"]["monthly_usd"] > plain["before"]["monthly_usd"]
    assert (
        used["after"]["monthly_usd"]
        == json.loads(cli("check", GCP_PREVIEW, "--json", "--usage-file", usage).out)["cost"][
            "monthly_usd"
        ]
    )


def test_diff_of_two_files_reprices_carried_numbers_with_the_usage_file(
    cli: Cli, usage: Path, tmp_path: Path
) -> None:
    # Two checked (so already priced) documents: the usage file still applies.
    checked = tmp_path / "head.json"
    checked.write_text(cli("check", GCP_PREVIEW, "--json").out)
    plain = json.loads(cli("diff", checked, checked, "--json").out)
    used = json.loads(cli("diff", checked, checked, "--json", "--usage-file", usage).out)
    assert used["after"]["monthly_usd"] > plain["after"]["monthly_usd"]


def test_comment_says_which_usage_it_assumed(cli: Cli, usage: Path) -> None:
    result = cli("comment", "--preview", "dev", GCP_PREVIEW, "--usage-file", usage)
    body = result.out
    assert (
        f"Usage file: `{usage}`, declaring usage for 2 resource(s)."
    )  # head: trainer, datasets in body
    assert "- `trainer`: monthly\\_egress\\_gb 2000" in body
    diff = {
        c["name"]: c
        for c in json.loads(cli("diff", GCP_PREVIEW, "--json", "--usage-file", usage).out)[
            "changes"
        ]
    }
    trainer = diff["trainer"]
    assert (
        f"| added | `trainer` | compute/Instance | $0.00 | ${trainer['after_usd']:,.2f} |" in body
    )
    plain = cli("comment", "--preview", "dev", GCP_PREVIEW).out
    assert "Usage file: none (`--usage-file`)" in plain


def test_comment_on_stack_triples_uses_the_usage_file(
    cli: Cli, usage: Path, tmp_path: Path
) -> None:
    checked = tmp_path / "head.json"
    checked.write_text(cli("check", GCP_PREVIEW, "--json").out)  # evaluated already
    body = cli("comment", "--stack", "dev", "none", checked, "--usage-file", usage).out
    assert f"Usage file: `{usage}`" in body


@pytest.mark.parametrize("command", ["check", "diff", "comment"])
def test_a_bad_usage_file_is_exit_2(cli: Cli, tmp_path: Path, command: str) -> None:
    path = tmp_path / "bad.yml"
    path.write_text("resource_usage:\n  trainer:\n    monthly_egres_gb: 1\n")
    args = {
        "check": ["check", GCP_PREVIEW],
        "diff": ["diff", GCP_PREVIEW],
        "comment": ["comment", "--preview", "dev", GCP_PREVIEW],
    }[command]
    result = cli(*args, "--usage-file", path)
    assert result.code == 2, result.err
    assert "monthly_egres_gb" in result.err and "Traceback" not in result.err


# ------------------------------------------------------------------ footers say what totals hold
def test_a_diff_footer_says_the_usage_file_priced_the_egress_in_its_totals(
    cli: Cli, usage: Path
) -> None:
    # Issue 32: `diff --usage-file` added the trainer's egress to the totals while the footer
    # still said "no egress or taxes".
    used = cli("diff", GCP_PREVIEW, "--markdown", "--usage-file", usage).out
    (footer,) = [line for line in used.splitlines() if line.startswith("<sub>Totals: ")]
    assert "no egress" not in used
    assert f"usage-based charges (egress, operations, queries) as the usage file {usage}" in footer
    assert footer.endswith("; no taxes.</sub>")
    plain = cli("diff", GCP_PREVIEW, "--markdown").out
    assert "<sub>Totals: list prices" in plain and "no usage-based charges" in plain


def test_the_comment_says_what_each_stacks_totals_hold(cli: Cli, usage: Path) -> None:
    used = cli("comment", "--preview", "dev", GCP_PREVIEW, "--usage-file", usage)
    assert f"as the usage file {usage} declares" in used.out.replace("\\_", "_")
    plain = cli("comment", "--preview", "dev", GCP_PREVIEW)
    assert "no usage-based charges" in plain.out


def test_diff_markdown_starts_with_the_cost_heading(cli: Cli, tmp_path: Path) -> None:
    # Issue 32: the governance sections came before `### mlgov cost estimate`.
    result = cli(
        "diff", DATA / "preview_gcp_replacement-steps_read.json", GCP_PREVIEW, "--markdown"
    )
    assert "**Governance weakened**" in result.out  # the prod project becomes dev's
    assert result.out.startswith("### mlgov cost estimate\n")
    same = cli("diff", INSTANCE, INSTANCE, "--markdown").out
    assert same.startswith("### mlgov cost estimate\n\nNo cost change")
