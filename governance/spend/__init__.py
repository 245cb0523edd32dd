"""Where the money went: read a stack's Cloud Billing export and compare it with the plan.

`spend` answers four questions from the billing export (docs/architecture.md#spend-report): is the
export flowing (freshness.py), who spent what (attribution.py), how the plan's estimates compare
with what was billed (join.py), and which SQL does it (queries.py, sql/*.sql, reusable as is).
report.py runs the queries through a `QueryRunner` (runner.py, the only module that touches
google-cloud-bigquery, imported lazily) and builds the `--json` document; render.py prints it;
governance/cli/spend.py is the thin command-line glue (settings and the plan come from the rest
of governance).

Nothing here imports pulumi or pulumi_gcp, so the package runs in a Cloud Function or a
notebook: build a `BigQueryRunner`, an `ExportTables` and a `Window`, call `build_report`.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Type tokens and label keys have one home, policies/mlgov_policies/vocabulary.py (stdlib only).
# The policy pack runs with policies/ on sys.path; give this package the same view, as plan.py
# does, so it also works from a notebook that only has the repository root on its path.
_POLICIES = str(Path(__file__).resolve().parents[2] / "policies")
if _POLICIES not in sys.path:
    sys.path.append(_POLICIES)
