"""Another team's Pulumi program on Google Cloud, end to end: hand-written realistic inputs.

The files in data/realworld/ (SOURCES.md there) imitate what `pulumi preview --json` and
`pulumi stack export` print for programs mlgov did not write: a GKE cluster with a spot GPU pool
and an autoscaling CPU pool, clusters and TPU VMs through explicit providers in other regions and
projects, Vertex AI serving in Tokyo, Cloud Run + Cloud SQL + buckets, Workbench, BigQuery, a
retained bucket and database, an import, a `--refresh` step. Each test pins a price to the
catalog's own arithmetic for that region, or an outcome a FinOps reviewer relies on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from governance.costs.catalog import default_catalog
from governance.inputs.values import UNKNOWN
from tests.formats.conftest import DATA, Cli, by_name, evaluate, read, read_doc

REAL = DATA / "realworld"
GKE = REAL / "preview_gcp_gke-multiregion_show-sames.json"
RUN_SQL = REAL / "preview_gcp_cloudrun-sql_replacement-steps.json"
LAKE = REAL / "preview_gcp_lakehouse_retain-import-refresh.json"
EXPORT = REAL / "stackexport_gcp_gke-multiregion_pending-delete.json"
EMPTY = REAL / "stackexport_empty-destroyed.json"
ONLY_PROVIDERS = REAL / "stackexport_only-providers.json"
FILES = sorted(REAL.glob("*.json"))


def _lines(resource: dict[str, Any], what: str) -> list[dict[str, Any]]:
    return [line for line in resource["cost_lines"] if line.get("what") == what]


def _notes(resource: dict[str, Any]) -> str:
    return "\n".join(str(line.get("text", "")) for line in resource["cost_lines"])


# ------------------------------------------------------------------ every file, every command
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_command_answers_on_every_file(cli: Cli, path: Path) -> None:
    preview = path.name.startswith("preview_")
    # a preview holds its own before and after; a stack export is one state: base and head
    pair: tuple[str | Path, ...] = (path,) if preview else (path, path)
    comment = ("--preview", "dev", path) if preview else ("--stack", "dev", path, path)
    # a preview made without --show-sames is judged only when --partial asks for it
    partial = ("--partial",) if path == RUN_SQL else ()
    for args in (
        ("check", path, *partial),
        ("check", path, "--json", *partial),
        ("check", path, "--explain", *partial),
        ("diff", *pair, *partial),
        ("diff", *pair, "--json", *partial),
        ("comment", *comment, *partial),
    ):
        result = cli(*args)
        if path in (EMPTY, ONLY_PROVIDERS):  # nothing of Google Cloud: refused, never "$0, OK"
            assert result.code == 2 and "no Google Cloud resource to judge" in result.err, args
            continue
        # 0: fine, 1: a mandatory finding; never 2 (the files are valid) or 3 (a bug)
        assert result.code in (0, 1), (args, result.err)
        assert "Traceback" not in result.err
        if "--json" not in args:  # JSON keeps the sentinel in inputs, as the engine wrote it
            assert "04da6b54" not in result.out  # people read "unknown", never the sentinel


@pytest.mark.parametrize(("path", "code"), [(GKE, 1), (RUN_SQL, 1), (LAKE, 1), (EXPORT, 1)])
def test_exit_code_means_a_mandatory_finding(cli: Cli, path: Path, code: int) -> None:
    result = cli("check", path, "--json", *(["--partial"] if path == RUN_SQL else []))
    doc = json.loads(result.out)
    mandatory = [v for v in doc["violations"] if v["enforcement"] == "mandatory"]
    assert result.code == code and bool(mandatory) == (code == 1)


def test_diff_of_one_stack_export_asks_for_two(cli: Cli) -> None:
    result = cli("diff", EXPORT)
    assert result.code == 2
    assert "diff of one file needs a `pulumi preview --json`" in result.err


def test_a_stack_export_against_the_preview_that_follows_it(cli: Cli) -> None:
    """`mlgov diff stack.json preview.json`: what is deployed now against the preview."""
    result = cli("diff", EXPORT, GKE, "--json")
    assert result.code == 0, result.err
    changes = {c["name"]: c for c in json.loads(result.out)["changes"]}
    assert changes["gpu-spot"]["status"] == "added"
    assert changes["trainer-a100"]["status"] == "removed"  # not in the preview
    assert "train-eu" not in changes  # the same cluster, the same place, the same price


@pytest.mark.parametrize("path", [EMPTY, ONLY_PROVIDERS], ids=lambda p: p.name)
def test_a_stack_without_cloud_resources_is_refused_not_priced(cli: Cli, path: Path) -> None:
    # Issue 30, N1: "$0.00/month, OK" for a file mlgov cannot judge at all.
    result = cli("check", path, "--json")
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"mlgov: error: {path}: no Google Cloud resource to judge (no resource): mlgov prices "
        "and checks Google Cloud resources only, so nothing was priced\n"
    )


# ------------------------------------------------------------------ location through providers
def test_a_cluster_without_location_is_zonal_in_its_providers_zone(cli: Cli) -> None:
    """GKE takes an unset location from the provider's zone (`GetLocation`), never 3 zones of
    the stack's region: the eu cluster's 2 default-pool nodes bill in europe-west4, once."""
    doc = json.loads(cli("check", GKE, "--json").out)
    eu = by_name(doc["resources"])["train-eu"]
    assert eu["inputs"]["location"] == "europe-west4-b"
    assert "provider 'eu'" in eu["inherited"]["location"]
    assert "x 1 zone (zonal cluster in europe-west4-b) = 2 nodes" in _notes(eu)
    catalog = default_catalog()
    (machine,) = _lines(eu, "default pool: machine")
    assert machine["region"] == "europe-west4"
    assert machine["unit_usd"] == pytest.approx(
        catalog.price("gce.type.n2-standard-4", "europe-west4").usd
    )
    (disk,) = _lines(eu, "default pool: disk")
    assert disk["quantity"] == 200  # 2 nodes x 100 GB, not 6 x 100
    assert disk["unit_usd"] == pytest.approx(catalog.price("disk.pd-standard", "europe-west4").usd)
    # ... and the location rule judges it against its own provider's region (issue 32), where
    # it is: the team put it in Europe on purpose, through a provider of its own
    assert eu["provider_region"] == {"region": "europe-west4", "from": "region of provider 'eu'"}
    assert ("mlgov-location-in-region", "train-eu") not in {
        (v["policy"], v["resource"]) for v in doc["violations"]
    }


def test_a_cluster_in_a_stack_export_takes_its_providers_zone(cli: Cli) -> None:
    doc = json.loads(cli("check", EXPORT, "--json").out)
    eu = by_name(doc["resources"])["train-eu"]
    assert eu["inputs"]["location"] == "europe-west4-b"
    assert "x 1 zone (zonal cluster in europe-west4-b)" in _notes(eu)


def test_without_a_provider_zone_a_stack_export_reads_the_clusters_outputs() -> None:
    raw = json.loads(EXPORT.read_text())
    for resource in raw["deployment"]["resources"]:
        if resource["urn"].endswith("pulumi:providers:gcp::eu"):
            del resource["inputs"]["zone"]
    eu = by_name(read_doc(raw).plan["resources"])["train-eu"]
    assert eu["inputs"]["location"] == "europe-west4-b"
    assert eu["inherited"]["location"] == "the resource's outputs"


def test_a_cluster_whose_zone_nothing_says_leaves_its_nodes_unpriced() -> None:
    """Through the default provider and no gcp:zone: zonal (1 zone) or regional (3)? Unknown."""
    raw = json.loads(GKE.read_text())
    default = next(
        s["provider"]
        for s in raw["steps"]
        if s["urn"].endswith("Cluster$gcp:container/cluster:Cluster::train-us")
    )
    for step in raw["steps"]:
        if step["urn"].endswith("::train-eu"):
            step["provider"] = step["newState"]["provider"] = default
            step["oldState"]["provider"] = default
    got = read_doc(raw)
    assert any("(train-eu) have no known location" in w["message"] for w in got.plan["warnings"])
    eu = by_name(evaluate(got.plan)["resources"])["train-eu"]
    assert eu["monthly_usd"] == pytest.approx(73.0)  # the management fee alone
    assert [p["part"] for p in eu["unpriced_parts"]] == ["nodes"]


def test_a_node_pool_takes_its_location_from_a_cluster_id_not_the_provider() -> None:
    """`cluster: projects/P/locations/L/clusters/C` gives the pool its location (the provider
    reads it from the id), so the provider's zone is not written into it."""
    raw = json.loads(GKE.read_text())
    for step in raw["steps"]:
        if step["urn"].endswith("::gpu-spot"):
            inputs = step["newState"]["inputs"]
            del inputs["location"]
            inputs["cluster"] = "projects/orbit-ml-stg/locations/us-central1/clusters/train-us"
            step["provider"] = step["newState"]["provider"] = raw["steps"][1]["urn"] + "::x"
    pool = by_name(read_doc(raw).plan["resources"])["gpu-spot"]
    assert "location" not in pool["inputs"] and "location" not in pool.get("inherited", {})


