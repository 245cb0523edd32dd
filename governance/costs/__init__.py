"""Cost estimates for mlgov plans: price catalog, usage assumptions, estimator, budget fit, diff.

Pure Python on purpose: nothing here imports pulumi or pulumi_gcp, so the offline CLI prices a
plan document quickly. The only cloud client (Cloud Billing Catalog API) is imported lazily inside
`refresh.py`. Policy rules live in policies/; the plan document is built by governance/plan code.
"""
