"""The bill builder: charges with one explanation line each, for the governed and baseline bills.

A cost model returns a `Quote`: two `Bill`s (what the resource costs as configured, and what it
would cost ungoverned) that write into one shared list of explanation lines, in the order the
model charged them. A charge priced from another location's price (the catalog's nearest-region
fallback) says so in its line and is recorded once in `Quote.fallbacks`. Under a committed-use
assumption a bill also keeps what the same charges cost at list price (`list_total`). Which
prices and quantities to charge is each model's business (resources/); this module only does
the arithmetic and the wording.
"""

from __future__ import annotations

from dataclasses import dataclass

from governance.costs.catalog import Price


@dataclass(frozen=True, slots=True)
class Fallback:
    """One catalog key priced from another location's price because its own has none."""

    key: str
    usage: str
    requested: str
    """The resource's location (where the catalog has no price)."""
    used: str
    """The nearest location with a price (nearest.py), whose price was charged."""


class Bill:
    """A running total with one explanation line per charge or note."""

    __slots__ = ("_fallbacks", "label", "lines", "list_total", "total")

    def __init__(
        self, label: str, lines: list[str], fallbacks: list[Fallback] | None = None
    ) -> None:
        self.label = label  # prefix of every line ("" governed, "baseline " baseline)
        self.lines = lines
        self.total = 0.0
        self.list_total = 0.0  # the same charges at list price (differs under a commitment)
        self._fallbacks = [] if fallbacks is None else fallbacks

    def _where(self, price: Price) -> str:
        where = f"{price.key}[{price.region}/{price.usage}"
        if price.requested:
            where += f", nearest priced location to {price.requested}"
            found = Fallback(price.key, price.usage, price.requested, price.region)
            if found not in self._fallbacks:
                self._fallbacks.append(found)
        return where + "]"

    def charge(self, what: str, price: Price, qty: float, detail: str) -> None:
        """Add `qty` units of `price`; the line names the catalog key, location and usage."""
        self._add(what, price, qty, detail, price.usd * qty, "")

    def charge_committed(
        self, what: str, price: Price, qty: float, detail: str, list_usd: float
    ) -> None:
        """Add `qty` units of a committed-use `price`; `list_usd` is the same usage at list."""
        self._add(what, price, qty, detail, list_usd, f" (list ${list_usd:.2f})")

    def _add(
        self, what: str, price: Price, qty: float, detail: str, list_usd: float, suffix: str
    ) -> None:
        usd = price.usd * qty
        self.total += usd
        self.list_total += list_usd
        self.lines.append(
            f"{self.label}{what}: {self._where(price)} ${price.usd:g}/{price.unit} x {detail} "
            f"= ${usd:.2f}{suffix}"
        )

    def note(self, text: str) -> None:
        """An explanation line that changes nothing."""
        self.lines.append(f"{self.label}{text}")

    def adjust(self, usd: float, text: str) -> None:
        """Add `usd` (negative for a credit) that is not a catalog price times a quantity."""
        self.total += usd
        self.list_total += usd
        self.note(text)


class Quote:
    """One resource's governed and baseline bills, sharing explanation lines and fallbacks.

    `ceiling_usd` is an informational monthly amount the resource bounds (a quota's worst case):
    shown next to the estimate, never added to either bill.
    """

    __slots__ = ("baseline", "ceiling_usd", "fallbacks", "governed", "lines")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.fallbacks: list[Fallback] = []
        self.governed = Bill("", self.lines, self.fallbacks)
        self.baseline = Bill("baseline ", self.lines, self.fallbacks)
        self.ceiling_usd: float | None = None

    @classmethod
    def free(cls, reason: str) -> Quote:
        """A $0 quote that says why the resource costs nothing."""
        quote = cls()
        quote.lines.append(f"$0.00: {reason}")
        return quote
