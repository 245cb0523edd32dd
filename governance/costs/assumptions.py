"""Usage assumptions: the explicit, documented guesses that turn resource inputs into a bill.

Inputs say what exists; these say how much it runs. They live in the stack settings under
`mlgov:settings.usage` and travel with a plan document as its "assumptions" key, so a cost can
always be recomputed and explained. Each resource type's knobs are defined beside its cost model
(resources/<type>.py, a `*Usage` model); this module composes them into the one flat
`UsageAssumptions` the settings and the plan document use, plus the knobs every model shares.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.month import HOURS_PER_MONTH
from governance.costs.resources.artifact_registry import ArtifactRegistryUsage
from governance.costs.resources.bigquery import BigQueryUsage
from governance.costs.resources.compute_instance import ComputeInstanceUsage
from governance.costs.resources.functions import FunctionsUsage
from governance.costs.resources.logging import LoggingUsage
from governance.costs.resources.nat import NatUsage
from governance.costs.resources.node_pool import NodePoolUsage
from governance.costs.resources.pubsub import PubSubUsage
from governance.costs.resources.sql import SqlUsage
from governance.costs.resources.storage import StorageUsage
from governance.costs.resources.tpu_vm import TpuVmUsage
from governance.costs.resources.vertex import VertexUsage
from governance.costs.resources.workbench import WorkbenchUsage

__all__ = ["HOURS_PER_MONTH", "CommonUsage", "UsageAssumptions"]


class CommonUsage(BaseModel):
    """Assumptions every cost model shares."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    as_of: date | None = Field(
        default=None,
        description="Date the month starts for `mlgov-expires-on` proration (default: today, UTC).",
    )
    default_region: str = Field(
        default="us-central1",
        description="Region used to price resources whose inputs name no location.",
    )
    commitment: Literal["none", "1y", "3y"] = Field(
        default="none",
        description="Price on-demand machines at 1- or 3-year committed-use prices (opt-in; "
        "billed all month); rows keep the list price beside it.",
    )


# pydantic lays out the fields of a model with several bases from the LAST base to the first,
# so this list is the reverse of the documented order (common, notebooks, pools, ..., NAT,
# artifact registry, logging, vertex).
# The order is what `plan --json` prints and what the usage table of docs/reference/costs.md
# lists (a test checks it).
class UsageAssumptions(
    VertexUsage,
    LoggingUsage,
    ArtifactRegistryUsage,
    NatUsage,
    PubSubUsage,
    FunctionsUsage,
    StorageUsage,
    SqlUsage,
    BigQueryUsage,
    TpuVmUsage,
    ComputeInstanceUsage,
    NodePoolUsage,
    WorkbenchUsage,
    CommonUsage,
):
    """How much each kind of resource is used in a month (every field has a default)."""

    # "inf" or "nan" usage would print an invalid plan document (JSON has no Infinity).
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
