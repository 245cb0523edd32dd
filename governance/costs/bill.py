"""The bill builder: charges with one explanation line each, for the governed and baseline bills.

A cost model returns a `Quote`: two `Bill`s (what the resource costs as configured, and what it
would cost ungoverned) that write into one shared list of explanation lines, in the order the
model charged them. Every line also exists as a structured `CostLine` (quantity x unit price =
amount, catalog key, location, pricing model and the price's date) for `plan --explain`, the plan
document's `cost_lines` and the PR comment. Three kinds of line add nothing to the total and say
why: a note, a part whose price depends on usage nobody declared (`depends_on_usage`: the unit
price and the usage-file key that would price it, never a silent 0), and a part that cannot be
priced (`Quote.unpriced_part`: the rest of the resource is still priced, and findings.py names
the part). A charge priced from another location's price (the catalog's nearest-region fallback)
says so in its line and is recorded once in `Quote.fallbacks`. Under a committed-use assumption a
bill also keeps what the same charges cost at list price (`list_total`). Which prices and
quantities to charge is each model's business (resources/); this module only does the arithmetic
and the wording.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

from governance.costs.catalog import Price

# How a catalog usage reads in a cost line (the plan document keeps these words).
PRICING = {
    "ondemand": "on-demand",
    "spot": "spot",
    "1y": "1-year commitment",
    "3y": "3-year commitment",
}
SUD = "sustained-use discount"


@dataclass(frozen=True, slots=True)
class Fallback:
    """One catalog key priced from another location's price because its own has none."""

    key: str
    usage: str
    requested: str
    """The resource's location (where the catalog has no price)."""
    used: str
    """The nearest location with a price (nearest.py), whose price was charged."""


# CostLine fields in the order the plan document writes them
_FIELDS = (
    "what", "quantity", "unit", "unit_usd", "usd", "key", "region", "pricing", "price_date",
    "source", "requested_region", "usage_key", "detail",
)  # fmt: skip


class CostLine(NamedTuple):
    """One line of a resource's arithmetic, structured.

    `kind` is "charge" (quantity x unit price = amount), "adjustment" (an amount that is not a
    catalog price times a quantity, e.g. a free-tier credit), "note" (explains, adds nothing),
    "usage" (a part priced per unit whose quantity is usage nobody declared: `usd` is None and
    `usage_key` names what to declare) or "unpriced" (a part with no price: `usd` is None, `text`
    says why). `bill` is "governed" or "baseline"; `text` is the explanation line as
    `ResourceCost.lines` holds it; `requested_region` is where the resource is when the price is
    the nearest priced location's.
    """

    # A named tuple, not a dataclass: an estimate builds one per line (tens of thousands for a
    # large plan), and tuple construction is several times cheaper than a dataclass __init__.
    bill: str
    kind: str
    text: str
    what: str = ""
    quantity: float | None = None
    unit: str = ""
    unit_usd: float | None = None
    usd: float | None = None
    key: str = ""
    region: str = ""
    pricing: str = ""
    price_date: str = ""
    source: str = ""
    requested_region: str = ""
    usage_key: str = ""
    detail: str = ""

    def as_dict(self, source: bool = True) -> dict[str, Any]:
        """The plan document's shape: every field that applies (empty ones left out).

        `source=False` is the plan document's row shape: without the price's source (a document
        lists each key's once) and, for charges and usage lines, without `text` (the fields say
        it all, and a large plan's JSON would carry every line twice).
        """
        out: dict[str, Any] = {"kind": self.kind}
        for name, value in zip(_FIELDS, self[3:], strict=True):
            if value is not None and value != "":
                out[name] = value
        if self.usd is not None:
            out["usd"] = round(self.usd, 6)
        if not source:
            out.pop("source", None)
            if self.kind in ("charge", "usage"):
                return out
        out["text"] = self.text
        return out