# ------------------------------------------------------------------ prices by the catalog
def test_pools_price_as_google_bills_them(cli: Cli) -> None:
    doc = json.loads(cli("check", GKE, "--json").out)
    rows = by_name(doc["resources"])
    catalog = default_catalog()
    # cpu: autoscaling 2..10 per zone over the regional cluster's 3 zones: 6 nodes at minimum
    (machine,) = _lines(rows["cpu"], "machine")
    assert machine["quantity"] == pytest.approx(6 * 730)
    assert machine["unit_usd"] == pytest.approx(
        catalog.price("gce.type.e2-standard-8", "us-central1").usd
    )
    # gpu-spot: g2 prices include the L4 (not added again), at the spot price, 0.5 nodes average
    (gpu,) = _lines(rows["gpu-spot"], "machine")
    assert gpu["pricing"].startswith("spot")
    assert gpu["unit_usd"] == pytest.approx(
        catalog.price("gce.type.g2-standard-8", "us-central1", "spot").usd
    )
    assert not [line for line in rows["gpu-spot"]["cost_lines"] if "gpu." in line.get("key", "")]
    # the regional cluster with its default pool removed bills the fee only
    assert rows["train-us"]["monthly_usd"] == pytest.approx(73.0)


def test_a_workbench_data_disk_is_billed(cli: Cli) -> None:
    """pulumi-gcp's `gceSetup.dataDisks` is one object, not a list: its 500 GB PD_SSD was $0."""
    doc = json.loads(cli("check", LAKE, "--json").out)
    nb = by_name(doc["resources"])["nb-ana"]
    disks = [(line["key"], line["quantity"]) for line in _lines(nb, "disk")]
    assert disks == [("disk.pd-balanced", 150), ("disk.pd-ssd", 500)]
    before = by_name(evaluate(read(GKE).before)["resources"])["nb-eu"]
    assert ("disk.pd-ssd", 500) in [
        (line["key"], line["quantity"]) for line in _lines(before, "disk")
    ]


