"""Exact least squares over rationals: recover per-unit rates from the prices of bundles.

A machine family's predefined types cost `vCPUs x vCPU rate + GiB x RAM rate (+ GPUs x GPU
rate)`, so its types' hourly prices determine the rates. Solving the normal equations in
`Fraction`s makes the answer exact and the residual a proof: zero residual means the rates
reproduce every type's price to the nano-dollar. A design matrix whose columns are not
independent (every type has the same RAM per vCPU, say) is `NotIdentifiable`, never a guess.
Which types form a family and what the rates are called is build.py's business.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

Row = tuple[Fraction, ...]


class NotIdentifiable(ValueError):
    """The columns are linearly dependent: no unique rates explain the prices."""


@dataclass(frozen=True, slots=True)
class Fit:
    """Rates that best explain the targets, and how well they do."""

    rates: tuple[Fraction, ...]
    max_rel_residual: Fraction  # max over rows of |row . rates - target| / target
    rows: int


@functools.lru_cache(maxsize=4096)
def _normal_inverse(rows: tuple[Row, ...]) -> tuple[Row, ...]:
    """(A^T A)^-1 by Gauss-Jordan elimination; cached because most regions share a design."""
    k = len(rows[0])
    gram = [[sum((r[i] * r[j] for r in rows), Fraction(0)) for j in range(k)] for i in range(k)]
    aug = [gram[i] + [Fraction(int(i == j)) for j in range(k)] for i in range(k)]
    for col in range(k):
        pivot = next((r for r in range(col, k) if aug[r][col] != 0), None)
        if pivot is None:
            raise NotIdentifiable(f"column {col} is a combination of the others")
        aug[col], aug[pivot] = aug[pivot], aug[col]
        lead = aug[col][col]
        aug[col] = [v / lead for v in aug[col]]
        for r in range(k):
            if r != col and aug[r][col] != 0:
                factor = aug[r][col]
                aug[r] = [a - factor * b for a, b in zip(aug[r], aug[col], strict=True)]
    return tuple(tuple(row[k:]) for row in aug)


def least_squares(rows: Sequence[Row], targets: Sequence[Fraction]) -> Fit:
    """Rates x minimising |A x - b| for design rows A and positive targets b, exactly.

    Raises:
        NotIdentifiable: fewer independent rows than columns.
        ValueError: empty input, ragged rows, or a non-positive target.
    """
    if not rows or len(rows) != len(targets):
        raise ValueError("least_squares needs one target per row and at least one row")
    width = len(rows[0])
    if width == 0 or any(len(r) != width for r in rows):
        raise ValueError("least_squares needs rows of one positive width")
    if any(t <= 0 for t in targets):
        raise ValueError("least_squares targets are prices and must be positive")
    inverse = _normal_inverse(tuple(tuple(r) for r in rows))
    # The sums run over integers (each row scaled by its own common denominator), and each
    # result becomes one Fraction: the same exact values as summing Fractions term by term,
    # which normalises (a gcd) after every product and sum and was most of a catalog build.
    scaled = [_scaled(r) for r in rows]
    # moments[i] = sum over rows of r[i] x t = sum(R[i] T / (e f)), over one denominator
    common = math.lcm(*(e * t.denominator for (_, e), t in zip(scaled, targets, strict=True)))
    moments = [
        Fraction(
            sum(
                big[i] * t.numerator * (common // (e * t.denominator))
                for (big, e), t in zip(scaled, targets, strict=True)
            ),
            common,
        )
        for i in range(width)
    ]
    rates = tuple(
        sum((inverse[i][j] * moments[j] for j in range(width)), Fraction(0)) for i in range(width)
    )
    # |r . x - t| / t with r = R/e, x = X/d, t = T/f is |(R . X) f - T e d| / (e d T): the
    # largest compared as integers (n1/m1 > n2/m2 when n1 m2 > n2 m1), one Fraction at the end
    xs, d = _scaled(rates)
    worst_n, worst_m = 0, 1
    for (big, e), t in zip(scaled, targets, strict=True):
        n = abs(sum(a * x for a, x in zip(big, xs, strict=True)) * t.denominator
                - t.numerator * e * d)  # fmt: skip
        m = e * d * t.numerator
        if n * worst_m > worst_n * m:
            worst_n, worst_m = n, m
    return Fit(rates=rates, max_rel_residual=Fraction(worst_n, worst_m), rows=len(rows))


def _scaled(values: Sequence[Fraction]) -> tuple[tuple[int, ...], int]:
    """Integers and one denominator that give `values` back exactly (values[i] = ints[i] / d)."""
    d = math.lcm(*(v.denominator for v in values))
    return tuple(v.numerator * (d // v.denominator) for v in values), d
