"""Internet egress by destination: GiB a month through Premium Tier's volume tiers, or usage lines.

Premium Tier prices internet egress by destination: worldwide (every destination but China and
Australia; Hong Kong included), China (excluding Hong Kong) and Australia, each with its own
tiered rates (the first TiB of a month, the next 9 TiB, the rest), from the Billing Catalog
export: catalog keys `network.egress.internet.tier1..3` (worldwide) and
`network.egress.internet.{china,australia}.tier1..3`. How many GiB leave is usage: a usage file
declares it per resource (`monthly_egress_gb`, `monthly_egress_china_gb`,
`monthly_egress_australia_gb`, the fields of `InternetEgress`); an undeclared destination is a
"depends on usage" line with its first tier's unit price and the key to declare, never $0.
Cloud VPN's egress to a peer outside Google Cloud is billed with the same prices (resources/
vpn.py). Tiers are per billing account and per destination; mlgov applies them per resource,
which overstates a fleet whose egress crosses a tier boundary together. Transfer that stays in
Google's network (between regions or continents) is not internet egress and is not priced here.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Bill
from governance.costs.catalog import Catalog

TIB = 1024.0
# (tier key, GiB the tier covers): first 1 TiB, next 9 TiB, then everything above 10 TiB
TIERS = (("tier1", TIB), ("tier2", 9 * TIB), ("tier3", float("inf")))
USAGE_KEY = "monthly_egress_gb"


@dataclass(frozen=True)
class Destination:
    """One Premium Tier destination: how its line reads, its catalog keys and its usage key."""

    what: str
    prefix: str
    """Catalog key prefix; the tiers are `<prefix>.tier1..3`."""
    usage_key: str


WORLDWIDE = Destination("internet egress", "network.egress.internet", USAGE_KEY)
CHINA = Destination(
    "internet egress to China", "network.egress.internet.china", "monthly_egress_china_gb"
)
AUSTRALIA = Destination(
    "internet egress to Australia",
    "network.egress.internet.australia",
    "monthly_egress_australia_gb",
)
DESTINATIONS = (WORLDWIDE, CHINA, AUSTRALIA)


class InternetEgress(BaseModel):
    """Usage-file keys for internet egress by destination (GiB a month each)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_egress_gb: float | None = Field(
        default=None,
        ge=0,
        description="GiB sent to the internet a month (every destination but China and Australia).",
    )
    monthly_egress_china_gb: float | None = Field(
        default=None, ge=0, description="GiB sent to the internet in China (not Hong Kong)."
    )
    monthly_egress_australia_gb: float | None = Field(
        default=None, ge=0, description="GiB sent to the internet in Australia."
    )


def charge_egress(
    bill: Bill, catalog: Catalog, region: str, gib: float | None, to: Destination = WORLDWIDE
) -> None:
    """Charge `gib` of internet egress to `to` tier by tier; `None` (undeclared): a usage line."""
    if gib is None:
        bill.depends_on_usage(
            to.what, catalog.price(f"{to.prefix}.tier1", region), to.usage_key,
            "per GiB (first TiB a month; less above)",
        )  # fmt: skip
        return
    left = gib
    for tier, size in TIERS:
        if left <= 0:
            break
        part = min(left, size)
        price = catalog.price(f"{to.prefix}.{tier}", region)
        bill.charge(to.what, price, part, f"{part:g} GiB ({tier}; {to.usage_key})")
        left -= part
    if gib == 0:
        bill.note(f"{to.what}: 0 GiB ({to.usage_key})")


def charge_internet_egress(
    bill: Bill, catalog: Catalog, region: str, declared: InternetEgress
) -> None:
    """Every destination's egress: declared GiB charged, undeclared ones as usage lines."""
    for to, gib in (
        (WORLDWIDE, declared.monthly_egress_gb),
        (CHINA, declared.monthly_egress_china_gb),
        (AUSTRALIA, declared.monthly_egress_australia_gb),
    ):
        charge_egress(bill, catalog, region, gib, to)
