"""Cost estimates for mlgov plans: price catalog, usage assumptions, estimator, budget fit, diff.

Pure Python on purpose: nothing here imports pulumi or pulumi_gcp, so the offline CLI prices a
plan document quickly. The only cloud client (Cloud Billing Catalog API) is imported lazily inside
`refresh.py`. Layout: estimate.py drives an estimate; registry.py maps each resource type to its
cost model in resources/ (or to a reason it is free); a cost file registers its usage knobs
(usage_models.py), which assumptions.py composes; bill.py, context.py, machine_pricing.py,
disk_pricing.py, expiry.py and office_hours.py are the shared pieces the models use. Policy
rules live in policies/; the plan document is built by governance/review/plan.py.
"""
