"""The plan context: what pricing one resource may know beyond the resource itself.

Built once per estimate from the whole plan and handed to every cost model: the usage
assumptions, the usage file's declarations (usage_file.py), the catalog, the date expiry is
prorated from, and the few cross-resource facts the models need (office-hours windows from
Scheduler jobs, tables per dataset, which Scheduler jobs, GKE cluster, Artifact Registry
repository and BigQuery datasets the free tiers cover, each forwarding rule's place among the
plan's rules, the resources another one refers to by name or self link: a node pool's cluster,
a disk's image or snapshot, a managed instance group's template, a secret version's secret, the
VMs that use a static address).
Nothing here is global: two estimates in one process never share a context.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, TypeVar

from pydantic import BaseModel

from governance.costs.catalog import Catalog
from governance.costs.declared_usage import DeclaredUsage
from governance.costs.model import Resource
from governance.costs.office_hours import notebook_windows
from governance.costs.regions import is_zone, region
from governance.costs.usage_models import CommonUsage
from mlgov_policies import vocabulary as v
from mlgov_policies.props import as_bool, as_list, as_mapping, as_str, dig, is_unknown

M = TypeVar("M", bound=BaseModel)
K = TypeVar("K", bound=BaseModel)

# Types other resources refer to by name or self link (an index per type; see `referenced`).
REFERENCED = frozenset({
    v.GKE_CLUSTER, v.COMPUTE_DISK, v.COMPUTE_REGION_DISK, v.COMPUTE_IMAGE, v.COMPUTE_SNAPSHOT,
    v.COMPUTE_INSTANCE_TEMPLATE, v.COMPUTE_REGION_INSTANCE_TEMPLATE, v.SQL_INSTANCE,
    v.COMPUTE_ADDRESS, v.COMPUTE_GLOBAL_ADDRESS, v.SECRET, v.BQ_DATASET,
})  # fmt: skip
# Inputs that hold a type's GCP name where it is not `name` (a secret's, a dataset's id).
_ID_INPUTS = ("secretId", "datasetId")
# Forwarding rules: Google bills the first five of a project (global ones, and regional ones per
# region) as one hourly charge and each further rule on its own.
_RULES = (v.COMPUTE_FORWARDING_RULE, v.COMPUTE_GLOBAL_FORWARDING_RULE)


_EMPTY: dict[type[BaseModel], BaseModel] = {}


def _empty(model: type[M]) -> M:
    """The model with nothing declared, built once per model (an estimate asks per resource)."""
    found = _EMPTY.get(model)
    if found is None:
        found = _EMPTY[model] = model()
    return found  # pyright: ignore[reportReturnType]


def ref_name(ref: object) -> str:
    """The name a reference ends with: a self link, a `projects/.../images/x` path or a name."""
    text = as_str(ref)
    if not text or is_unknown(ref):
        return ""
    return text.rstrip("/").rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class AddressUse:
    """A VM (or instance template) whose network interface uses a static address."""

    user: str
    spot: bool


_LOCATION_SEGMENTS = ("locations", "zones", "regions")


def ref_location(ref: object) -> str:
    """The location a reference path names (`.../locations/us-central1-a/...`), or ""."""
    parts = (as_str(ref) or "").split("/")
    for i, part in enumerate(parts[:-1]):
        if part in _LOCATION_SEGMENTS:
            return parts[i + 1]
    return ""


def _locations(inputs: Mapping[str, Any]) -> set[str]:
    return {s for k in ("location", "zone", "region") if (s := as_str(inputs.get(k)))}


def _nat_ips(inputs: Mapping[str, Any]) -> Iterator[str]:
    """Every `networkInterfaces[].accessConfigs[].natIp` a VM or template names."""
    for nic in as_list(inputs.get("networkInterfaces")):
        for access in as_list(dig(nic, "accessConfigs")):
            if ip := as_str(as_mapping(access).get("natIp")):
                yield ip


def is_spot(inputs: Mapping[str, Any]) -> bool:
    """Whether a VM or template's `scheduling` makes it a spot (or preemptible) VM."""
    sched = as_mapping(inputs.get("scheduling"))
    return sched.get("provisioningModel") == "SPOT" or as_bool(sched.get("preemptible")) is True


