"""What machines cost for some hours: the machine type, attached GPUs, TPU chips.

A machine is priced from its own catalog entry, `gce.type.<name>`, wherever the catalog has one
(that price already includes the GPUs and local SSD bundled with A2, A3, G2 and G4 types);
custom shapes from their family's vCPU and RAM rates (`gce.n1-custom.*` for N1; other families
at the predefined rates plus Google's custom premium). An `-ext` type the catalog lists is
priced at its catalog price like any listed type (the catalog bills its extended memory as
custom RAM; a note names what Google's extended-memory SKU would add); any other custom shape
named `-ext` bills the memory above its family's per-vCPU cap (N1 6.5 GiB, N2/N2D 8) at the
extended-memory rate (`gce.n1-custom.ram.extended`, Google's own SKU for it, per region,
on-demand and spot; never committed; a family without one leaves that memory as a named
unpriced part). Attached GPUs are
`gpu.<model>`, TPU slices `tpu.<generation>.chip`. A type, GPU or TPU a source says is not sold
in the region is a `NotOffered` error, as creating it would be. Shapes live in machines.py,
disks in disk_pricing.py.

Sustained-use discounts (https://cloud.google.com/compute/docs/sustained-use-discounts): on-demand
hours of the families Google discounts (N1, N1 custom, N2, N2D, C2, M1, M2 and the shared-core
f1-micro and g1-small; the catalog's `sud.<family>.q1..q4` keys, the share of list price billed
in each quarter of the month) are discounted, and so are the N1-attached GPUs. Never spot hours,
never committed ones, never E2, A2, A3, G2 or their A100, H100 and L4 GPUs (no `sud.*.q*` keys).

Committed use (`usage.commitment: 1y|3y`, opt-in): an on-demand machine and its GPUs are billed
at the catalog's 1y/3y price for the whole month on every whole machine the resource runs
(a commitment is billed whether or not the machine runs), and the bill keeps the list price of
the same usage beside it. Where the catalog has no commitment price for a key (attached GPUs,
TPUs), that part stays at list price and the explanation says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from governance.costs.bill import PRICING, SUD, Bill
from governance.costs.catalog import Catalog
from governance.costs.errors import CatalogError, NotOffered
from governance.costs.inputs import number, text
from governance.costs.machines import Shape, gpu_model, refuse_malformed
from governance.costs.month import HOURS_PER_MONTH
from mlgov_policies.props import as_list, as_mapping

# Custom machine shapes of families without their own custom rates list at ~5% over the
# predefined vCPU/RAM SKUs. Source: https://cloud.google.com/compute/vm-instance-pricing
# (custom machine type pricing); N1 uses the catalog's gce.n1-custom.* rates instead.
CUSTOM_PREMIUM = 1.05
# GPUs that never earn sustained-use discounts (they come bundled with A2, A3 and G2 types).
# Source: https://cloud.google.com/compute/docs/sustained-use-discounts
NO_SUD_GPUS = frozenset(
    {"nvidia-tesla-a100", "nvidia-a100-80gb", "nvidia-h100-80gb", "nvidia-h100-mega-80gb",
     "nvidia-l4"}
)  # fmt: skip
COMMITMENTS = ("1y", "3y")
_QUARTER = HOURS_PER_MONTH / 4


def attached_gpus(
    configs: object, count_key: str, where: str, *, enum: bool = False
) -> list[tuple[str, int]]:
    """(GPU model, count) of each accelerator config in a list input at key path `where`.

    Compute Engine and GKE `guestAccelerators` name an accelerator type (`nvidia-tesla-t4`): a
    name Google refuses (`NVIDIA-TESLA-T4`) is `Refused`. `enum` APIs (Workbench's
    `NVIDIA_TESLA_T4`) spell it their own way and are not held to that.
    """
    found: list[tuple[str, int]] = []
    for i, a in enumerate(map(as_mapping, as_list(configs))):
        name = text(a.get("type"), "", f"{where}[{i}].type")
        if not enum:
            refuse_malformed(name, f"{where}[{i}].type (GPU type)")
        found.append((gpu_model(name), int(number(a.get(count_key), 1))))
    return found


# GiB per vCPU a custom shape may have before the rest is extended memory (Google's custom
# machine type limits: N1 6.5, N2 and N2D 8).
EXTENDED_FROM = {"n1": 6.5, "n2": 8.0, "n2d": 8.0}
# A resource-based commitment's memory is "up to 6.5 GB of memory per every vCPU" (Compute
# Engine API v1, ResourceCommitment.amount): memory beyond it, extended memory, is never covered.
EXTENDED_UNCOMMITTED = (
    "a commitment covers at most 6.5 GB of memory per vCPU (Compute Engine API "
    "ResourceCommitment.amount), so extended memory is not committed"
)


def _note_listed_extended(
    bill: Bill, catalog: Catalog, shape: Shape, region: str, usage: str
) -> None:
    """Name what a listed -ext type's catalog price leaves to the custom RAM rate."""
    cap = EXTENDED_FROM.get(shape.family)
    if cap is None or shape.memory_gib <= shape.vcpus * cap:
        return
    extended = shape.memory_gib - shape.vcpus * cap
    ext = catalog.find(f"gce.{shape.family}-custom.ram.extended", region, usage)
    ram = catalog.find(f"gce.{shape.family}-custom.ram", region, usage)
    extra = (
        ""
        if ext is None or ram is None
        else (f" (Google's extended-memory SKU would add ${extended * (ext.usd - ram.usd):.4f}/h)")
    )
    bill.note(f"{shape.name}: the catalog's price bills the {extended:g} GiB above "
              f"{cap:g}/vCPU at the custom RAM rate{extra}")  # fmt: skip


