"""fit.least_squares: exact recovery, honest residuals, refusal when rates are not identifiable."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from governance.costs.catalog_build.fit import NotIdentifiable, least_squares

VCPU, RAM = F("0.031611"), F("0.004237")  # N1 in us-central1 (Billing Catalog)
SHAPES = [(F(4), F(15)), (F(8), F(30)), (F(2), F(13)), (F(16), F("14.4"))]


def prices(shapes, vcpu=VCPU, ram=RAM):
    return [c * vcpu + g * ram for c, g in shapes]


def test_recovers_rates_exactly_from_bundle_prices():
    fit = least_squares(SHAPES, prices(SHAPES))
    assert fit.rates == (VCPU, RAM)
    assert fit.max_rel_residual == 0
    assert fit.rows == 4


def test_reports_the_residual_when_no_rates_explain_every_price():
    targets = prices(SHAPES)
    targets[0] += F("0.01")  # one type priced off the family's rates
    fit = least_squares(SHAPES, targets)
    assert fit.max_rel_residual > F(1, 1000)
    assert fit.rates != (VCPU, RAM)


def test_third_column_for_a_bundled_gpu():
    rows = [(F(4), F(1)), (F(8), F(1)), (F(24), F(2)), (F(48), F(4))]  # G2: vCPU+RAM, L4
    combined, l4 = F("0.036688"), F("0.56004")
    fit = least_squares(rows, [c * combined + n * l4 for c, n in rows])
    assert fit.rates == (combined, l4)


def test_collinear_columns_are_not_identifiable():
    # every type has 4 GiB per vCPU: any split of the price between vCPU and RAM fits
    rows = [(F(4), F(16)), (F(8), F(32)), (F(16), F(64))]
    with pytest.raises(NotIdentifiable):
        least_squares(rows, prices(rows))


@pytest.mark.parametrize(
    ("rows", "targets", "message"),
    [
        ([], [], "one target per row"),
        ([(F(1), F(2))], [F(1), F(2)], "one target per row"),
        ([(F(1), F(2)), (F(1),)], [F(1), F(2)], "one positive width"),
        ([(F(1), F(2)), (F(2), F(1))], [F(1), F(0)], "must be positive"),
    ],
)
def test_bad_input_is_rejected(rows, targets, message):
    with pytest.raises(ValueError, match=message):
        least_squares(rows, targets)
