"""The governance diff: what governs a stack, compared between two plan documents.

`governance_changes(base, head)` (compare.py) lists every change to what governs spend (the
functions' deployed policy, budgets, autoscaling limits, `mlgov-*` labels, Scheduler jobs, IAM,
the project and billing account), each a typed `GovernanceChange` (change.py) judged by the table
in aspects.py: does this direction weaken governance, and why. `review` (review.py) applies a
stack's acknowledgements and the prod rule; rendering lives in render.py. Everything here is
pure: plan documents in, values out. Cost changes are diff.py's; the comment is comment.py's.
"""

from governance.review.govdiff.change import GovernanceChange
from governance.review.govdiff.compare import governance_changes
from governance.review.govdiff.review import MANDATORY_POLICY, Review, review

__all__ = ["MANDATORY_POLICY", "GovernanceChange", "Review", "governance_changes", "review"]