class Bill:
    """A running total with one explanation line per charge or note."""

    __slots__ = (
        "_fallbacks", "_unpriced", "entries", "label", "lines", "list_total", "name", "prefix",
        "total",
    )  # fmt: skip

    def __init__(
        self,
        label: str,
        lines: list[str],
        fallbacks: list[Fallback] | None = None,
        entries: list[CostLine] | None = None,
        unpriced: list[tuple[str, str]] | None = None,
    ) -> None:
        self.label = label  # prefix of every line ("" governed, "baseline " baseline)
        self.name = label.strip() or "governed"
        self.prefix = ""  # names the part of the resource being charged ("default pool: ")
        self.lines = lines
        self.entries: list[CostLine] = [] if entries is None else entries
        self.total = 0.0
        self.list_total = 0.0  # the same charges at list price (differs under a commitment)
        self._fallbacks = [] if fallbacks is None else fallbacks
        self._unpriced: list[tuple[str, str]] = [] if unpriced is None else unpriced

    def _where(self, price: Price) -> str:
        where = f"{price.key}[{price.region}/{price.usage}"
        if price.requested:
            where += f", nearest priced location to {price.requested}"
            found = Fallback(price.key, price.usage, price.requested, price.region)
            if found not in self._fallbacks:
                self._fallbacks.append(found)
        return where + "]"

    def _line(self, kind: str, text: str, what: str = "", usd: float | None = None) -> None:
        self.lines.append(text)
        self.entries.append(CostLine(self.name, kind, text, what, usd=usd))

    def part(self, name: str) -> _Part:
        """Name every line written inside the block after one part (`default pool: disk`)."""
        return _Part(self, name)

    def charge(self, what: str, price: Price, qty: float, detail: str, pricing: str = "") -> None:
        """Add `qty` units of `price`; the line names the catalog key, location and usage.

        `pricing` overrides how the pricing model reads (e.g. with a sustained-use discount).
        """
        self._add(what, price, qty, detail, price.usd * qty, "", pricing)

    def charge_committed(
        self, what: str, price: Price, qty: float, detail: str, list_usd: float
    ) -> None:
        """Add `qty` units of a committed-use `price`; `list_usd` is the same usage at list."""
        self._add(what, price, qty, detail, list_usd, f" (list ${list_usd:.2f})", "")

    def _add(
        self, what: str, price: Price, qty: float, detail: str, list_usd: float, suffix: str,
        pricing: str,
    ) -> None:  # fmt: skip
        usd = price.usd * qty
        self.total += usd
        self.list_total += list_usd
        what = self.prefix + what
        text = (
            f"{self.label}{what}: {self._where(price)} ${price.usd:g}/{price.unit} x {detail} "
            f"= ${usd:.2f}{suffix}"
        )
        self.lines.append(text)
        self.entries.append(CostLine(
            self.name, "charge", text, what, qty, price.unit, price.usd, usd, price.key,
            price.region, pricing or PRICING.get(price.usage, price.usage), price.date,
            price.source, price.requested, "", detail,
        ))  # fmt: skip

    def note(self, text: str) -> None:
        """An explanation line that changes nothing."""
        self._line("note", f"{self.label}{self.prefix}{text}")

    def adjust(self, usd: float, text: str) -> None:
        """Add `usd` (negative for a credit) that is not a catalog price times a quantity."""
        self.total += usd
        self.list_total += usd
        self._line("adjustment", f"{self.label}{self.prefix}{text}", usd=usd)

    def depends_on_usage(self, what: str, price: Price, usage_key: str, per: str = "") -> None:
        """A part priced per unit of usage nobody declared: shown with its price, never $0.

        `usage_key` is the usage-file key that prices it; `per` how the quantity is counted
        when the unit alone does not say (e.g. "per 1,000 class A operations"). Said once, on
        the governed bill: the ungoverned baseline depends on the same usage.
        """
        if self.name == "baseline":
            return
        # not a charge: a fallback price here is said in the line, not recorded as a fallback
        what = self.prefix + what
        unit = per or f"per {price.unit}"
        text = (
            f"{self.label}{what}: depends on usage: {price.key}[{price.region}/{price.usage}"
            f"{f', nearest priced location to {price.requested}' if price.requested else ''}] "
            f"${price.usd:g} {unit} (declare `{usage_key}` in the usage file)"
        )
        self.lines.append(text)
        self.entries.append(CostLine(
            self.name, "usage", text, what, None, price.unit, price.usd, None, price.key,
            price.region, PRICING.get(price.usage, price.usage), price.date, price.source,
            price.requested, usage_key,
        ))  # fmt: skip

    def unpriced_part(self, part: str, reason: str) -> None:
        """A part with no price (e.g. a retired GPU): named once, left out of every bill.

        The governed and baseline bills of one quote share the list, so a part both of them
        meet is named once; findings.py turns each into an advisory finding.
        """
        part = self.prefix + part
        if (part, reason) in self._unpriced:
            return
        self._unpriced.append((part, reason))
        text = f"unpriced part: {part}: {reason} (left out of the total)"
        self.lines.append(text)
        self.entries.append(CostLine("governed", "unpriced", text, what=part))


class _Part:
    """`Bill.part`'s block: a class, not a generator, as every VM disk of an estimate enters one."""

    __slots__ = ("_bill", "_name", "_outer")

    def __init__(self, bill: Bill, name: str) -> None:
        self._bill, self._name, self._outer = bill, name, ""

    def __enter__(self) -> None:
        self._outer = self._bill.prefix
        self._bill.prefix = f"{self._outer}{self._name}: "

    def __exit__(self, *_: object) -> None:
        self._bill.prefix = self._outer


class Quote:
    """One resource's governed and baseline bills, sharing explanation lines and fallbacks.

    `ceiling_usd` is an informational monthly amount the resource bounds (a quota's worst case):
    shown next to the estimate, never added to either bill. `unpriced_parts` are the parts with
    no price (the rest is priced).
    """

    __slots__ = (
        "baseline", "ceiling_usd", "entries", "fallbacks", "governed", "lines", "unpriced_parts",
    )  # fmt: skip

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.entries: list[CostLine] = []
        self.fallbacks: list[Fallback] = []
        self.unpriced_parts: list[tuple[str, str]] = []
        shared = (self.lines, self.fallbacks, self.entries, self.unpriced_parts)
        self.governed = Bill("", *shared)
        self.baseline = Bill("baseline ", *shared)
        self.ceiling_usd: float | None = None

    @classmethod
    def free(cls, reason: str) -> Quote:
        """A $0 quote that says why the resource costs nothing."""
        quote = cls()
        quote.governed.note(f"$0.00: {reason}")
        return quote

    def unpriced_part(self, part: str, reason: str) -> None:
        """A part of the resource that has no price: named, left out of both bills."""
        self.governed.unpriced_part(part, reason)

    @contextmanager
    def part(self, name: str) -> Generator[None]:
        """Both bills' lines inside the block name `name` (see `Bill.part`)."""
        with self.governed.part(name), self.baseline.part(name):
            yield
