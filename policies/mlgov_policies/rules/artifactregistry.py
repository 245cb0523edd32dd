"""Artifact Registry rule: repositories clean up old images, for real outside dev.

Covers `gcp:artifactregistry/repository:Repository`. Cleanup policy actions and tag states are
artifactregistry.v1's (`DELETE`/`KEEP`; `TAGGED`/`UNTAGGED`/`ANY`). Remote and virtual
repositories store no images of their own, so only standard repositories are checked.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_bool, as_list, as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule

_NOT_STORING = frozenset({"REMOTE_REPOSITORY", "VIRTUAL_REPOSITORY"})


def cleanup_policies(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Repositories have a DELETE cleanup policy, and it is no dry run outside dev."""
    del type_
    if as_str(dig(props, "mode")) in _NOT_STORING:
        return
    policies = dig(props, "cleanupPolicies")
    if is_unknown(policies):
        return
    actions = [dig(policy, "action") for policy in as_list(policies)]
    if any(is_unknown(action) for action in actions):
        return
    if "DELETE" not in actions:
        yield "cleanupPolicies has no DELETE policy: every image ever pushed is stored forever"
    if config.environment != "dev" and as_bool(dig(props, "cleanupPolicyDryRun")) is True:
        yield (
            f"cleanupPolicyDryRun is true in {config.environment}: the cleanup policies never "
            "delete anything"
        )


CLEANUP_POLICIES = ResourceRule(
    name="mlgov-artifactregistry-cleanup-policies",
    check=cleanup_policies,
    types=frozenset({v.ARTIFACT_REPOSITORY}),
    enforcement="mandatory",
    config_keys=("environment",),
    why="Every training run and CI build pushes multi-GB images; without cleanup the "
    "repository grows (and bills) without end.",
    remediation="Add cleanupPolicies: KEEP mostRecentVersions (keepCount) plus DELETE "
    "UNTAGGED older than N days; set cleanupPolicyDryRun false outside dev.",
)
