"""The plan context: what pricing one resource may know beyond the resource itself.

Built once per estimate from the whole plan and handed to every cost model: the usage
assumptions, the catalog, the date expiry is prorated from, and the few cross-resource facts
the models need (office-hours windows from Scheduler jobs, tables per dataset, which Scheduler
jobs and which GKE cluster the free tiers cover). Nothing here is global: two estimates in one
process never share a context.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from governance.costs.catalog import Catalog
from governance.costs.model import Resource
from governance.costs.office_hours import notebook_windows
from governance.costs.regions import is_zone, region
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_str

if TYPE_CHECKING:
    from governance.costs.assumptions import UsageAssumptions


@dataclass(frozen=True, slots=True)
class PlanContext:
    """Assumptions, prices and cross-resource facts shared by every cost model of one estimate."""

    usage: UsageAssumptions
    catalog: Catalog
    as_of: date
    """The day the month starts, for `mlgov-expires-on` proration."""
    office_hours: Mapping[str, float]
    """Notebook GCP name -> hours/month its office-hours start/stop jobs allow."""
    tables: Mapping[str, Sequence[Mapping[str, Any]]]
    """datasetId -> inputs of the plan's tables in that dataset."""
    free_scheduler_jobs: frozenset[str]
    """Names of the Scheduler jobs the free tier covers (the first N by name)."""
    free_tier_cluster: str
    """Name of the GKE cluster the free-tier credit goes to (the first zonal one), or ""."""

    @classmethod
    def build(
        cls, resources: Sequence[Resource], usage: UsageAssumptions, catalog: Catalog
    ) -> PlanContext:
        """Collect the cross-resource facts of a plan in one pass."""
        tables: dict[str, list[Mapping[str, Any]]] = {}
        jobs: list[Resource] = []
        free_cluster = ""
        for res in resources:
            if res.type == v.BQ_TABLE:
                dataset_id = as_str(res.inputs.get("datasetId")) or ""
                tables.setdefault(dataset_id, []).append(res.inputs)
            elif res.type == v.SCHEDULER_JOB:
                jobs.append(res)
            elif (
                res.type == v.GKE_CLUSTER
                and not free_cluster
                and is_zone(as_str(res.inputs.get("location")) or "")
            ):
                # GKE's free tier credits one zonal (or Autopilot) cluster per billing account;
                # mlgov sees one stack, so it gives the credit to the plan's first zonal cluster.
                free_cluster = res.name
        # Cloud Scheduler's free tier covers N jobs per billing account (N is in the catalog).
        free = int(catalog.price("scheduler.free_jobs", "global").usd)
        return cls(
            usage=usage,
            catalog=catalog,
            as_of=usage.as_of or datetime.now(UTC).date(),
            office_hours=notebook_windows(jobs),
            tables=tables,
            free_scheduler_jobs=frozenset(sorted(job.name for job in jobs)[:free]),
            free_tier_cluster=free_cluster,
        )

    def region(self, inputs: Mapping[str, Any], *keys: str) -> str:
        """The pricing region from the first of `keys` the inputs set, else the default region."""
        return region(inputs, self.usage.default_region, *keys)
