"""Cloud Storage rule: buckets enforce public access prevention and uniform access.

Covers `gcp:storage/bucket:Bucket` (the function source bucket). Grants on a bucket are
iam.py's concern.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_bool, dig, is_unknown
from mlgov_policies.rule import ResourceRule, shown


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