# ------------------------------------------------------------------ counted once, or not at all
def test_a_replacement_listed_with_its_physical_steps_counts_once(cli: Cli) -> None:
    doc = json.loads(cli("check", RUN_SQL, "--json", "--partial").out)
    names = [r["name"] for r in doc["resources"]]
    assert names.count("ledger-db") == 1 and "old-exports" not in names
    assert doc["cost"]["monthly_usd"] == pytest.approx(
        sum(r["monthly_usd"] or 0 for r in doc["resources"]), abs=0.05
    )
    diff = json.loads(cli("diff", RUN_SQL, "--json", "--partial").out)
    changes = {c["name"]: c for c in diff["changes"]}
    assert changes["ledger-db"]["status"] == "replaced"
    assert changes["old-exports"]["status"] == "removed"
    assert changes["old-exports"]["after_usd"] == 0


def test_a_delete_with_retain_on_delete_stays_on_the_bill(cli: Cli) -> None:
    """Pulumi's delete of a retainOnDelete resource skips the provider's Delete: the bucket and
    the replaced database's old instance keep billing, so the diff must not promise a saving."""
    result = cli("diff", LAKE, "--json")
    assert "deleted with retainOnDelete" in result.err
    diff = json.loads(result.out)
    changes = {c["name"]: c for c in diff["changes"]}
    raw = changes["raw"]
    assert raw["status"] == "retained" and raw["after_usd"] == raw["before_usd"] > 0
    old_db = changes["legacy-db (retained)"]
    new_db = changes["legacy-db"]
    assert old_db["status"] == "retained" and old_db["after_usd"] == new_db["before_usd"] > 0
    assert new_db["status"] == "replaced"
    text = cli("diff", LAKE).out
    assert " -= retained storage/Bucket raw" in text and "keeps billing" in text
    comment = cli("comment", "--preview", "dev", LAKE).out
    assert "| retained | `raw` | storage/Bucket | $0.20 | $0.20 | +$0.00 |" in comment
    assert "<sub>retained: deleted from the stack with retainOnDelete" in comment
    # the head total holds them; the rules no longer judge what the stack stopped managing
    checked = json.loads(cli("check", LAKE, "--json").out)
    rows = by_name(checked["resources"])
    assert rows["legacy-db (retained)"]["retained"] is True
    assert checked["cost"]["monthly_usd"] == pytest.approx(
        sum(r["monthly_usd"] or 0 for r in checked["resources"]), abs=0.05
    )
    judged = {
        v["resource"] for v in checked["violations"] if not v["policy"].startswith("mlgov-cost")
    }
    assert "legacy-db" in judged and "legacy-db (retained)" not in judged and "raw" not in judged


