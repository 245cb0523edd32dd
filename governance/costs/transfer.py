"""Cloud Storage transfer within Google Cloud: GiB a month to other locations, by destination.

Data a bucket sends to another Cloud Storage bucket or another Google Cloud service is free within
the same location (a zone to a zone of its region, EU to EU, a dual-region to a service in one of
its regions); every other move is billed per GiB by the bucket's continent and the destination's,
from the matrix of Google's Cloud Storage pricing page ("Data transfer within Google Cloud";
catalog keys `storage.transfer.<from>.<to>`, documented.json source `gcs-pricing-network`). A
region is not the same location as a multi-region even inside it, so a `US` bucket read from
us-central1 pays the Northern America to Northern America price.

How much moves is usage: a usage file declares GiB per destination continent
(`monthly_transfer_<continent>_gb`, the fields of `GoogleTransfer`). With nothing declared the
part is one "depends on usage" line (the price to the bucket's own continent, the key to
declare); once any destination is declared the others are 0 and a note says so. The two cells
Google lists as N/A (Indonesia to Indonesia, Africa to Africa) and a location mlgov cannot place
on a continent are named unpriced parts when declared, never $0. The same matrix prices a
Container Registry's bucket (resources/storage.py). VM, VPN and Artifact Registry transfer
between regions are billed on other tables the catalog does not have.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Bill
from governance.costs.catalog import Catalog

CONTINENTS = (
    "northern_america",
    "europe",
    "asia",
    "indonesia",
    "oceania",
    "middle_east",
    "latin_america",
    "africa",
)
"""The matrix's areas, in the order Google's table lists them."""

# Multi- and dual-region names (US, NAM4, EU, EUR4, ASIA, ASIA1), by their letters.
_MULTI = {"us": "northern_america", "nam": "northern_america", "eu": "europe", "eur": "europe",
          "asia": "asia"}  # fmt: skip
# Region name prefixes (the part before the first "-"); Mexico (northamerica-south1) is listed
# under North America on Google's Cloud Storage locations.
_PREFIX = {"us": "northern_america", "northamerica": "northern_america",
           "southamerica": "latin_america", "europe": "europe", "asia": "asia",
           "australia": "oceania", "me": "middle_east", "africa": "africa"}  # fmt: skip
_REGION = {"asia-southeast2": "indonesia"}  # Jakarta: the matrix's Indonesia
_DUAL = re.compile(r"([a-z]+)\d*")


def continent_of(location: str) -> str | None:
    """The matrix area of a bucket location (region, dual- or multi-region), or None."""
    loc = location.strip().lower()
    if loc in _REGION:
        return _REGION[loc]
    if "-" in loc:
        return _PREFIX.get(loc.split("-", 1)[0])
    m = _DUAL.fullmatch(loc)
    return _MULTI.get(m.group(1)) if m else None


def usage_key(continent: str) -> str:
    """The usage-file key for GiB sent to `continent`."""
    return f"monthly_transfer_{continent}_gb"


def _title(continent: str) -> str:
    return continent.replace("_", " ").title()


def _gib(description: str) -> float | None:
    return Field(default=None, ge=0, description=description)


class GoogleTransfer(BaseModel):
    """Usage-file keys for transfer within Google Cloud, GiB a month per destination area.

    Each counts what leaves for another location in that area (another bucket or a Google Cloud
    service there); transfer within the same location is free and is not declared.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    monthly_transfer_northern_america_gb: float | None = _gib(
        "GiB a month to other Google Cloud locations in Northern America."
    )
    monthly_transfer_europe_gb: float | None = _gib(
        "GiB a month to other Google Cloud locations in Europe."
    )
    monthly_transfer_asia_gb: float | None = _gib(
        "GiB a month to other Google Cloud locations in Asia (Indonesia apart)."
    )
    monthly_transfer_indonesia_gb: float | None = _gib(
        "GiB a month to other Google Cloud locations in Indonesia."
    )
    monthly_transfer_oceania_gb: float | None = _gib(
        "GiB a month to other Google Cloud locations in Oceania."
    )
    monthly_transfer_middle_east_gb: float | None = _gib(
        "GiB a month to other Google Cloud locations in the Middle East."
    )
    monthly_transfer_latin_america_gb: float | None = _gib(
        "GiB a month to other Google Cloud locations in Latin America."
    )
    monthly_transfer_africa_gb: float | None = _gib(
        "GiB a month to other Google Cloud locations in Africa."
    )

    def by_destination(self) -> dict[str, float | None]:
        """Declared GiB per destination area (None: not declared)."""
        return {c: getattr(self, usage_key(c)) for c in CONTINENTS}


def transfer_key(src: str, dst: str) -> str:
    """Catalog key of the matrix cell from a bucket in `src` to a location in `dst`."""
    return f"storage.transfer.{src}.{dst}"


WHAT = "transfer within Google Cloud"


def charge_transfer(bill: Bill, catalog: Catalog, location: str, declared: GoogleTransfer) -> None:
    """Charge declared GiB per destination at the matrix price; nothing declared: a usage line."""
    src = continent_of(location)
    amounts = declared.by_destination()
    given = {dst: gib for dst, gib in amounts.items() if gib is not None}
    if src is None:
        if given:
            bill.unpriced_part(
                WHAT, f"mlgov cannot place location {location!r} on a continent of Google's matrix"
            )
        else:
            bill.note(f"{WHAT}: not estimated (location {location!r} is on no continent mlgov "
                      "knows of Google's matrix)")  # fmt: skip
        return
    if not given:
        # the cheapest move is to another location on the bucket's own continent (Indonesia's
        # own cell is N/A: its cheapest, Oceania, is shown instead)
        dst = min(
            (d for d in CONTINENTS if catalog.has(transfer_key(src, d))),
            key=lambda d: (d != src, catalog.price(transfer_key(src, d), "global").usd),
        )
        bill.depends_on_usage(
            WHAT,
            catalog.price(transfer_key(src, dst), "global"),
            usage_key(dst),
            f"per GiB to another location in {_title(dst)}; each other continent has its own "
            "key (monthly_transfer_<continent>_gb) and price",
        )
        return
    for dst, gib in given.items():
        what = f"{WHAT} to {_title(dst)}"
        key = transfer_key(src, dst)
        if not catalog.has(key):
            if gib:
                bill.unpriced_part(what, f"Google's matrix lists no price (N/A) from "
                                         f"{_title(src)} to {_title(dst)}")  # fmt: skip
            continue
        if gib == 0:
            bill.note(f"{what}: 0 GiB ({usage_key(dst)})")
            continue
        bill.charge(what, catalog.price(key, "global"), gib, f"{gib:g} GiB ({usage_key(dst)})")
    if undeclared := [_title(d) for d, gib in amounts.items() if gib is None]:
        bill.note(f"{WHAT}: none declared to {', '.join(undeclared)} (0 GiB)")
