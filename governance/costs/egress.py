"""Internet egress by destination: GiB a month through Premium Tier's volume tiers, or usage lines.

Premium Tier prices internet egress by where it leaves from and where it goes (its Billing
Catalog SKUs are "Network Internet Data Transfer Out from <source> to <destination>"). The export
mlgov builds from (google-cloud-pricing-cost-calculator's build_mapping.csv) keeps, for every
source region, three destinations: the Americas (its `...%Americas` SKU; mlgov's "worldwide"),
China (excluding Hong Kong) and Australia, each with its own tiered rates (the first TiB of a
month, the next 9 TiB, the rest): catalog keys `network.egress.internet.tier1..3` and
`network.egress.internet.{china,australia}.tier1..3`, priced at the resource's own region (the
source). Google also has SKUs to other destinations (EMEA, APAC, ...) that the export does not
map: mlgov prices every destination but China and Australia at the source's rate to the
Americas, and each line says so. How many GiB leave is usage: a usage file
declares it per resource (`monthly_egress_gb`, `monthly_egress_china_gb`,
`monthly_egress_australia_gb`, the fields of `InternetEgress`); an undeclared destination is a
"depends on usage" line with its first tier's unit price and the key to declare, never $0.
Cloud VPN's egress to a peer outside Google Cloud is billed with the same prices (resources/
vpn.py). Tiers are per billing account and per destination; mlgov applies them per resource,
which overstates a fleet whose egress crosses a tier boundary together. Transfer that stays in
Google's network (between regions or continents) is not internet egress and is not priced here
(Cloud Storage's is: transfer.py).

Cloud Storage bills what a bucket sends to the internet on its own ladders ("General network
usage" on Google's Cloud Storage pricing page; catalog keys `storage.egress.internet.*`,
documented.json source `gcs-pricing-network`): worldwide (every destination but Asia, China and
Australia), Asia (China excluded, Hong Kong included: tiered apart from worldwide), China and
Australia, each tiered per month and billing account (0-10 TiB, 10-150 TiB, above; China 0-1
TiB, 1-10 TiB, above). `StorageInternetEgress` holds a bucket's four keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Bill
from governance.costs.catalog import Catalog

TIB = 1024.0
Tiers = tuple[tuple[str, float], ...]
# (tier key, GiB the tier covers): first 1 TiB, next 9 TiB, then everything above 10 TiB
TIERS: Tiers = (("tier1", TIB), ("tier2", 9 * TIB), ("tier3", float("inf")))
# Cloud Storage's general network usage: first 10 TiB, next 140 TiB, then above 150 TiB
STORAGE_TIERS: Tiers = (("tier1", 10 * TIB), ("tier2", 140 * TIB), ("tier3", float("inf")))
USAGE_KEY = "monthly_egress_gb"


@dataclass(frozen=True)
class Destination:
    """One Premium Tier destination: how its line reads, its catalog keys and its usage key."""

    what: str
    prefix: str
    """Catalog key prefix; the tiers are `<prefix>.tier1..3`."""
    usage_key: str
    tiers: Tiers = TIERS
    region: str = ""
    """The catalog location its prices are read from ("": the resource's region)."""
    basis: str = ""
    """What the price stands for, said on every line (the export's source-region assumption)."""

    def first_tier(self) -> str:
        """How the first tier reads on a "depends on usage" line."""
        return self._first_tier

    # Worked out once per destination, not per line: every VM of an estimate writes a
    # "depends on usage" line per destination (a frozen dataclass keeps these in its __dict__).
    @cached_property
    def _first_tier(self) -> str:
        tib = self.tiers[0][1] / TIB
        first = "first TiB" if tib == 1 else f"first {tib:g} TiB"
        basis = f"; {self.basis}" if self.basis else ""
        return f"per GiB ({first} a month; less above{basis})"

    @cached_property
    def first_key(self) -> str:
        """The catalog key of the first tier (`<prefix>.tier1`)."""
        return f"{self.prefix}.tier1"


# The source is the resource's region; only these three destinations are in the export.
_FROM_REGION = "the rate from the resource's region"
WORLDWIDE = Destination(
    "internet egress",
    "network.egress.internet",
    USAGE_KEY,
    basis=f"{_FROM_REGION} to the Americas, assumed for every destination but China and Australia",
)
CHINA = Destination(
    "internet egress to China",
    "network.egress.internet.china",
    "monthly_egress_china_gb",
    basis=_FROM_REGION,
)
AUSTRALIA = Destination(
    "internet egress to Australia",
    "network.egress.internet.australia",
    "monthly_egress_australia_gb",
    basis=_FROM_REGION,
)
DESTINATIONS = (WORLDWIDE, CHINA, AUSTRALIA)

_GCS = "storage.egress.internet"
STORAGE_WORLDWIDE = Destination("internet egress", _GCS, USAGE_KEY, STORAGE_TIERS, "global")
STORAGE_ASIA = Destination(
    "internet egress to Asia", f"{_GCS}.asia", "monthly_egress_asia_gb", STORAGE_TIERS, "global"
)
STORAGE_CHINA = Destination(
    "internet egress to China", f"{_GCS}.china", "monthly_egress_china_gb", TIERS, "global"
)
STORAGE_AUSTRALIA = Destination(
    "internet egress to Australia",
    f"{_GCS}.australia",
    "monthly_egress_australia_gb",
    STORAGE_TIERS,
    "global",
)
STORAGE_DESTINATIONS = (STORAGE_WORLDWIDE, STORAGE_ASIA, STORAGE_CHINA, STORAGE_AUSTRALIA)


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
    region = to.region or region
    if gib is None:
        bill.depends_on_usage(to.what, catalog.price(to.first_key, region), to.usage_key,
                              to.first_tier())  # fmt: skip
        return
    left = gib
    for tier, size in to.tiers:
        if left <= 0:
            break
        part = min(left, size)
        price = catalog.price(f"{to.prefix}.{tier}", region)
        basis = f"; {to.basis}" if to.basis else ""
        bill.charge(to.what, price, part, f"{part:g} GiB ({tier}; {to.usage_key}{basis})")
        left -= part
    if gib == 0:
        bill.note(f"{to.what}: 0 GiB ({to.usage_key})")


def charge_internet_egress(
    bill: Bill, catalog: Catalog, region: str, declared: InternetEgress
) -> None:
    """Every destination's egress: declared GiB charged, undeclared ones as usage lines."""
    _charge_each(bill, catalog, region, declared, DESTINATIONS)


def _charge_each(
    bill: Bill,
    catalog: Catalog,
    region: str,
    declared: BaseModel,
    destinations: tuple[Destination, ...],
) -> None:
    """Each destination's declared GiB (the usage model's field named by its usage key)."""
    for to in destinations:
        charge_egress(bill, catalog, region, getattr(declared, to.usage_key), to)


class StorageInternetEgress(BaseModel):
    """A bucket's internet egress keys, one per Cloud Storage destination (GiB a month each)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_egress_gb: float | None = Field(
        default=None,
        ge=0,
        description="GiB sent to the internet a month (every destination but Asia, China and "
        "Australia).",
    )
    monthly_egress_asia_gb: float | None = Field(
        default=None,
        ge=0,
        description="GiB sent to the internet in Asia (not China; Hong Kong in).",
    )
    monthly_egress_china_gb: float | None = Field(
        default=None, ge=0, description="GiB sent to the internet in China (not Hong Kong)."
    )
    monthly_egress_australia_gb: float | None = Field(
        default=None, ge=0, description="GiB sent to the internet in Australia."
    )


def charge_storage_egress(bill: Bill, catalog: Catalog, declared: StorageInternetEgress) -> None:
    """A bucket's internet egress on Cloud Storage's ladders, one per destination."""
    _charge_each(bill, catalog, "global", declared, STORAGE_DESTINATIONS)
