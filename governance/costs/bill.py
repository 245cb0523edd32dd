"""The bill builder: charges with one explanation line each, for the governed and baseline bills.

A cost model returns a `Quote`: two `Bill`s (what the resource costs as configured, and what it
would cost ungoverned) that write into one shared list of explanation lines, in the order the
model charged them. Which prices and quantities to charge is each model's business
(resources/); this module only does the arithmetic and the wording.
"""

from __future__ import annotations

from governance.costs.catalog import Price


class Bill:
    """A running total with one explanation line per charge or note."""

    __slots__ = ("label", "lines", "total")

    def __init__(self, label: str, lines: list[str]) -> None:
        self.label = label  # prefix of every line ("" governed, "baseline " baseline)
        self.lines = lines
        self.total = 0.0

    def charge(self, what: str, price: Price, qty: float, detail: str) -> None:
        """Add `qty` units of `price`; the line names the catalog key, region and usage."""
        usd = price.usd * qty
        self.total += usd
        self.lines.append(
            f"{self.label}{what}: {price.key}[{price.region}/{price.usage}] "
            f"${price.usd:g}/{price.unit} x {detail} = ${usd:.2f}"
        )

    def note(self, text: str) -> None:
        """An explanation line that changes nothing."""
        self.lines.append(f"{self.label}{text}")

    def adjust(self, usd: float, text: str) -> None:
        """Add `usd` (negative for a credit) that is not a catalog price times a quantity."""
        self.total += usd
        self.note(text)


class Quote:
    """One resource's governed and baseline bills, sharing one list of explanation lines.

    `ceiling_usd` is an informational monthly amount the resource bounds (a quota's worst case):
    shown next to the estimate, never added to either bill.
    """

    __slots__ = ("baseline", "ceiling_usd", "governed", "lines")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.governed = Bill("", self.lines)
        self.baseline = Bill("baseline ", self.lines)
        self.ceiling_usd: float | None = None

    @classmethod
    def free(cls, reason: str) -> Quote:
        """A $0 quote that says why the resource costs nothing."""
        quote = cls()
        quote.lines.append(f"$0.00: {reason}")
        return quote