def sud_family(shape: Shape) -> str:
    """The family whose sustained-use tiers apply (`n1-custom` for N1 custom shapes)."""
    return "n1-custom" if shape.custom and shape.family == "n1" else shape.family


def sud_hours(catalog: Catalog, family: str, hours: float, usage: str) -> float:
    """Hours after sustained-use discounts (on-demand families with `sud.*.q*` keys only)."""
    if usage != "ondemand":
        return hours
    shares = _sud_shares(catalog, family)
    if shares is None:
        return hours
    effective = 0.0
    for q, share in enumerate(shares):
        segment = min(max(hours - q * _QUARTER, 0.0), _QUARTER)
        effective += segment * share
    return effective


def _sud_shares(catalog: Catalog, family: str) -> tuple[float, ...] | None:
    """The family's `sud.<family>.q1..q4` shares of list price, or None: no discount.

    Read once per catalog (every on-demand VM of an estimate asks twice, governed and baseline).
    """
    cache_key = ("sud_shares", family)
    if cache_key in catalog.derived:
        return catalog.derived[cache_key]
    shares = None
    if catalog.find(f"sud.{family}.q1", "global") is not None:
        shares = tuple(catalog.price(f"sud.{family}.q{q + 1}", "global").usd for q in range(4))
    catalog.derived[cache_key] = shares
    return shares


def require_offered(catalog: Catalog, what: str, label: str, region: str) -> None:
    """`NotOffered` when a source says `what` ("tpu.v4", "gpu.X", "gce.type.X") is not sold."""
    if catalog.offered(what, region) is False:
        raise NotOffered(label, region, catalog.where_offered(what), catalog.source_of(what))


class _Charger:
    """Charges one machine's parts at list or committed prices, with SUD where it applies."""

    def __init__(
        self, bill: Bill, catalog: Catalog, region: str, usage: str, hours: float, units: float,
        commitment: str, family: str,
    ) -> None:  # fmt: skip
        self.bill, self.catalog, self.region, self.usage = bill, catalog, region, usage
        self.hours, self.units = hours, units
        self.committed = usage == "ondemand" and commitment in COMMITMENTS
        self.commitment = commitment
        self.sud = sud_hours(catalog, family, hours, usage)
        self.many = f"{units:g} x " if units != 1 else ""

    def hours_note(self, sud: bool) -> tuple[float, str]:
        h = self.sud if sud else self.hours
        return h, f"{self.hours:g} h" + (f" (SUD-adjusted {h:.1f} h)" if h != self.hours else "")

    def part(
        self, what: str, key: str, per_unit: float, detail: str, sud: bool = True,
        uncommitted: str = "",
    ) -> None:  # fmt: skip
        """Charge `per_unit` x units of `key` (e.g. 8 vCPUs) for the hours (SUD if `sud`).

        `uncommitted` says why a commitment cannot cover this part (it then stays at list price).
        """
        listed = self.catalog.price(key, self.region, self.usage)
        h, h_note = self.hours_note(sud)
        if self.committed and uncommitted:
            self.bill.note(f"{what}: {uncommitted}; list price")
        elif self.committed:
            if self.catalog.has(key, self.commitment):
                price = self.catalog.price(key, self.region, self.commitment)
                self.bill.charge_committed(
                    what, price, per_unit * self.units * HOURS_PER_MONTH,
                    f"{self.many}{detail}730 h committed ({self.commitment}: billed whether or "
                    f"not it runs; used {h_note})",
                    listed.usd * per_unit * self.units * h,
                )  # fmt: skip
                return
            self.bill.note(f"no {self.commitment} commitment price for {key}: list price")
        pricing = f"{PRICING['ondemand']}, {SUD}" if h != self.hours else ""
        self.bill.charge(
            what, listed, per_unit * self.units * h, f"{self.many}{detail}{h_note}", pricing
        )


