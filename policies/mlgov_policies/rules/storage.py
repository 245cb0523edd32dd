"""Cloud Storage rules: no public access, bounded storage, function sources kept while live.

Covers `gcp:storage/bucket:Bucket` (the function source bucket, the artifact bucket, users' own).
Lifecycle actions are storage.v1's: `Delete`, `SetStorageClass`, `AbortIncompleteMultipartUpload`.
A bucket that must keep its live objects (the function source bucket keeps the archive a
deployed function was built from) passes the lifecycle rule with rules that only delete
noncurrent versions (`withState: ARCHIVED`, `numNewerVersions`, `daysSinceNoncurrentTime`, ...).
The source rule also reads the functions that name a bucket. Grants on a bucket are iam.py's
concern.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_bool, as_list, as_number, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule, StackResource, StackRule, shown


def no_public_access(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Buckets enforce public access prevention and uniform bucket-level access."""
    del type_, config
    prevention = dig(props, "publicAccessPrevention")
    if not is_unknown(prevention) and prevention != "enforced":
        yield f"publicAccessPrevention is {shown(prevention)}, not 'enforced'"
    uniform = dig(props, "uniformBucketLevelAccess")
    if not is_unknown(uniform) and as_bool(uniform) is not True:
        yield "uniformBucketLevelAccess is not true: object ACLs can make data public"


NO_PUBLIC_ACCESS = ResourceRule(
    name="mlgov-storage-no-public-access",
    check=no_public_access,
    types=frozenset({v.STORAGE_BUCKET}),
    enforcement="mandatory",
    why="Public buckets leak function source and data, and egress is billed to you.",
    remediation="Set publicAccessPrevention = 'enforced' and uniformBucketLevelAccess = true.",
)


# Lifecycle conditions that only noncurrent versions can meet (all of a rule's conditions must
# hold, so one of these keeps the rule off live objects): Object Lifecycle Management,
# https://cloud.google.com/storage/docs/lifecycle#conditions.
_NONCURRENT_ONLY = ("daysSinceNoncurrentTime", "noncurrentTimeBefore")


def _deletes_live(rule: object) -> bool | None:
    """Whether a lifecycle rule (Pulumi inputs) deletes live objects; None when unknown."""
    action = dig(rule, "action", "type")
    condition = dig(rule, "condition")
    if is_unknown(action) or is_unknown(condition):
        return None
    if action != "Delete":
        return False
    state = dig(condition, "withState")
    if is_unknown(state):
        return None
    if state == "ARCHIVED":
        return False
    if any(dig(condition, key) is not None for key in _NONCURRENT_ONLY):
        return False
    newer = as_number(dig(condition, "numNewerVersions"))
    return not (newer is not None and newer >= 1)


def _source_buckets(resources: Sequence[StackResource]) -> dict[str, list[str]] | None:
    """Bucket name -> the functions built from it; None when a function's bucket is unknown."""
    sources: dict[str, list[str]] = {}
    for resource in resources:
        if resource.type != v.FUNCTION_V2:
            continue
        bucket = dig(resource.props, "buildConfig", "source", "storageSource", "bucket")
        if is_unknown(bucket):
            return None
        if (name := as_str(bucket)) is not None:
            sources.setdefault(name, []).append(resource.name)
    return sources


def function_source_kept(
    resources: Sequence[StackResource], config: PolicyConfig
) -> Iterator[tuple[int, str]]:
    """Buckets functions are built from never delete live objects by lifecycle."""
    del config
    sources = _source_buckets(resources)
    if not sources:
        return
    for index, resource in enumerate(resources):
        if resource.type != v.STORAGE_BUCKET:
            continue
        name = as_str(dig(resource.props, "name"))
        if name is None or name not in sources:
            continue
        rules = dig(resource.props, "lifecycleRules")
        if is_unknown(rules):
            continue
        for position, rule in enumerate(as_list(rules)):
            if _deletes_live(rule) is True:
                yield (
                    index,
                    f"lifecycleRules[{position}] deletes live objects, and functions "
                    f"{sorted(sources[name])} are built from this bucket: an archive a deployed "
                    "function names can vanish, and its next rebuild fails",
                )


FUNCTION_SOURCE_KEPT = StackRule(
    name="mlgov-storage-function-source-kept",
    check=function_source_kept,
    types=frozenset({v.STORAGE_BUCKET, v.FUNCTION_V2}),
    enforcement="mandatory",
    why="A function's buildConfig names its source archive and every rebuild reads it again; "
    "Google keeps the sources it stores for functions with no retention period.",
    remediation="Delete only noncurrent versions: enable versioning and give Delete rules "
    "condition.withState = 'ARCHIVED' (or daysSinceNoncurrentTime); never an age rule on live "
    "objects.",
)


# Actions that remove bytes or move them to a cheaper class.
_BOUNDING_ACTIONS = frozenset({"Delete", "SetStorageClass"})
_ABORT = "AbortIncompleteMultipartUpload"


def _actions(props: Mapping[str, Any]) -> list[str] | None:
    """The lifecycle action types, or None when the rules are unknown until apply."""
    rules = dig(props, "lifecycleRules")
    if is_unknown(rules):
        return None
    actions: list[str] = []
    for rule in as_list(rules):
        action = dig(rule, "action", "type")
        if is_unknown(rule) or is_unknown(action):
            return None
        if (kind := as_str(action)) is not None:
            actions.append(kind)
    return actions


def lifecycle_required(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Buckets have a lifecycle rule that deletes or down-classes objects (or old versions)."""
    del type_, config
    actions = _actions(props)
    if actions is not None and not _BOUNDING_ACTIONS & set(actions):
        yield (
            "lifecycleRules has no Delete or SetStorageClass rule: every object (and every "
            "old version) is stored at the bucket's price forever"
        )


LIFECYCLE_REQUIRED = ResourceRule(
    name="mlgov-storage-lifecycle-required",
    check=lifecycle_required,
    types=frozenset({v.STORAGE_BUCKET}),
    enforcement="mandatory",
    why="Checkpoints, pipeline outputs and dataset copies pile up silently; only lifecycle "
    "rules delete them or move them to Nearline/Coldline.",
    remediation="Add a lifecycleRules entry with action Delete (age, or numNewerVersions / "
    "daysSinceNoncurrentTime for a bucket that must keep live objects) or SetStorageClass.",
)


def abort_incomplete_uploads(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Buckets abort incomplete multipart uploads after a few days."""
    del type_, config
    actions = _actions(props)
    if actions is not None and _ABORT not in actions:
        yield f"lifecycleRules has no {_ABORT} rule: parts of abandoned uploads are billed forever"


ABORT_INCOMPLETE_UPLOADS = ResourceRule(
    name="mlgov-storage-abort-incomplete-uploads",
    check=abort_incomplete_uploads,
    types=frozenset({v.STORAGE_BUCKET}),
    enforcement="mandatory",
    why="Large checkpoint uploads use multipart uploads; parts of an interrupted one are billed "
    "as stored data, invisible in listings, until the upload is aborted.",
    remediation="Add a lifecycleRules entry with action AbortIncompleteMultipartUpload and "
    "condition age (days), e.g. 1.",
)
