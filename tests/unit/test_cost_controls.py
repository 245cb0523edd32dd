"""ArtifactStore, QueryQuotas, LogVolume and VertexTracking under mocks, as the engine sees them.

Inputs are checked in their camelCase wire form, and every enum value or field name the
components emit is checked against Google's discovery documents (storage.v1,
artifactregistry.v1, serviceusage.v1beta1, logging.v2, aiplatform.v1).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from governance.components.artifacts import (
    ArtifactBucket,
    ArtifactRepository,
    ArtifactStore,
    ArtifactStoreArgs,
)
from governance.components.log_volume import LogVolume, LogVolumeArgs
from governance.components.query_quotas import QueryQuotas, QueryQuotasArgs
from governance.components.vertex import VertexTracking, VertexTrackingArgs
from governance.labels import base_labels
from governance.review.offline import RecordedResource
from governance.settings.log_volume import EXCLUSION_FILTERS
from tests.policies.compat.discovery_documents import document, enum, properties

LABELS = base_labels("prod", {"team": "research", "cost-center": "cc-1"})
Run = Callable[..., list[RecordedResource]]
PROD_BUCKET = ArtifactBucket(
    nearline_after_days=30,
    coldline_after_days=90,
    delete_after_days=365,
    noncurrent_versions=3,
    noncurrent_delete_after_days=30,
)


def one(resources: list[RecordedResource], type_: str) -> dict[str, Any]:
    [found] = [r.inputs for r in resources if r.type == type_]
    return found


def store(under_mocks: Run, **args: Any) -> list[RecordedResource]:
    base: dict[str, Any] = {
        "prefix": "acme-prod",
        "project": "acme-ml-prod",
        "region": "europe-west4",
        "labels": LABELS,
    }
    return under_mocks(lambda: ArtifactStore("artifacts", ArtifactStoreArgs(**{**base, **args})))


def test_artifact_bucket_lifecycle_as_the_engine_sees_it(under_mocks: Run) -> None:
    bucket = one(store(under_mocks, bucket=PROD_BUCKET), "gcp:storage/bucket:Bucket")
    assert bucket["name"] == "acme-ml-prod-mlgov-artifacts"
    assert bucket["location"] == "EUROPE-WEST4"
    assert bucket["storageClass"] == "STANDARD"
    assert bucket["uniformBucketLevelAccess"] is True
    assert bucket["publicAccessPrevention"] == "enforced"
    assert bucket["forceDestroy"] is False
    assert bucket["versioning"] == {"enabled": True}
    assert bucket["labels"]["workload"] == "artifacts"
    assert bucket["lifecycleRules"] == [
        {
            "action": {"type": "SetStorageClass", "storageClass": "NEARLINE"},
            "condition": {"age": 30, "matchesStorageClasses": ["STANDARD"]},
        },
        {
            "action": {"type": "SetStorageClass", "storageClass": "COLDLINE"},
            "condition": {"age": 90, "matchesStorageClasses": ["STANDARD", "NEARLINE"]},
        },
        {"action": {"type": "Delete"}, "condition": {"age": 365, "withState": "ANY"}},
        # 3 noncurrent versions kept: numNewerVersions counts the live one too.
        {
            "action": {"type": "Delete"},
            "condition": {"numNewerVersions": 4, "withState": "ARCHIVED"},
        },
        {"action": {"type": "Delete"}, "condition": {"daysSinceNoncurrentTime": 30}},
        {"action": {"type": "AbortIncompleteMultipartUpload"}, "condition": {"age": 1}},
    ]


def test_bucket_values_are_storage_v1s(under_mocks: Run) -> None:
    bucket = one(store(under_mocks, bucket=PROD_BUCKET), "gcp:storage/bucket:Bucket")
    rule = properties("storage.v1", "Bucket")["lifecycle"]["properties"]["rule"]["items"]
    action_doc = rule["properties"]["action"]["properties"]["type"]["description"]
    actions = set(
        re.findall(r"(Delete|SetStorageClass|AbortIncompleteMultipartUpload)", action_doc)
    )
    classes_doc = properties("storage.v1", "Bucket")["storageClass"]["description"]
    conditions = set(rule["properties"]["condition"]["properties"])
    pap_doc = properties("storage.v1", "Bucket")["iamConfiguration"]["properties"][
        "publicAccessPrevention"
    ]["description"]
    assert "'enforced'" in pap_doc and bucket["publicAccessPrevention"] == "enforced"
    for r in bucket["lifecycleRules"]:
        assert r["action"]["type"] in actions
        if "storageClass" in r["action"]:
            assert r["action"]["storageClass"] in classes_doc
        # Pulumi's withState maps to the API's isLive; the rest are the API's own names.
        assert set(r["condition"]) - {"withState", "matchesStorageClasses"} <= conditions
    assert "matchesStorageClass" in conditions and "isLive" in conditions


def test_repository_cleanup_as_the_engine_sees_it(under_mocks: Run) -> None:
    repo_args = ArtifactRepository(
        keep_tagged_versions=20, delete_untagged_after_days=14, delete_tagged_after_days=180
    )
    repo = one(
        store(under_mocks, repository=repo_args), "gcp:artifactregistry/repository:Repository"
    )
    assert repo["repositoryId"] == "acme-prod-images"
    assert repo["location"] == "europe-west4"
    assert repo["format"] == "DOCKER"
    assert repo["cleanupPolicyDryRun"] is False
    assert repo["cleanupPolicies"] == [
        {"id": "keep-most-recent", "action": "KEEP", "mostRecentVersions": {"keepCount": 20}},
        {
            "id": "delete-untagged",
            "action": "DELETE",
            "condition": {"tagState": "UNTAGGED", "olderThan": "1209600s"},
        },
        {
            "id": "delete-old-tagged",
            "action": "DELETE",
            "condition": {"tagState": "TAGGED", "olderThan": "15552000s"},
        },
    ]
    assert repo["format"] in enum("artifactregistry.v1", "Repository", "format")
    for policy in repo["cleanupPolicies"]:
        assert policy["action"] in enum("artifactregistry.v1", "CleanupPolicy", "action")
        if "condition" in policy:
            assert policy["condition"]["tagState"] in enum(
                "artifactregistry.v1", "CleanupPolicyCondition", "tagState"
            )
    assert "keepCount" in properties("artifactregistry.v1", "CleanupPolicyMostRecentVersions")
    assert "cleanupPolicyDryRun" in properties("artifactregistry.v1", "Repository")


def test_disabled_parts_are_not_created(under_mocks: Run) -> None:
    assert [r.type for r in store(under_mocks)] == ["mlgov:index:ArtifactStore"]


def test_query_quotas_as_the_engine_sees_them(under_mocks: Run) -> None:
    resources = under_mocks(
        lambda: QueryQuotas(
            "q", QueryQuotasArgs(project="p", project_tib_per_day=10, user_tib_per_day=0.5)
        )
    )
    overrides = {
        r.name: r.inputs
        for r in resources
        if r.type == "gcp:serviceusage/consumerQuotaOverride:ConsumerQuotaOverride"
    }
    assert overrides["q-project"] == {
        "project": "p",
        "service": "bigquery.googleapis.com",
        "metric": "bigquery.googleapis.com%2Fquota%2Fquery%2Fusage",
        "limit": "%2Fd%2Fproject",
        "overrideValue": "10485760",  # 10 TiB in MiB, the metric's unit
        "force": True,
    }
    assert overrides["q-user"]["limit"] == "%2Fd%2Fproject%2Fuser"
    assert overrides["q-user"]["overrideValue"] == "524288"
    # serviceusage v1beta1: .../consumerQuotaMetrics/{metric}/limits/{limit}/consumerOverrides,
    # an int64 overrideValue, the metric name in QuotaOverride.metric.
    create = document("serviceusage.v1beta1")["resources"]["services"]["resources"][
        "consumerQuotaMetrics"
    ]["resources"]["limits"]["resources"]["consumerOverrides"]["methods"]["create"]
    assert "consumerQuotaMetrics/{consumerQuotaMetricsId}/limits/{limitsId}" in create["flatPath"]
    assert "force" in create["parameters"]
    override = properties("serviceusage.v1beta1", "QuotaOverride")
    assert override["overrideValue"]["format"] == "int64"
    assert unquote(overrides["q-project"]["metric"]) == "bigquery.googleapis.com/quota/query/usage"


def test_log_volume_as_the_engine_sees_it(under_mocks: Run) -> None:
    resources = under_mocks(
        lambda: LogVolume(
            "logging",
            LogVolumeArgs(
                prefix="acme-dev",
                project="p",
                retention_days=90,
                exclusions={"gke-info": EXCLUSION_FILTERS["gke-info"]},
            ),
        )
    )
    bucket = one(resources, "gcp:logging/projectBucketConfig:ProjectBucketConfig")
    assert bucket == {"project": "p", "location": "global", "bucketId": "_Default",
                      "retentionDays": 90}  # fmt: skip
    exclusion = one(resources, "gcp:logging/projectExclusion:ProjectExclusion")
    assert exclusion["name"] == "acme-dev-exclude-gke-info"
    assert exclusion["filter"] == 'resource.type="k8s_container" AND severity<=INFO'
    assert "retentionDays" in properties("logging.v2", "LogBucket")
    assert {"name", "filter", "description"} <= set(properties("logging.v2", "LogExclusion"))


def test_exclusion_filters_use_logging_v2_severities() -> None:
    severities = enum("logging.v2", "LogEntry", "severity")
    for log_filter in EXCLUSION_FILTERS.values():
        [level] = re.findall(r"severity<=(\w+)", log_filter)
        assert level in severities and level in ("DEBUG", "INFO")


def test_vertex_tracking_only_what_is_enabled(under_mocks: Run) -> None:
    def build(**flags: bool) -> list[RecordedResource]:
        args = VertexTrackingArgs(
            prefix="acme-dev", project="p", region="us-central1", labels=LABELS, **flags
        )
        return under_mocks(lambda: VertexTracking("vertex", args))

    assert [r.type for r in build()] == ["mlgov:index:VertexTracking"]
    resources = build(tensorboard=True, metadata_store=True)
    board = one(resources, "gcp:vertex/aiTensorboard:AiTensorboard")
    assert board["region"] == "us-central1"
    assert board["displayName"] == "acme-dev-tensorboard"
    assert board["labels"]["workload"] == "experiments"
    store_inputs = one(resources, "gcp:vertex/aiMetadataStore:AiMetadataStore")
    assert store_inputs["name"] == "acme-dev-metadata"
    assert "labels" not in store_inputs
    assert "labels" in properties("aiplatform.v1", "GoogleCloudAiplatformV1Tensorboard")
    assert "labels" not in properties("aiplatform.v1", "GoogleCloudAiplatformV1MetadataStore")
