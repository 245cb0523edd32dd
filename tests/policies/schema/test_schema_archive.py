"""The generated archive matches the installed SDKs: versions, tokens and regenerated entries.

When pulumi-gcp or pulumi-random is upgraded these fail until the archive is regenerated:
    cd policies && ../.venv/bin/python -m mlgov_policies.schema.generate
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import zipfile

import pytest

from mlgov_policies.schema import catalog, generate

REGENERATE = "regenerate: cd policies && ../.venv/bin/python -m mlgov_policies.schema.generate"

# One resource per module, from small modules (generation imports the whole module; compute
# alone takes ~1 s), covering nested objects, lists of objects, maps, enums, assets, int64.
SAMPLE = (
    "gcp:workbench/instance:Instance",
    "gcp:bigquery/table:Table",
    "gcp:bigquery/datasetAccess:DatasetAccess",  # Args class named DatasetAccessInitArgs
    "gcp:storage/bucketObject:BucketObject",
    "gcp:cloudscheduler/job:Job",
    "gcp:billing/budget:Budget",
    "gcp:sql/user:User",
    "random:index/randomPassword:RandomPassword",
)


def test_archive_records_the_installed_sdk_versions() -> None:
    assert catalog.meta()["format"] == catalog.FORMAT
    assert dict(catalog.package_versions()) == {
        dist: importlib.metadata.version(dist) for dist, _ in generate.PACKAGES
    }, REGENERATE


def test_archive_describes_every_resource_the_sdks_register() -> None:
    tokens: set[str] = set()
    for _, import_name in generate.PACKAGES:
        tokens |= set(generate.resource_classes(import_name))
    assert len(tokens) > 1400
    assert catalog.known_types() == tokens, REGENERATE
    assert catalog.meta()["resources"] == len(tokens)


@pytest.mark.parametrize("token", SAMPLE)
def test_sample_entries_regenerate_identically(token: str) -> None:
    package = {"gcp": "pulumi_gcp", "random": "pulumi_random"}[token.split(":", 1)[0]]
    module_name, class_name = generate.resource_classes(package)[token]
    fresh = json.loads(json.dumps(generate.describe_resource(token, module_name, class_name)))
    assert fresh == catalog.resource_entry(token), REGENERATE


def test_workbench_entry_has_the_sdk_shape() -> None:
    """Spot-check the generator's reading of the SDK against what its source says."""
    entry = catalog.resource_entry("gcp:workbench/instance:Instance")
    assert entry is not None
    assert entry["args"] == "InstanceArgs"
    assert entry["required"] == ["location"]
    assert entry["properties"]["gceSetup"] == {"object": "InstanceGceSetupArgs"}
    assert entry["properties"]["labels"] == {"map": "string"}
    assert entry["properties"]["instanceOwners"] == {"array": "string"}
    assert {"effectiveLabels", "pulumiLabels", "state"} <= set(entry["outputs"])
    setup = entry["types"]["InstanceGceSetupArgs"]["properties"]
    assert setup["acceleratorConfigs"] == {
        "array": {"object": "InstanceGceSetupAcceleratorConfigArgs"}
    }
    assert setup["disablePublicIp"] == "boolean"
    accelerator = entry["types"]["InstanceGceSetupAcceleratorConfigArgs"]["properties"]
    assert accelerator["coreCount"] == "string"
    assert "NVIDIA_L4" in accelerator["type"]["enum"]
    table = catalog.resource_entry("gcp:bigquery/table:Table")
    assert table is not None
    assert table["required"] == ["datasetId", "tableId"]
    assert table["types"]["TableTimePartitioningArgs"]["properties"]["expirationMs"] == "integer"
    bucket_object = catalog.resource_entry("gcp:storage/bucketObject:BucketObject")
    assert bucket_object is not None
    assert bucket_object["properties"]["source"] == "asset"


def test_enum_docstrings_are_read_only_in_the_generated_wording() -> None:
    assert generate.enum_values("Possible values are: `A`, `B`, and `C`.") == (
        ["A", "B", "C"],
        None,
    )
    assert generate.enum_values("Default is `A`.\n Possible values are: `A` and\n `B`.") == (
        ["A", "B"],
        None,
    )
    assert generate.enum_values("Each value may be one of: `X`, `Y`.") == (None, ["X", "Y"])
    # Hand-written wording is not an API enum list: not read.
    assert generate.enum_values("Possible values: ALLOW, DENY.") == (None, None)
    assert generate.enum_values("Possible values are 1-4.") == (None, None)
    assert generate.enum_values(None) == (None, None)


def _enum_lists() -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []

    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            if "enum" in node:
                found.append((where, node["enum"]))
            for key in ("array", "map"):
                if key in node:
                    walk(node[key], where)

    with zipfile.ZipFile(catalog.ARCHIVE) as archive:
        for name in archive.namelist():
            if name == catalog.META_MEMBER:
                continue
            entry = json.loads(archive.read(name))
            objects = [entry, *entry.get("types", {}).values()]
            for obj in objects:
                for prop, node in obj["properties"].items():
                    walk(node, f"{name}:{prop}")
    return found


def test_every_enum_is_a_clean_list_of_identifiers() -> None:
    enums = _enum_lists()
    assert len(enums) > 1000
    for where, values in enums:
        assert values, where
        assert len(set(values)) == len(values), where
        for value in values:
            assert re.fullmatch(r"[A-Za-z0-9_.:/+-]+", value), (where, value)
