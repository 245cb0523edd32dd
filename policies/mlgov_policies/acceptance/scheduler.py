"""Cloud Scheduler attempt deadlines within the range the target type accepts.

HTTP targets take 15 s to 30 min, App Engine targets 15 s to 24 h 15 s; Pub/Sub targets ignore the
field (and setting it makes pulumi-gcp show a permanent diff), so they are not judged here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from mlgov_policies import vocabulary as v
from mlgov_policies.acceptance.paths import duration_seconds
from mlgov_policies.compat import sources
from mlgov_policies.compat.limits import SCHEDULER_DEADLINE_APP_ENGINE, SCHEDULER_DEADLINE_HTTP
from mlgov_policies.config import PolicyConfig
from mlgov_policies.props import as_str, dig, is_unknown
from mlgov_policies.rule import ResourceRule

_SOURCE: Final = sources.short(sources.SCHEDULER_DEADLINE)


def scheduler_attempt_deadline(
    type_: str, props: Mapping[str, Any], config: PolicyConfig
) -> Iterator[str]:
    """Scheduler jobs' attemptDeadline is within the target type's range (HTTP: 15 s to 30 min)."""
    del type_, config
    raw = dig(props, "attemptDeadline")
    if raw is None or is_unknown(raw):
        return
    if dig(props, "httpTarget") is not None:
        limit = SCHEDULER_DEADLINE_HTTP
    elif dig(props, "appEngineHttpTarget") is not None:
        limit = SCHEDULER_DEADLINE_APP_ENGINE
    else:
        return  # Pub/Sub target (the field is ignored) or a target not known yet
    seconds = duration_seconds(raw)
    if seconds is None:
        yield (
            f"attemptDeadline {as_str(raw) or raw!r} is not a duration in seconds such as '320s' "
            f"(source: {_SOURCE})"
        )
        return
    problem = limit.problem(seconds)
    if problem:
        yield f"attemptDeadline {raw!r}: {problem}"


RULE: Final = ResourceRule(
    name="mlgov-scheduler-attempt-deadline-within-limit",
    check=scheduler_attempt_deadline,
    types=frozenset({v.SCHEDULER_JOB}),
    enforcement="mandatory",
    why="Cloud Scheduler refuses an attempt deadline outside the target's range; the job is not "
    "created and the automation it drives never runs.",
    remediation="Set attemptDeadline between '15s' and '1800s' for HTTP targets (between '15s' and "
    "'86415s' for App Engine targets); leave it unset for Pub/Sub targets.",
    source=_SOURCE,
)
RULES: Final = (RULE,)
