"""The usage file: YAML per type and per name, checked key by key; exit 2 on a bad key."""

from __future__ import annotations

from pathlib import Path

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.model import Resource
from governance.costs.usage_file import (
    UsageFileError,
    declared_usage,
    load_usage_file,
    parse_usage_file,
)
from tests.costs.cost_plans import USAGE, price

BUCKET = {"type": "gcp:storage/bucket:Bucket", "name": "raw",
          "inputs": {"name": "acme-raw", "location": "US-CENTRAL1"}}  # fmt: skip
OTHER = {"type": "gcp:storage/bucket:Bucket", "name": "other",
         "inputs": {"name": "acme-other", "location": "US-CENTRAL1"}}  # fmt: skip
CLASS_A = price("storage.ops.class_a.standard", "global")  # $ per 1,000 class A operations


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "usage.yml"
    path.write_text(text)
    return path


def test_a_valid_file_declares_per_type_and_per_name(tmp_path):
    path = write(
        tmp_path,
        """\
version: 1
resource_type_default_usage:
  gcp:storage/bucket:Bucket:
    monthly_class_a_operations: 10000
resource_usage:
  raw:
    monthly_class_a_operations: 40000
    monthly_egress_gb: 0
""",
    )
    file = load_usage_file(path)
    assert file.source == str(path)
    report = estimate_resources([BUCKET, OTHER], USAGE, usage_file=file)
    base = 10 * price("storage.standard")  # storage_gb_per_bucket default
    # per name beats per type: raw bills 40 x $0.005, other the type's 10 x $0.005
    assert report.get("raw").monthly_usd == pytest.approx(base + 40 * CLASS_A)
    assert report.get("other").monthly_usd == pytest.approx(base + 10 * CLASS_A)
    assert report.get("raw").declared == {"monthly_class_a_operations": 40000.0,
                                          "monthly_egress_gb": 0.0}  # fmt: skip
    assert report.as_dict()["usage_file"] == str(path)


def test_a_gcp_name_selects_the_resource_too():
    file = parse_usage_file({"resource_usage": {"acme-raw": {"monthly_class_a_operations": 1000}}})
    cost = estimate_resources([BUCKET], USAGE, usage_file=file).get("raw")
    assert cost.declared == {"monthly_class_a_operations": 1000.0}


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"resource_usage": {"raw": {"monthly_clas_a_operations": 1}}},
         "resource_usage.raw.monthly_clas_a_operations: no resource type has this usage key"),
        ({"resource_type_default_usage": {"gcp:storage/bucket:Bucket": {"nodes_per_zone": 1}}},
         "resource_type_default_usage.gcp:storage/bucket:Bucket.nodes_per_zone: not a usage key "
         "here (keys of gcp:storage/bucket:Bucket: monthly_class_a_operations, "
         "monthly_class_b_operations, monthly_data_retrieval_gb, monthly_egress_asia_gb, "
         "monthly_egress_australia_gb, monthly_egress_china_gb, monthly_egress_gb, "
         "monthly_transfer_africa_gb, monthly_transfer_asia_gb, monthly_transfer_europe_gb, "
         "monthly_transfer_indonesia_gb, monthly_transfer_latin_america_gb, "
         "monthly_transfer_middle_east_gb, monthly_transfer_northern_america_gb, "
         "monthly_transfer_oceania_gb, storage_gb)"),
        ({"resource_type_default_usage": {"gcp:container/registry:Registry": {
            "monthly_transfer_europe_gb": -5}}},
         "resource_type_default_usage.gcp:container/registry:Registry.monthly_transfer_europe_gb: "
         "Input should be greater than or equal to 0"),
        ({"resource_type_default_usage": {"gcp:storage/bucket:Bucket": {
            "monthly_transfer_europa_gb": 5}}},
         "resource_type_default_usage.gcp:storage/bucket:Bucket.monthly_transfer_europa_gb: not a "
         "usage key here"),
        ({"resource_type_default_usage": {"gcp:compute/vPNGateway:VPNGateway": {
            "monthly_transfer_europe_gb": 5}}},
         "resource_type_default_usage.gcp:compute/vPNGateway:VPNGateway.monthly_transfer_europe_gb:"
         " not a usage key here"),
        ({"resource_type_default_usage": {"gcp:alloydb/cluster:Cluster": {}}},
         "resource_type_default_usage.gcp:alloydb/cluster:Cluster: 'gcp:alloydb/cluster:Cluster' "
         "has no usage keys"),
        ({"resource_type_default_usage": {"gcp:storage/bucket:Bucket": {"storage_gb": -1}}},
         "resource_type_default_usage.gcp:storage/bucket:Bucket.storage_gb: Input should be "
         "greater than or equal to 0"),
        ({"version": 3}, "version: Value error, version '3' is not one of 0.1, 1"),
        ({"resource_usages": {}}, "resource_usages: not a usage key here"),
    ],
)  # fmt: skip
def test_bad_keys_are_refused_with_their_key_path(raw, problem):
    with pytest.raises(UsageFileError) as err:
        parse_usage_file(raw)
    assert any(p.startswith(problem) for p in err.value.problems), err.value.problems


