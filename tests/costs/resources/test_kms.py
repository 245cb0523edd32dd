"""Cloud KMS keys: active versions (tiered for HSM) and operations; rotation is usage."""

from __future__ import annotations

import pytest

from governance.costs.estimate import estimate_resources
from governance.costs.usage_file import parse_usage_file
from tests.costs.cost_plans import USAGE, one, price, unpriced, usage_lines


def key(**inputs: object) -> dict[str, object]:
    return {"type": "gcp:kms/cryptoKey:CryptoKey", "name": "k",
            "inputs": {"keyRing": "projects/p/locations/global/keyRings/r", **inputs}}  # fmt: skip


def declared(**usage: float) -> object:
    return parse_usage_file({"resource_usage": {"k": usage}})


def test_a_software_key_bills_one_version_and_operations_depend_on_usage():
    cost = one(key())
    assert cost.monthly_usd == pytest.approx(price("kms.key_version.software", "global"))
    assert usage_lines(cost) == {"operations": "monthly_key_operations"}


def test_rotation_adds_versions_the_user_declares():
    rotating = key(rotationPeriod="100000s")
    cost = one(rotating)
    assert cost.monthly_usd == pytest.approx(price("kms.key_version.software", "global"))
    assert any("rotationPeriod adds 26.28 versions a month" in line for line in cost.lines)
    usage = declared(key_versions=30, monthly_key_operations=20_000)
    cost = estimate_resources([rotating], USAGE, usage_file=usage).get("k")  # type: ignore[arg-type]
    assert cost.monthly_usd == pytest.approx(
        30 * price("kms.key_version.software", "global")
        + 2 * price("kms.operations.software", "global")
    )


def test_hsm_asymmetric_versions_are_tiered_at_2000():
    hsm = key(versionTemplate={"algorithm": "EC_SIGN_P256_SHA256", "protectionLevel": "HSM"})
    usage = declared(key_versions=5000, monthly_key_operations=10_000)
    cost = estimate_resources([hsm], USAGE, usage_file=usage).get("k")  # type: ignore[arg-type]
    assert cost.monthly_usd == pytest.approx(
        2000 * price("kms.key_version.hsm_asymmetric.first2k", "global")
        + 3000 * price("kms.key_version.hsm_asymmetric.over2k", "global")
        + price("kms.operations.hsm_asymmetric", "global")
    )


@pytest.mark.parametrize(
    ("level", "algorithm"),
    [("HSM", "GOOGLE_SYMMETRIC_ENCRYPTION"), ("EXTERNAL", "GOOGLE_SYMMETRIC_ENCRYPTION")],
)
def test_protection_levels_without_a_price_are_unpriced_naming_them(level: str, algorithm: str):
    why = unpriced(key(versionTemplate={"algorithm": algorithm, "protectionLevel": level}))
    assert f"no catalog price for {level} keys of algorithm {algorithm}" in why


def test_key_rings_are_free():
    ring = {"type": "gcp:kms/keyRing:KeyRing", "name": "r", "inputs": {"location": "global"}}
    cost = one(ring)
    assert cost.priced and cost.monthly_usd == 0
