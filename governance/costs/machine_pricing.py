"""What machines cost for some hours: vCPU, RAM, built-in and attached GPUs, TPU chips.

Shapes (what a machine type is made of) live in machines.py and disks in disk_pricing.py.
On-demand N1/N2/N2D hours earn sustained-use discounts, priced from the catalog's
`sud.<family>.q1..q4` keys (the share of list price billed in each quarter of the month).
"""

from __future__ import annotations

from collections.abc import Sequence

from governance.costs.bill import Bill
from governance.costs.catalog import Catalog
from governance.costs.inputs import number, text
from governance.costs.machines import Shape, gpu_model
from governance.costs.month import HOURS_PER_MONTH
from mlgov_policies.props import as_list, as_mapping

# Custom machine shapes list at ~5% over the predefined vCPU/RAM SKUs of their family.
# Source: https://cloud.google.com/compute/vm-instance-pricing (custom machine type pricing).
CUSTOM_PREMIUM = 1.05
_QUARTER = HOURS_PER_MONTH / 4


def attached_gpus(configs: object, count_key: str, where: str) -> list[tuple[str, int]]:
    """(GPU model, count) of each accelerator config in a list input at key path `where`."""
    return [
        (gpu_model(text(a.get("type"), "", f"{where}[{i}].type")), int(number(a.get(count_key), 1)))
        for i, a in enumerate(map(as_mapping, as_list(configs)))
    ]


def sud_hours(catalog: Catalog, family: str, hours: float, usage: str) -> float:
    """Hours after sustained-use discounts (on-demand families with `sud.*` keys only)."""
    if usage != "ondemand" or catalog.find(f"sud.{family}.q1", "global") is None:
        return hours
    effective = 0.0
    for q in range(4):
        segment = min(max(hours - q * _QUARTER, 0.0), _QUARTER)
        effective += segment * catalog.price(f"sud.{family}.q{q + 1}", "global").usd
    return effective


def charge_machine(
    bill: Bill,
    catalog: Catalog,
    shape: Shape,
    region: str,
    usage: str,
    hours: float,
    units: float = 1.0,
    extra_gpus: Sequence[tuple[str, int]] = (),
) -> None:
    """Charge vCPU, RAM, built-in and attached GPUs of `units` machines for `hours` each."""
    h = sud_hours(catalog, shape.family, hours, usage)
    h_note = f"{hours:g} h" + (f" (SUD-adjusted {h:.1f} h)" if h != hours else "")
    many = f"{units:g} x " if units != 1 else ""
    if shape.tpu:
        price = catalog.price(f"tpu.{shape.tpu}.chip", region, usage)
        bill.charge("TPU", price, shape.tpu_chips * units * hours,
                    f"{many}{shape.tpu_chips} chips x {hours:g} h")  # fmt: skip
        return
    if shape.fixed_key:
        bill.charge("machine", catalog.price(shape.fixed_key, region, usage), units * h,
                    f"{many}{h_note}")  # fmt: skip
    else:
        premium = CUSTOM_PREMIUM if shape.custom else 1.0
        vcpu = catalog.price(f"gce.{shape.family}.vcpu", region, usage)
        ram = catalog.price(f"gce.{shape.family}.ram", region, usage)
        bill.charge("vCPU", vcpu, shape.vcpus * premium * units * h,
                    f"{many}{shape.vcpus:g} vCPU x {h_note}")  # fmt: skip
        bill.charge("RAM", ram, shape.memory_gib * premium * units * h,
                    f"{many}{shape.memory_gib:g} GiB x {h_note}")  # fmt: skip
        if shape.custom:
            bill.note(f"custom shape: vCPU/RAM x {CUSTOM_PREMIUM} premium")
    gpus = [(shape.gpu, shape.gpu_count)] if shape.gpu else list(extra_gpus)
    if shape.gpu and extra_gpus:
        bill.note(f"{shape.family} has built-in GPUs; listed accelerators not added again")
    for model, count in gpus:
        if count <= 0:
            continue
        gh = h if shape.family == "n1" else hours  # GPUs on N1 share N1's SUD
        bill.charge("GPU", catalog.price(f"gpu.{model}", region, usage), count * units * gh,
                    f"{many}{count} x {model} x {gh:g} h")  # fmt: skip
