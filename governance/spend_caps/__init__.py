"""Cloud Billing spend-cap budgets as a resource mlgov owns (pulumi-gcp cannot declare one).

body.py renders a cap's Budget API v1 body (pure); changes.py decides what an update may send and
whether a billing account may hold a cap (pure); api.py is the REST adapter (create, get, patch
with updateMask, delete, list, and the billing account's details); provider.py is the Pulumi
dynamic provider over them and the `SpendCapBudget` resource. The component that pairs each cap
with an alerts-only budget is governance/components/spend_caps.py; the operator commands
(`mlgov cap status`, `mlgov cap lift`) are governance/cli/spend_caps.py.
"""