def test_a_key_the_named_resources_type_lacks_is_refused_against_the_plan():
    # nodes_per_zone is a usage key (of node pools), but `raw` is a bucket
    file = parse_usage_file({"resource_usage": {"raw": {"nodes_per_zone": 2}}})
    with pytest.raises(UsageFileError) as err:
        declared_usage(file, [Resource.from_plan(BUCKET)])
    assert err.value.problems == [
        "usage file: resource_usage.raw.nodes_per_zone: not a usage key of raw "
        "(gcp:storage/bucket:Bucket; its keys: monthly_class_a_operations, "
        "monthly_class_b_operations, monthly_data_retrieval_gb, monthly_egress_asia_gb, "
        "monthly_egress_australia_gb, monthly_egress_china_gb, monthly_egress_gb, "
        "monthly_transfer_africa_gb, monthly_transfer_asia_gb, monthly_transfer_europe_gb, "
        "monthly_transfer_indonesia_gb, monthly_transfer_latin_america_gb, "
        "monthly_transfer_middle_east_gb, monthly_transfer_northern_america_gb, "
        "monthly_transfer_oceania_gb, storage_gb)"
    ]


def test_a_name_no_resource_has_is_a_note_not_an_error():
    file = parse_usage_file({"resource_usage": {"gone": {"storage_gb": 1}}})
    report = estimate_resources([BUCKET], USAGE, usage_file=file)
    assert report.unmatched_usage == ("gone",)
    assert (
        "the usage file declares usage for names no resource of the plan has: gone"
        in report.as_dict()["notes"]
    )


def test_unreadable_and_non_yaml_files_name_the_file(tmp_path):
    with pytest.raises(UsageFileError, match=r"usage file .*missing.yml: cannot read it"):
        load_usage_file(tmp_path / "missing.yml")
    with pytest.raises(UsageFileError, match=r"usage file .*usage.yml: not YAML"):
        load_usage_file(write(tmp_path, "resource_usage: [unclosed"))
    with pytest.raises(UsageFileError, match="must be a mapping"):
        load_usage_file(write(tmp_path, "- a list\n"))


def test_the_docs_list_every_type_and_key_a_usage_file_accepts():
    import re

    from governance.costs.registry import DECLARED
    from tests.costs.test_assumptions import COSTS_PAGE

    table = COSTS_PAGE.read_text().split("| type | usage-file keys |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split(" | ", 1) for line in table.splitlines()[2:]]
    documented = {
        re.findall(r"`([^`]+)`", t)[0]: [k for k in re.findall(r"`([a-z_]+)`", keys)
                                         if k != "nodes_per_zone" or "nodePool" in t]
        for t, keys in rows
    }  # fmt: skip
    assert documented == {t: list(m.model_fields) for t, m in DECLARED.items()}


def test_a_hostile_usage_file_is_refused_while_it_is_read(tmp_path):
    # A usage file can come with a pull request, like a stack file (governance/untrusted.py).
    from tests.cli.test_untrusted import alias_bomb

    bomb = tmp_path / "bomb.yml"
    bomb.write_text(alias_bomb())
    with pytest.raises(UsageFileError, match=r"usage file .*bomb.yml: not YAML \(line 6: expands"):
        load_usage_file(bomb)
    repeated = tmp_path / "repeated.yml"
    repeated.write_text("resource_usage: {}\nresource_usage: {}\n")
    with pytest.raises(UsageFileError, match=r"'resource_usage' appears twice"):
        load_usage_file(repeated)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (float("inf"), "inf is not a finite number"),
        ("1e400", "inf is not a finite number"),  # YAML reads 1e400 as a string; it parses to inf
        (1e300, "1e+300 is above 1e+15, more than any month's usage"),
        (10**30, "1e+30 is above 1e+15, more than any month's usage"),
    ],
)
def test_a_quantity_no_month_can_hold_is_refused_with_its_key_path(value, problem):
    # Found feeding `.inf` as monthly_egress_china_gb: the plan said `$inf/month`, `saves $nan`,
    # and --json wrote `Infinity`, which mlgov's own `check` then refused to read.
    key = "resource_type_default_usage.gcp:compute/instance:Instance.monthly_egress_china_gb"
    with pytest.raises(UsageFileError) as err:
        parse_usage_file(
            {"resource_type_default_usage": {
                "gcp:compute/instance:Instance": {"monthly_egress_china_gb": value}}}
        )  # fmt: skip
    assert err.value.problems == [f"{key}: {problem}"]


def test_a_named_resources_infinite_quantity_is_refused_against_the_plan():
    file = parse_usage_file(
        {"resource_usage": {"raw": {"monthly_egress_australia_gb": float("inf")}}}
    )
    with pytest.raises(UsageFileError) as err:
        declared_usage(file, [Resource.from_plan(BUCKET)])
    assert err.value.problems == [
        "usage file: resource_usage.raw.monthly_egress_australia_gb: inf is not a finite number"
    ]


def test_a_nested_quantity_is_held_to_the_same_bound():
    raw = {"resource_type_default_usage": {"gcp:container/cluster:Cluster": {
        "node_pools": {"gpu": {"nodes_per_zone": 1e20}}}}}  # fmt: skip
    with pytest.raises(UsageFileError) as err:
        parse_usage_file(raw)
    assert err.value.problems == [
        "resource_type_default_usage.gcp:container/cluster:Cluster.node_pools.gpu.nodes_per_zone: "
        "1e+20 is above 1e+15, more than any month's usage"
    ]
