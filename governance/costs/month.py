"""The billing month every estimate is expressed in: 730 hours, as Google's price lists use.

Source: Google Cloud pricing pages and the pricing calculator quote monthly prices for a
730-hour month (https://cloud.google.com/products/calculator, "730 hours per month").
"""

from __future__ import annotations

from typing import Final

HOURS_PER_MONTH: Final = 730.0
DAYS_PER_MONTH: Final = HOURS_PER_MONTH / 24
WEEKS_PER_MONTH: Final = HOURS_PER_MONTH / 168
