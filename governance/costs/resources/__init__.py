"""One cost model per resource type: its usage assumptions, price lookups and explanation lines.

Each module has `estimate(resource, ctx) -> Quote` and, if the type has usage knobs, a pydantic
`*Usage` model it registers with `@usage_model` (usage_models.py), which assumptions.py composes
into `UsageAssumptions`. registry.py maps type
tokens to these functions; shared arithmetic lives one level up (machine_pricing.py, ...).
"""
