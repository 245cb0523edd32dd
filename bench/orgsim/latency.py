"""Per-call latency: a lognormal distribution given by its median and its 99th percentile.

For a lognormal, median = exp(mu) and p99 = exp(mu + sigma * z99) with z99 the standard normal's
99th percentile (2.3263), so sigma = ln(p99 / median) / z99. Issue 29 asks for median 200 ms and
p99 2 s: sigma = ln(10) / 2.3263 = 0.990 (mean 0.326 s). Standard library only.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from statistics import NormalDist
from typing import Final

Z99: Final = NormalDist().inv_cdf(0.99)


@dataclass(frozen=True)
class Lognormal:
    """A lognormal latency; `sigma` 0 gives the median every time (a fixed latency)."""

    mu: float
    sigma: float

    @classmethod
    def from_median_p99(cls, median: float, p99: float) -> Lognormal:
        """The lognormal with this median and 99th percentile (p99 >= median > 0).

        Raises:
            ValueError: median <= 0 or p99 < median.
        """
        if median <= 0 or p99 < median:
            raise ValueError(f"latency: need 0 < median <= p99, got {median} and {p99}")
        return cls(math.log(median), math.log(p99 / median) / Z99)

    @property
    def median(self) -> float:
        """exp(mu)."""
        return math.exp(self.mu)

    def quantile(self, q: float) -> float:
        """The q-quantile (0 < q < 1)."""
        return math.exp(self.mu + self.sigma * NormalDist().inv_cdf(q))

    @property
    def mean(self) -> float:
        """exp(mu + sigma^2 / 2)."""
        return math.exp(self.mu + self.sigma**2 / 2)

    def draw(self, rng: random.Random) -> float:
        """One latency in seconds."""
        return rng.lognormvariate(self.mu, self.sigma) if self.sigma else math.exp(self.mu)
