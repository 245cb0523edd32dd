"""Cloud-acceptance rules: inputs the Google APIs would refuse at create time (all mandatory).

One module per service, each check beside its `AcceptanceRule` metadata: gpus.py (GPU/machine
pairings on Workbench, Compute, GKE), tpus.py (TPU runtime versions, zones, GKE topologies),
bigquery.py (partition and clustering columns), scheduling.py (Spot, run-time limits, GPU host
maintenance), functions.py (function timeouts), scheduler.py (attempt deadlines). Checks have
the resource-rule shape `(type_token, props, config) -> Iterator[str]` and skip unknown values.
The facts they apply, each with its source, live in mlgov_policies.compat.
"""

from __future__ import annotations

from typing import Final

from mlgov_policies.acceptance import bigquery, functions, gpus, scheduler, scheduling, tpus
from mlgov_policies.acceptance.rule import AcceptanceRule, ResourceCheck

RULES: Final[tuple[AcceptanceRule, ...]] = (
    *gpus.RULES,
    *tpus.RULES,
    *bigquery.RULES,
    *scheduling.RULES,
    *functions.RULES,
    *scheduler.RULES,
)
"""Every acceptance rule, in a fixed order (names are unique)."""

__all__ = ["RULES", "AcceptanceRule", "ResourceCheck"]
