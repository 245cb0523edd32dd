"""Cloud Storage buckets: stored GiB at the storage classes its lifecycle rules move it through.

Contents are a usage assumption (per bucket, or the default; a usage file's `storage_gb` wins).
The lifecycle split is costs/lifecycle.py's; the baseline keeps every byte in the bucket's own
class (an ungoverned bucket without lifecycle rules holds at least as much, so the saving shown
is conservative). Storage classes are read by their API names, legacy ones included
(storage_classes.py: REGIONAL and MULTI_REGIONAL bill as Standard, DURABLE_REDUCED_AVAILABILITY
at its own price). Operations (class A and B, `storage.ops.*`: every class's price from
https://cloud.google.com/storage/pricing, single-region or dual-/multi-region, flat or
hierarchical namespace), retrieval from colder classes (`storage.retrieval.*`),
internet egress on Cloud Storage's own ladders (worldwide, Asia, China, Australia; egress.py) and
transfer to other Google Cloud locations by destination continent (transfer.py) are usage:
declared in a usage file, else "depends on usage" lines.
Bucket objects are priced here, on their bucket. A Container Registry (`gcp.container.Registry`,
deprecated in favour of Artifact Registry) keeps its images in a Standard bucket in its
multi-region (`location` US, EU or ASIA; US by default) and is priced as that bucket, with the
same usage keys.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Bill, Quote
from governance.costs.context import PlanContext
from governance.costs.egress import StorageInternetEgress, charge_storage_egress
from governance.costs.inputs import text
from governance.costs.lifecycle import class_shares
from governance.costs.model import Resource
from governance.costs.regions import region_of
from governance.costs.storage_classes import StorageClass, storage_class
from governance.costs.transfer import GoogleTransfer, charge_transfer
from governance.costs.usage_models import usage_model
from mlgov_policies.props import as_bool, as_list, as_str, dig

DEFAULT_STORAGE_CLASS = "STANDARD"  # the Cloud Storage default when a bucket names none


class _BucketDeclared(BaseModel):
    """A bucket's own usage keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    storage_gb: float | None = Field(default=None, ge=0, description="GiB stored.")
    monthly_class_a_operations: float | None = Field(
        default=None, ge=0, description="Class A operations a month (writes, lists)."
    )
    monthly_class_b_operations: float | None = Field(
        default=None, ge=0, description="Class B operations a month (reads, metadata)."
    )
    monthly_data_retrieval_gb: float | None = Field(
        default=None, ge=0, description="GiB read from Nearline, Coldline or Archive a month."
    )


# pydantic lays out a model's fields from its LAST base to its first: the bucket's own keys,
# internet egress by destination, then transfer within Google Cloud by destination continent (the
# order the usage-file table in docs/reference/costs.md lists).
class Declared(GoogleTransfer, StorageInternetEgress, _BucketDeclared):
    """A bucket's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@usage_model(place=70)
class StorageUsage(BaseModel):
    """How much each bucket holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    storage_gb_per_bucket: float = Field(default=10.0, ge=0, description="GiB per bucket.")
    storage_gb: dict[str, float] = Field(
        default_factory=dict, description="Per-bucket GiB, keyed by resource or bucket name."
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Stored GiB x class price per lifecycle share; the baseline keeps the bucket's class."""
    q = Quote()
    region = ctx.region(res.inputs, "location")
    own = storage_class(
        text(res.inputs.get("storageClass"), DEFAULT_STORAGE_CLASS, "storageClass"),
        "storageClass",
    )
    u = ctx.knobs(StorageUsage)
    d = ctx.usage_of(res, Declared)
    gib = (
        res.override(u.storage_gb, u.storage_gb_per_bucket)
        if d.storage_gb is None
        else (d.storage_gb)
    )
    shares, why = class_shares(as_list(res.inputs.get("lifecycleRules")), own.api)
    if len(shares) > 1:
        q.governed.note(f"lifecycle: {why}")
    for name, share in shares:
        cls = storage_class(name, "lifecycleRules[].action.storageClass")
        price = ctx.catalog.price(f"storage.{cls.key}", region)
        detail = f"{gib:g} GiB" if share == 1 else f"{share:.0%} of {gib:g} GiB"
        q.governed.charge("storage", price, gib * share, detail)
    q.baseline.charge("storage", ctx.catalog.price(f"storage.{own.key}", region), gib,
                      f"{gib:g} GiB")  # fmt: skip
    hns = as_bool(dig(res.inputs, "hierarchicalNamespace", "enabled")) is True
    for b in (q.governed, q.baseline):
        if own.legacy:
            b.note(own.note)
        _usage(b, ctx, own, region, d, hns)
    return q


def registry(res: Resource, ctx: PlanContext) -> Quote:
    """The registry's Standard bucket in its multi-region: stored GiB plus declared usage."""
    q = Quote()
    region = region_of(as_str(res.inputs.get("location")) or "US")
    d = ctx.usage_of(res, Declared)
    gib = ctx.knobs(StorageUsage).storage_gb_per_bucket if d.storage_gb is None else d.storage_gb
    q.governed.note("Container Registry is deprecated (Artifact Registry replaces it); its "
                    "images live in a Cloud Storage bucket, priced here")  # fmt: skip
    price = ctx.catalog.price("storage.standard", region)
    standard = storage_class(DEFAULT_STORAGE_CLASS, "storageClass")
    for b in (q.governed, q.baseline):
        b.charge("storage", price, gib, f"{gib:g} GiB")
        _usage(b, ctx, standard, region, d, hns=False)
    return q


def _usage(
    b: Bill, ctx: PlanContext, own: StorageClass, region: str, d: Declared, hns: bool
) -> None:
    """Operations, retrieval and egress: declared, or lines that depend on usage.

    Operations bill at the bucket's default class (Google's rule for bucket operations, and for
    object operations on objects of that class), at the hierarchical-namespace rates when the
    bucket has one; a location's own price (dual- and multi-region Class A) wins over "global".
    """
    cls = own.key
    for op, count in (
        ("class_a", d.monthly_class_a_operations),
        ("class_b", d.monthly_class_b_operations),
    ):
        key = f"storage.ops.{op}.{cls}" + (".hns" if hns else "")
        label = f"{op.replace('_', ' ')} operations"
        if not ctx.catalog.has(key):
            b.unpriced_part(label, f"the price catalog has no {own.api} {label} price ({key})")
            continue
        price = ctx.catalog.price(key, region)
        if count is None:
            b.depends_on_usage(label, price, f"monthly_{op}_operations", f"per {price.unit}")
        else:
            b.charge(label, price, count / 1000, f"{count:g} operations")
    if own.retrieval:
        price = ctx.catalog.price(f"storage.retrieval.{cls}", region)
        if d.monthly_data_retrieval_gb is None:
            b.depends_on_usage("retrieval", price, "monthly_data_retrieval_gb")
        else:
            b.charge(
                "retrieval",
                price,
                d.monthly_data_retrieval_gb,
                f"{d.monthly_data_retrieval_gb:g} GiB",
            )
    charge_storage_egress(b, ctx.catalog, d)
    charge_transfer(b, ctx.catalog, region, d)
