"""Internet egress: GiB a month through Premium Tier's volume tiers, or a "depends on usage" line.

Catalog keys `network.egress.internet.tier1..3` (the export's premium-tier worldwide prices,
excluding China and Australia) price the first TiB of a month, the next 9 TiB and the rest. How
many GiB leave is usage: a usage file declares it per resource (`monthly_egress_gb`); without a
declaration the bill shows the first tier's unit price and the key to declare, never $0. Tiers
are per billing account; mlgov applies them per resource, which overstates a fleet whose egress
crosses a tier boundary together.
"""

from __future__ import annotations

from governance.costs.bill import Bill
from governance.costs.catalog import Catalog

TIB = 1024.0
# (tier key, GiB the tier covers): first 1 TiB, next 9 TiB, then everything above 10 TiB
TIERS = (("tier1", TIB), ("tier2", 9 * TIB), ("tier3", float("inf")))
USAGE_KEY = "monthly_egress_gb"


def charge_egress(bill: Bill, catalog: Catalog, region: str, gib: float | None) -> None:
    """Charge `gib` of internet egress tier by tier; `None` (undeclared): a usage line."""
    if gib is None:
        bill.depends_on_usage(
            "internet egress", catalog.price("network.egress.internet.tier1", region), USAGE_KEY,
            "per GiB (first TiB a month; less above)",
        )  # fmt: skip
        return
    left = gib
    for tier, size in TIERS:
        if left <= 0:
            break
        part = min(left, size)
        price = catalog.price(f"network.egress.internet.{tier}", region)
        bill.charge("internet egress", price, part, f"{part:g} GiB ({tier}; {USAGE_KEY})")
        left -= part
    if gib == 0:
        bill.note(f"internet egress: 0 GiB ({USAGE_KEY})")
