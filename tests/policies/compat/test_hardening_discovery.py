"""The hardened defaults against Google's discovery documents (google-api-python-client's cache).

Every field the program emits for control-plane access, function ingress, notebook root and the
source bucket, and every field and enum value the four hardening rules read, exists in the API
it ends up in. Pulumi spells some fields differently from the REST API; the mapping is listed
where it happens (`withState` -> `isLive`, pulumi-gcp's BucketLifecycleRuleCondition docs).
"""

from __future__ import annotations

import functools
from typing import Any, get_args

from discovery_documents import description, enum, properties

from governance.review.offline import RecordedResource, run_program
from governance.settings.automation import AutomationSettings
from governance.settings.gke import MAX_AUTHORIZED_NETWORKS
from mlgov_policies import vocabulary as v
from mlgov_policies.rules import functions as function_rules
from tests.conftest import PROGRAM, stack_config


@functools.cache
def plan(stack: str) -> tuple[RecordedResource, ...]:
    return tuple(run_program(stack_config(stack), stack, PROGRAM))


def inputs(stack: str, type_: str) -> list[dict[str, Any]]:
    return [r.inputs for r in plan(stack) if r.type == type_]


def test_cluster_control_plane_fields_exist_in_container_v1() -> None:
    cluster = properties("container.v1", "Cluster")
    assert {"privateClusterConfig", "masterAuthorizedNetworksConfig"} <= set(cluster)
    assert "controlPlaneEndpointsConfig" in cluster
    for stack in ("dev", "prod"):
        [emitted] = inputs(stack, v.GKE_CLUSTER)
        assert set(emitted["privateClusterConfig"]) <= set(
            properties("container.v1", "PrivateClusterConfig")
        )
        endpoints = emitted["controlPlaneEndpointsConfig"]
        assert set(endpoints) <= set(properties("container.v1", "ControlPlaneEndpointsConfig"))
        assert set(endpoints["dnsEndpointConfig"]) <= set(
            properties("container.v1", "DNSEndpointConfig")
        )
    # What the rule reads (and the settings' authorized networks become).
    assert {"cidrBlocks", "gcpPublicCidrsAccessEnabled"} <= set(
        properties("container.v1", "MasterAuthorizedNetworksConfig")
    )
    assert set(properties("container.v1", "CidrBlock")) == {"cidrBlock", "displayName"}
    # The settings' limit on authorized networks is the API's.
    limit = description("container.v1", "MasterAuthorizedNetworksConfig", "cidrBlocks")
    assert f"up to {MAX_AUTHORIZED_NETWORKS} external networks" in limit
    assert "enabled" in properties("container.v1", "IPEndpointsConfig")


def test_function_ingress_values_are_in_the_cloudfunctions_v2_enum() -> None:
    allowed = enum("cloudfunctions.v2", "ServiceConfig", "ingressSettings")
    emitted = {
        f["serviceConfig"]["ingressSettings"]
        for stack in ("dev", "prod")
        for f in inputs(stack, v.FUNCTION_V2)
    }
    assert emitted == {"ALLOW_ALL", "ALLOW_INTERNAL_ONLY"}
    settable = set(get_args(AutomationSettings.model_fields["scheduled_ingress"].annotation))
    assert emitted | settable | {function_rules.INTERNAL_ONLY} <= allowed
    # Scheduler targets serviceConfig.uri: an output of the function, its Cloud Run URL.
    assert properties("cloudfunctions.v2", "ServiceConfig")["uri"]["readOnly"] is True
    # The Cloud Run service the function runs as has the matching internal-only setting.
    assert "INGRESS_TRAFFIC_INTERNAL_ONLY" in enum("run.v2", "GoogleCloudRunV2Service", "ingress")


def test_workbench_metadata_is_a_map_of_strings() -> None:
    metadata = properties("notebooks.v2", "GceSetup")["metadata"]
    assert metadata["additionalProperties"] == {"type": "string"}
    for nb in inputs("prod", v.WORKBENCH_INSTANCE):
        value = nb["gceSetup"]["metadata"][v.WORKBENCH_DISABLE_ROOT_KEY]
        assert isinstance(value, str)
        assert value == "true"


def test_source_bucket_fields_exist_in_storage_v1() -> None:
    bucket = properties("storage.v1", "Bucket")
    assert set(bucket["versioning"]["properties"]) == {"enabled"}
    rule = bucket["lifecycle"]["properties"]["rule"]["items"]["properties"]
    condition = set(rule["condition"]["properties"])
    # withState "ARCHIVED" is the provider's spelling of isLive: false.
    assert {"isLive", "daysSinceNoncurrentTime", "noncurrentTimeBefore", "numNewerVersions"} <= (
        condition
    )
    assert "Delete" in rule["action"]["properties"]["type"]["description"]
    buckets = inputs("prod", v.STORAGE_BUCKET)
    assert len(buckets) >= 2  # the functions' source and the artifact store
    for emitted in buckets:
        for lifecycle in emitted["lifecycleRules"]:
            # The provider's names for two API fields: withState (isLive) and
            # matchesStorageClasses (matchesStorageClass).
            emitted_fields = set(lifecycle["condition"]) - {"withState"}
            if "matchesStorageClasses" in emitted_fields:
                emitted_fields = emitted_fields - {"matchesStorageClasses"} | {
                    "matchesStorageClass"
                }
            assert emitted_fields <= condition