def test_a_plain_delete_still_ends_the_bill(cli: Cli) -> None:
    raw = json.loads(LAKE.read_text())
    for step in raw["steps"]:
        if step["urn"].endswith("::raw"):
            del step["oldState"]["retainOnDelete"]
    got = read_doc(raw)
    assert "raw" not in by_name(got.plan["resources"])
    assert "raw" in by_name(got.before["resources"])


def test_an_import_changes_no_cost(cli: Cli) -> None:
    """An import adopts a dataset that already runs (and bills): no cost change, both sides."""
    got = read(LAKE)
    assert "analytics" in by_name(got.plan["resources"])
    assert "analytics" in by_name(got.before["resources"])
    diff = json.loads(cli("diff", LAKE, "--json").out)
    assert "analytics" not in {c["name"] for c in diff["changes"]}


def test_a_refreshed_then_updated_disk_counts_once_at_its_new_size(cli: Cli) -> None:
    diff = json.loads(cli("diff", LAKE, "--json").out)
    scratch = {c["name"]: c for c in diff["changes"]}["scratch"]
    catalog = default_catalog()
    price = catalog.price("disk.pd-balanced", "europe-west1").usd
    assert scratch["status"] == "changed"
    assert scratch["before_usd"] == pytest.approx(500 * price, abs=0.01)
    assert scratch["after_usd"] == pytest.approx(1000 * price, abs=0.01)


# ------------------------------------------------------------------ what the table shows
def test_the_table_says_unknown_and_defaults_not_sentinels_or_none(cli: Cli) -> None:
    out = cli("check", LAKE).out
    etl = next(line for line in out.splitlines() if line.startswith("etl "))
    assert "unknown" in etl and "04da6b54" not in etl
    tpu = next(line for line in out.splitlines() if line.startswith("tpu-exp "))
    assert "V5LITE_POD 2x2, spot" in tpu and "None" not in out


