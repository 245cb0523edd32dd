"""`--explain`, `--json` cost lines, `--usage-file` and the PR comment's folded lines, end to end.

Runs the CLI's `main` in-process on a small plan document: a bucket (usage-based parts), a VM
with a retired GPU (a part left unpriced) and a fixed regional node pool (GKE's zone rule).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from governance.cli.main import main
from governance.costs.catalog import default_catalog
from governance.review.comment import StackPlans, render_comment
from governance.review.plan import evaluate_document
from governance.text import escape

PLAN: dict[str, Any] = {
    "stack": "team",
    "resources": [
        {"type": "gcp:storage/bucket:Bucket", "name": "raw",
         "inputs": {"name": "acme-raw", "location": "US-CENTRAL1"}},
        {"type": "gcp:compute/instance:Instance", "name": "old-gpu",
         "inputs": {"zone": "us-central1-a", "machineType": "n1-standard-8",
                    "guestAccelerators": [{"type": "nvidia-tesla-k80", "count": 2}],
                    "bootDisk": {"initializeParams": {"size": 50, "type": "pd-ssd"}}}},
        {"type": "gcp:container/nodePool:NodePool", "name": "pool",
         "inputs": {"location": "us-central1", "nodeCount": 1,
                    "nodeConfig": {"machineType": "e2-medium"}}},
    ],
}  # fmt: skip


def price(key: str, region: str = "us-central1", usage: str = "ondemand") -> float:
    return default_catalog().price(key, region, usage).usd


@pytest.fixture
def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PLAN))
    return path


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_rows_carry_cost_lines_that_add_up(plan_file, capsys):
    _, out, _ = run(["check", str(plan_file), "--json"], capsys)
    doc = json.loads(out)
    for row in doc["resources"]:
        charged = sum(x.get("usd", 0) for x in row["cost_lines"]
                      if x["kind"] in ("charge", "adjustment"))  # fmt: skip
        assert round(charged, 2) == row["monthly_usd"], row["name"]
    pool = next(r for r in doc["resources"] if r["name"] == "pool")
    machine = next(x for x in pool["cost_lines"] if x.get("what") == "machine")
    # 1 node per zone x 3 zones of a regional pool, e2-medium on-demand all month
    e2 = price("gce.type.e2-medium")
    assert machine == {
        "kind": "charge", "what": "machine", "quantity": 2190.0, "unit": "hour",
        "unit_usd": e2, "usd": round(2190 * e2, 6), "key": "gce.type.e2-medium",
        "region": "us-central1", "pricing": "on-demand", "price_date": "2026-07-30",
        "detail": "3 x 730 h",
    }  # fmt: skip
    assert doc["price_catalog"]["sources"]["gce.type.e2-medium"]["date"] == "2026-07-30"


def test_without_a_usage_file_usage_based_parts_are_lines_not_zeros(plan_file, capsys):
    _, out, _ = run(["check", str(plan_file), "--json"], capsys)
    raw = next(r for r in json.loads(out)["resources"] if r["name"] == "raw")
    waiting = {x["what"]: x["usage_key"] for x in raw["cost_lines"] if x["kind"] == "usage"}
    assert waiting == {
        "class a operations": "monthly_class_a_operations",
        "class b operations": "monthly_class_b_operations",
        "internet egress": "monthly_egress_gb",
        "internet egress to Asia": "monthly_egress_asia_gb",
        "internet egress to China": "monthly_egress_china_gb",
        "internet egress to Australia": "monthly_egress_australia_gb",
        "transfer within Google Cloud": "monthly_transfer_northern_america_gb",
    }
    assert all("usd" not in x for x in raw["cost_lines"] if x["kind"] == "usage")


def test_a_retired_gpu_is_a_partial_price_with_an_advisory_finding(plan_file, capsys):
    _, out, _ = run(["check", str(plan_file), "--json"], capsys)
    doc = json.loads(out)
    vm = next(r for r in doc["resources"] if r["name"] == "old-gpu")
    assert vm["monthly_usd"] > 0
    assert vm["unpriced_parts"] == [{"part": "GPU 2 x nvidia-tesla-k80", "reason": (
        "the price catalog has no price for GPU nvidia-tesla-k80 (retired or unknown model)")}]  # fmt: skip
    finding = next(v for v in doc["violations"] if v["policy"] == "mlgov-cost-partially-priced")
    assert (finding["resource"], finding["enforcement"]) == ("old-gpu", "advisory")


def test_explain_one_resource_shows_quantity_times_unit_price(plan_file, capsys):
    code, out, _ = run(["check", str(plan_file), "--explain", "pool"], capsys)
    assert code in (0, 1)  # 1: the plan breaks mandatory policies (labels), not a cost matter
    lines = out.splitlines()
    assert lines[0] == "mlgov cost lines for stack team"
    # A legend, so a reader needs no code to read a line.
    assert (
        lines[1]
        == "each charge: quantity x unit price = amount a month (how the quantity was reached)"
    )
    assert lines[2] == "  [catalog key, location, pricing model, the date of that price]"
    assert lines[3].startswith("amounts: USD list prices for a 730-hour month; a quantity the ")
    assert lines[4].startswith("depends on usage: only usage decides it; shown per unit and left")
    assert lines[5].startswith("unpriced: no price could be found (the line says why); left out")
    lines = lines[5:]
    assert lines[2].startswith("pool (container/NodePool, us-central1): $")
    assert lines[3] == (
        "    fixed size: 1 node a zone (nodeCount) x 3 zones (regional cluster in us-central1 "
        "without nodeLocations: GKE spreads each pool over 3 zones of the region) = 3 nodes"
    )
    e2 = price("gce.type.e2-medium")
    assert lines[4] == (
        f"    machine: 2,190 hours x ${e2:g}/hour = ${2190 * e2:,.2f} (3 x 730 h)   "
        "[gce.type.e2-medium, us-central1, on-demand, price of 2026-07-30]"
    )
    baseline = f"  ungoverned baseline ${2190 * e2 + 300 * price('disk.pd-balanced'):,.2f}/month:"
    assert baseline in lines
    # The detail's own parentheses do not nest in the line's.
    disk = next(x for x in lines if x.startswith("    disk: 300 GiB-months"))
    assert disk.endswith(
        " = $30.00 (3 x 100 GiB, billed while it exists)   "
        "[disk.pd-balanced, us-central1, on-demand, price of 2026-07-30]"
    ), disk
    assert lines[lines.index(baseline) + 1] == "    on-demand, 3 nodes always on (no scale-to-zero)"


def test_explain_all_names_depends_on_usage_and_unpriced_parts(plan_file, capsys):
    _, out, _ = run(["check", str(plan_file), "--explain"], capsys)
    assert (
        "    internet egress: depends on usage: $0.12/GiB [network.egress.internet.tier1, "
        "us-central1, price of 2026-07-30]; declare `monthly_egress_gb` in the usage file" in out
    )
    assert "unpriced part: GPU 2 x nvidia-tesla-k80: the price catalog has no price" in out
    lines = out.splitlines()
    total = next(i for i, line in enumerate(lines) if line.startswith("total $"))
    # the bucket's 7 usage-based parts and the VM's 3 (internet egress by destination)
    assert lines[total + 1] == (
        "  not in it: 10 part(s) that depend on usage (the `depends on usage` lines)"
    )
    assert lines[-1].startswith("usage file: none: each `depends on usage` part")


def test_explain_an_unknown_name_is_invalid_input(plan_file, capsys):
    code, _, err = run(["check", str(plan_file), "--explain", "nope"], capsys)
    assert code == 2
    assert (
        "--explain nope: no resource of the plan has that name (resources: old-gpu, pool, raw)"
        in err
    )


def test_usage_file_prices_declared_usage_and_is_recorded(plan_file, tmp_path, capsys):
    usage = tmp_path / "usage.yml"
    usage.write_text("resource_usage:\n  raw:\n    monthly_class_a_operations: 40000\n")
    _, out, _ = run(["check", str(plan_file), "--json", "--usage-file", str(usage)], capsys)
    doc = json.loads(out)
    raw = next(r for r in doc["resources"] if r["name"] == "raw")
    assert raw["declared_usage"] == {"monthly_class_a_operations": 40000.0}
    ops = next(x for x in raw["cost_lines"] if x.get("what") == "class a operations")
    assert (ops["kind"], ops["quantity"]) == ("charge", 40.0)  # 40,000 / 1,000
    assert doc["usage_file"]["source"] == str(usage)
    assert doc["cost"]["usage_file"] == str(usage)


def test_a_bad_usage_file_key_exits_2_naming_its_path(plan_file, tmp_path, capsys):
    usage = tmp_path / "usage.yml"
    usage.write_text("resource_usage:\n  raw:\n    monthly_class_a_operation: 1\n")
    code, out, err = run(["check", str(plan_file), "--usage-file", str(usage)], capsys)
    assert code == 2
    assert out == ""
    assert err == (
        f"mlgov: error: usage file {usage}: resource_usage.raw.monthly_class_a_operation: no "
        "resource type has this usage key\n"
    )


def test_a_bad_transfer_quantity_exits_2_naming_its_path(plan_file, tmp_path, capsys):
    usage = tmp_path / "usage.yml"
    usage.write_text("resource_usage:\n  raw:\n    monthly_transfer_europe_gb: -100\n")
    code, out, err = run(["check", str(plan_file), "--usage-file", str(usage)], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"mlgov: error: usage file {usage}: resource_usage.raw.monthly_transfer_europe_gb: Input "
        "should be greater than or equal to 0\n"
    )


def test_a_usage_key_the_resource_type_lacks_exits_2(plan_file, tmp_path, capsys):
    usage = tmp_path / "usage.yml"
    usage.write_text("resource_usage:\n  raw:\n    nodes_per_zone: 2\n")
    code, _, err = run(["check", str(plan_file), "--usage-file", str(usage)], capsys)
    assert code == 2
    assert "resource_usage.raw.nodes_per_zone: not a usage key of raw" in err


def test_pr_comment_folds_each_resources_cost_lines_and_states_usage(capsys):
    head = evaluate_document(json.loads(json.dumps(PLAN)))
    body = render_comment([StackPlans("team", head)])
    assert "**Cost lines**" in body
    assert "Usage file: none (`--usage-file`): usage-based parts are shown per unit." in body
    # the bucket: class A, class B, egress to four destinations and transfer within Google Cloud;
    # the VM: egress to three
    assert "10 part(s) depend on usage nobody declared and are not in the total." in body
    assert "<details><summary><code>pool</code> (container/NodePool): $" in body
    e2 = price("gce.type.e2-medium")
    line = (
        f"machine: 2,190 hours x ${e2:g}/hour = ${2190 * e2:,.2f} (3 x 730 h)   "
        "[gce.type.e2-medium, us-central1, on-demand, price of 2026-07-30]"
    )
    assert f"- {escape.text(line)}" in body  # escaped like everything a plan carries
    assert f"- {escape.text('unpriced part: GPU 2 x nvidia-tesla-k80:')}" in body


@pytest.mark.parametrize(
    ("quantity", "unit", "detail", "shown"),
    [
        (730, "hour", "730 h", " = $73.00   ["),  # only the quantity again: left out
        (
            50,
            "GiB-month",
            "50 GiB (billed while it exists)",
            " = $73.00 (billed while it exists)   [",
        ),
        (2000, "GiB-month", "2,000 GiB", " = $73.00   ["),
        (  # what follows the quantity keeps its own commas
            100_000,
            "IOPS-month",
            "100000 IOPS (the default, 'If not specified, the default value is 100000')",
            " = $73.00 (the default, 'If not specified, the default value is 100000')   [",
        ),
        (5840, "hour", "8 vCPU x 730 h", " = $73.00 (8 vCPU x 730 h)   ["),  # says how: kept
        (
            584.1,
            "hour",
            "730 h (SUD-adjusted 584.1 h)",
            " = $73.00 (730 h, SUD-adjusted 584.1 h)   [",
        ),
    ],
)
def test_a_charge_line_says_each_thing_once(quantity, unit, detail, shown):
    from governance.review.explain import line_text

    line = {"kind": "charge", "what": "machine", "quantity": quantity, "unit": unit,
            "unit_usd": 0.1, "usd": 73.0, "detail": detail, "key": "k", "region": "r"}  # fmt: skip
    assert shown in line_text(line), line_text(line)


@pytest.mark.parametrize(
    ("line", "reads"),
    [
        # a per-vCPU price the catalog calls "hour": the quantity is vCPU-hours
        ({"key": "sql.enterprise.vcpu", "unit": "hour", "quantity": 2920, "unit_usd": 0.0496},
         "vCPU: 2,920 vCPU-hours x $0.0496/vCPU-hour = "),
        ({"key": "gpu.nvidia-tesla-t4", "unit": "hour", "quantity": 219, "unit_usd": 0.175},
         "vCPU: 219 GPU-hours x $0.175/GPU-hour = "),
        ({"key": "gce.type.e2-medium", "unit": "hour", "quantity": 1, "unit_usd": 0.03},
         "vCPU: 1 hour x $0.03/hour = "),
        ({"key": "disk.pd-ssd", "unit": "GiB-month", "quantity": 50, "unit_usd": 0.17},
         "vCPU: 50 GiB-months x $0.17/GiB-month = "),
        # amounts of data and counts in thousands are not pluralised
        ({"key": "network.egress.internet.tier1", "unit": "GiB", "quantity": 5, "unit_usd": 0.12},
         "vCPU: 5 GiB x $0.12/GiB = "),
        ({"key": "storage.ops.class_a.standard", "unit": "1k operations", "quantity": 3,
          "unit_usd": 0.005}, "vCPU: 3 1k operations x $0.005/1k operations = "),
        ({"key": "kms.key_version.software", "unit": "key version-month", "quantity": 2,
          "unit_usd": 0.06}, "vCPU: 2 key version-months x $0.06/key version-month = "),
    ],
)  # fmt: skip
def test_a_cost_line_says_what_its_quantity_counts(line: dict[str, object], reads: str) -> None:
    from governance.review.explain import line_text

    text = line_text({"kind": "charge", "what": "vCPU", "usd": 1.0, **line})
    assert text.startswith(reads), text
