"""The cost guardrail: a pull request may raise a stack's monthly estimate only so far.

A stack sets `limits.max_monthly_increase_usd` and/or `limits.max_monthly_increase_percent`
(`mlgov:settings` or `mlgov:plan`; the plan document records them under `limits`). When the
head's monthly estimate exceeds the base's by more than either, `diff` and `comment` report one
mandatory finding, `mlgov-cost-increase-limit`, with the base, the head, the increase in dollars
and percent and the limits it passed, and exit 1 as for any other mandatory finding.

The limits judged are the stricter of the base's and the head's: a pull request cannot escape the
guardrail by raising its own limit (that raise is a governance weakening, govdiff), and a limit it
lowers applies at once. A new stack (no base) rises from $0: the dollar limit applies, the percent
one cannot (no percentage of nothing). Pure: plan documents and their cost diff in, findings out;
the cost diff itself is diff.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mlgov_policies.props import as_mapping

if TYPE_CHECKING:
    # Imported when judging only: render.py (which diff.py imports) shows the limits too.
    from governance.review.diff import CostDiff

INCREASE_LIMIT = "mlgov-cost-increase-limit"
USD_KEY = "max_monthly_increase_usd"
PERCENT_KEY = "max_monthly_increase_percent"
WHY = (
    "The stack sets a cost guardrail: a change that raises the monthly bill past it needs a "
    "deliberate decision, not a merge by default."
)
REMEDIATION = (
    "Make the change cheaper, or raise the limit in a change of its own that an owner reviews "
    "(limits.max_monthly_increase_usd / limits.max_monthly_increase_percent in mlgov:settings or "
    "mlgov:plan; raising or removing one is a governance weakening)."
)

Doc = Mapping[str, Any]


@dataclass(frozen=True)
class IncreaseLimits:
    """The most a change may raise the monthly estimate: dollars, percent (None: no limit)."""

    usd: float | None = None
    percent: float | None = None


def _limit(doc: Doc | None, key: str) -> float | None:
    """A document's limit: a finite, non-negative number, else none (settings refuse the rest)."""
    value: Any = as_mapping((doc or {}).get("limits")).get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def _stricter(a: float | None, b: float | None) -> float | None:
    present = [x for x in (a, b) if x is not None]
    return min(present) if present else None


def limits_of(base: Doc | None, head: Doc) -> IncreaseLimits:
    """The limits a change is judged by: for each, the stricter of the base's and the head's."""
    return IncreaseLimits(
        usd=_stricter(_limit(base, USD_KEY), _limit(head, USD_KEY)),
        percent=_stricter(_limit(base, PERCENT_KEY), _limit(head, PERCENT_KEY)),
    )


def _usd(value: float) -> str:
    return f"${value:,.2f}"


def _percent(value: float) -> str:
    return f"{value:g}%"


def increase_findings(diff: CostDiff, limits: IncreaseLimits) -> list[dict[str, Any]]:
    """The guardrail's finding when the monthly estimate rises past a limit (else none).

    `diff` is base vs head (a new stack's base is empty, $0). The amounts compared are the rounded
    totals diff.py shows, so the finding's numbers are the comment's.
    """
    from governance.review.diff import CENT

    base, head, increase = diff.base.monthly_usd, diff.head.monthly_usd, diff.delta
    if increase < CENT:
        return []
    share = increase / base * 100 if base >= CENT else None
    passed: list[str] = []
    if limits.usd is not None and increase > limits.usd + CENT / 2:
        passed.append(f"{USD_KEY} {_usd(limits.usd)}")
    if limits.percent is not None and share is not None and share > limits.percent:
        passed.append(f"{PERCENT_KEY} {_percent(limits.percent)}")
    if not passed:
        return []
    shown = f"+{share:.1f}%" if share is not None else "from $0: no percentage"
    message = (
        f"the monthly estimate rises from {_usd(base)} (base) to {_usd(head)} (head), "
        f"+{_usd(increase)} ({shown}): more than limits.{' and limits.'.join(passed)}"
    )
    return [
        {
            "policy": INCREASE_LIMIT,
            "resource": None,
            "type": "",
            "enforcement": "mandatory",
            "message": message,
            "why": WHY,
            "remediation": REMEDIATION,
            "base_monthly_usd": base,
            "head_monthly_usd": head,
            "increase_usd": increase,
            "increase_percent": None if share is None else round(share, 2),
            "limits": {USD_KEY: limits.usd, PERCENT_KEY: limits.percent},
        }
    ]


def judged(diff: CostDiff, base: Doc | None, head: Doc) -> list[dict[str, Any]]:
    """`increase_findings` with the limits of these two documents."""
    return increase_findings(diff, limits_of(base, head))


def limits_line(doc: Doc) -> str | None:
    """`plan`'s line for the guardrail a stack sets (None when it sets none)."""
    limits = limits_of(None, doc)
    parts = [
        *([_usd(limits.usd)] if limits.usd is not None else []),
        *([_percent(limits.percent)] if limits.percent is not None else []),
    ]
    if not parts:
        return None
    keys = [k for k, v in ((USD_KEY, limits.usd), (PERCENT_KEY, limits.percent)) if v is not None]
    return (
        f"cost guardrail: a pull request may raise this estimate by at most {' or '.join(parts)} "
        f"a month (limits.{', limits.'.join(keys)}); more is a mandatory finding in diff and "
        "comment"
    )


def text_lines(findings: list[dict[str, Any]]) -> list[str]:
    """`diff`'s plain view of the guardrail's findings, as `plan` shows a finding."""
    lines: list[str] = []
    for f in findings:
        lines += [
            "",
            f"[MANDATORY] {f['policy']} on the stack",
            f"  what: {f['message']}",
            f"  why:  {f['why']}",
            f"  fix:  {f['remediation']}",
        ]
    return lines


def markdown_lines(findings: list[dict[str, Any]]) -> list[str]:
    """`diff --markdown`'s block for the guardrail's findings (mlgov's own words only)."""
    if not findings:
        return []
    rows = ["**Cost guardrail**", ""]
    rows += [
        f":x: **mandatory** `{f['policy']}`: {f['message']}. {f['remediation']}" for f in findings
    ]
    return [*rows, ""]
