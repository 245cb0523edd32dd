"""Cloud-acceptance rules: inputs the Google APIs would refuse at create time (all mandatory).

One module per service, each check beside its `ResourceRule` (with the Google document it
enforces as `source`): gpus.py (GPU/machine pairings on Workbench, Compute, GKE), tpus.py (TPU
runtime versions, zones, GKE topologies), bigquery.py (partition and clustering columns),
scheduling.py (Spot, run-time limits, GPU host maintenance), functions.py (function timeouts),
scheduler.py (attempt deadlines), spend_caps.py (Cloud Billing spend-cap budgets). They are
listed, with every other rule, in the one rule index (registry.RULES). Checks skip unknown values;
the facts they apply, each with its source, live in mlgov_policies.compat.
"""

from mlgov_policies.acceptance import (
    bigquery,
    functions,
    gpus,
    scheduler,
    scheduling,
    spend_caps,
    tpus,
)

__all__ = ["bigquery", "functions", "gpus", "scheduler", "scheduling", "spend_caps", "tpus"]
