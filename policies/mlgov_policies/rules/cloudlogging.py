"""Cloud Logging rule: log buckets keep logs for a bounded, configured number of days.

Covers `gcp:logging/projectBucketConfig:ProjectBucketConfig` (mlgov sets the `_Default` bucket's
retention). Logs kept past the 30 days included with ingestion are billed per GiB-month
(https://cloud.google.com/stackdriver/pricing); `retentionDays` is logging.v2 LogBucket's field
(unset or 0 at creation: 30 days, so unset is not a finding here).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mlgov_policies import vocabulary as v
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_number, dig, is_unknown
from mlgov_policies.rule import ResourceRule, shown


def retention_bounded(type_: str, props: Mapping[str, Any], config: PolicyConfig) -> Iterator[str]:
    """Log buckets retain logs no longer than the environment's maximum."""
    del type_
    raw = dig(props, "retentionDays")
    if raw is None or is_unknown(raw):
        return
    days = as_number(raw)
    if days is None or days < 0:
        yield f"retentionDays is {shown(raw)}, not a number of days"
    elif days > config.max_log_retention_days:
        yield (
            f"retentionDays is {days:g}, above the maximum of {config.max_log_retention_days}: "
            "every day past 30 is billed per GiB stored"
        )


RETENTION_BOUNDED = ResourceRule(
    name="mlgov-logging-retention-bounded",
    check=retention_bounded,
    types=frozenset({v.LOGGING_BUCKET_CONFIG}),
    enforcement="mandatory",
    config_keys=("max_log_retention_days",),
    why="Logs kept past 30 days are billed per GiB-month; a long retention on a busy project "
    "quietly becomes one of its larger storage bills.",
    remediation="Set retentionDays at most max_log_retention_days (settings: "
    "logging.retention_days); route logs you must keep for years to a cheaper sink.",
)