def charge_machine(
    bill: Bill,
    catalog: Catalog,
    shape: Shape,
    region: str,
    usage: str,
    hours: float,
    units: float = 1.0,
    extra_gpus: Sequence[tuple[str, int]] = (),
    commitment: str = "none",
) -> None:
    """Charge the machine type, built-in and attached GPUs of `units` machines, `hours` each."""
    if shape.tpu:
        require_offered(catalog, f"tpu.{shape.tpu}", f"TPU {shape.tpu}", region)
        c = _Charger(bill, catalog, region, usage, hours, units, "none", "tpu")
        if commitment in COMMITMENTS and usage == "ondemand":
            bill.note(f"no {commitment} commitment price for TPU chips: list price")
        c.part("TPU", f"tpu.{shape.tpu}.chip", shape.tpu_chips, f"{shape.tpu_chips} chips x ",
               sud=False)  # fmt: skip
        return
    c = _Charger(bill, catalog, region, usage, hours, units, commitment, sud_family(shape))
    type_key = f"gce.type.{shape.name}"
    if shape.name and catalog.has(type_key):
        # a type the catalog lists is priced at the catalog's own price for it, -ext ones too
        # (the catalog bills their memory above the per-vCPU cap as custom RAM, in every
        # region and pricing model, commitments included); the note says what Google's
        # extended-memory SKU would add, so the departure is visible, not silent
        require_offered(catalog, type_key, f"machine type {shape.name}", region)
        c.part("machine", type_key, 1.0, "")
        if shape.extended:
            _note_listed_extended(bill, catalog, shape, region, usage)
    elif shape.fixed_key:
        c.part("machine", shape.fixed_key, 1.0, "")
    elif shape.generic:
        raise CatalogError(f"unknown machine type {shape.name!r}: the catalog has no price for it")
    else:
        family, premium = shape.family, 1.0
        if shape.custom and catalog.has(f"gce.{family}-custom.vcpu"):
            family = f"{family}-custom"
        elif shape.custom:
            premium = CUSTOM_PREMIUM
        c.part("vCPU", f"gce.{family}.vcpu", shape.vcpus * premium, f"{shape.vcpus:g} vCPU x ")
        normal, extended = shape.memory_gib, 0.0
        if shape.extended and shape.family in EXTENDED_FROM:
            normal = min(shape.memory_gib, shape.vcpus * EXTENDED_FROM[shape.family])
            extended = shape.memory_gib - normal
        c.part("RAM", f"gce.{family}.ram", normal * premium, f"{normal:g} GiB x ")
        if extended > 0:
            ext_key = f"gce.{shape.family}-custom.ram.extended"
            cap = EXTENDED_FROM[shape.family]
            if catalog.has(ext_key, usage):
                c.part("extended RAM", ext_key, extended, f"{extended:g} GiB above {cap:g}/vCPU x ",
                       uncommitted=EXTENDED_UNCOMMITTED)  # fmt: skip
            else:
                why = f"no {usage} price for {shape.family} extended memory"
                bill.unpriced_part(f"extended memory {extended:g} GiB", why)
        if premium != 1.0:
            bill.note(f"custom shape: {family} vCPU/RAM x {CUSTOM_PREMIUM} premium")
    if shape.gpu:
        if extra_gpus:
            bill.note(f"{shape.name} has built-in GPUs; listed accelerators not added again")
        return  # bundled GPUs are in the type's price
    for model, count in extra_gpus:
        if count <= 0:
            continue
        if (why := unattachable(catalog, model, shape)) is not None:
            # one GPU that cannot be priced leaves the rest of the machine priced (a finding
            # names the part), as Google would bill the machine and disks without it
            bill.unpriced_part(f"GPU {count} x {model}", why)
            continue
        require_offered(catalog, f"gpu.{model}", f"GPU {model}", region)
        # GPUs attached to N1 earn N1's sustained-use discount; A100/H100/L4 never do
        sud = shape.family == "n1" and model not in NO_SUD_GPUS
        c.part("GPU", f"gpu.{model}", float(count), f"{count} x {model} x ", sud=sud)


def unattachable(catalog: Catalog, model: str, shape: Shape) -> str | None:
    """Why an attached GPU cannot be priced on `shape`, or None when it can.

    A100, H100 and L4 GPUs come only inside their accelerator-optimized machine types (A2, A3,
    G2), so one listed as an accelerator of another type (an A100 on N1) names a machine Google
    does not sell. A model without any catalog price (the retired K80) has no price to charge.
    """
    if model in NO_SUD_GPUS:
        return (
            f"{model} attaches only as part of its accelerator-optimized machine types "
            f"(A2, A3, G2), not to {shape.name or shape.family}"
        )
    if not any(catalog.has(f"gpu.{model}", usage) for usage in ("ondemand", "spot")):
        return f"the price catalog has no price for GPU {model} (retired or unknown model)"
    return None
