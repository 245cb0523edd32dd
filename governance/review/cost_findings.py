"""The findings of the cost estimate (not CrossGuard policies) whose level a policy config sets.

Their own leaf so that the governance diff (govdiff/read.py) can name them without importing
policy_scope.py, which imports the governance diff.
"""

from __future__ import annotations

from governance.costs.findings import NOT_OFFERED, PARTIAL, REFUSED, UNPRICED

BUDGET_EXCEEDED = "mlgov-cost-budget-exceeded"
BUDGET_NEAR = "mlgov-cost-budget-near"
COST_FINDINGS = frozenset({NOT_OFFERED, REFUSED, UNPRICED, PARTIAL, BUDGET_EXCEEDED, BUDGET_NEAR})
"""Findings of the cost estimate (not CrossGuard policies) whose level a policy config sets."""
