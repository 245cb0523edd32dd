"""Cost-attribution labels: the GCP label rules, and how a resource's labels are put together.

Every labelable resource gets its labels from `Labels.for_workload`, so one pure function decides
what a resource carries. Labels are passed explicitly to each resource (not via provider default
labels) because policy rules and cost estimates read resource inputs, and only explicit labels
show up there. The label keys with a meaning (required, exempt, expiry) are defined once, in
`mlgov_policies.vocabulary` (docs/architecture.md#labels).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from mlgov_policies import label_syntax
from mlgov_policies.vocabulary import (
    EXEMPT_LABEL,
    EXEMPT_VALUE,
    EXPIRES_LABEL,
    MANAGED_BY,
    ROOT_ACCESS_LABEL,
)

MAX_LABELS = 64
RESERVED_PREFIX = "mlgov-"
"""Label keys the automation reads (exempt, expiry, cap state): only mlgov itself sets them."""

# The setting that sets each reserved label a stack may ask for (none for the others).
_SET_BY = {
    EXEMPT_LABEL: "`exempt: true` on the notebook, training pool, TPU VM or GPU VM itself",
    EXPIRES_LABEL: "`expires_on: YYYY-MM-DD` on the notebook, TPU VM or GPU VM itself",
    ROOT_ACCESS_LABEL: "`root_access: true` on the notebook itself",
}


def reserved_label_problem(key: str) -> str | None:
    """Why a stack may not set label `key` itself (an `mlgov-` key), or None if it may.

    Stack labels land on every resource: `mlgov-exempt` there would exempt all of them from the
    budget cap and the reapers with no setting a reviewer would notice.
    """
    if not key.lower().startswith(RESERVED_PREFIX):
        return None
    how = _SET_BY.get(key)
    fix = f"set it with {how}" if how else "mlgov's automation sets these labels itself"
    return f"label {key!r} is reserved: `{RESERVED_PREFIX}*` labels steer the automation; {fix}"


def label_problem(key: str, value: str) -> str | None:
    """Why `key: value` breaks GCP's label rules, or None if it is valid."""
    if not label_syntax.key_ok(key):
        return f"label key {key!r} must {label_syntax.KEY_RULE}"
    if not label_syntax.value_ok(value):
        return f"label value {value!r} for {key!r} may {label_syntax.VALUE_RULE}"
    return None


@dataclass(frozen=True)
class Labels:
    """An immutable, valid set of GCP labels."""

    values: Mapping[str, str] = field(default_factory=dict[str, str])

    def __post_init__(self) -> None:
        problems = [p for k, v in self.values.items() if (p := label_problem(k, v))]
        if len(self.values) > MAX_LABELS:
            problems.append(f"at most {MAX_LABELS} labels are allowed")
        if problems:
            raise ValueError("; ".join(problems))

    def merged(self, extra: Mapping[str, str]) -> Labels:
        """These labels with `extra` added (extra wins on conflicts)."""
        return Labels({**self.values, **extra})

    def for_workload(
        self, workload: str, *, expires_on: date | None = None, exempt: bool = False
    ) -> Labels:
        """Labels for one resource: the base set, its workload, and the automation labels."""
        extra = {"workload": workload}
        if expires_on is not None:
            extra[EXPIRES_LABEL] = expires_on.isoformat()
        if exempt:
            extra[EXEMPT_LABEL] = EXEMPT_VALUE
        return self.merged(extra)

    def as_dict(self) -> dict[str, str]:
        """A plain, key-sorted dict for resource inputs (sorted so diffs stay stable)."""
        return dict(sorted(self.values.items()))


def base_labels(environment: str, extra: Mapping[str, str]) -> Labels:
    """The stack-wide labels: the user's labels plus `env` and `managed-by`.

    Raises:
        ValueError: `extra` sets a reserved `mlgov-` label (the settings refuse those first).
    """
    if reserved := [k for k in extra if reserved_label_problem(k)]:
        raise ValueError(f"stack labels may not set reserved labels {sorted(reserved)}")
    return Labels({**extra, "env": environment, "managed-by": MANAGED_BY})
