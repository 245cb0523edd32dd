"""The archive's enums and field names agree with Google's own API descriptions.

Oracle: the discovery documents google-api-python-client ships
(googleapiclient/discovery_cache/documents/*.json, a dev-only dependency). The provider's
documented enum values for a field must all exist in the API's enum for that field (the provider
may list fewer: it leaves out *_UNSPECIFIED and values it does not support yet), and the sampled
fields and nested objects must exist in the API under the same camelCase names. The sample covers
the enums of every resource type the shipped stacks create that has one.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import googleapiclient
import pytest

from mlgov_policies.schema import catalog

DOCUMENTS = Path(googleapiclient.__file__).parent / "discovery_cache" / "documents"

WORKBENCH = "gcp:workbench/instance:Instance"
FUNCTION = "gcp:cloudfunctionsv2/function:Function"
BUDGET = "gcp:billing/budget:Budget"
BUDGET_SCHEMA = "GoogleCloudBillingBudgetsV1Budget"
REPOSITORY = "gcp:artifactregistry/repository:Repository"
APT_BASE = "remoteRepositoryConfig.aptRepository.publicRepository.repositoryBase"

# Enums the archive gets wrong, so the oracle cannot sample them; each has a test that fails once
# the provider fixes it. The archive gives apt remote repositories yum's bases (CENTOS, ROCKY...);
# artifactregistry.v1 says DEBIAN, UBUNTU, DEBIAN_SNAPSHOT.
PROVIDER_QUIRKS = {(REPOSITORY, APT_BASE)}

# (type token, archive path, discovery document, API schema, API path). `[]` steps into list
# items. API paths differ where Terraform flattens or renames (RouterNat is a list inside Router
# in the API; Workbench dataDisks is one object in the provider, a list in the API).
ENUMS = [
    (WORKBENCH, "gceSetup.acceleratorConfigs[].type", "notebooks.v2", "Instance", None),
    (WORKBENCH, "gceSetup.bootDisk.diskType", "notebooks.v2", "Instance", None),
    (WORKBENCH, "gceSetup.bootDisk.diskEncryption", "notebooks.v2", "Instance", None),
    (
        WORKBENCH,
        "gceSetup.dataDisks.diskType",
        "notebooks.v2",
        "Instance",
        "gceSetup.dataDisks[].diskType",
    ),
    (
        WORKBENCH,
        "gceSetup.dataDisks.diskEncryption",
        "notebooks.v2",
        "Instance",
        "gceSetup.dataDisks[].diskEncryption",
    ),
    (WORKBENCH, "gceSetup.networkInterfaces[].nicType", "notebooks.v2", "Instance", None),
    (
        WORKBENCH,
        "gceSetup.reservationAffinity.consumeReservationType",
        "notebooks.v2",
        "Instance",
        None,
    ),
    (
        WORKBENCH,
        "gceSetup.confidentialInstanceConfig.confidentialInstanceType",
        "notebooks.v2",
        "Instance",
        None,
    ),
    (FUNCTION, "eventTrigger.retryPolicy", "cloudfunctions.v2", "Function", None),
    (FUNCTION, "serviceConfig.ingressSettings", "cloudfunctions.v2", "Function", None),
    (FUNCTION, "serviceConfig.vpcConnectorEgressSettings", "cloudfunctions.v2", "Function", None),
    (FUNCTION, "serviceConfig.directVpcEgress", "cloudfunctions.v2", "Function", None),
    (BUDGET, "thresholdRules[].spendBasis", "billingbudgets.v1", BUDGET_SCHEMA, None),
    (BUDGET, "budgetFilter.calendarPeriod", "billingbudgets.v1", BUDGET_SCHEMA, None),
    (BUDGET, "budgetFilter.creditTypesTreatment", "billingbudgets.v1", BUDGET_SCHEMA, None),
    (BUDGET, "ownershipScope", "billingbudgets.v1", BUDGET_SCHEMA, None),
    ("gcp:compute/routerNat:RouterNat", "natIpAllocateOption", "compute.v1", "RouterNat", None),
    (
        "gcp:compute/routerNat:RouterNat",
        "sourceSubnetworkIpRangesToNat",
        "compute.v1",
        "RouterNat",
        None,
    ),
    ("gcp:compute/routerNat:RouterNat", "type", "compute.v1", "RouterNat", None),
    ("gcp:compute/routerNat:RouterNat", "autoNetworkTier", "compute.v1", "RouterNat", None),
    ("gcp:compute/routerNat:RouterNat", "logConfig.filter", "compute.v1", "RouterNat", None),
    ("gcp:compute/router:Router", "bgp.advertiseMode", "compute.v1", "Router", None),
    ("gcp:compute/subnetwork:Subnetwork", "stackType", "compute.v1", "Subnetwork", None),
    ("gcp:compute/subnetwork:Subnetwork", "ipv6AccessType", "compute.v1", "Subnetwork", None),
    ("gcp:compute/subnetwork:Subnetwork", "role", "compute.v1", "Subnetwork", None),
    (
        "gcp:compute/subnetwork:Subnetwork",
        "logConfig.aggregationInterval",
        "compute.v1",
        "Subnetwork",
        None,
    ),
    ("gcp:compute/subnetwork:Subnetwork", "logConfig.metadata", "compute.v1", "Subnetwork", None),
    (
        "gcp:compute/network:Network",
        "routingMode",
        "compute.v1",
        "Network",
        "routingConfig.routingMode",
    ),
    ("gcp:compute/globalAddress:GlobalAddress", "addressType", "compute.v1", "Address", None),
    ("gcp:compute/globalAddress:GlobalAddress", "ipVersion", "compute.v1", "Address", None),
    ("gcp:compute/subnetwork:Subnetwork", "resolveSubnetMask", "compute.v1", "Subnetwork", None),
    (
        "gcp:compute/subnetwork:Subnetwork",
        "secondaryIpRanges[].ipVersion",
        "compute.v1",
        "Subnetwork",
        None,
    ),
    (
        "gcp:compute/routerNat:RouterNat",
        "sourceSubnetworkIpRangesToNat64",
        "compute.v1",
        "RouterNat",
        None,
    ),
    (
        "gcp:compute/network:Network",
        "bgpBestPathSelectionMode",
        "compute.v1",
        "Network",
        "routingConfig.bgpBestPathSelectionMode",
    ),
    (
        "gcp:compute/network:Network",
        "bgpInterRegionCost",
        "compute.v1",
        "Network",
        "routingConfig.bgpInterRegionCost",
    ),
    (
        "gcp:compute/network:Network",
        "networkFirewallPolicyEnforcementOrder",
        "compute.v1",
        "Network",
        None,
    ),
    ("gcp:pubsub/topic:Topic", "schemaSettings.encoding", "pubsub.v1", "Topic", None),
    (
        "gcp:pubsub/topic:Topic",
        "ingestionDataSourceSettings.platformLogsSettings.severity",
        "pubsub.v1",
        "Topic",
        None,
    ),
    ("gcp:tpu/v2Vm:V2Vm", "dataDisks[].mode", "tpu.v2", "Node", None),
    # Artifact Registry: cleanupPolicies is a map of CleanupPolicy in the API, a list here.
    (REPOSITORY, "cleanupPolicies[].action", "artifactregistry.v1", "CleanupPolicy", "action"),
    (
        REPOSITORY,
        "cleanupPolicies[].condition.tagState",
        "artifactregistry.v1",
        "CleanupPolicyCondition",
        "tagState",
    ),
    (REPOSITORY, "mavenConfig.versionPolicy", "artifactregistry.v1", "Repository", None),
    (REPOSITORY, "mode", "artifactregistry.v1", "Repository", None),
    *(
        (REPOSITORY, path, "artifactregistry.v1", "Repository", None)
        for path in (
            "remoteRepositoryConfig.dockerRepository.publicRepository",
            "remoteRepositoryConfig.mavenRepository.publicRepository",
            "remoteRepositoryConfig.npmRepository.publicRepository",
            "remoteRepositoryConfig.pythonRepository.publicRepository",
            "remoteRepositoryConfig.yumRepository.publicRepository.repositoryBase",
            "vulnerabilityScanningConfig.enablementConfig",
        )
    ),
]

# (type token, archive object type, discovery document, API schema): every property the provider
# gives the nested object exists in the API object under the same name.
OBJECTS = [
    (WORKBENCH, "InstanceGceSetupAcceleratorConfigArgs", "notebooks.v2", "AcceleratorConfig"),
    (
        WORKBENCH,
        "InstanceGceSetupShieldedInstanceConfigArgs",
        "notebooks.v2",
        "ShieldedInstanceConfig",
    ),
    (WORKBENCH, "InstanceGceSetupBootDiskArgs", "notebooks.v2", "BootDisk"),
    (WORKBENCH, "InstanceGceSetupServiceAccountArgs", "notebooks.v2", "ServiceAccount"),
    (
        BUDGET,
        "BudgetThresholdRuleArgs",
        "billingbudgets.v1",
        "GoogleCloudBillingBudgetsV1ThresholdRule",
    ),
    (
        BUDGET,
        "BudgetAllUpdatesRuleArgs",
        "billingbudgets.v1",
        "GoogleCloudBillingBudgetsV1NotificationsRule",
    ),
    (FUNCTION, "FunctionBuildConfigSourceStorageSourceArgs", "cloudfunctions.v2", "StorageSource"),
    ("gcp:tpu/v2Vm:V2Vm", "V2VmSchedulingConfigArgs", "tpu.v2", "SchedulingConfig"),
]


@cache
def document(name: str) -> dict[str, Any]:
    return json.loads((DOCUMENTS / f"{name}.json").read_text())


def api_field(doc_name: str, schema: str, path: str) -> dict[str, Any]:
    """The discovery-document property at `path` below `schema` (KeyError if a step is missing)."""
    schemas = document(doc_name)["schemas"]
    node: dict[str, Any] = schemas[schema]
    for step in path.split("."):
        name = step.removesuffix("[]")
        node = schemas[node["$ref"]] if "$ref" in node else node
        node = node["properties"][name]
        if step.endswith("[]"):
            node = node["items"]
        node = schemas[node["$ref"]] if "$ref" in node else node
    return node


def archive_node(token: str, path: str) -> Any:
    entry = catalog.resource_entry(token)
    assert entry is not None, token
    node: Any = {"object": None}
    obj: dict[str, Any] = dict(entry)
    for step in path.split("."):
        node = obj["properties"][step.removesuffix("[]")]
        if step.endswith("[]"):
            node = node["array"]
        if isinstance(node, dict) and "object" in node:
            obj = entry["types"][node["object"]]
    return node


@pytest.mark.parametrize(("token", "path", "doc", "schema", "api_path"), ENUMS)
def test_provider_enum_values_exist_in_the_api(
    token: str, path: str, doc: str, schema: str, api_path: str | None
) -> None:
    node = archive_node(token, path)
    assert isinstance(node, dict) and "enum" in node, (token, path, node)
    field = api_field(doc, schema, api_path or path)
    api_values = field.get("enum") or field.get("items", {}).get("enum")
    assert api_values, (doc, schema, api_path or path)
    assert set(node["enum"]) <= set(api_values), sorted(set(node["enum"]) - set(api_values))


@pytest.mark.parametrize(("token", "type_name", "doc", "schema"), OBJECTS)
def test_provider_field_names_exist_in_the_api(
    token: str, type_name: str, doc: str, schema: str
) -> None:
    entry = catalog.resource_entry(token)
    assert entry is not None
    ours = set(entry["types"][type_name]["properties"])
    theirs = set(document(doc)["schemas"][schema]["properties"])
    assert ours, type_name
    assert ours <= theirs, sorted(ours - theirs)


def test_the_sample_covers_every_shipped_enum() -> None:
    """Every enum of every type the shipped stacks create is in ENUMS (the oracle sees it)."""
    golden = Path(__file__).resolve().parents[2] / "golden"
    types = {
        r["type"]
        for stack in ("dev", "staging", "prod")
        for r in json.loads((golden / f"plan.{stack}.json").read_text())["resources"]
    }
    sampled = {(token, path) for token, path, *_ in ENUMS}
    shipped: set[tuple[str, str]] = set()

    def walk(entry: dict[str, Any], obj: dict[str, Any], prefix: str, depth: int) -> None:
        for name, node in obj["properties"].items():
            path = f"{prefix}{name}"
            if isinstance(node, dict) and "array" in node:
                node, path = node["array"], path + "[]"
            if isinstance(node, dict) and "enum" in node:
                shipped.add((entry["token"], path))
            elif isinstance(node, dict) and "object" in node and depth < 6:
                walk(entry, entry["types"][node["object"]], path + ".", depth + 1)

    for token in types:
        entry = catalog.resource_entry(token)
        if entry is not None:
            walk(dict(entry), dict(entry), "", 0)
    assert shipped - sampled - PROVIDER_QUIRKS == set()
    assert len(shipped) > 30


def test_the_apt_repository_base_quirk_is_still_there() -> None:
    node = archive_node(REPOSITORY, APT_BASE)
    api = api_field("artifactregistry.v1", "Repository", APT_BASE)
    assert "CENTOS" in node["enum"] and "CENTOS" not in api["enum"]
