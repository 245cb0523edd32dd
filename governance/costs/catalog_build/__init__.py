"""The regional price catalog: generated from Google's Billing Catalog export, loaded fast.

`python -m governance.costs.catalog_build --pricing pricing.yml --out prices_regional.json`
rebuilds `governance/costs/prices_regional.json` from the export published by
Cyclenerd/google-cloud-pricing-cost-calculator (Apache-2.0) plus the documented figures the
export lacks (`documented.json`, each with its source). `export.py` reads the export, `fit.py`
recovers per-family vCPU and RAM rates by an exact least-squares fit, `build.py` assembles the
catalog document; governance/costs/catalog.py reads it back at run time (stdlib JSON only).
How a resource is priced from these numbers is the estimator's business, not this package's.
"""
