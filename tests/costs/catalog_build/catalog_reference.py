"""Where the catalog tests find their reference data and which machine types the stacks use.

The reference is tests/costs/data/pricing-reference.yml, a trimmed copy of Google's Billing
Catalog export (see trim_reference.py for its source and licence), so these tests need no
../shared on a clean clone. The full export is used where it exists (`full_export_path`).
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

from governance.costs.catalog_build.export import Export, read_export

REPO = Path(__file__).resolve().parents[3]
REFERENCE = REPO / "tests" / "costs" / "data" / "pricing-reference.yml"
FULL_EXPORT = Path("realdata") / "google-cloud-pricing" / "pricing.yml"
# a machine type name as the stacks and settings spell them (not db-* Cloud SQL tiers)
_MACHINE = re.compile(r"\b((?!db-)[a-z][a-z0-9]*-(?:standard|highmem|highcpu|hightpu)-\d+t?)\b")


def full_export_path() -> Path | None:
    """The full export: $MLGOV_PRICING_YML, or ../shared/realdata/... next to the checkout."""
    candidates = [os.environ.get("MLGOV_PRICING_YML", "")]
    candidates += [str(parent / "shared" / FULL_EXPORT) for parent in REPO.parents[:3]]
    return next((Path(c) for c in candidates if c and Path(c).is_file()), None)


@cache
def full_export() -> Export | None:
    """The full export, parsed once per process (about 3 s of YAML), or None where it is absent.

    test_every_catalog_type.py and test_regional_current.py both read it, and only read it (the
    builder and the walk never write to an export); tests/conftest.py keeps this folder's files
    on one xdist worker so that they share it.
    """
    path = full_export_path()
    return None if path is None else read_export(path)


def used_machine_types() -> set[str]:
    """Machine types the shipped stacks and the program's defaults name."""
    texts = [p.read_text() for p in sorted((REPO / "stacks").glob("Pulumi.*.yaml"))]
    texts += [p.read_text() for p in sorted((REPO / "governance" / "settings").glob("*.py"))]
    return {m for text in texts for m in _MACHINE.findall(text)}
