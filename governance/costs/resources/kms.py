"""Cloud KMS keys (`gcp.kms.CryptoKey`): active key versions a month and cryptographic operations.

Google bills each active key version (enabled or disabled, until destroyed) a month and
operations per 10,000, by protection level and algorithm (catalog keys `kms.*`). A new key has
one version; `rotationPeriod` adds a version each period, billed until someone destroys it, so
how many are active is usage: usage file `key_versions` (else 1, with a note saying how many a
month of rotation adds). Operations are usage (`monthly_key_operations`, else a "depends on
usage" line). Software keys are priced; HSM keys of the asymmetric algorithms the catalog has
(EC P-256/P-384, RSA 3072/4096) are priced in two tiers (first 2,000 versions, then the rest);
other HSM algorithms and external keys have no catalog price and are unpriced, naming the
protection level. Key rings are free (registry.py). The baseline is the same.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from governance.costs.bill import Quote
from governance.costs.catalog import Price
from governance.costs.context import PlanContext
from governance.costs.errors import CostError
from governance.costs.inputs import text
from governance.costs.model import Resource
from governance.costs.month import HOURS_PER_MONTH
from mlgov_policies.props import as_mapping

HSM_FIRST_TIER = 2000.0  # versions billed at the first HSM tier's price
_HSM_ASYMMETRIC = re.compile(r".*(EC_SIGN_P256|EC_SIGN_P384|RSA_\w+_3072|RSA_\w+_4096).*")
_SECONDS = re.compile(r"(\d+(?:\.\d+)?)s")


class Declared(BaseModel):
    """A KMS key's usage in a usage file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key_versions: float | None = Field(
        default=None, ge=0, description="Active (not destroyed) key versions."
    )
    monthly_key_operations: float | None = Field(
        default=None, ge=0, description="Cryptographic operations a month."
    )


def _rotations(period: object) -> float | None:
    """Versions a 730-hour month of rotation adds (None without a rotation period)."""
    m = _SECONDS.fullmatch(str(period or ""))
    if not m or float(m.group(1)) <= 0:
        return None
    return HOURS_PER_MONTH * 3600 / float(m.group(1))


def _prices(res: Resource, ctx: PlanContext) -> tuple[str, list[tuple[Price, float]], Price]:
    """(protection, [(version price, versions it covers)], operations price)."""
    template = as_mapping(res.inputs.get("versionTemplate"))
    protection = text(template.get("protectionLevel"), "SOFTWARE", "versionTemplate")
    algorithm = text(template.get("algorithm"), "GOOGLE_SYMMETRIC_ENCRYPTION", "versionTemplate")
    cat = ctx.catalog
    if protection == "SOFTWARE":
        version = cat.price("kms.key_version.software", "global")
        return protection, [(version, float("inf"))], cat.price("kms.operations.software", "global")
    if protection == "HSM" and _HSM_ASYMMETRIC.fullmatch(algorithm):
        tiers = [
            (cat.price("kms.key_version.hsm_asymmetric.first2k", "global"), HSM_FIRST_TIER),
            (cat.price("kms.key_version.hsm_asymmetric.over2k", "global"), float("inf")),
        ]
        return protection, tiers, cat.price("kms.operations.hsm_asymmetric", "global")
    raise CostError(
        f"KMS key {res.name!r}: no catalog price for {protection} keys of algorithm {algorithm}"
    )


def estimate(res: Resource, ctx: PlanContext) -> Quote:
    """Active versions (tiered for HSM) and operations; the baseline is the same."""
    q = Quote()
    protection, tiers, ops = _prices(res, ctx)
    d = ctx.usage_of(res, Declared)
    added = _rotations(res.inputs.get("rotationPeriod"))
    versions = d.key_versions if d.key_versions is not None else 1.0
    for b in (q.governed, q.baseline):
        if d.key_versions is None and added is not None:
            b.note(
                f"rotationPeriod adds {added:.4g} versions a month, each billed until destroyed: "
                "declare `key_versions` for the active count"
            )
        left = versions
        for price, size in tiers:
            part = min(left, size)
            if part <= 0:
                break
            what = "key versions" if len(tiers) == 1 else f"key versions ({protection})"
            b.charge(what, price, part, f"{part:g} active version(s)")
            left -= part
        if d.monthly_key_operations is None:
            b.depends_on_usage("operations", ops, "monthly_key_operations", "per 10,000")
        else:
            b.charge(
                "operations",
                ops,
                d.monthly_key_operations / 10_000,
                f"{d.monthly_key_operations:g} operations",
            )
    return q
