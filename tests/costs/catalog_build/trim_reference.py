"""Write tests/costs/data/pricing-reference.yml: the part of the Billing Catalog export the
catalog tests need, so they run on a clean clone without ../shared.

    .venv/bin/python tests/costs/catalog_build/trim_reference.py /path/to/pricing.yml

The source is google-cloud-pricing-cost-calculator's pricing.yml (Copyright 2022-2025 Nils
Knieling, Apache-2.0; its `about` block with the licence text is kept verbatim). Kept: every
region, the machine types below (the stacks' and the program's defaults, plus enough types per
family for the rate fit to be identifiable), all disks, NAT/IP/VPN/egress and Cloud Storage.
Dropped: other machine types, licences, monitoring, China/Australia egress.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parents[1] / "data" / "pricing-reference.yml"
REFERENCE_TYPES = (
    # used by stacks/*.yaml and the defaults in governance/settings/
    "n1-standard-4", "n1-standard-8", "n1-standard-16", "n2-standard-4", "n2-standard-8",
    "n2-standard-16", "e2-standard-2", "e2-standard-4", "g2-standard-4", "g2-standard-8",
    "g2-standard-16",
    # a second RAM-per-vCPU ratio per family, so vCPU and RAM rates are identifiable
    "n1-highmem-2", "n2-highmem-2", "e2-highmem-2",
    # shapes the estimator knows: shared-core, custom N1, accelerator-optimized
    "e2-micro", "e2-small", "e2-medium", "f1-micro", "g1-small",
    "custom-1-7680-ext", "custom-2-10240-ext", "custom-4-30720-ext",
    "a2-highgpu-1g", "a2-ultragpu-1g", "a3-highgpu-1g",
)  # fmt: skip


def trim(doc: dict[str, Any]) -> dict[str, Any]:
    """The reference subset of a parsed export."""
    compute = doc["compute"]
    network = compute["network"]
    internet = network["traffic"]["egress"]["internet"]
    return {
        "about": doc["about"],
        "compute": {
            "instance": {name: compute["instance"][name] for name in REFERENCE_TYPES},
            "storage": compute["storage"],
            "network": {
                "nat": network["nat"],
                "ip": network["ip"],
                "vpn": network["vpn"],
                "traffic": {"egress": {"internet": {"cost": internet["cost"]}}},
            },
        },
        "storage": doc["storage"],
        "region": doc["region"],
        "dual-region": doc["dual-region"],
        "multi-region": doc["multi-region"],
    }


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    doc = yaml.load(Path(argv[0]).read_text(), Loader=yaml.CSafeLoader)
    header = (
        "# Trimmed copy of google-cloud-pricing-cost-calculator's pricing.yml (Apache-2.0,\n"
        "# Copyright 2022-2025 Nils Knieling; see about.copyright and the licence in\n"
        "# governance/costs/catalog_build/LICENSE-google-cloud-pricing-cost-calculator), generated\n"
        "# from Google's Cloud Billing Catalog. Written by\n"
        "# tests/costs/catalog_build/trim_reference.py; do not edit.\n"
    )
    body = yaml.dump(trim(doc), Dumper=yaml.CSafeDumper, sort_keys=True, width=100)
    OUT.write_text(header + body)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