@dataclass(frozen=True, slots=True)
class PlanContext:
    """Assumptions, prices and cross-resource facts shared by every cost model of one estimate."""

    usage: CommonUsage
    """The stack's usage assumptions (assumptions.py's `UsageAssumptions`): the shared knobs by
    name, a cost model's own through `knobs`."""
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
    declared_usage: DeclaredUsage | None = None
    """The usage file resolved against this plan (None: no usage file)."""
    references: Mapping[str, Mapping[str, Sequence[Resource]]] = field(
        default_factory=dict[str, Mapping[str, Sequence[Resource]]]
    )
    """Type -> {Pulumi name, GCP name, address -> resources} for the types in `REFERENCED`."""
    address_users: Mapping[str, AddressUse] = field(default_factory=dict[str, AddressUse])
    """natIp value (an address, or a reference to an Address resource) -> the VM using it."""
    instance_configs: Mapping[str, int] = field(default_factory=dict[str, int])
    """Managed instance group name -> its per-instance configs in the plan (stateful VMs)."""
    rule_rank: Mapping[tuple[str, str], int] = field(default_factory=dict[tuple[str, str], int])
    """(type, Pulumi name) of each forwarding rule -> its 1-based place among the plan's rules
    of its pricing group (global, or one region), in plan order."""
    free_tier_repository: str = ""
    """Name of the Artifact Registry repository the free storage tier goes to (the first)."""
    free_tier_dataset: str = ""
    """Name of the BigQuery dataset BigQuery's free storage tier goes to (the plan's first)."""
    free_query_tib: Mapping[str, float] = field(default_factory=dict[str, float])
    """BigQuery dataset name -> TiB of the free on-demand query tier it takes: the free TiB
    handed to the datasets whose queries the usage file declares, in plan order, each taking
    at most what it declares."""

    @classmethod
    def build(
        cls,
        resources: Sequence[Resource],
        usage: CommonUsage,
        catalog: Catalog,
        declared: DeclaredUsage | None = None,
    ) -> PlanContext:
        """Collect the cross-resource facts of a plan in one pass."""
        tables: dict[str, list[Mapping[str, Any]]] = {}
        jobs: list[Resource] = []
        free_cluster = ""
        references: dict[str, dict[str, list[Resource]]] = {}
        users: dict[str, AddressUse] = {}
        configs: dict[str, int] = {}
        ranks: dict[tuple[str, str], int] = {}
        groups: dict[str, int] = {}
        first_repository = ""
        first_dataset = ""
        datasets: list[Resource] = []
        for res in resources:
            if res.type in _RULES:
                group = (
                    "global"
                    if res.type == v.COMPUTE_GLOBAL_FORWARDING_RULE
                    else region(res.inputs, usage.default_region, "region")
                )
                groups[group] = groups.get(group, 0) + 1
                ranks[(res.type, res.name)] = groups[group]
            elif res.type == v.ARTIFACT_REPOSITORY and not first_repository:
                first_repository = res.name
            if res.type in (v.COMPUTE_PER_INSTANCE_CONFIG, v.COMPUTE_REGION_PER_INSTANCE_CONFIG):
                group = ref_name(res.inputs.get("instanceGroupManager")) or ref_name(
                    res.inputs.get("regionInstanceGroupManager")
                )
                configs[group] = configs.get(group, 0) + 1
            if res.type in REFERENCED:
                index = references.setdefault(res.type, {})
                names = {res.name, res.gcp_name}
                if address := as_str(res.inputs.get("address")):
                    names.add(address)  # a static IP is referred to by its value too
                names.update(i for k in _ID_INPUTS if (i := as_str(res.inputs.get(k))))
                for name in names:
                    index.setdefault(name, []).append(res)
            if res.type in (v.COMPUTE_INSTANCE, v.COMPUTE_INSTANCE_TEMPLATE,
                            v.COMPUTE_REGION_INSTANCE_TEMPLATE):  # fmt: skip
                for ip in _nat_ips(res.inputs):
                    users.setdefault(ip, AddressUse(res.name, is_spot(res.inputs)))
            if res.type == v.BQ_DATASET:
                first_dataset = first_dataset or res.name
                datasets.append(res)
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
            declared_usage=declared,
            references=references,
            address_users=users,
            instance_configs=configs,
            rule_rank=ranks,
            free_tier_repository=first_repository,
            free_tier_dataset=first_dataset,
            free_query_tib=_free_query_tib(datasets, catalog, declared),
        )

    def referenced(self, type_: str, ref: object) -> Resource | None:
        """The plan's resource of `type_` that `ref` (name, path or self link) names, or None.

        Several resources can share a GCP name in different locations (a cluster `default` in
        a zone and another in a region): a path that names a location
        (`projects/p/locations/us-central1-a/clusters/default`) picks the one there.
        """
        name = ref_name(ref)
        found = self.references.get(type_, {}).get(name, ()) if name else ()
        if len(found) > 1 and (where := ref_location(ref)):
            here = [r for r in found if where in _locations(r.inputs)]
            found = here or found
        return found[0] if found else None

    def declared(self, res: Resource) -> dict[str, Any]:
        """The usage the usage file declares for `res` (only the keys it sets)."""
        found = self.declared_usage.of(res) if self.declared_usage else None
        return found.model_dump(exclude_none=True) if found is not None else {}

    def usage_of(self, res: Resource, model: type[M]) -> M:
        """`res`'s declaration as its type's model (every field None when nothing declared)."""
        found = self.declared_usage.of(res) if self.declared_usage else None
        return found if isinstance(found, model) else _empty(model)

    def knobs(self, model: type[K]) -> K:
        """The stack's knobs of one registered usage model (`ctx.knobs(NatUsage).nat_vm_count`).

        The assumptions are one object that is every registered model at once (assumptions.py),
        so this is a typed view of `usage`, not a copy.

        Raises:
            TypeError: `model` is not among the assumptions (not registered with `@usage_model`,
                usage_models.py): a programming error, not bad input.
        """
        if not isinstance(self.usage, model):
            raise TypeError(
                f"{model.__name__} is not a registered usage model: decorate it with "
                "@usage_model in its cost file (governance/costs/usage_models.py)"
            )
        return self.usage

    def region(self, inputs: Mapping[str, Any], *keys: str) -> str:
        """The pricing region from the first of `keys` the inputs set, else the default region."""
        return region(inputs, self.usage.default_region, *keys)


def _free_query_tib(
    datasets: Sequence[Resource], catalog: Catalog, declared: DeclaredUsage | None
) -> dict[str, float]:
    """Dataset name -> free on-demand TiB it takes (see `PlanContext.free_query_tib`).

    BigQuery's first TiB of on-demand queries a month is free per billing account; mlgov sees
    one plan and assumes it is one billing account, so the free TiB goes to the plan's datasets
    in plan order, each taking at most the TiB its usage file declares (an undeclared dataset
    takes none: its queries are a "depends on usage" line).
    """
    free = catalog.find("bigquery.query.free_tib", "global")
    left = free.usd if free is not None else 0.0
    taken: dict[str, float] = {}
    for res in datasets:
        found = declared.of(res) if declared is not None else None
        tib = getattr(found, "monthly_queries_tib", None)
        if left <= 0 or not isinstance(tib, int | float) or tib <= 0:
            continue
        share = min(left, float(tib))
        taken[res.name] = taken.get(res.name, 0.0) + share
        left -= share
    return taken
