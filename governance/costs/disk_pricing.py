"""What persistent disks cost: provisioned GiB per month, plus provisioned performance.

Used by every model with a boot or data disk (Workbench, VMs, node pools, instance templates)
and by the standalone disk models. A stopped VM still pays for its disks, which is why expiry and
idle shutdown never prorate this charge. pd-extreme and Hyperdisk Extreme also bill every
provisioned IOPS per month (catalog `disk.<type>.iops`). Reading `provisionedIops` and
`provisionedThroughput` (`performance`) applies what Google documents:

- a pd-extreme disk without `provisionedIops` gets Compute Engine's default, 100,000 IOPS, and
  its cost line says so ("If not specified, the default value is 100000": `gcloud compute disks
  create --provisioned-iops`, Google Cloud SDK `lib/surface/compute/disks/create.py` at
  google-cloud-sdk-unofficial/google-cloud-sdk 014ab4fa; the SDK's `constants.py` keeps
  `DEFAULT_PROVISIONED_IOPS = 100000` at 01f043c2; read 2026-11-26);
- Hyperdisk volumes without performance inputs get defaults Google lists under "Default IOPS and
  throughput values", a section no source this estimate reads reaches: that part is named as
  unpriced (finding `mlgov-cost-partially-priced`), never guessed;
- a value Compute Engine refuses (negative; beyond the documented range of the type; IOPS on a
  Hyperdisk Extreme volume created without a size; throughput on Hyperdisk Extreme) raises
  `Refused`: creating the disk would fail, so the resource gets a mandatory finding.

Zero counts as not set: pulumi-gcp (through the Terraform provider) sends no empty value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from governance.costs.bill import Bill
from governance.costs.catalog import Catalog
from governance.costs.errors import CatalogError, CostError, Refused
from mlgov_policies.props import as_number, is_unknown

# Disk types that bill provisioned IOPS on top of capacity (catalog keys disk.<type>.iops).
IOPS_BILLED = frozenset({"pd-extreme", "hyperdisk-extreme", "hyperdisk-balanced"})
# Hyperdisk types that bill provisioned throughput; the catalog has no price for it yet.
THROUGHPUT_BILLED = frozenset({"hyperdisk-balanced", "hyperdisk-throughput", "hyperdisk-ml"})

GCLOUD_DEFAULT_IOPS = (
    "per gcloud compute disks create --provisioned-iops, "
    "'If not specified, the default value is 100000'"
)
# Compute Engine's documented provisioned IOPS for a disk that sets none.
DEFAULT_IOPS = {"pd-extreme": (100_000.0, GCLOUD_DEFAULT_IOPS)}
HD_DEFAULTS = "'Default IOPS and throughput values'"
PD_EXTREME_PAGE = "https://cloud.google.com/compute/docs/disks/extreme-persistent-disk"
HDX_PAGE = "https://cloud.google.com/compute/docs/disks/hd-types/hyperdisk-extreme"


@dataclass(frozen=True, slots=True)
class IopsRange:
    """The provisioned IOPS Compute Engine accepts for a type, overall and per GiB of size."""

    low: float
    high: float
    low_per_gib: float | None
    high_per_gib: float | None
    source: str


# "When you create an Extreme Persistent Disk, you can provision 2,500 to 120,000 IOPS"
# (PD_EXTREME_PAGE); Hyperdisk Extreme: "IOPS: between 128 and 350,000", at least 2 and at
# most 1,200 per GiB of the volume's size (HDX_PAGE, "Size and performance limits").
IOPS_RANGES = {
    "pd-extreme": IopsRange(2_500.0, 120_000.0, None, None, PD_EXTREME_PAGE),
    "hyperdisk-extreme": IopsRange(128.0, 350_000.0, 2.0, 1_200.0, HDX_PAGE),
}


@dataclass(frozen=True, slots=True)
class Performance:
    """A disk's provisioned IOPS and throughput (None: not known here) and where each comes from.

    `iops_default` marks IOPS that are Compute Engine's default (the disk set none).
    """

    iops: float | None
    iops_why: str
    throughput: float | None = None
    throughput_why: str = ""
    iops_default: bool = False


def disk_key(disk_type: str, regional: bool = False) -> str:
    """The catalog key of a disk type as the API spells it (PD_SSD, pd-ssd, a type URL)."""
    kind = disk_type.rsplit("/", 1)[-1].strip().lower().replace("_", "-")
    return f"disk.regional.{kind}" if regional else f"disk.{kind}"


def charge_disk(
    bill: Bill, catalog: Catalog, disk_type: str, size_gb: float, region: str, units: float = 1.0
) -> None:
    """Charge `units` disks of `size_gb` GiB; `disk_type` as the API spells it (PD_SSD, pd-ssd)."""
    price = catalog.price(disk_key(disk_type), region)
    many = f"{units:g} x " if units != 1 else ""
    bill.charge("disk", price, size_gb * units, f"{many}{size_gb:g} GiB (billed while it exists)")


def _n(value: float) -> str:
    """A count as people read it (120,000); absurd ones short (1e+308)."""
    return f"{value:,.0f}" if abs(value) < 1e12 else f"{value:g}"


def _amount(value: object, key: str) -> float | None:
    """A positive amount; None when absent or zero; Refused when negative."""
    if value is None or value == "":
        return None
    found = as_number(value)
    if found is None or math.isnan(found):
        raise CostError(f"{key} is {value!r}, not a number")
    if found < 0:
        raise Refused(f"{key} is {found:g}: Compute Engine refuses a negative value")
    return found or None


def _check_iops(kind: str, iops: float, gib: float | None, key: str) -> None:
    """Refused when Compute Engine's documented range for `kind` (at `gib` GiB) excludes `iops`."""
    limits = IOPS_RANGES.get(kind)
    if limits is None:
        return
    low, high, sized = limits.low, limits.high, ""
    if gib is not None and limits.low_per_gib is not None and limits.high_per_gib is not None:
        low = max(low, limits.low_per_gib * gib)
        high = min(high, limits.high_per_gib * gib)
        sized = (
            f" at {gib:g} GiB ({limits.low_per_gib:g} to {_n(limits.high_per_gib)} per GiB, "
            f"{_n(limits.low)} to {_n(limits.high)} in all)"
        )
    if not low <= iops <= high:
        raise Refused(
            f"{key} is {_n(iops)}: Compute Engine accepts {_n(low)} to {_n(high)} IOPS for "
            f"{kind}{sized} ({limits.source})"
        )


