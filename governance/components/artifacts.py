"""ArtifactStore: where training artifacts and images live, and when they go away.

It owns the artifact bucket (checkpoints, pipeline outputs, datasets: in the stack's region,
uniform access, public access prevention, lifecycle rules that move objects to colder classes and
delete them, keep a few noncurrent versions and abort forgotten multipart uploads) and the Docker
repository for training and serving images (cleanup policies keep the most recent versions and
delete untagged and old ones). Which days and counts apply per environment is decided by the
settings (settings/artifacts.py); the function source bucket is GovernanceFunctions' own.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from governance.labels import Labels
from governance.naming import resource_name
from mlgov_policies.vocabulary import component_type

DAY_SECONDS = 86_400


@dataclass(frozen=True, kw_only=True)
class ArtifactBucket:
    """Lifecycle of the artifact bucket, in days since an object was written (None: no step)."""

    storage_class: str = "STANDARD"
    nearline_after_days: int | None = None
    coldline_after_days: int | None = None
    delete_after_days: int | None = 30
    noncurrent_versions: int = 1
    noncurrent_delete_after_days: int | None = 7
    abort_incomplete_upload_days: int = 1


@dataclass(frozen=True, kw_only=True)
class ArtifactRepository:
    """Cleanup of the image repository (days since a version was pushed)."""

    keep_tagged_versions: int = 5
    delete_untagged_after_days: int = 7
    delete_tagged_after_days: int | None = 30
    dry_run: bool = False


@dataclass(frozen=True, kw_only=True)
class ArtifactStoreArgs:
    """What ArtifactStore needs; a None part is not created."""

    prefix: str
    project: str
    region: str
    labels: Labels
    bucket: ArtifactBucket | None = None
    repository: ArtifactRepository | None = None


def _rule(
    action: str, storage_class: str | None = None, **condition: object
) -> gcp.storage.BucketLifecycleRuleArgs:
    return gcp.storage.BucketLifecycleRuleArgs(
        action=gcp.storage.BucketLifecycleRuleActionArgs(type=action, storage_class=storage_class),
        condition=gcp.storage.BucketLifecycleRuleConditionArgs(**condition),  # pyright: ignore[reportArgumentType]
    )


def lifecycle_rules(b: ArtifactBucket) -> list[gcp.storage.BucketLifecycleRuleArgs]:
    """The bucket's lifecycle rules (storage.v1 actions: SetStorageClass, Delete, Abort...)."""
    rules: list[gcp.storage.BucketLifecycleRuleArgs] = []
    # Class changes apply only to objects still in a warmer class, so a rerun never flaps.
    if b.nearline_after_days is not None:
        rules.append(
            _rule(
                "SetStorageClass",
                "NEARLINE",
                age=b.nearline_after_days,
                matches_storage_classes=["STANDARD"],
            )
        )
    if b.coldline_after_days is not None:
        rules.append(
            _rule(
                "SetStorageClass",
                "COLDLINE",
                age=b.coldline_after_days,
                matches_storage_classes=["STANDARD", "NEARLINE"],
            )
        )
    if b.delete_after_days is not None:
        rules.append(_rule("Delete", age=b.delete_after_days, with_state="ANY"))
    if b.noncurrent_versions:
        # Overwritten checkpoints: keep the newest few, and none for longer than N days.
        # numNewerVersions counts the live version too, so N noncurrent kept is N + 1.
        rules.append(
            _rule("Delete", num_newer_versions=b.noncurrent_versions + 1, with_state="ARCHIVED")
        )
        if b.noncurrent_delete_after_days is not None:
            rules.append(_rule("Delete", days_since_noncurrent_time=b.noncurrent_delete_after_days))
    # Parts of an abandoned XML multipart upload are billed as stored data until aborted.
    rules.append(_rule("AbortIncompleteMultipartUpload", age=b.abort_incomplete_upload_days))
    return rules


def cleanup_policies(
    r: ArtifactRepository,
) -> list[gcp.artifactregistry.RepositoryCleanupPolicyArgs]:
    """Artifact Registry cleanup policies (artifactregistry.v1 CleanupPolicy: DELETE/KEEP).

    KEEP wins over DELETE, so the most recent versions survive the age-based deletion.
    """
    policies = [
        gcp.artifactregistry.RepositoryCleanupPolicyArgs(
            id="keep-most-recent",
            action="KEEP",
            most_recent_versions=gcp.artifactregistry.RepositoryCleanupPolicyMostRecentVersionsArgs(
                keep_count=r.keep_tagged_versions
            ),
        ),
        gcp.artifactregistry.RepositoryCleanupPolicyArgs(
            id="delete-untagged",
            action="DELETE",
            condition=gcp.artifactregistry.RepositoryCleanupPolicyConditionArgs(
                tag_state="UNTAGGED", older_than=f"{r.delete_untagged_after_days * DAY_SECONDS}s"
            ),
        ),
    ]
    if r.delete_tagged_after_days is not None:
        policies.append(
            gcp.artifactregistry.RepositoryCleanupPolicyArgs(
                id="delete-old-tagged",
                action="DELETE",
                condition=gcp.artifactregistry.RepositoryCleanupPolicyConditionArgs(
                    tag_state="TAGGED", older_than=f"{r.delete_tagged_after_days * DAY_SECONDS}s"
                ),
            )
        )
    return policies


class ArtifactStore(pulumi.ComponentResource):
    """The artifact bucket and image repository of one environment, both cleaned up."""

    bucket_name: pulumi.Output[str] | None
    repository_id: pulumi.Output[str] | None

    def __init__(
        self, name: str, args: ArtifactStoreArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("ArtifactStore"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        labels = args.labels.for_workload("artifacts").as_dict()
        self.bucket_name = None
        self.repository_id = None
        if (b := args.bucket) is not None:
            bucket = gcp.storage.Bucket(
                f"{name}-bucket",
                # Bucket names are global: the project id makes this one unique.
                name=resource_name(args.project, "mlgov-artifacts"),
                project=args.project,
                location=args.region.upper(),
                storage_class=b.storage_class,
                uniform_bucket_level_access=True,
                public_access_prevention="enforced",
                versioning=gcp.storage.BucketVersioningArgs(enabled=b.noncurrent_versions > 0),
                lifecycle_rules=lifecycle_rules(b),
                labels=labels,
                # Artifacts are data: `pulumi destroy` must not empty the bucket behind anyone.
                force_destroy=False,
                opts=child,
            )
            self.bucket_name = bucket.name
        if (r := args.repository) is not None:
            repo = gcp.artifactregistry.Repository(
                f"{name}-images",
                repository_id=resource_name(args.prefix, "images"),
                project=args.project,
                location=args.region,
                format="DOCKER",
                description="mlgov training and serving images (cleaned up by policy)",
                cleanup_policies=cleanup_policies(r),
                cleanup_policy_dry_run=r.dry_run,
                labels=labels,
                opts=child,
            )
            self.repository_id = repo.repository_id
        self.register_outputs(
            {"bucket_name": self.bucket_name, "repository_id": self.repository_id}
        )