# ------------------------------------------------------------------ bad input: exit 2, named
def test_a_number_beyond_a_64_bit_float_is_refused(cli: Cli, tmp_path: Path) -> None:
    """`1e400` reads as infinity in Python, which then passed for "no size" ($20 of a default)."""
    text = GKE.read_text().replace('"initialNodeCount": 2', '"initialNodeCount": 1e400', 1)
    assert "1e400" in text
    path = tmp_path / "huge.json"
    path.write_text(text)
    result = cli("check", path)
    assert result.code == 2
    assert f"{path}: number 1e400 (line " in result.err
    assert "beyond the range of a 64-bit float" in result.err and "Traceback" not in result.err


def test_a_resource_pending_deletion_is_named_not_silently_dropped(cli: Cli) -> None:
    result = cli("check", EXPORT, "--json")
    doc = json.loads(result.out)
    assert "a100-old" not in by_name(doc["resources"])  # left out of the totals ...
    assert "(a100-old) are marked `delete: true`" in result.err  # ... and said so
    assert doc["source"]["skipped"]["pending delete"] == 1


def test_a_change_to_an_unpriced_side_is_unknown_not_a_saving(cli: Cli, tmp_path: Path) -> None:
    """cpu's machine type becomes an output of another resource: after apply, not now."""
    raw = json.loads(GKE.read_text())
    for step in raw["steps"]:
        if step["urn"].endswith("::cpu"):
            step["newState"]["inputs"]["nodeConfig"]["machineType"] = UNKNOWN
    path = tmp_path / "preview.json"
    path.write_text(json.dumps(raw))
    text = cli("diff", path).out
    assert "container/NodePool cpu: $617.02 -> unpriced (unknown)" in text
    assert "the totals leave it out, so its change is unknown" in text
    comment = cli("comment", "--preview", "staging", path).out
    assert "| changed | `cpu` | container/NodePool | $617.02 | unpriced | unknown |" in comment


@pytest.mark.parametrize(
    ("node_locations", "priced"), [(["us-central1-a", "us-central1-c"], True), (None, False)]
)
def test_a_pool_whose_location_and_cluster_are_unknown_is_not_guessed(
    node_locations: list[str] | None, priced: bool
) -> None:
    """`location: cluster.location, cluster: cluster.id` of a cluster created in the same
    preview: only the pool's own nodeLocations can say where (and in how many zones) it bills;
    without them the pool was priced as regional in the stack's region, a guess."""
    raw = json.loads(GKE.read_text())
    for step in raw["steps"]:
        if step["urn"].endswith("::gpu-spot"):
            inputs = step["newState"]["inputs"]
            inputs["location"] = inputs["cluster"] = UNKNOWN
            if node_locations is None:
                del inputs["nodeLocations"]
    pool = by_name(evaluate(read_doc(raw).plan)["resources"])["gpu-spot"]
    if priced:
        assert pool["monthly_usd"] == pytest.approx(185.15)  # 2 zones of us-central1, as before
    else:
        assert pool["monthly_usd"] is None
        assert "location is not known until apply" in pool["unpriced"]


def test_a_managed_instance_group_in_an_unknown_zone_is_not_guessed() -> None:
    """Its zone comes from a provider that sets none: unpriced, as the warning says."""
    template = "gcp:compute/instanceTemplate:InstanceTemplate"
    group = "gcp:compute/instanceGroupManager:InstanceGroupManager"
    provider = "urn:pulumi:dev::app::pulumi:providers:gcp::default::1"

    def create(type_: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        urn = f"urn:pulumi:dev::app::{type_}::{name}"
        state = {"urn": urn, "custom": True, "type": type_, "inputs": inputs, "provider": provider}
        return {"op": "create", "urn": urn, "provider": provider, "newState": state}

    doc = {
        "config": {"gcp:project": "app-dev", "gcp:region": "us-central1"},
        "steps": [
            create(template, "web", {"name": "web", "machineType": "e2-standard-2"}),
            create(group, "web-mig", {"versions": [{"instanceTemplate": "web"}], "targetSize": 3}),
        ],
    }
    got = read_doc(doc)
    assert any("(web-mig) have no known zone" in w["message"] for w in got.plan["warnings"])
    mig = by_name(evaluate(got.plan)["resources"])["web-mig"]
    assert mig["monthly_usd"] is None and "zone is not known" in mig["unpriced"]