def performance(
    kind: str, iops_in: object, throughput_in: object, gib: float | None, sized: bool,
    where: str = "",
) -> Performance:  # fmt: skip
    """A disk's provisioned performance from its inputs, with Compute Engine's documented defaults.

    `kind` is the disk type (pd-extreme); `gib` its size when known; `sized` whether the inputs
    give a size (or a source it takes one from); `where` prefixes the input keys in messages
    (`bootDisk.initializeParams.`). Raises `Refused` for a value Compute Engine refuses and
    `CostError` for one that is not a number.
    """
    iops_key, tp_key = f"{where}provisionedIops", f"{where}provisionedThroughput"
    iops_unknown, tp_unknown = is_unknown(iops_in), is_unknown(throughput_in)
    iops = None if iops_unknown else _amount(iops_in, iops_key)
    throughput = None if tp_unknown else _amount(throughput_in, tp_key)
    if throughput is not None and kind == "hyperdisk-extreme":
        raise Refused(
            f"{tp_key} is {throughput:g}: Compute Engine refuses a throughput level for "
            f"hyperdisk-extreme, whose throughput follows its IOPS ({HDX_PAGE})"
        )
    if iops is not None and kind == "hyperdisk-extreme" and not sized:
        raise Refused(
            f"{iops_key} is set without a size: Compute Engine refuses an IOPS level for a "
            f"hyperdisk-extreme volume created without one ({HDX_PAGE})"
        )
    if iops is not None:
        _check_iops(kind, iops, gib, iops_key)
    tp_why = _throughput_why(kind, throughput, tp_unknown, tp_key)
    if iops_unknown:
        return Performance(None, f"{iops_key} is not known until the disk is created",
                           throughput, tp_why)  # fmt: skip
    if iops is not None:
        return Performance(iops, iops_key, throughput, tp_why)
    if kind in DEFAULT_IOPS:
        value, source = DEFAULT_IOPS[kind]
        why = f"no {iops_key}: Compute Engine's default for {kind}, {source}"
        return Performance(value, why, throughput, tp_why, iops_default=True)
    why = (
        f"{iops_key} is not set: Compute Engine applies {kind}'s default IOPS "
        f"({HD_DEFAULTS}), which no source this estimate reads states"
    )
    return Performance(None, why, throughput, tp_why)


def _throughput_why(kind: str, throughput: float | None, unknown: bool, key: str) -> str:
    if kind not in THROUGHPUT_BILLED:
        return ""
    if unknown:
        return f"{key} is not known until the disk is created"
    if throughput is None:
        return (
            f"{key} is not set: Compute Engine applies {kind}'s default throughput "
            f"({HD_DEFAULTS}), and the price catalog has no {kind} throughput price"
        )
    return f"the price catalog has no {kind} throughput price"


def charge_performance(
    bill: Bill,
    catalog: Catalog,
    kind: str,
    perf: Performance,
    region: str,
    units: float = 1.0,
) -> None:
    """Charge provisioned IOPS where the type bills them; name what cannot be priced."""
    many = f"{units:g} x " if units != 1 else ""
    if kind in IOPS_BILLED:
        if perf.iops is None:
            bill.unpriced_part("provisioned IOPS", perf.iops_why)
        else:
            try:
                price = catalog.price(f"disk.{kind}.iops", region)
            except CatalogError as err:
                bill.unpriced_part("provisioned IOPS", str(err))
            else:
                why = f" ({perf.iops_why})" if perf.iops_default else ""
                bill.charge("provisioned IOPS", price, perf.iops * units,
                            f"{many}{perf.iops:g} IOPS{why}")  # fmt: skip
    if kind in THROUGHPUT_BILLED:
        bill.unpriced_part("provisioned throughput", perf.throughput_why)
